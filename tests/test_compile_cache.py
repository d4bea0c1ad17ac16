"""The persistent compilation cache (`shardc/runtime/compile_cache.py`, `sc.compilation_cache`).

The suite runs with the cache off (tests/conftest.py); every test here turns it on
for a folder of its own. Reference values are always a fresh XLA compile (cache
off, or the first, missing compile), never the cache itself.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jax
import numpy as np
import pytest
from click.testing import CliRunner

import shardc as sc
from shardc import P
from shardc.cli.main import main
from shardc.runtime import compile_cache as cc

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


@pytest.fixture
def cache(tmp_path):
    """The cache on, in a fresh 0700 folder; every override undone afterwards."""
    d = tmp_path / "cache"
    cc.set_cache_dir(d)
    cc.set_enabled(True)
    yield d
    cc.set_cache_dir(None)
    cc.set_enabled(None)
    cc.set_max_size(None)


def _env(cache_dir: Path | None, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHARDC_CACHE")}
    env.update({"SHARDC_CPU_DEVICES": "8", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)})
    if cache_dir is None:
        env["SHARDC_CACHE"] = "0"
    else:
        env["SHARDC_CACHE_DIR"] = str(cache_dir)
    env.update(extra)
    return env


def _mesh(devices=None, shape=(2, 4)):
    devs = np.array(devices if devices is not None else jax.devices()[:8])
    return sc.Mesh(devs.reshape(shape), ("X", "Y"))


def _program(scale: float = 2.0, donate: bool = False):
    """A fresh `sc.jit` (no in-memory executable) of a matmul whose partial sums are reduce-scattered."""
    def f(x, w):
        return sc.matmul(x, w, out_sharding=P("X", "Y")) * scale
    return sc.jit(f, donate_argnums=(0,) if donate else ())


def _args(mesh):
    rng = np.random.default_rng(0)
    with sc.set_mesh(mesh):
        x = sc.device_put(rng.standard_normal((8, 16)).astype(np.float32), P("X", "Y"))
        w = sc.device_put(rng.standard_normal((16, 16)).astype(np.float32), P("Y", None))
    return x, w


def _compile(mesh=None, **kw):
    mesh = mesh or _mesh()
    x, w = _args(mesh)
    with sc.set_mesh(mesh):
        c = _program(**kw).lower(x, w).compile()
        out = np.asarray(c(x, w))
    return c, out


def _colls(c) -> list:
    return sorted((k.kind, tuple(k.axes or ())) for k in c.collectives())


# --- hits and misses ---------------------------------------------------------------------------------
PROBE = '''
import json, sys
import numpy as np
import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("data", "model")))
sys.path.insert(0, sys.argv[1])
import megatron
rng = np.random.default_rng(0)
out = {}
for name in ("mlp", "residual_block"):
    prog = getattr(megatron, name)
    args = [sc.device_put(rng.standard_normal(t.shape).astype(np.float32), t.pspec)
            for t in prog.trace().in_types]
    c = prog.lower(*args).compile()
    out[name] = {"status": c.cache_outcome.status, "hit": c.cache_hit,
                 "values": np.asarray(c(*args)).tolist(),
                 "collectives": sorted([k.kind, list(k.axes or ()), k.bytes, k.source, [list(g) for g in k.groups],
                                        k.runs] for k in c.collectives()),
                 "hlo": c.as_text()}
print(json.dumps(out))
'''


def _instructions(hlo: str) -> str:
    """The partitioned HLO without its stack-frame tables, which a loaded executable numbers
    in another order (the op_name of every instruction, its source line, stays)."""
    lines = hlo.splitlines()
    start = next(i for i, line in enumerate(lines) if i and line.rstrip().endswith("{"))
    return re.sub(r" stack_frame_id=\d+", "", "\n".join(lines[:1] + lines[start:]))


def test_a_new_process_loads_the_executable_with_the_same_values_and_collectives(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, str(script), str(EX)], env=_env(tmp_path / "c"), capture_output=True,
                           text=True, timeout=300, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    for name in ("mlp", "residual_block"):
        assert (cold[name]["status"], cold[name]["hit"]) == ("miss", False)
        assert (warm[name]["status"], warm[name]["hit"]) == ("hit", True)
        assert warm[name]["values"] == cold[name]["values"]          # bit for bit
        assert warm[name]["collectives"] == cold[name]["collectives"]
        assert [c[:2] for c in cold[name]["collectives"]] == [["all-reduce", ["model"]]]
        assert _instructions(warm[name]["hlo"]) == _instructions(cold[name]["hlo"])
    assert len(cc.entries(tmp_path / "c")) == 2


def test_an_unchanged_program_hits_and_any_change_misses(cache, monkeypatch):
    base, ref = _compile()
    assert base.cache_outcome.status == "miss" and base.cache_outcome.stored and not base.cache_hit
    again, out = _compile()
    assert again.cache_hit and again.cache_outcome.path == base.cache_outcome.path
    assert again.cache_outcome.xla_seconds == round(base.cache_outcome.seconds, 6)
    np.testing.assert_array_equal(out, ref)
    assert _colls(again) == _colls(base) == [("all-reduce", ("Y",))]
    keys = {base.cache_outcome.key}
    changed = {
        "program": lambda: _compile(scale=3.0),
        "device order": lambda: _compile(_mesh(jax.devices()[:8][::-1])),
        "mesh shape": lambda: _compile(_mesh(shape=(4, 2))),
        "donation": lambda: _compile(donate=True),
    }
    for what, build in changed.items():
        c, _ = build()
        assert c.cache_outcome.status == "miss", what
        keys.add(c.cache_outcome.key)
        c2, _ = build()
        assert c2.cache_hit, what
    # a loaded executable keeps the donation: the donated argument's buffer is reused (deleted)
    mesh = _mesh()
    x, w = _args(mesh)
    with sc.set_mesh(mesh):
        c = _program(donate=True).lower(x, w).compile()
        out = np.asarray(c(x, w))
    assert c.cache_hit and x._jax.is_deleted() and not w._jax.is_deleted()
    np.testing.assert_array_equal(out, _compile(donate=True)[1])
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=1")
    c, _ = _compile()
    assert c.cache_outcome.status == "miss", "XLA flag"
    keys.add(c.cache_outcome.key)
    # a flag that only dumps (JAX leaves it out of its key too) is still a hit
    monkeypatch.setenv("XLA_FLAGS", os.environ["XLA_FLAGS"] + f" --xla_dump_to={cache.parent / 'dump'}")
    assert _compile()[0].cache_hit
    # another host CPU (a cache folder shared between machines): XLA's CPU code is built for the host's features
    monkeypatch.setattr(cc, "_host_cpu", lambda: "x86_64 another-cpu fpu sse2")
    c, _ = _compile()
    assert c.cache_outcome.status == "miss", "host CPU"
    keys.add(c.cache_outcome.key)
    assert len(keys) == 7 and len(cc.entries()) == 7


def test_a_multi_process_run_uses_the_cache_on_every_rank(tmp_path):
    """`shardc run --processes 2` twice: both ranks key the same entries (the process layout is
    in the key, not the rank), the second run loads them and prints the same values."""
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-m", "shardc.cli.main", "run", str(EX / "megatron.py"), "-q",
                            "--processes", "2", "--repeat", "1"], env=_env(tmp_path / "c"), capture_output=True,
                           text=True, timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stdout + r.stderr
        outs.append(r.stdout)
    # (in the first run a rank may already load an entry the other rank wrote a moment before)
    assert outs[1].count("XLA compile (cache hit)") == 2
    values = [re.findall(r"^out .*$", o, re.M) for o in outs]
    assert values[0] and values[0] == values[1]
    assert len(cc.entries(tmp_path / "c")) == 3


# --- bad entries -----------------------------------------------------------------------------------------
def _rewrite_header(blob: bytes, **changes) -> bytes:
    n = len(cc.MAGIC)
    hlen = int.from_bytes(blob[n:n + 4], "big")
    header = json.loads(blob[n + 4:n + 4 + hlen])
    header.update(changes)
    h = json.dumps(header).encode()
    body = cc.MAGIC + len(h).to_bytes(4, "big") + h + blob[n + 4 + hlen:-32]
    return body + hashlib.sha256(body).digest()     # a whole, well-formed entry: only the header is wrong


def _flip(blob: bytes) -> bytes:
    i = len(blob) // 2
    return blob[:i] + bytes([blob[i] ^ 0x40]) + blob[i + 1:]


TAMPER = {
    "corrupt": lambda p, o: p.write_bytes(_flip(p.read_bytes())),
    "truncated": lambda p, o: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "empty": lambda p, o: p.write_bytes(b""),
    "garbage": lambda p, o: p.write_bytes(os.urandom(4096)),
    "foreign jaxlib": lambda p, o: p.write_bytes(_rewrite_header(
        p.read_bytes(), versions=cc._versions().replace(f"jaxlib {jax.__version__}", "jaxlib 0.4.1"))),
    "another key": lambda p, o: p.write_bytes(_rewrite_header(p.read_bytes(), key="0" * 64)),
    "symlink": lambda p, o: (o.write_bytes(p.read_bytes()), p.unlink(), p.symlink_to(o)),
}
if os.getuid() == 0:      # (only root can give a file away)
    TAMPER["another user's"] = lambda p, o: os.chown(p, 4321, -1)


@pytest.mark.parametrize("kind", list(TAMPER))
def test_a_bad_entry_is_ignored_removed_and_replaced(cache, tmp_path, kind):
    first, ref = _compile()
    path = first.cache_outcome.path
    outside = tmp_path / "outside.xc"
    TAMPER[kind](path, outside)
    before = outside.read_bytes() if outside.exists() else None
    again, out = _compile()
    assert again.cache_outcome.status == "miss" and again.cache_outcome.stored, kind
    np.testing.assert_array_equal(out, ref)
    assert not path.is_symlink() and path.is_file()
    if before is not None:                   # the link's target was neither read as an entry nor touched
        assert outside.read_bytes() == before
    third, out3 = _compile()
    assert third.cache_hit
    np.testing.assert_array_equal(out3, ref)


UNSAFE = {"world-writable": (0o777, None, "writable by other users"),
          "group-writable": (0o770, None, "writable by other users"),
          "another user's": (0o700, 4321, "belongs to another user")}


@pytest.mark.parametrize("kind", list(UNSAFE) if os.getuid() == 0 else list(UNSAFE)[:2])
def test_an_unsafe_folder_is_not_used(cache, kind):
    """Loading an executable runs its code: a folder others can write to is not trusted."""
    mode, owner, why = UNSAFE[kind]
    cache.mkdir(mode=0o700)
    os.chmod(cache, mode)
    if owner is not None:
        os.chown(cache, owner, -1)
    cc._warned.clear()
    with pytest.warns(RuntimeWarning, match=why):
        c, _ = _compile()
    assert c.cache_outcome.status == "off" and why in c.cache_outcome.reason and cc.entries() == []
    if owner is not None:
        os.chown(cache, os.getuid(), -1)
    os.chmod(cache, 0o700)
    assert _compile()[0].cache_outcome.status == "miss"


# --- size cap --------------------------------------------------------------------------------------------
def test_eviction_keeps_the_size_under_the_cap_least_recently_used_first(cache):
    paths = {}
    for name, scale in (("a", 1.0), ("b", 2.0), ("c", 3.0)):
        paths[name] = _compile(scale=scale)[0].cache_outcome.path
    now = time.time()
    for age, name in ((300, "a"), (200, "b"), (100, "c")):
        os.utime(paths[name], (now - age, now - age))
    assert _compile(scale=1.0)[0].cache_hit            # "a" is now the most recently used
    sizes = {n: p.stat().st_size for n, p in paths.items()}
    cap = sizes["a"] + sizes["c"] + int(1.5 * max(sizes.values()))
    cc.set_max_size(cap)
    d = _compile(scale=4.0)[0].cache_outcome.path
    left = {e.path for e in cc.entries()}
    assert left == {paths["a"], paths["c"], d}            # "b", the least recently used, went
    assert cc.total_size() <= cap
    cc.set_max_size(cc.total_size() // 2)                  # a tighter cap: only the newest stays
    e = _compile(scale=5.0)[0].cache_outcome.path
    assert [x.path for x in cc.entries()] == [e] and cc.total_size() <= cc.max_size()
    cc.set_max_size(3 * max(sizes.values()))                # a stream of new programs: never over the cap
    for k in range(8):
        _compile(scale=10.0 + k)
        assert cc.total_size() <= cc.max_size() and len(cc.entries()) <= 3
    cc.set_max_size(10)                                     # an entry larger than the cap is not written
    c, _ = _compile(scale=6.0)
    assert c.cache_outcome.status == "miss" and not c.cache_outcome.stored


# --- concurrency -----------------------------------------------------------------------------------------
WRITER = '''
import os, sys, time
import numpy as np
import shardc as sc
from shardc import P
from shardc.runtime import compile_cache as cc
from shardc.runtime.devices import backend_for

d, sync = sys.argv[1], sys.argv[2]
mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)
f = sc.jit(lambda x, w: sc.matmul(x, w, out_sharding=P("X", None)) * 2.0)
x = sc.device_put(np.ones((8, 16), np.float32), P("X", "Y"))
w = sc.device_put(np.ones((16, 16), np.float32), P("Y", None))
with cc.disabled():
    c = f.lower(x, w).compile()
exe, devices = c.executable.exe, c.executable.devices
payload = exe.serialize()
text = c.lowered.as_text(locations=True)
from shardc.runtime.executable import _compile_options
key = cc.cache_key(text, devices, _compile_options(devices, len(devices)), backend_for(devices))
path = cc.Path(d) / f"shardc__lambda_-{key}.xc"
open(os.path.join(sync, str(os.getpid())), "w").close()
while len(os.listdir(sync)) < 2:     # both ready: start writing together
    time.sleep(0.001)
good = 0
for _ in range(40):     # both processes write the same entry over and over while reading it back
    assert cc._store(cc.Path(d), path, key, exe, backend_for(devices), 0.1)
    got = cc._read(path, key)
    good += got is not None and got[0] == payload
again = f.lower(x, w).compile()      # the entry both left behind loads and computes the same
same = np.array_equal(np.asarray(again(x, w)), np.asarray(c(x, w)))
print(good, again.cache_hit, same)
'''


def test_two_processes_writing_the_same_entry_leave_one_valid_entry(cache, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    cache.mkdir(mode=0o700)
    sync = tmp_path / "sync"
    sync.mkdir()
    procs = [subprocess.Popen([sys.executable, str(script), str(cache), str(sync)], env=_env(cache),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0, err
        assert out.split() == ["40", "True", "True"]     # every read saw a whole, valid entry
    assert [p.name for p in cache.iterdir()] == [e.path.name for e in cc.entries()]   # no temporary files
    assert len(cc.entries()) == 1


# --- configuration ------------------------------------------------------------------------------------------
def test_environment_settings(tmp_path, monkeypatch):
    cc.set_cache_dir(None)
    cc.set_enabled(None)
    for k in ("SHARDC_CACHE", "SHARDC_CACHE_DIR", "XDG_CACHE_HOME", "SHARDC_CACHE_MAX_BYTES"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cc.cache_dir() == tmp_path / "home" / ".cache" / "shardc"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cc.cache_dir() == tmp_path / "xdg" / "shardc"
    monkeypatch.setenv("SHARDC_CACHE_DIR", "")            # empty: as unset
    assert cc.cache_dir() == tmp_path / "xdg" / "shardc"
    monkeypatch.setenv("SHARDC_CACHE_DIR", str(tmp_path / "moved"))
    c, _ = _compile()
    assert c.cache_outcome.status == "miss" and c.cache_outcome.path.parent == tmp_path / "moved"
    assert (tmp_path / "moved").stat().st_mode & 0o777 == 0o700
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    for off in ("0", "false", "off", "no"):
        monkeypatch.setenv("SHARDC_CACHE", off)
        assert cc.cache_dir() is None and _compile()[0].cache_outcome.status == "off"
    monkeypatch.setenv("SHARDC_CACHE", "1")
    assert _compile()[0].cache_hit
    cc.set_enabled(False)                                  # the API overrides the environment
    assert _compile()[0].cache_outcome.status == "off"
    cc.set_enabled(None)
    for text, n in (("123", 123), ("512M", 512 << 20), ("2G", 2 << 30), ("64KiB", 64 << 10)):
        monkeypatch.setenv("SHARDC_CACHE_MAX_BYTES", text)
        assert cc.max_size() == n
    monkeypatch.setenv("SHARDC_CACHE_MAX_BYTES", "lots")
    with pytest.warns(RuntimeWarning, match="not a size"):
        assert cc.max_size() == cc.DEFAULT_MAX_BYTES


def test_api_set_dir_and_clear(cache, monkeypatch):
    assert sc.compilation_cache is cc and cc.cache_dir() == cache
    monkeypatch.setenv("SHARDC_CACHE_DIR", str(cache.parent / "env"))
    cc.set_cache_dir("")                                    # '' as None: back to the environment
    assert cc.cache_dir() == cache.parent / "env"
    monkeypatch.chdir(cache.parent)
    cc.set_cache_dir("rel")                                 # relative: from the current directory, now
    monkeypatch.chdir(ROOT)
    assert cc.cache_dir() == cache.parent / "rel"
    cc.set_cache_dir(cache)
    for bad in (-1, 1.5, "1G", True):
        with pytest.raises(sc.ShardcValueError, match="non-negative number of bytes"):
            cc.set_max_size(bad)
    _compile(scale=1.0)
    _compile(scale=2.0)
    (cache / "notes.txt").write_text("mine")
    assert len(cc.entries()) == 2
    assert cc.clear() == 2
    assert cc.entries() == [] and (cache / "notes.txt").read_text() == "mine"
    assert _compile()[0].cache_outcome.status == "miss"
    with cc.disabled():
        assert _compile()[0].cache_outcome.status == "off"
    assert _compile()[0].cache_hit


# --- the CLI ---------------------------------------------------------------------------------------------------
def test_shardc_run_twice_the_second_is_a_cache_hit_and_no_cache_skips_it(cache):
    runner = CliRunner()

    def run(*args):
        r = runner.invoke(main, ["run", str(EX / "megatron.py"), "-q", "--repeat", "1", *args],
                          catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return r.output

    cold, warm = run(), run()
    assert "XLA compile" in cold and "cache hit" not in cold
    assert warm.count("XLA compile (cache hit)") == 2
    values = [re.findall(r"^out .*$", o, re.M) for o in (cold, warm)]
    assert values[0] and values[0] == values[1]
    n = len(cc.entries())
    off = run("--no-cache")
    assert "cache hit" not in off and re.findall(r"^out .*$", off, re.M) == values[0]
    assert cc.is_enabled() and len(cc.entries()) == n      # the flag lasted for that command only
    r = runner.invoke(main, ["inspect", str(EX / "megatron.py"), "-q"], catch_exceptions=False)
    assert r.output.count("XLA executable: from the compilation cache") == 2, r.output
    r = runner.invoke(main, ["inspect", str(EX / "megatron.py"), "-q", "--no-cache"], catch_exceptions=False)
    assert r.output.count("compilation cache off") == 2, r.output


def test_no_cache_on_every_compiling_command(cache, tmp_path):
    runner = CliRunner()
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent('''
        import shardc as sc
        sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))

        @sc.jit
        def f(x: "f32[8@X,4]"):
            return sc.sin(x) * 3.0
    '''))
    for args in (["compile", str(script), "--emit", "hlo", "--no-cache"], ["run", str(script), "--no-cache"],
                 ["inspect", str(script), "--no-cache"], ["golden", str(EX / "megatron.py"), "--no-cache"]):
        r = runner.invoke(main, args, catch_exceptions=False)
        assert r.exit_code == 0, (args, r.output)
        assert cc.entries() == [], args
    r = runner.invoke(main, ["compile", str(script), "--emit", "hlo"], catch_exceptions=False)
    assert r.exit_code == 0 and len(cc.entries()) == 1
    # golden: the first run stores each program, the second loads (and so touches) them all
    r = runner.invoke(main, ["golden", str(EX / "megatron.py")], catch_exceptions=False)
    assert r.exit_code == 0 and len(cc.entries()) == 3, r.output
    old = time.time() - 1000
    for e in cc.entries():
        os.utime(e.path, (old, old))
    r = runner.invoke(main, ["golden", str(EX / "megatron.py")], catch_exceptions=False)
    assert r.exit_code == 0 and len(cc.entries()) == 3, r.output
    assert sum(e.last_used > old + 500 for e in cc.entries()) == 2       # mlp and residual_block were loaded


# --- what a cached run still pays: the interpreter's exit, rendering (bench/PROFILE.md §6) ---------------------
def test_the_command_line_freezes_the_gc_at_exit_and_still_runs_exit_handlers(tmp_path):
    """`shardc` from the command line freezes what is alive before the interpreter's last
    collection (0.25-0.35 s of CPU per run); exit handlers still run, exit codes are kept.
    A caller passing `args` (tests, embedding) keeps its collector as it was."""
    probe = textwrap.dedent('''
        import atexit, gc, sys
        atexit.register(lambda: print("at exit: frozen", gc.get_freeze_count() > 0, flush=True))
        from shardc.cli.main import main
        sys.argv = ["shardc", *sys.argv[1:]]
        main()
    ''')
    script = tmp_path / "s.py"
    script.write_text('import shardc as sc\nsc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))\n\n'
                      '@sc.jit\ndef f(x: "f32[8@X,4]"):\n    return x * x\n')
    for args, code in ((["check", str(script)], 0), (["check", str(tmp_path / "missing.py")], 2)):
        r = subprocess.run([sys.executable, "-c", probe, *args], env=_env(None), capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == code, (args, r.stdout, r.stderr)
        assert r.stdout.strip().endswith("at exit: frozen True"), (args, r.stdout, r.stderr)
    before = gc.get_freeze_count()
    r = CliRunner().invoke(main, ["check", str(script), "-q"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert gc.get_freeze_count() == before


def test_table_cells_are_printed_as_they_are_not_as_console_markup():
    """The run tables hold `Text` cells: a pytree key that looks like markup or an emoji code is printed
    literally (a `str` cell would be parsed, dropping '[red]' and turning ':thumbs_up:' into a glyph)."""
    import io

    from shardc.cli import render

    class Ty:
        local_shape = (4, 2)

        def __str__(self) -> str:
            return "float32[8@X,2]"

    class Prog:
        params = ["x"]

    labels = ["out['[red]a[/red]']", "out[':thumbs_up:']"]
    buf = io.StringIO()
    con = render.Console(file=buf, width=120, highlight=False, soft_wrap=False, no_color=True)
    con.print(render.types_table(Prog(), [Ty()], labels, [Ty(), Ty()]))
    con.print(render.outputs_table(labels, [np.zeros(2, np.float32)] * 2, lambda a: ("0", "0"), lambda a: "[0, 0]"))
    text = buf.getvalue()
    for label in labels:
        assert text.count(label) == 2, text
