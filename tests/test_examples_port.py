"""The porting promise on a whole script: examples/train_params.py is written against JAX's
names; run once as it is (shardc) and once with its import lines pointed at JAX, it must
print the same losses and parameter types. Only import lines are rewritten (plus the CPU
device count, which a JAX process sets through its config)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORTS = {
    "import shardc as jax": 'import jax\njax.config.update("jax_num_cpu_devices", 8)',
    "import shardc.numpy as jnp": "import jax.numpy as jnp",
    "from shardc import lax": "from jax import lax",
    "from shardc.sharding import PartitionSpec as P": "from jax.sharding import PartitionSpec as P",
}


def _as_jax(source: str) -> str:
    lines = source.splitlines()
    out = [IMPORTS.get(line, line) for line in lines]
    changed = [a for a, b in zip(lines, out) if a != b]
    assert len(changed) == len(IMPORTS), changed        # every import line was found, and only those changed
    text = "\n".join(out) + "\n"
    code = text.split('"""', 2)[2]                        # after the module docstring
    assert "shardc" not in "\n".join(line.split("#")[0] for line in code.splitlines())
    return text


def _run(path: Path) -> list[str]:
    env = dict(os.environ, SHARDC_CPU_DEVICES="8", SHARDC_CACHE="0")
    res = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300,
                         cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]
    return [line for line in res.stdout.splitlines() if re.match(r"step \d+: loss", line)]


def test_train_params_ports_by_its_imports(tmp_path):
    src = (ROOT / "examples" / "train_params.py").read_text()
    jax_file = tmp_path / "train_params_jax.py"
    jax_file.write_text(_as_jax(src))
    ours, theirs = _run(ROOT / "examples" / "train_params.py"), _run(jax_file)
    assert len(ours) == 3 and ours == theirs
    losses = [float(line.split("loss ")[1].split()[0]) for line in ours]
    assert losses[0] > losses[1] > losses[2]
