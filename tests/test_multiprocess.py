"""Multi-process execution (SPEC §5): K processes × N/K CPU devices on loopback
through `jax.distributed` (gloo collectives), launched by `sc.distributed.launch`
and by `shardc run --processes K`.

Every job here runs in child processes with a wall timeout (the launcher's,
and `subprocess.run`'s for the CLI), so a broken job fails the test instead
of hanging it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import shardc as sc

ROOT = Path(__file__).resolve().parent.parent
JOB_TIMEOUT = 50          # seconds: the launcher kills a job that runs longer

# The program every rank runs: explicit-mode reductions whose all-reduce crosses
# processes, and a shard_map psum; values checked per addressable shard.
PROGRAM = '''
import sys
import numpy as np
import shardc as sc
from shardc import P

rank, k = sc.distributed.process_index(), sc.distributed.process_count()
assert k == int(sys.argv[1]), (k, sys.argv)
mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)
flat = list(mesh.devices.flat)
# the global device list, ordered by process; ids are not dense (k * 2048 + local index)
assert [d.process_index for d in flat] == sorted(d.process_index for d in flat)
assert len({d.process_index for d in mesh.devices[:, 0]}) == 2       # X crosses processes
assert sum(d.process_index == rank for d in flat) == 8 // k


@sc.jit
def explicit(x: "f32[8@X,16@Y]", w: "f32[16@Y,4]"):
    s = sc.sum(x, axis=0)                                   # all-reduce over X
    y = sc.dot(x, w, out_sharding=P("X", None))             # all-reduce over Y
    return s, y, x * 2.0


@sc.jit
def manual(x: "f32[8@X,16@Y]"):
    f = sc.shard_map(lambda b: sc.psum(b, "X"), in_specs=P("X", "Y"), out_specs=P(None, "Y"))
    return f(x)


rng = np.random.default_rng(0)                  # the same global data on every rank
xg = rng.standard_normal((8, 16)).astype(np.float32)
wg = rng.standard_normal((16, 4)).astype(np.float32)


def local(spec, a):
    sh = sc.NamedSharding(mesh, spec)
    mine = sc.distributed.process_local_data(sh, a)
    return sc.make_array_from_process_local_data(sh, mine, a.shape)


x, w = local(P("X", "Y"), xg), local(P("Y", None), wg)
assert str(sc.typeof(x)) == "float32[8@X,16@Y]"
assert not x.to_jax().is_fully_addressable

kinds = {(c.kind, tuple(c.axes or ())) for c in explicit.lower().compile().collectives()}
assert ("all-reduce", ("X",)) in kinds and ("all-reduce", ("Y",)) in kinds, kinds


def check(name, arr, want, expect_type):
    assert str(sc.typeof(arr)) == expect_type, (name, sc.typeof(arr))
    shards = arr.addressable_shards
    assert len(shards) == 8 // k, (name, len(shards))
    for sh in shards:
        assert sh.device.process_index == rank
        np.testing.assert_allclose(np.asarray(sh.data), want[sh.index], rtol=1e-5, atol=1e-5, err_msg=name)


s, y, x2 = explicit(x, w)
check("sum", s, xg.sum(0), "float32[16@Y]")
check("dot", y, xg @ wg, "float32[8@X,4]")
check("mul", x2, xg * 2, "float32[8@X,16@Y]")
m = manual(x)
check("psum", m, xg.reshape(2, 4, 16).sum(0), "float32[4,16@Y]")

# the whole value, on every rank, through a reshard to replicated
np.testing.assert_allclose(sc.distributed.gather(y), xg @ wg, rtol=1e-5, atol=1e-5)
try:
    np.asarray(x2)
except sc.ShardcValueError as e:
    assert "addressable_shards" in str(e), e
else:
    raise AssertionError("np.asarray on an array spread over processes should raise")
assert "spread over processes" in repr(x2)
print(f"RANK {rank} OK")
'''

FAIL = '''
import sys, time
import numpy as np
import shardc as sc
from shardc import P

rank = sc.distributed.process_index()
mode = sys.argv[1]
mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)


@sc.jit
def f(x: "f32[8@X,16@Y]"):
    return sc.sum(x, axis=0)


sh = sc.NamedSharding(mesh, P("X", "Y"))
x = sc.make_array_from_process_local_data(
    sh, sc.distributed.process_local_data(sh, np.ones((8, 16), np.float32)), (8, 16))
if rank == 1 and mode == "before":
    raise RuntimeError("rank one fails before any collective")
if rank == 1 and mode == "stall":
    time.sleep(600)
f(x)
if rank == 1 and mode == "after":
    raise RuntimeError("rank one fails between collectives")
if rank == 1 and mode == "hang":
    time.sleep(600)
for _ in range(3):
    f(x)
print(f"RANK {rank} OK")
'''


def _script(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def _clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("SHARDC_CPU_DEVICES", "SHARDC_PLATFORM")}


# --- programs on several processes ---------------------------------------------------------------
@pytest.mark.parametrize("k,per", [(2, 4), (4, 2)], ids=["2x4", "4x2"])
def test_cross_process_all_reduce_and_psum(tmp_path, k, per):
    script = _script(tmp_path, "prog.py", PROGRAM)
    res = sc.distributed.launch(script, k, per, args=[str(k)], timeout=JOB_TIMEOUT, env=_clean_env())
    assert res.ok, res.message(tail_lines=40)
    for r in res.ranks:
        assert f"RANK {r.rank} OK" in r.stdout, (r.rank, r.stdout, r.stderr[-2000:])


def test_launch_a_function_and_results(tmp_path):
    """A 'module:function' target gets the args; its return value is the exit code."""
    mod = _script(tmp_path, "mp_target.py", '''
        import shardc as sc
        def main(argv):
            rank = sc.distributed.process_index()      # every rank starts the runtime together
            sc.distributed.barrier("started")
            print("rank", rank, "of", sc.distributed.process_count(), argv)
            return 3 if argv == ["fail"] and rank == 1 else 0
    ''')
    env = _clean_env()
    env["PYTHONPATH"] = os.pathsep.join([str(mod.parent), env.get("PYTHONPATH", "")])
    t0 = time.monotonic()
    res = sc.distributed.launch("mp_target:main", 2, 1, args=["fail"], timeout=JOB_TIMEOUT, env=env)
    assert time.monotonic() - t0 < JOB_TIMEOUT
    assert not res.ok and res.failed_rank == 1 and res.exit_code == 3
    assert res.message().startswith("rank 1 failed (exit code 3)")
    assert "rank 0 of 2 ['fail']" in res.ranks[0].stdout and "rank 1 of 2 ['fail']" in res.ranks[1].stdout
    with pytest.raises(sc.ShardcError, match="rank 1 failed"):
        res.check()


# --- failures end the whole job quickly, naming the rank ------------------------------------------
@pytest.mark.parametrize("mode", ["before", "after"])
def test_a_failing_rank_ends_the_job(tmp_path, mode):
    script = _script(tmp_path, "fail.py", FAIL)
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=[mode], timeout=JOB_TIMEOUT, env=_clean_env())
    took = time.monotonic() - t0
    assert not res.ok and res.exit_code != 0
    assert res.failed_rank == 1, res.message()
    msg = res.message()
    assert msg.startswith("rank 1 failed (exit code 1)"), msg
    assert "rank one fails" in msg
    assert took < 20, f"the job took {took:.1f} s to end after rank 1 failed"


def test_a_hung_rank_times_out_in_the_collective(tmp_path):
    """Rank 1 stops answering after a gloo connection exists: rank 0's collective
    times out (XLA_FLAGS collective timeout) instead of waiting 30 minutes."""
    script = _script(tmp_path, "fail.py", FAIL)
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=["hang"], timeout=JOB_TIMEOUT, collective_timeout=4,
                                env=_clean_env())
    took = time.monotonic() - t0
    assert not res.ok and not res.timed_out, res.message()
    assert "Gloo" in res.ranks[0].stderr and "Timed out" in res.ranks[0].stderr
    # the hung rank is named, not rank 0 whose collective timed out waiting for it (issue 15)
    assert res.failed_rank == 1 and res.failed_hung, res.message()
    assert res.message().startswith("rank 1 stopped answering (hung or stalled)"), res.message()
    assert took < 25, took


def test_the_wall_timeout_stops_a_stalled_job(tmp_path):
    script = _script(tmp_path, "fail.py", FAIL)
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=["stall"], timeout=8, env=_clean_env())
    took = time.monotonic() - t0
    assert res.timed_out and not res.ok and res.exit_code == 1
    assert all(r.killed for r in res.ranks)
    assert "timeout of 8 s" in res.message()
    assert took < 15, took


def test_two_jobs_on_one_port_fail_cleanly(tmp_path):
    """gRPC's SO_REUSEPORT lets two coordinators share a port; ranks of the two
    jobs may then meet. Each job must either run with its own ranks or fail
    fast (the job-token check, or the coordination service's own abort)."""
    script = _script(tmp_path, "prog.py", PROGRAM)
    port = sc.distributed.free_port()
    results = {}

    def go(name):
        results[name] = sc.distributed.launch(script, 2, 4, args=["2"], timeout=JOB_TIMEOUT, port=port,
                                              env=_clean_env())

    t0 = time.monotonic()
    threads = [threading.Thread(target=go, args=(n,)) for n in "AB"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOB_TIMEOUT + 10)
    assert time.monotonic() - t0 < 40
    for name, res in results.items():
        assert not res.timed_out, (name, res.message())
        if res.ok:
            assert all(f"RANK {r.rank} OK" in r.stdout for r in res.ranks)
        else:
            assert res.failed_rank is not None and res.message().startswith(f"rank {res.failed_rank} failed")


# --- set-up errors (in this process, nothing started) ------------------------------------------------
def test_initialize_is_loopback_only_and_needs_its_settings(monkeypatch):
    for k in [k for k in os.environ if k.startswith("SHARDC_DIST_")]:
        monkeypatch.delenv(k)
    with pytest.raises(sc.ShardcValueError, match="not on loopback"):
        sc.distributed.initialize("10.0.0.1:1234", 2, 0)
    with pytest.raises(sc.ShardcValueError, match="needs coordinator_address"):
        sc.distributed.initialize()
    with pytest.raises(sc.ShardcValueError, match="process_id must be in"):
        sc.distributed.initialize("127.0.0.1:1234", 2, 2)
    assert sc.distributed.process_index() == 0 and sc.distributed.process_count() == 1
    with pytest.raises(sc.ShardcValueError, match="importable function"):
        sc.distributed.launch(lambda argv: 0, 2, 1)
    with pytest.raises(sc.ShardcValueError, match="no such script"):
        sc.distributed.launch("nope/missing.py", 2, 1)


def test_process_local_data_on_one_process():
    """With one process every shard is local: the process-local slice is the whole array."""
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    sh = sc.NamedSharding(mesh, sc.P("X", "Y"))
    np.testing.assert_array_equal(sc.distributed.process_local_data(sh, a), a)
    arr = sc.make_array_from_process_local_data(sh, a)
    assert str(sc.typeof(arr)) == "float32[8@X,4@Y]"
    np.testing.assert_array_equal(sc.distributed.gather(arr), a)


# --- the CLI ------------------------------------------------------------------------------------------
def _shardc_cmd() -> list[str]:
    beside = Path(sys.executable).with_name("shardc")
    exe = str(beside) if beside.exists() else shutil.which("shardc")
    return [exe] if exe else [sys.executable, "-m", "shardc.cli.main"]


def _shardc(*args: str, cwd: Path = ROOT, timeout: float = 90) -> subprocess.CompletedProcess:
    env = _clean_env()
    env["NO_COLOR"] = "1"
    return subprocess.run(_shardc_cmd() + list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_cli_run_on_two_processes_matches_one(tmp_path):
    one, two = tmp_path / "one.npz", tmp_path / "two.npz"
    r1 = _shardc("run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--save", str(one))
    assert r1.returncode == 0, r1.stderr
    r2 = _shardc("run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--processes", "2",
                 "--save", str(two))
    assert r2.returncode == 0, r2.stderr
    out = r2.stdout
    assert "2 processes × 4 devices" in out and "float32[8@data,16]" in out
    assert "first run" in out and "steady-state run" in out and "[Gloo]" not in out
    assert out.count("out      (8, 16)") == 1          # one report, from rank 0
    a, b = np.load(one), np.load(two)
    assert sorted(a.files) == sorted(b.files)
    for key in a.files:
        np.testing.assert_allclose(b[key], a[key], rtol=1e-5, atol=1e-5, err_msg=key)


def test_cli_failing_rank_exits_non_zero_naming_it(tmp_path):
    script = _script(tmp_path, "boom.py", '''
        import shardc as sc
        sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))

        @sc.jit
        def f(x: "f32[8@X,4@Y]"):
            if sc.distributed.process_index() == 1:
                raise RuntimeError("rank one goes down")
            return sc.sum(x, axis=0)
    ''')
    t0 = time.monotonic()
    r = _shardc("run", str(script), "--processes", "2", "--timeout", "60")
    took = time.monotonic() - t0
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "rank 1 failed (exit code 1)" in r.stderr and "rank one goes down" in r.stderr
    assert took < 25, took


def test_cli_processes_usage_errors(tmp_path):
    r = _shardc("run", "examples/megatron.py", "--processes", "3")
    assert r.returncode == 2 and "cannot be split over --processes 3" in r.stderr
    small = _script(tmp_path, "small.py", '''
        import shardc as sc
        sc.set_mesh(sc.make_mesh((2, 2), ("X", "Y")))

        @sc.jit
        def f(x: "f32[8@X,4@Y]"):
            return x
    ''')
    r = _shardc("run", str(small), "--processes", "2")
    assert r.returncode == 2 and "run with --devices 4" in r.stderr, r.stderr
    assert "rank" not in r.stderr      # every rank failed alike: rank 0 said why, once
