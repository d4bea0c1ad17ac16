"""Multi-process execution (SPEC §5): K processes × N/K CPU devices on loopback
through `jax.distributed` (gloo collectives), launched by `sc.distributed.launch`
and by `shardc run --processes K`.

Every job here runs in child processes with a wall timeout (the launcher's,
and `subprocess.run`'s for the CLI), so a broken job fails the test instead
of hanging it.
"""
from __future__ import annotations

import os
import re
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
if rank == 1 and mode == "wait":
    sys.stderr.write(f"HANG-START {time.time()}\\n")
    __import__("threading").Event().wait()     # blocked outside any program, forever
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
    env = {**_clean_env(), "SHARDC_DIST_HANG_TIMEOUT": "0"}      # the backstop alone, without the watchdog
    res = sc.distributed.launch(script, 2, 4, args=["hang"], timeout=JOB_TIMEOUT, collective_timeout=4, env=env)
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
    env = {**_clean_env(), "SHARDC_DIST_HANG_TIMEOUT": "0"}      # the wall timeout alone, without the watchdog
    res = sc.distributed.launch(script, 2, 4, args=["stall"], timeout=8, env=env)
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


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory):
    """`shardc run examples/megatron.py -p mlp --processes 2 --save` (once per module): the
    reference for the jobs joined one process at a time."""
    path = tmp_path_factory.mktemp("two") / "two.npz"
    r = _shardc("run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--processes", "2", "--save", str(path))
    assert r.returncode == 0, r.stderr
    return path, r.stdout


def test_cli_run_on_two_processes_matches_one(tmp_path, two_process_run):
    one = tmp_path / "one.npz"
    two, out = two_process_run
    r1 = _shardc("run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--save", str(one))
    assert r1.returncode == 0, r1.stderr
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


# --- multi-host: `shardc run` as one process of a job it did not start (issue 15, item 5) ------------------
def _types(stdout: str) -> list[str]:
    """The report's type lines ('in  x    float32[8@data,16]    [4, 16]'), spacing normalised."""
    return [" ".join(ln.split()) for ln in stdout.splitlines() if ln.startswith(("in ", "out "))]


def _ranks(per_rank: list[tuple[list[str], dict]], timeout: float = 90) -> tuple[list, float]:
    """Start one `shardc run` per rank (its args, its extra environment) at once; wait for all.
    (completed processes in rank order, seconds until the last ended)."""
    base = _clean_env()
    base["NO_COLOR"] = "1"
    t0 = time.monotonic()
    procs = [subprocess.Popen(_shardc_cmd() + args, cwd=ROOT, env={**base, **extra}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for args, extra in per_rank]
    out = []
    try:
        for p in procs:
            o, e = p.communicate(timeout=max(1.0, timeout - (time.monotonic() - t0)))
            out.append(subprocess.CompletedProcess(p.args, p.returncode, o, e))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out, time.monotonic() - t0


def _assert_same_as_two_processes(rank0: subprocess.CompletedProcess, saved: Path, two_process_run) -> None:
    """Values (exactly, with their dtypes) and types equal those of `--processes 2`."""
    two, out = two_process_run
    assert _types(rank0.stdout) == _types(out) and _types(out), (rank0.stdout, out)
    a, b = np.load(saved), np.load(two)
    assert sorted(a.files) == sorted(b.files)
    for key in a.files:
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_loopback_addresses_bind():
    """The multi-host tests put ranks on 127.0.0.1 and 127.0.0.2: both are this machine's (Linux
    routes all of 127.0.0.0/8 to lo)."""
    import socket
    for host in ("127.0.0.1", "127.0.0.2"):
        with socket.socket() as s:
            s.bind((host, 0))
            assert s.getsockname()[0] == host
        assert sc.distributed.is_loopback(host)


def test_cli_ranks_joined_one_by_one_on_two_addresses_match_processes(tmp_path, two_process_run):
    """Two `shardc run --coordinator ... --process-id I` invocations, rank 1's collectives on
    127.0.0.2: the same types and the same numbers as `--processes 2`; only rank 0 reports."""
    port = sc.distributed.free_port()
    saved = tmp_path / "joined.npz"
    common = ["run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--coordinator", f"127.0.0.1:{port}",
              "--num-processes", "2", "--init-timeout", "60"]     # start-up on a loaded machine: no flakes
    (r0, r1), took = _ranks([(common + ["--process-id", "0", "--save", str(saved)], {}),
                             (common + ["--process-id", "1", "--host", "127.0.0.2"], {})])
    assert r0.returncode == 0 and r1.returncode == 0, (r0.stderr, r1.stderr)
    _assert_same_as_two_processes(r0, saved, two_process_run)
    assert _without_gloo_progress(r1.stdout) == "" and "process 1 of 2 × 4 devices" in r1.stderr, (r1.stdout,
                                                                                                     r1.stderr)
    assert "Traceback" not in r0.stderr + r1.stderr
    print(f"two ranks joined one by one: {took:.1f} s")


def _without_gloo_progress(stdout: str) -> str:
    """`stdout` less the progress line jaxlib's gloo transport writes straight to file descriptor 1
    while its ranks connect slowly (on a loaded machine: "Rank 1 is connected to 1 peer ranks.
    Expected number of connected peer ranks is : 1", at times interleaved into pieces such as a lone
    "3" line); it is not shardc's and shardc cannot silence it."""
    return "\n".join(ln for ln in stdout.splitlines()
                     if "peer ranks" not in ln and not re.fullmatch(r"\s*(Rank\s*)?\d*\s*", ln))


def _slurm_env(rank: int, job_id: int) -> dict:
    """What srun sets in task `rank` of a 2-node job on nodes 127.0.0.1 and 127.0.0.2."""
    return {"SLURM_JOB_ID": str(job_id), "SLURM_STEP_NODELIST": "127.0.0.[1-2]", "SLURM_JOB_NODELIST": "127.0.0.[1-2]",
            "SLURM_NTASKS": "2", "SLURM_PROCID": str(rank), "SLURM_LOCALID": "0", "SLURM_STEP_NUM_NODES": "2",
            "SLURM_NNODES": "2", "SLURM_NODEID": str(rank), "SLURMD_NODENAME": f"127.0.0.{rank + 1}"}


def _slurm_job_id() -> int:
    """A job id whose coordinator port (JAX: id % 4096 + 61440) is free now."""
    import random
    import socket
    for _ in range(200):
        job = random.randrange(1, 10**6)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", job % 4096 + 61440))
            except OSError:
                continue
        return job
    raise AssertionError("no free port in 61440..65535")


def test_slurm_job_settings_as_jax_detects_them(monkeypatch):
    """`cluster='slurm'`: the coordinator is the first node of SLURM_STEP_NODELIST on JAX's port
    for the job id, the rank and count from SLURM_PROCID / SLURM_NTASKS, the collectives on the
    task's node (SLURMD_NODENAME); JAX's own detection agrees."""
    from jax._src.clusters import ClusterEnv
    for k in [k for k in os.environ if k.startswith(("SLURM", "SHARDC_DIST_", "OMPI_", "JAX_COORDINATOR"))]:
        monkeypatch.delenv(k)
    with pytest.raises(sc.ShardcValueError, match="SLURM_JOB_ID, SLURM_STEP_NODELIST"):
        sc.distributed.job_settings(cluster="slurm")
    with pytest.raises(sc.ShardcValueError, match="no cluster environment found"):
        sc.distributed.job_settings(cluster="auto")
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(sc.ShardcValueError, match="needs KUBERNETES_SERVICE_HOST and the `kubernetes` package"):
        sc.distributed.job_settings(cluster="k8s")
    with pytest.raises(sc.ShardcValueError, match="cluster must be one of auto, slurm"):
        sc.distributed.job_settings(cluster="pbs")
    for k, v in _slurm_env(1, 4097).items():
        monkeypatch.setenv(k, v)
    want = ClusterEnv.auto_detect_unset_distributed_params(None, None, None, None, None, 10)
    assert want[:3] == ("127.0.0.1:61441", 2, 1)
    for method in ("slurm", "auto"):
        assert sc.distributed.job_settings(cluster=method) == ("127.0.0.1:61441", 2, 1, "127.0.0.2")
    assert sc.distributed.job_settings(process_id=0, cluster="slurm")[2] == 0      # explicit wins, as in JAX
    monkeypatch.setenv("JAX_COORDINATOR_PORT", "7000")
    assert sc.distributed.job_settings(cluster="slurm")[0] == "127.0.0.1:7000"
    monkeypatch.setenv("SLURM_STEP_NODELIST", "node[007-009],gpu1")
    with pytest.raises(sc.ShardcValueError, match="'node007:7000' is not on loopback.*unauthenticated"):
        sc.distributed.job_settings(cluster="slurm")


def test_open_mpi_job_settings_as_jax_detects_them(monkeypatch):
    from jax._src.clusters import ClusterEnv
    for k in [k for k in os.environ if k.startswith(("SLURM", "SHARDC_DIST_", "OMPI_", "JAX_COORDINATOR"))]:
        monkeypatch.delenv(k)
    with pytest.raises(sc.ShardcValueError, match="OMPI_MCA_orte_hnp_uri"):
        sc.distributed.job_settings(cluster="ompi")
    env = {"OMPI_MCA_orte_hnp_uri": "1531576320.0;tcp://127.0.0.1,10.148.0.1:34911", "OMPI_COMM_WORLD_SIZE": "4",
           "OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_LOCAL_RANK": "1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    want = ClusterEnv.auto_detect_unset_distributed_params(None, None, None, None, None, 10)
    assert want[0] == f"127.0.0.1:{1531576320 // 4096 % 4096 + 61440}" and want[1:3] == (4, 3)
    for method in ("ompi", "auto"):
        assert sc.distributed.job_settings(cluster=method) == (want[0], 4, 3, None)
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "4")
    with pytest.raises(sc.ShardcValueError, match=r"process_id must be in \[0, 4\), got 4 \(from the ompi environment"):
        sc.distributed.job_settings(cluster="ompi")


def test_cli_joins_a_simulated_slurm_job(tmp_path, two_process_run):
    """Each rank started with only what srun sets (`shardc run --cluster slurm`, as
    `jax.distributed.initialize()` in a SLURM job): the numbers of `--processes 2`."""
    job = _slurm_job_id()
    saved = tmp_path / "slurm.npz"
    common = ["run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--cluster", "slurm", "--init-timeout", "60"]
    (r0, r1), took = _ranks([(common + ["--save", str(saved)], _slurm_env(0, job)), (common, _slurm_env(1, job))])
    assert r0.returncode == 0 and r1.returncode == 0, (r0.stderr, r1.stderr)
    _assert_same_as_two_processes(r0, saved, two_process_run)
    assert "process 1 of 2" in r1.stderr
    print(f"simulated SLURM job: {took:.1f} s")


def test_job_settings_check_addresses(monkeypatch):
    for k in [k for k in os.environ if k.startswith(("SHARDC_DIST_", "SLURM", "JAX_COORDINATOR"))]:
        monkeypatch.delenv(k)
    assert sc.distributed.job_settings("localhost:1234", 2, 1) == ("127.0.0.1:1234", 2, 1, None)
    assert sc.distributed.job_settings("127.0.0.2:1234", 2, 0)[0] == "127.0.0.2:1234"
    with pytest.raises(sc.ShardcValueError, match="not on loopback.*allow_remote_coordinator=True"):
        sc.distributed.job_settings("10.1.2.3:1234", 2, 1)
    coord, n, pid, host = sc.distributed.job_settings("10.1.2.3:1234", 2, 1, allow_remote_coordinator=True,
                                                      host="127.0.0.1")
    assert (coord, n, pid, host) == ("10.1.2.3:1234", 2, 1, "127.0.0.1")
    with pytest.raises(sc.ShardcValueError, match="not an address of this machine"):
        sc.distributed.job_settings("127.0.0.1:1234", 2, 1, host="10.255.255.1")
    with pytest.raises(sc.ShardcValueError, match="HOST:PORT"):
        sc.distributed.job_settings("127.0.0.1", 2, 1)


def test_process_0_serves_the_coordinator_on_its_address_only(monkeypatch, capsys):
    """Never every interface (JAX's default '[::]:PORT'), unless the coordinator's host name
    resolves to loopback on process 0's host, which other hosts could not reach."""
    import socket

    from shardc.runtime import distributed as d
    for k in [k for k in os.environ if k.startswith(("SHARDC_DIST_", "JAX_COORDINATOR"))]:
        monkeypatch.delenv(k)
    assert d._settings("127.0.0.2:7000", 2, 0, 1, None, None).bind_address == "127.0.0.2:7000"
    assert d._settings("10.1.2.3:7000", 2, 0, 1, None, None, allow_remote=True,
                       host="127.0.0.1").bind_address == "10.1.2.3:7000"
    resolved = {"node7": "10.1.2.7", "debian": "127.0.1.1"}
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda h, p, *a, **k: (
        [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (resolved[h], p))] if h in resolved else real(h, p, *a, **k)))
    assert d._settings("node7:7000", 2, 0, 1, None, None, allow_remote=True,
                       host="127.0.0.1").bind_address == "node7:7000"
    assert d._settings("debian:7000", 2, 0, 1, None, None, allow_remote=True,
                       host="127.0.0.1").bind_address == "[::]:7000"
    assert "resolves to loopback here (127.0.1.1)" in capsys.readouterr().err
    monkeypatch.setenv("JAX_COORDINATOR_BIND_ADDRESS", "10.1.2.7:7000")
    assert d._settings("debian:7000", 2, 0, 1, None, None, allow_remote=True,
                       host="127.0.0.1").bind_address == "10.1.2.7:7000"


def _bad(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    r = _shardc("run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", *args, timeout=60)
    return r, time.monotonic() - t0


@pytest.mark.parametrize("args,code,phrase", [
    (["--coordinator", "127.0.0.1:{port}", "--num-processes", "2", "--process-id", "2"], 2,
     "--process-id must be in [0, 2), got 2: each of the 2 processes needs its own id 0..1"),
    (["--coordinator", "10.1.2.3:{port}", "--num-processes", "2", "--process-id", "1"], 2,
     "pass --allow-remote-coordinator"),
    (["--coordinator", "127.0.0.1:{port}", "--num-processes", "2"], 2, "needs process_id"),
    (["--cluster", "slurm"], 2, "not in that environment (it needs SLURM_JOB_ID"),
    (["--coordinator", "127.0.0.1:{port}", "--num-processes", "2", "--process-id", "0", "--processes", "2"], 2,
     "drop one of them"),
    (["--coordinator", "127.0.0.1:{port}", "--num-processes", "3", "--process-id", "0"], 2,
     "--devices 8 cannot be split over 3 processes"),
    (["--coordinator", "127.0.0.1:{port}", "--num-processes", "2", "--process-id", "1", "--host", "10.255.255.1"], 2,
     "not an address of this machine"),
], ids=["id-out-of-range", "remote-without-flag", "no-id", "no-slurm", "with-processes", "devices-split",
        "foreign-host"])
def test_cli_bad_job_settings_say_the_fix(args, code, phrase):
    env_clean = [k for k in os.environ if k.startswith("SLURM")]
    assert not env_clean, env_clean
    port = str(sc.distributed.free_port())
    r, took = _bad(*[a.replace("{port}", port) for a in args])
    assert r.returncode == code and phrase in " ".join(r.stderr.split()), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and took < 30, took


def test_cli_unreachable_coordinator_ends_in_time():
    """Rank 1 of a job whose rank 0 never starts: JAX would abort the process with a C++ stack
    after the init timeout; the command says what to check instead, within 15 s + start-up."""
    r, took = _bad("--coordinator", f"127.0.0.1:{sc.distributed.free_port()}", "--num-processes", "2",
                   "--process-id", "1")
    assert r.returncode == 3, (r.returncode, r.stderr)
    text = " ".join(r.stderr.split())
    assert "could not join the job at 127.0.0.1:" in text and "start process 0" in text.lower(), r.stderr
    assert "Check failure" not in r.stderr and "Traceback" not in r.stderr and "@ 0x" not in r.stderr
    print(f"unreachable coordinator: the command ended after {took:.1f} s (init timeout 10 s)")
    assert took < 15 + 15, took


def test_cli_ranks_started_with_other_settings_stop_at_once():
    """Rank 0 started for 2 processes, rank 1 for 3 (they meet: rank 1's id exists in a
    2-process job): both stop when they compare settings, naming the fix; rank 1 with another
    --seed: both stop before anything runs."""
    port = sc.distributed.free_port()
    common = ["run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--devices", "6", "--init-timeout", "60",
              "--coordinator", f"127.0.0.1:{port}"]
    (r0, r1), took = _ranks([(common + ["--num-processes", "2", "--process-id", "0"], {}),
                             (common + ["--num-processes", "3", "--process-id", "1"], {})], timeout=60)
    for r in (r0, r1):
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert "was started with" in r.stderr and "same number of processes" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    print(f"mismatched --num-processes: both ranks ended after {took:.1f} s")
    assert took < 30, took
    port = sc.distributed.free_port()
    common = ["run", "examples/megatron.py", "-p", "mlp", "--repeat", "1", "--coordinator", f"127.0.0.1:{port}",
              "--num-processes", "2", "--init-timeout", "60"]
    (r0, r1), took = _ranks([(common + ["--process-id", "0"], {}), (common + ["--process-id", "1", "--seed", "1"], {})],
                            timeout=60)
    for r in (r0, r1):
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert "rank 1 was started with other options than rank 0 (--seed 1 vs 0)" in " ".join(r.stderr.split())
    assert "out " not in r0.stdout


# --- a rank that hangs while the others wait for it in a program (issue 15, item 4) --------------------------
def _processes_with(mark: str) -> list[int]:
    """Live processes whose environment carries `mark` (a job's ranks and their children)."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark.encode() in f.read():
                    with open(f"/proc/{pid}/stat") as st:
                        if not st.read().split(") ")[-1].startswith("Z"):    # a zombie is gone already
                            out.append(int(pid))
        except OSError:
            pass
    return out


def _marked_env(**extra: str) -> tuple[dict, str]:
    import uuid
    mark = uuid.uuid4().hex
    return {**_clean_env(), "MULTIPROCESS_TEST_MARK": mark, **extra}, mark


def _since_hang(res) -> str:
    """Seconds from the hang (a rank's 'HANG-START <time>' line) to now, for the note."""
    m = re.search(r"HANG-START (\S+)", "".join(r.stderr for r in res.ranks))
    return f"{time.time() - float(m.group(1)):.1f} s from the hang, " if m else ""


@pytest.mark.parametrize("mode,line,where", [("hang", 29, "time.sleep(600)"),
                                             ("wait", 32, "Event().wait()")], ids=["sleep", "event-wait"])
def test_a_rank_hung_mid_run_is_named_within_15_s(tmp_path, mode, line, where):
    """Rank 1 sleeps, or waits for an event nobody sets, after the first run while rank 0 waits
    for it in the next run's all-reduce. The watchdog (heartbeats with each main thread's state
    and line) names rank 1, the line where it hangs, and ends every rank: not the collective
    timeout (300 s now; it was 60 s, ending this job after ~60 s)."""
    script = _script(tmp_path, "fail.py", FAIL)
    env, mark = _marked_env()
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=[mode], timeout=JOB_TIMEOUT, env=env)
    took = time.monotonic() - t0
    assert not res.ok and not res.timed_out and res.exit_code == 3, res.message()
    assert res.failed_rank == 1 and res.failed_hung, res.message()
    msg = res.message()
    assert msg.startswith("rank 1 stopped answering (hung or stalled)"), msg
    assert "rank 1 has been idle outside any program" in msg and f"fail.py:{line} in <module>" in msg, msg
    assert f"fail.py\", line {line}" in msg and where in msg, msg
    assert "rank 0 also failed" not in msg and "Timed out" not in res.ranks[0].stderr
    assert "Traceback" not in res.ranks[0].stderr, res.ranks[0].stderr[-2000:]
    print(f"hung rank ({mode}) named and the job ended {_since_hang(res)}{took:.1f} s from launch")
    assert took < JOB_TIMEOUT - 5, took
    assert _processes_with(mark) == []


SLOW = FAIL.replace('''if rank == 1 and mode == "hang":
    time.sleep(600)''', '''def chunk():
    return sum(range(1000))


def work(seconds):                       # a data load, say: its stack changes (a call per chunk)
    t = time.monotonic() + seconds
    while time.monotonic() < t:
        chunk()


if rank == 1 and mode == "busy":         # host work: slow, not hung
    work(4)                              # in the main thread,
    import threading
    loader = threading.Thread(target=work, args=(4,))
    loader.start()
    loader.join()                        # then in a thread the main thread waits for (a data loader)
if rank == 1 and mode == "gil":          # a C call that holds the GIL ~5 s (a regex): no heartbeat, busy
    import re
    t = time.monotonic()                 # its time doubles (x1.85) per character: sized on this machine, now
    re.match(r"(a+)+$", "a" * 20 + "b")
    n = 20 + max(0, round(math.log(5 / max(time.monotonic() - t, 1e-3), 1.85)))
    t = time.monotonic()
    re.match(r"(a+)+$", "a" * n + "b")
    sys.stderr.write(f"GIL-CALL {time.monotonic() - t:.1f} s\\n")
if rank == 1 and mode == "stop":
    import os, signal
    os.kill(os.getpid(), signal.SIGSTOP)   # frozen: no heartbeat''')


def test_a_slow_rank_is_not_taken_for_hung(tmp_path):
    """Rank 1 busy with host work for 8 s (4 s in its main thread, 4 s in a thread its main
    thread joins) while rank 0 waits at the first program's agreement, with a 3 s hang timeout:
    it uses CPU time, so the job finishes; rank 0 reports it, with its line, once it has kept
    rank 0 waiting 3 s (not again: reports repeat every 30 s)."""
    assert 'mode == "busy"' in SLOW
    script = _script(tmp_path, "slow.py", SLOW)
    env = {**_clean_env(), "SHARDC_DIST_HANG_TIMEOUT": "3"}
    res = sc.distributed.launch(script, 2, 4, args=["busy"], timeout=JOB_TIMEOUT, env=env)
    assert res.ok, res.message()
    assert all(f"RANK {r.rank} OK" in r.stdout for r in res.ranks)
    said = res.ranks[0].stderr
    assert said.count("shardc: rank 1 has kept the others waiting ") == 1, said
    report = said.split("shardc: rank 1 has kept the others waiting ")[1].splitlines()[0]
    assert re.search(r"running host code at \S*slow\.py:\d+ in \S+ \(busy: its main thread (uses CPU time|waits "
                     r"while its other threads or child processes use CPU time)(, on that line for \d+ s)?; not in a "
                     r"shardc program\)", report), report
    assert "set SHARDC_DIST_HOST_TIMEOUT=SECONDS, or press Ctrl-C" in report, report


def test_a_rank_in_a_long_call_holding_the_gil_is_not_taken_for_frozen(tmp_path):
    """Rank 1 in a regex that holds Python's GIL for ~5 s (its watchdog thread cannot send a
    heartbeat) while rank 0 waits, with a 3 s hang timeout: its process, on this machine, is
    running (not stopped) and uses CPU time, so it is busy, not frozen: reported, the job
    finishes (before: named frozen after 3 s)."""
    script = _script(tmp_path, "slow.py", SLOW.replace("import sys, time", "import math, sys, time"))
    env, mark = _marked_env(SHARDC_DIST_HANG_TIMEOUT="3")
    res = sc.distributed.launch(script, 2, 4, args=["gil"], timeout=JOB_TIMEOUT, env=env)
    assert res.ok, res.message()
    assert "rank 1 has kept the others waiting" in res.ranks[0].stderr, res.ranks[0].stderr
    assert "in a call that holds Python's GIL (busy" in res.ranks[0].stderr, res.ranks[0].stderr
    print(f"a call holding the GIL for {res.ranks[1].stderr.split('GIL-CALL ')[-1].split()[0]} s: reported, finished")
    assert _processes_with(mark) == []


def test_a_stopped_rank_is_named(tmp_path):
    """Rank 1 gets SIGSTOP mid-run: no heartbeat; rank 0 names it (not JAX's 'another task
    died' abort, which would blame rank 0)."""
    script = _script(tmp_path, "slow.py", SLOW)
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=["stop"], timeout=JOB_TIMEOUT, env=_clean_env())
    took = time.monotonic() - t0
    assert not res.ok and res.failed_rank == 1 and res.failed_hung, res.message()
    assert "rank 1 sent no heartbeat" in res.ranks[0].stderr, res.ranks[0].stderr[-2000:]
    print(f"stopped rank named after {took:.1f} s from launch")
    assert took < 15 + 15, took


# A rank hung inside a running program (a host callback) while the others wait for it in the
# program's collectives; and, with the same script, a slow job that progresses: rank 1 busy with
# host work (in its main thread, then in a child process) while rank 0 waits for it at the first
# program's agreement past that agreement's timeout, then a slow callback on every rank.
CALLBACK = '''
import subprocess, sys, time
import numpy as np
import shardc as sc
from shardc import P

rank = sc.distributed.process_index()
mode = sys.argv[1]
mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)


def hook(block):
    if mode == "slow":
        time.sleep(4)                          # every rank: slow (I/O, say), not hung
    if rank == 1 and mode == "sleep":
        sys.stderr.write(f"HANG-START {time.time()}\\n")
        time.sleep(600)                        # rank 1 hangs inside the program


def host_fn(a):
    if mode == "spin":
        sys.stderr.write(f"HANG-START {time.time()}\\n")
        while True:                            # the process of device 0 (rank 0) loops forever
            pass
    if mode == "compute":                      # ... or computes for 6 s: slow, not hung
        t = time.monotonic() + 6
        while time.monotonic() < t:
            sum(range(1000))
    return np.asarray(a) * 2


@sc.jit
def f(x: "f32[8@X,16@Y]"):
    def body(b):
        sc.debug.callback(hook, b)             # on every device, in the program
        return sc.psum(b, "X")
    return sc.shard_map(body, in_specs=P("X", "Y"), out_specs=P(None, "Y"))(x)


@sc.jit
def g(x: "f32[8@X,16@Y]"):
    y = sc.pure_callback(host_fn, sc.ShapeDtypeStruct((8, 16), np.float32), x)
    return sc.sum(y * x, axis=0)               # its result crosses processes


sh = sc.NamedSharding(mesh, P("X", "Y"))
x = sc.make_array_from_process_local_data(
    sh, sc.distributed.process_local_data(sh, np.ones((8, 16), np.float32)), (8, 16))
if rank == 1 and mode == "slow":
    t = time.monotonic() + 2
    while time.monotonic() < t:
        sum(range(1000))
    subprocess.run([sys.executable, "-c", "import time\\nt = time.monotonic() + 2\\nwhile time.monotonic() < t: pass"],
                   check=True)
for _ in range(2):
    f(x)
np.testing.assert_allclose(sc.distributed.gather(g(x)), np.full(16, 16.0))
print(f"RANK {rank} OK")
'''


@pytest.mark.parametrize("mode,hung,phrase,where", [
    ("sleep", 1, "has been inside a host callback of a program for", "time.sleep(600)"),
    ("spin", 0, "has been running a host callback at ", "while True:"),
], ids=["debug-callback-sleeps", "pure-callback-loops"])
def test_a_rank_hung_in_a_host_callback_is_named(tmp_path, mode, hung, phrase, where):
    """A host callback that sleeps (sc.debug.callback, on rank 1) or loops (sc.pure_callback,
    on device 0: rank 0) forever, while the other rank waits for it in the program's psum / the
    reshard of its result: the watchdog sees that rank inside a callback while its peer, inside
    the program, uses no CPU time, names it with the callback's line, and ends both (before: the
    300 s collective timeout): the sleeping one (no CPU time) at the hang timeout (6 s), the
    looping one (busy, as a slow callback) at SHARDC_DIST_HOST_TIMEOUT (3 s here, with a 3 s
    hang timeout, to spend less CPU time)."""
    script = _script(tmp_path, "cb.py", CALLBACK)
    env, mark = _marked_env(**({"SHARDC_DIST_HANG_TIMEOUT": "3", "SHARDC_DIST_HOST_TIMEOUT": "3"}
                               if mode == "spin" else {}))
    t0 = time.monotonic()
    res = sc.distributed.launch(script, 2, 4, args=[mode], timeout=JOB_TIMEOUT, env=env)
    took = time.monotonic() - t0
    assert not res.ok and not res.timed_out and res.exit_code == 3, res.message()
    assert res.failed_rank == hung and res.failed_hung, res.message()
    msg = res.message()
    assert msg.startswith(f"rank {hung} stopped answering (hung or stalled)"), msg
    said = " ".join(res.ranks[1 - hung].stderr.split())          # the rank that waited for it
    assert f"rank {hung} {phrase}" in said and "cb.py:" in said, said[-2000:]
    if mode == "spin":
        assert ("in host_fn (busy: using CPU time; inside a shardc program) while rank 1 waited" in said
                and "(SHARDC_DIST_HOST_TIMEOUT=3 s)" in said), said[-2000:]
    else:
        assert "in hook (hung: idle: it used no CPU time" in said, said[-2000:]
    assert "thread running a host callback was at" in msg and where in msg, msg     # where, in the summary
    assert all(r.returncode == 3 for r in res.ranks), res.returncodes
    print(f"rank hung in a host callback ({mode}) named, the job ended {_since_hang(res)}{took:.1f} s from launch")
    assert took < JOB_TIMEOUT - 5, took
    assert _processes_with(mark) == []


def test_a_long_computing_callback_is_reported_not_ended(tmp_path):
    """Rank 0's sc.pure_callback computes for 6 s while rank 1 waits for its result in the
    program's collective, with a 3 s hang timeout: a busy callback is slow, not hung (one that
    uses no CPU time is ended, above). Rank 0 reports itself, with the callback's line."""
    script = _script(tmp_path, "cb.py", CALLBACK)
    env, mark = _marked_env(SHARDC_DIST_HANG_TIMEOUT="3")
    res = sc.distributed.launch(script, 2, 4, args=["compute"], timeout=JOB_TIMEOUT, env=env)
    assert res.ok, res.message()
    assert all(f"RANK {r.rank} OK" in r.stdout for r in res.ranks)
    said = res.ranks[0].stderr
    assert said.count("shardc: rank 0 has kept the others waiting ") == 1, said
    assert re.search(r"it is running a host callback at \S*cb\.py:\d+ in host_fn \(busy: using CPU time; inside "
                     r"a shardc program\)", said), said
    assert _processes_with(mark) == []


def test_a_slow_job_that_progresses_is_not_taken_for_hung(tmp_path):
    """Hang and agreement timeouts of 3 and 2 s: rank 1 busy for 4 s (2 s in its main thread, 2 s
    in a child process it waits for) while rank 0 waits at the first program's agreement, then a
    4 s host callback on every rank, twice: all progress, the job finishes."""
    script = _script(tmp_path, "cb.py", CALLBACK)
    env = {**_clean_env(), "SHARDC_DIST_HANG_TIMEOUT": "3", "SHARDC_DIST_AGREE_TIMEOUT": "2"}
    res = sc.distributed.launch(script, 2, 4, args=["slow"], timeout=JOB_TIMEOUT, env=env)
    assert res.ok, res.message()
    assert all(f"RANK {r.rank} OK" in r.stdout for r in res.ranks)


def test_a_hung_process_of_a_joined_job_is_named_and_every_process_ends(tmp_path):
    """Multi-host faults: two processes joined one by one (`sc.distributed.launcher.join`, what
    `shardc run --coordinator` runs), process 1 hangs mid-run: no launcher kills anything, the
    watchdogs end both, process 1 saying where it hangs."""
    from shardc.runtime import launcher
    script = _script(tmp_path, "fail.py", FAIL)
    port = sc.distributed.free_port()
    results = {}

    def go(pid: int) -> None:
        results[pid] = launcher.join(script, f"127.0.0.1:{port}", 2, pid, 4, ["hang"],
                                     host="127.0.0.2" if pid else None, env=_clean_env())

    t0 = time.monotonic()
    threads = [threading.Thread(target=go, args=(pid,)) for pid in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOB_TIMEOUT)
    took = time.monotonic() - t0
    assert not any(t.is_alive() for t in threads), "a process of the job did not end"
    r0, r1 = results[0], results[1]
    assert r0.returncode == 3 and r1.returncode == 3, (r0.stderr[-2000:], r1.stderr[-2000:])
    assert "shardc: rank 0: rank 1 has been idle outside any program" in r0.stderr, r0.stderr[-2000:]
    assert "rank 1 was found hung by rank 0" in r1.stderr and "time.sleep(600)" in r1.stderr, r1.stderr[-2000:]
    print(f"hung process of a joined job: both ended after {took:.1f} s")
    assert took < 15 + 15, took


def test_sigterm_to_a_joined_process_leaves_nothing_behind():
    """`shardc run --coordinator ...` runs its process in a child: SIGTERM to the command
    stops that child too (process 0 alone, waiting for the others to join)."""
    import signal
    import uuid
    mark = uuid.uuid4().hex
    env = {**_clean_env(), "NO_COLOR": "1", "JOINED_TEST_MARK": mark}
    p = subprocess.Popen(_shardc_cmd() + ["run", "examples/megatron.py", "-p", "mlp", "--coordinator",
                                          f"127.0.0.1:{sc.distributed.free_port()}", "--num-processes", "2",
                                          "--process-id", "0", "--init-timeout", "60"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def marked() -> list[int]:
        return _processes_with(mark)

    try:
        deadline = time.monotonic() + 40
        while len(marked()) < 2 and time.monotonic() < deadline:     # the command and its child
            time.sleep(0.2)
        assert len(marked()) >= 2, marked()
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 128 + signal.SIGTERM, (p.returncode, err)
    assert "stopped by SIGTERM" in err and "Traceback" not in err, err
    deadline = time.monotonic() + 5
    while marked() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marked() == []


MULTIHOST = '''
import numpy as np
import shardc as sc
from shardc import P
from shardc.experimental import multihost_utils as mhu

rank = sc.distributed.process_index()
mesh = sc.make_mesh((2, 4), ("X", "Y"))
sc.set_mesh(mesh)
sh = sc.NamedSharding(mesh, P("X"))
data = np.arange(32, dtype=np.float32).reshape(8, 4)
x = sc.make_array_from_process_local_data(sh, sc.distributed.process_local_data(sh, data), (8, 4))
gathered = mhu.process_allgather(x, tiled=True)
assert isinstance(gathered, np.ndarray) and np.array_equal(gathered, data), gathered
got = mhu.broadcast_one_to_all({"step": np.int32(10 + rank), "v": np.full((3,), rank, np.float32)})
assert int(got["step"]) == 10 and not got["v"].any(), got
mhu.sync_global_devices("after broadcast")
mhu.assert_equal(np.int32(7))
try:
    mhu.assert_equal(np.int32(rank), "ranks differ")
except AssertionError as e:
    assert "ranks differ" in str(e), e
else:
    raise AssertionError("assert_equal of rank-dependent values should raise")
print(f"RANK {rank} OK")
'''


def test_multihost_utils_across_processes(tmp_path):
    """`jax.experimental.multihost_utils` under shardc's launcher (2 processes x 4 devices):
    process_allgather of a process-spread array, broadcast_one_to_all of rank 0's values, a
    barrier, assert_equal (JAX's AssertionError where the ranks' values differ)."""
    script = _script(tmp_path, "mhu.py", MULTIHOST)
    res = sc.distributed.launch(script, 2, 4, timeout=JOB_TIMEOUT, env=_clean_env())
    assert res.ok, res.message(tail_lines=40)
    for r in res.ranks:
        assert f"RANK {r.rank} OK" in r.stdout, (r.rank, r.stdout, r.stderr[-2000:])
