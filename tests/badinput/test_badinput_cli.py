"""Bad-input corpus (issue 15): the `shardc` command line.

Each case is a kind of bad option, file, folder or environment variable (or a
program that fails in a way the CLI must classify) and asserts what a user sees:
the documented exit code (cli/boundary.py: 1 program, 2 usage, 3 runtime, 4 shardc
bug), the key phrase on stderr, no Python traceback (only with --debug), and that
no file in the working folder was changed except the ones the case may write.
Most cases run in-process (click's runner); those that depend on the environment
at import, or that could hang (a FIFO), run `shardc` in a subprocess with a timeout.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import shardc as sc
from shardc.cli.main import main

OK = """\
import shardc as sc

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def f(x: "f32[8@X,4]"):
    return x * 2
"""

TWO = OK + """

@sc.jit
def g(x: "f32[8@X,4]"):
    return x + 1
"""

TYPO = """\
import shardc as sc

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def f(x: "f32[8@(X,]"):
    return x * 2
"""

RAISES = """\
import shardc as sc

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def f(x: "f32[8@X,4]"):
    raise KeyError("the user's own bug")
"""

OOM = """\
import shardc as sc
import shardc.numpy as jnp
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def big(x: "f32[8@X,4]"):
    return jnp.zeros((2**40,), out_sharding=P("X")) + x.sum()
"""

BIG_INPUT = """\
import shardc as sc

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def f(x: "f32[1099511627776@X]"):
    return x * 2
"""

HUGE = """\
import shardc as sc

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def f(x: "f32[4294967296,4294967296]"):
    return x + 1
"""


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: its kind and (regular files) the hash of its bytes."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_symlink():
            out[rel] = "link->" + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = "special"
    return out


def _setup(tmp: Path, files: dict) -> None:
    for name, body in files.items():
        p = tmp / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if body == "<dir>":
            p.mkdir(exist_ok=True)
        elif body == "<fifo>":
            os.mkfifo(p)
        elif isinstance(body, tuple) and body[0] == "<link>":
            p.symlink_to(body[1])
        elif isinstance(body, bytes):
            p.write_bytes(body)
        elif body == "<npz-bad-shape>":
            np.savez(p, **{"f.x": np.zeros((3, 3), np.float32)})
        else:
            p.write_text(textwrap.dedent(body))


# (case, files, args, exit code, phrase in the output, files the case may write)
CASES = [
    ("script is bad UTF-8", {"s.py": b"import shardc as sc\nx = '\xff\xfe'\n"}, ["check", "s.py"], 1,
     "can't decode byte 0xff", ()),
    ("script has a syntax error", {"s.py": "x = [\n"}, ["check", "s.py"], 1, "was never closed", ()),
    ("script is not a .py file", {"s.txt": OK}, ["check", "s.txt"], 2, "is not a Python script", ()),
    ("script does not exist", {}, ["check", "nope.py"], 2, "does not exist", ()),
    ("script is a folder", {"d.py": "<dir>"}, ["check", "d.py"], 2, "is a directory", ()),
    ("script defines no programs", {"s.py": "x = 1\n"}, ["check", "s.py"], 2, "defines no programs", ()),
    ("no such program", {"s.py": OK}, ["check", "s.py", "-p", "nope"], 2, "no program named `nope`", ()),
    ("type string that does not parse", {"s.py": TYPO}, ["check", "s.py"], 1,
     "s.py:7: type of parameter `x` of `f`", ()),
    ("type string beyond int64", {"s.py": HUGE}, ["compile", "s.py"], 1, "more than the largest int64", ()),
    ("user's code raises while tracing", {"s.py": RAISES}, ["check", "s.py"], 1, "raised by your code", ()),
    ("inputs larger than the host's memory", {"s.py": BIG_INPUT}, ["run", "s.py"], 3,
     "bytes of host memory (4096.0 GiB", ()),
    ("program out of device memory", {"s.py": OOM}, ["run", "s.py", "--repeat", "1"], 3,
     "out of device memory while running the program", ()),
    ("-o is the script", {"s.py": OK}, ["compile", "s.py", "-o", "s.py"], 2, "that is the script", ()),
    ("-o in a missing folder that cannot be made", {"s.py": OK}, ["compile", "s.py", "-o", "/proc/nope/x.mlir"], 2,
     "cannot write it", ()),
    ("-o under a file (a file where a folder should be)", {"s.py": OK, "plain": "x"},
     ["compile", "s.py", "-o", "plain/x.mlir"], 2, "cannot write it", ()),
    ("-o is a folder", {"s.py": OK, "out": "<dir>"}, ["compile", "s.py", "-o", "out"], 2, "not a regular file", ()),
    ("-o is a symbolic link", {"s.py": OK, "target.txt": "keep", "link.mlir": ("<link>", "target.txt")},
     ["compile", "s.py", "-o", "link.mlir"], 2, "symbolic link", ()),
    ("-o names a file for several programs", {"s.py": TWO, "one.txt": "keep"},
     ["compile", "s.py", "-o", "one.txt"], 2, "must name a folder", ()),
    ("--save into a folder that cannot be made", {"s.py": OK}, ["run", "s.py", "--repeat", "1", "--save",
                                                                "/proc/nope/x.npz"], 2, "cannot write it", ()),
    ("--inputs is not an .npz", {"s.py": OK, "in.npz": "not numpy"}, ["run", "s.py", "--inputs", "in.npz"], 2,
     "cannot read --inputs", ()),
    ("--inputs has the wrong shape", {"s.py": OK, "in.npz": "<npz-bad-shape>"},
     ["run", "s.py", "--inputs", "in.npz"], 2, "has shape (3, 3)", ()),
    ("--devices 100000", {"s.py": OK}, ["check", "s.py", "--devices", "100000"], 2, "from 1 to 4096", ()),
    ("--devices 0", {"s.py": OK}, ["check", "s.py", "--devices", "0"], 2, "not in the range", ()),
    ("--link malformed", {"s.py": OK}, ["check", "s.py", "--cost", "--link", "X"], 2, "expected AXIS=GBPS", ()),
    ("--golden-dir is a file", {"ex/s.py": OK, "g": "x"}, ["golden", "ex", "--golden-dir", "g"], 2, "is a file", ()),
    ("--golden-dir cannot be made", {"ex/s.py": OK}, ["golden", "ex", "--golden-dir", "/proc/nope", "--update"], 2,
     "No such file or directory", ()),
    ("a golden file is a folder", {"ex/s.py": OK, "g/s/f.typed.txt": "<dir>"},
     ["golden", "ex", "--golden-dir", "g", "--update"], 1, "not a regular file",
     ("g/s/f.stablehlo.mlir", "g/s/f.collectives.txt", "g/s/f.out.txt")),
]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _may_change(rel: str, allowed: tuple[str, ...]) -> bool:
    return any(rel.startswith(a) for a in allowed)


@pytest.mark.parametrize("case,files,args,code,phrase,allowed", CASES, ids=[c[0] for c in CASES])
def test_bad_cli_input(in_tmp, case, files, args, code, phrase, allowed):
    _setup(in_tmp, files)
    before = snapshot(in_tmp)
    r = CliRunner().invoke(main, args, catch_exceptions=False)
    out = r.stdout + r.stderr
    assert r.exit_code == code, (r.exit_code, out[-3000:])
    assert phrase in out, out[-3000:]
    assert "Traceback (most recent call last)" not in out, out[-3000:]
    after = snapshot(in_tmp)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert all(_may_change(k, allowed) for k in changed), changed
    # what existed before is still there, unchanged (outside the allowed paths)
    assert all(after.get(k) == v for k, v in before.items() if not _may_change(k, allowed))


def test_golden_folder_in_odd_states(in_tmp):
    """A directory, a symlink and a FIFO among the goldens: reported, never read, written,
    followed or deleted; a NOTES.md is kept (in a subprocess: a FIFO once hung `golden`)."""
    _setup(in_tmp, {"ex/s.py": TWO, "g/s/f.typed.txt": "<dir>", "g/s/g.typed.txt": "<fifo>",
                    "outside.txt": "keep", "g/s/f.out.txt": ("<link>", "../../outside.txt"), "g/s/NOTES.md": "mine"})
    before = snapshot(in_tmp)
    r = _shardc(in_tmp, "golden", "ex", "--golden-dir", "g", "--update")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    for name in ("f.typed.txt", "g.typed.txt", "f.out.txt"):
        assert f"s/{name}: not a regular file" in r.stdout + r.stderr, (name, r.stdout, r.stderr)
    after = snapshot(in_tmp)
    for k in ("g/s/f.typed.txt", "g/s/g.typed.txt", "g/s/f.out.txt", "g/s/NOTES.md", "outside.txt", "ex/s.py"):
        assert after[k] == before[k], k


def test_internal_error_is_a_summary_and_the_traceback_comes_with_debug(in_tmp, monkeypatch):
    """A bug in shardc (simulated: a shardc function fails while building) is exit 4 and
    says it is a shardc bug, without a traceback; --debug shows the traceback."""
    _setup(in_tmp, {"s.py": OK})
    monkeypatch.setattr(sc.stages.Jit, "trace", lambda self, *a, **k: sc.types.check_extent(None, None))
    r = CliRunner().invoke(main, ["check", "s.py"], catch_exceptions=False)
    assert r.exit_code == 4, r.stderr
    assert "a shardc bug" in r.stderr and "Traceback (most recent call last)" not in r.stderr
    assert "--debug" in r.stderr
    for args in (["check", "s.py", "--debug"], ["--debug", "check", "s.py"]):
        r = CliRunner().invoke(main, args, catch_exceptions=False)
        assert r.exit_code == 4 and "Traceback (most recent call last)" in r.stderr, r.stderr


def _shardc(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    beside = Path(sys.executable).with_name("shardc")
    exe = [str(beside)] if beside.exists() else [shutil.which("shardc") or sys.executable, "-m", "shardc.cli.main"]
    e = {k: v for k, v in os.environ.items() if not k.startswith("SHARDC_")}
    e.update({"NO_COLOR": "1", "SHARDC_CACHE": "0", **(env or {})})
    return subprocess.run(exe + list(args), cwd=cwd, env=e, capture_output=True, text=True, timeout=240)


ENV_CASES = [
    # (case, environment, exit code, phrase on stderr)
    ("SHARDC_CPU_DEVICES not a number", {"SHARDC_CPU_DEVICES": "abc"}, 2, "Invalid value for '--devices'"),
    ("SHARDC_CPU_DEVICES too large", {"SHARDC_CPU_DEVICES": "100000"}, 2, "from 1 to 4096"),
    ("SHARDC_PLATFORM unknown", {"SHARDC_PLATFORM": "xyz"}, 2, "Invalid value for '--platform'"),
    ("SHARDC_CACHE_MAX_BYTES not a size", {"SHARDC_CACHE": "1", "SHARDC_CACHE_MAX_BYTES": "abc"}, 0,
     "is not a size"),
    ("SHARDC_CACHE_DIR is a file", {"SHARDC_CACHE": "1", "SHARDC_CACHE_DIR": "plain"}, 0,
     "compilation cache is not used"),
]


@pytest.mark.parametrize("case,env,code,phrase", ENV_CASES, ids=[c[0] for c in ENV_CASES])
def test_bad_environment_variables(tmp_path, case, env, code, phrase):
    _setup(tmp_path, {"s.py": OK, "plain": "x"})
    before = snapshot(tmp_path)
    r = _shardc(tmp_path, "run", "s.py", "--repeat", "1", env=env)
    assert r.returncode == code, r.stderr[-3000:]
    assert phrase in r.stderr, r.stderr[-3000:]
    assert "Traceback" not in r.stdout + r.stderr
    assert snapshot(tmp_path) == before
