"""The README's tour runs as written (the multi-process snippet needs a launcher
and is exercised by tests/test_multiprocess.py instead)."""
import pathlib
import re

import pytest

import shardc as sc

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs():
    text = README.read_text()
    tour = text.split("## Multi-process")[0]
    code = "\n".join(re.findall(r"```python\n(.*?)```", tour, re.S))
    assert "sc.make_mesh" in code
    lines = []
    for line in code.splitlines():
        if "# ShardingTypeError" in line:
            # the README shows this call failing: check it does
            stmt = line.split("#")[0].strip()
            lines.append(f"with __pytest.raises(__sc.ShardingTypeError):\n    {stmt}")
        else:
            lines.append(line)
    with sc.set_mesh(None):
        exec(compile("\n".join(lines), str(README), "exec"), {"__pytest": pytest, "__sc": sc})
