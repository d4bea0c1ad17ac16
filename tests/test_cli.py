"""The `shardc` command line.

The first part runs every command through the installed entry point in a
subprocess (exit codes and output as a user sees them); the rest runs the
commands in-process with click's CliRunner (error paths, options, files).
"""
from __future__ import annotations

import os
import re
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

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


def _shardc_cmd() -> list[str]:
    """The installed `shardc` of this interpreter's environment (else the one on PATH)."""
    beside = Path(sys.executable).with_name("shardc")
    exe = str(beside) if beside.exists() else shutil.which("shardc")
    return [exe] if exe else [sys.executable, "-m", "shardc.cli.main"]


def shardc(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SHARDC_CPU_DEVICES", "SHARDC_PLATFORM")}
    env["NO_COLOR"] = "1"
    return subprocess.run(_shardc_cmd() + list(args), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def write(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


BAD = """\
import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def fine(x: "f32[8@X,4]"):
    return sc.sin(x)


@sc.jit
def ambiguous(x: "f32[8,4@X]", w: "f32[4@X,16]"):
    return sc.dot(x, w)
"""


# --- through the installed entry point ----------------------------------------------------------
def test_entry_point_help_and_version():
    r = shardc("--help")
    assert r.returncode == 0
    for cmd in ("check", "compile", "run", "inspect", "golden"):
        assert cmd in r.stdout
    r = shardc("--version")
    assert r.returncode == 0 and sc.__version__ in r.stdout


def test_check_prints_typed_ir():
    r = shardc("check", "examples/megatron.py")
    assert r.returncode == 0, r.stderr
    assert "{ lambda ; a:f32[8@data,16] b:f32[16,64@model]" in r.stdout
    assert "out_sharding=P('data', None)" in r.stdout
    assert "2 program(s) type-check" in r.stdout


def test_check_type_error_names_the_line_and_exits_1(tmp_path):
    bad = write(tmp_path, "bad.py", BAD)
    r = shardc("check", str(bad))
    assert r.returncode == 1
    assert "dot_general" not in r.stdout.split("ambiguous")[-1]      # no IR for the failed program
    assert "sin" in r.stdout                                          # the good one is still shown
    line = BAD.splitlines().index("    return sc.dot(x, w)") + 1
    assert "error in `ambiguous`" in r.stderr
    assert f"{bad.resolve()}:{line}" in r.stderr                      # the user's file:line
    assert "out_sharding=" in r.stderr                                # and the fix
    assert "1 of 2 program(s) failed to type-check: ambiguous" in r.stderr


def test_compile_emits_each_stage(tmp_path):
    r = shardc("compile", "examples/megatron.py", "-p", "mlp")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("module @shardc_mlp")
    assert 'sdy.mesh @mesh = <["data"=2, "model"=4]>' in r.stdout
    assert "loc(" not in r.stdout
    out = tmp_path / "mlp.hlo"
    r = shardc("compile", "examples/megatron.py", "-p", "mlp", "--emit", "hlo", "-o", str(out))
    assert r.returncode == 0, r.stderr
    hlo = out.read_text()
    assert hlo.startswith("HloModule shardc_mlp") and "all-reduce(" in hlo


def test_run_prints_types_values_and_timings(tmp_path):
    npz = tmp_path / "io.npz"
    r = shardc("run", "examples/ambiguous_dot.py", "--seed", "1", "--save", str(npz))
    assert r.returncode == 0, r.stderr
    assert "devices: 8 × cpu on mesh (X=2, Y=4)" in r.stdout
    assert "float32[8,16@Y]{U:X}" in r.stdout
    for phase in ("trace", "type check", "emit", "verify", "XLA compile", "first run", "steady-state run"):
        assert phase in r.stdout
    saved = np.load(npz)
    outs = [saved[f"{p}.out.0"] for p in ("all_reduce", "reduce_scatter", "unreduced",
                                            "unreduced_then_reshard")]
    for o in outs[1:]:                       # same inputs, same numbers: the fixes agree
        np.testing.assert_allclose(o, outs[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs[0], saved["all_reduce.x"] @ saved["all_reduce.w"], rtol=1e-4, atol=1e-4)


def test_inspect_megatron_one_all_reduce_on_the_row_parallel_line():
    r = shardc("inspect", "examples/megatron.py", "-p", "mlp")
    assert r.returncode == 0, r.stderr
    src = (EX / "megatron.py").read_text().splitlines()
    line = next(i for i, l in enumerate(src, 1) if "sc.dot(h, w2" in l and "def" not in l)
    rows = [l for l in r.stdout.splitlines() if re.match(r"\s*(all-reduce|all-gather|reduce-scatter|"
                                                         r"all-to-all|collective-permute)\b", l)]
    assert len(rows) == 1, r.stdout
    assert re.search(rf"all-reduce\s+model\s+256 B\s+1\s+megatron\.py:{line}\s+y = sc\.dot\(h, w2", rows[0])
    assert "memory" in r.stdout and "arguments" in r.stdout and "temporaries" in r.stdout
    assert "in w1: float32[16,64@model]" in r.stdout and "CPU 0,4" in r.stdout


def test_golden_entry_point_passes_on_one_example():
    r = shardc("golden", "examples/fsdp.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "8 golden file(s) checked, 0 mismatch(es)" in r.stdout


def test_error_exits_through_the_entry_point(tmp_path):
    r = shardc("check", "examples/megatron.py", "-p", "nope")
    assert r.returncode == 2 and "no program named `nope`" in r.stderr and "mlp, residual_block" in r.stderr
    r = shardc("run", "no/such/script.py")
    assert r.returncode == 2 and "does not exist" in r.stderr
    broken = write(tmp_path, "broken.py", "import shardc as sc\nraise RuntimeError('boom')\n")
    r = shardc("check", str(broken))
    assert r.returncode == 1
    assert "broken.py failed to import" in r.stderr and "line 2" in r.stderr and "RuntimeError: boom" in r.stderr
    assert "importlib" not in r.stderr


def test_devices_are_configured_before_the_script_is_imported(tmp_path):
    four = write(tmp_path, "four.py", """\
        import jax
        import shardc as sc
        assert len(jax.devices()) == 4, jax.devices()
        sc.set_mesh(sc.make_mesh((4,), ("i",)))

        @sc.jit
        def double(x: "f32[8@i]"):
            return 2 * x
        """)
    r = shardc("run", str(four), "--devices", "4", "--repeat", "1")
    assert r.returncode == 0, r.stderr
    assert "devices: 4 × cpu on mesh (i=4)" in r.stdout
    r = shardc("check", "examples/megatron.py", "--devices", "4")     # its mesh needs 8
    assert r.returncode == 1 and "needs 8 devices" in r.stderr and "--devices 8" in r.stderr


# --- in-process (CliRunner) ------------------------------------------------------------------------
@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(main, list(args), catch_exceptions=False)
    return invoke


def test_check_selects_one_program_and_notes_untyped(cli, tmp_path):
    s = write(tmp_path, "mixed.py", BAD + textwrap.dedent("""

        @sc.jit
        def untyped(x, w):
            return x + w
        """))
    r = cli("check", str(s), "-p", "fine")
    assert r.exit_code == 0 and "sin" in r.stdout and "ambiguous" not in r.stdout
    r = cli("check", str(s))
    assert r.exit_code == 1
    assert "`untyped` is not a program (parameters without type strings: x, w)" in r.stderr
    r = cli("check", str(s), "-p", "untyped")
    assert r.exit_code == 2 and "not a program the CLI can run" in r.stderr


def test_script_without_programs_is_a_usage_error(cli, tmp_path):
    s = write(tmp_path, "empty.py", "import shardc as sc\nx = 1\n")
    r = cli("check", str(s))
    assert r.exit_code == 2 and "defines no programs" in r.stderr


def test_import_time_type_error_exits_1(cli, tmp_path):
    s = write(tmp_path, "eager.py", """\
        import numpy as np
        import shardc as sc
        from shardc import P
        sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))
        p = sc.device_put(np.zeros((8, 8), np.float32), P("X", None))
        q = sc.device_put(np.zeros((8, 8), np.float32), P(None, "X"))
        r = p + q
        """)
    r = cli("check", str(s))
    assert r.exit_code == 1
    assert "eager.py failed to import" in r.stderr and f"{s.resolve()}:7" in r.stderr


def test_users_own_exception_while_tracing_is_theirs_not_an_internal_error(cli, tmp_path):
    s = write(tmp_path, "raises.py", """\
        import numpy as np
        import shardc as sc

        def helper(x):
            return np.reshape(np.zeros(3), (2, 2))     # the user's bug, inside NumPy

        @sc.jit
        def f(x: "f32[4]"):
            raise KeyError("no such layer")

        @sc.jit
        def g(x: "f32[4]"):
            return helper(x)
        """)
    for prog, kind, line in [("f", "KeyError: 'no such layer'", 9), ("g", "ValueError: cannot reshape", 5)]:
        r = cli("check", str(s), "-p", prog)
        assert r.exit_code == 1, r.stderr
        assert kind in r.stderr and f"(raised by your code while tracing `{prog}`)" in r.stderr
        assert f'raises.py", line {line}' in r.stderr
        assert "internal error" not in r.stderr and "shardc/" not in r.stderr


def test_outputs_never_overwrite_the_script_follow_links_or_traceback(cli, tmp_path):
    s = write(tmp_path, "prog.py", BAD)
    before = s.read_text()
    r = cli("compile", str(s), "-p", "fine", "-o", str(s))
    assert r.exit_code == 2 and "that is the script being run" in r.stderr and s.read_text() == before
    (tmp_path / "elsewhere.txt").write_text("keep")
    (tmp_path / "link.mlir").symlink_to(tmp_path / "elsewhere.txt")
    r = cli("compile", str(s), "-p", "fine", "-o", str(tmp_path / "link.mlir"))
    assert r.exit_code == 2 and "symbolic link" in r.stderr and (tmp_path / "elsewhere.txt").read_text() == "keep"
    # a file where a folder should be (chmod cannot stop root, who runs CI)
    r = cli("compile", str(s), "-p", "fine", "-o", str(tmp_path / "elsewhere.txt" / "out.mlir"))
    assert r.exit_code == 2 and "cannot write it" in r.stderr and "Traceback" not in r.stderr
    r = cli("run", str(s), "-p", "fine", "--save", str(tmp_path / "io"))
    assert r.exit_code == 0 and (tmp_path / "io.npz").is_file()
    assert not list(tmp_path.glob(".*shardc-tmp"))


def test_script_prints_go_to_stderr_or_nowhere(cli, tmp_path):
    s = write(tmp_path, "chatty.py", """\
        import shardc as sc
        print("hello from the script")

        @sc.jit
        def f(x: "f32[4]"):
            print("tracing f")
            return x + 1
        """)
    r = cli("compile", str(s), "--emit", "typed")
    assert r.exit_code == 0
    assert r.stdout.startswith("{ lambda ; a:f32[4]. let")
    assert "hello from the script" in r.stderr and "tracing f" in r.stderr
    r = cli("compile", str(s), "--emit", "typed", "-q")
    assert "hello" not in r.stderr and "tracing" not in r.stderr


def test_importing_a_script_leaves_the_callers_mesh_alone(cli):
    before = sc.get_mesh()
    r = cli("check", str(EX / "attention.py"), "-p", "norm_only")
    assert r.exit_code == 0
    assert sc.get_mesh() is before


def test_compile_several_programs(cli, tmp_path):
    r = cli("compile", str(EX / "ambiguous_dot.py"), "--emit", "typed")
    assert r.exit_code == 0
    assert r.stdout.count("// ---- program ") == 4
    out = tmp_path / "out"
    r = cli("compile", str(EX / "ambiguous_dot.py"), "-o", str(out))
    assert r.exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "all_reduce.stablehlo.mlir", "reduce_scatter.stablehlo.mlir", "unreduced.stablehlo.mlir",
        "unreduced_then_reshard.stablehlo.mlir"]
    r = cli("compile", str(EX / "megatron.py"), "-p", "mlp", "--locations")
    assert r.exit_code == 0
    assert re.search(r'loc\("sc.dot at .*megatron.py:\d+"', r.stdout)
    r = cli("compile", str(EX / "megatron.py"), "--emit", "hlo", "--locations")
    assert r.exit_code == 2 and "--locations applies to --emit stablehlo only" in r.stderr


def test_run_with_inputs_file(cli, tmp_path):
    x = np.arange(16, dtype=np.float32)
    f = tmp_path / "in.npz"
    np.savez(f, x=x)
    s = write(tmp_path, "double.py", """\
        import shardc as sc
        sc.set_mesh(sc.make_mesh((8,), ("i",)))

        @sc.jit
        def double(x: "f32[16@i]"):
            return 2 * x
        """)
    saved = tmp_path / "out.npz"
    r = cli("run", str(s), "--inputs", str(f), "--save", str(saved), "--repeat", "1")
    assert r.exit_code == 0, r.stderr
    np.testing.assert_array_equal(np.load(saved)["double.out.0"], 2 * x)
    assert "float32[16@i]" in r.stdout and "240" in r.stdout          # sum of 2 * arange(16)
    np.savez(f, y=x)
    r = cli("run", str(s), "--inputs", str(f))
    assert r.exit_code == 2 and "no array for `double`'s parameter `x`" in r.stderr
    np.savez(f, x=np.zeros(3, np.float32))
    r = cli("run", str(s), "--inputs", str(f))
    assert r.exit_code == 2 and "has shape (3,)" in r.stderr


def test_run_is_deterministic_per_seed(cli):
    def out(seed):
        r = cli("run", str(EX / "megatron.py"), "-p", "mlp", "--seed", seed, "--repeat", "1")
        assert r.exit_code == 0
        return next(l for l in r.stdout.splitlines() if re.match(r"out\s+\(8, 16\)", l))
    assert out("0") == out("0") != out("3")


def test_devices_cannot_change_after_start(cli):
    import jax
    assert len(jax.devices()) == 8          # the runtime has started (with conftest's 8 devices)
    r = cli("check", str(EX / "megatron.py"), "--devices", "4")
    assert r.exit_code == 2 and "cannot set 4 CPU devices" in r.stderr


def test_inspect_without_collectives_and_on_3d_mesh(cli):
    r = cli("inspect", str(EX / "attention.py"))
    assert r.exit_code == 0
    norm = r.stdout.split("norm_only")[1]
    assert "none: every value stays where its type puts it" in norm
    scores = r.stdout.split("norm_only")[0]
    assert re.search(r"all-gather\s+seq\s+1\.0 KiB\s+1\s+attention\.py:\d+\s+k = sc\.reshard", scores)
    assert "rank 4: one panel per block of the leading dims" in scores


def test_golden_command_diff_and_update(cli, tmp_path):
    gold = tmp_path / "golden"
    r = cli("golden", str(EX / "megatron.py"), "--golden-dir", str(gold))
    assert r.exit_code == 1 and "no golden file" in r.stdout
    r = cli("golden", str(EX / "megatron.py"), "--golden-dir", str(gold), "--update")
    assert r.exit_code == 0 and "8 updated" in r.stdout
    typed = gold / "megatron" / "mlp.typed.txt"
    typed.write_text(typed.read_text().replace("tanh", "sinh"))
    r = cli("golden", str(EX / "megatron.py"), "--golden-dir", str(gold))
    assert r.exit_code == 1
    assert "megatron/mlp.typed.txt: differs from the golden file" in r.stdout
    assert re.search(r"^-.* = sinh ", r.stdout, re.M) and re.search(r"^\+.* = tanh ", r.stdout, re.M)
    assert "1 mismatch(es)" in r.stdout


def test_golden_update_touches_only_its_own_files(cli, tmp_path):
    """--update keeps files it did not write, the goldens of a failing program, and never
    reads, writes or follows links and FIFOs (a FIFO used to hang `golden` forever)."""
    script = tmp_path / "prog.py"
    script.write_text(BAD)
    gold = tmp_path / "golden"
    r = cli("golden", str(script), "--golden-dir", str(gold), "--update")
    folder = gold / "prog"
    kept = sorted(p.name for p in folder.iterdir() if p.name.startswith("ambiguous."))
    assert r.exit_code == 1 and kept == []    # `ambiguous` fails: nothing written for it
    (folder / "ambiguous.typed.txt").write_text("an older golden of the failing program\n")
    (folder / "NOTES.md").write_text("mine\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    (folder / "gone.out.txt").symlink_to(outside)
    os.mkfifo(folder / "pipe.collectives.txt")
    r = cli("golden", str(script), "--golden-dir", str(gold), "--update")
    assert (folder / "ambiguous.typed.txt").read_text() == "an older golden of the failing program\n"
    assert (folder / "NOTES.md").read_text() == "mine\n" and outside.read_text() == "keep\n"
    assert (folder / "gone.out.txt").is_symlink() and (folder / "pipe.collectives.txt").exists()
    assert "prog/gone.out.txt: not a regular file" in r.stdout and "prog/pipe.collectives.txt" in r.stdout
    assert not list(folder.glob(".*shardc-tmp"))
    (gold / "linked").symlink_to(tmp_path)
    other = tmp_path / "linked.py"
    other.write_text(BAD)
    r = cli("golden", str(other), "--golden-dir", str(gold), "--update")
    assert "linked: not a folder (or a symbolic link)" in r.stdout and not (tmp_path / "fine.typed.txt").exists()


# --- sharding pictures (`inspect`, `sc.visualize_array_sharding`) ----------------------------------
def _picture(x) -> str:
    import io

    from rich.console import Console
    con = Console(width=100, record=True, file=io.StringIO(), color_system=None)
    sc.visualize_array_sharding(x, console=con)
    return con.export_text()


def test_visualize_array_and_types(mesh24):
    a = sc.device_put(np.zeros((8, 4), np.float32), sc.P("X", "Y"))
    pic = _picture(a)
    assert "float32[8@X,4@Y]" in pic and "rows: dim 0 (8@X); columns: dim 1 (4@Y)" in pic
    rows = [l for l in pic.splitlines() if "CPU" in l]
    assert [re.findall(r"CPU (\S+)", l) for l in rows] == [["0", "1", "2", "3"], ["4", "5", "6", "7"]]
    pic = _picture("f32[16@(X,Y)]")
    assert re.findall(r"CPU (\d+)", pic) == [str(i) for i in range(8)]
    pic = _picture("f32[8,4]{U:X}")
    assert "CPU 0-7" in pic and "partial sum" in pic
    pic = _picture("f32[]")
    assert "a scalar" in pic and "CPU 0-7" in pic
    pic = _picture("f32[4@X,2,4@Y]")
    assert "rank 3: one panel per block of the leading dims" in pic
    assert "[0:2, :, :]" in pic and "[2:4, :, :]" in pic


def test_visualize_abstract_type_without_concrete_mesh():
    t = sc.parse_type("f32[8@a,8]", sc.AbstractMesh((2,), ("a",)))
    pic = _picture(t)
    assert "pos 0" in pic and "pos 1" in pic and "not device ids" in pic


def test_inspect_counts_loop_runs_and_names_merged_gradient_collectives(cli):
    """Collectives inside a scan say how often they run (its trip count); the gradient all-reduce
    XLA merges from several ops names their lines instead of `?`."""
    r = cli("inspect", str(EX / "train_layers.py"), "-p", "train_step")
    assert r.exit_code == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith(("all-gather", "all-reduce"))]
    assert any("×4" in line and "train_layers.py:25" in line for line in rows), rows
    assert any("×4" in line and "train_layers.py:26" in line for line in rows), rows
    assert all(" ? " not in line for line in rows), rows


def test_collective_sources_and_loop_runs_from_hlo_text():
    from shardc.mesh import AbstractMesh
    from shardc.runtime.collectives import collectives_of
    hlo = """%body.1 (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %ar = f32[8]{0} all-reduce(%x), replica_groups={}, to_apply=%add, metadata={op_name="(grad of * at /a/m.py:26:grad of matmul at /a/m.py:27)"}
}
%cond.1 (p: (s32[], f32[8])) -> pred[] {
}
ENTRY %main (a: f32[8]) -> f32[8] {
  %w = (s32[], f32[8]) while(%t), condition=%cond.1, body=%body.1, backend_config={"known_trip_count":{"n":"3"}}
  %ag = f32[8]{0} all-gather(%y), replica_groups={}, dimensions={0}, metadata={op_name="sc.shard_map at /a/m.py:5/sc.all_gather at /a/m.py:9"}
}
"""
    got = [(c.kind, c.source, c.runs, c.sources) for c in collectives_of(hlo, AbstractMesh((8,), ("X",)))]
    assert got == [("all-reduce", "/a/m.py:26", 3, ("/a/m.py:26", "/a/m.py:27")),
                   ("all-gather", "/a/m.py:9", 1, ("/a/m.py:9",))]


PYTREE_PROG = '''\
{future}import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def step(params: {{"w1": "f32[16,32@Y]", "w2": "f32[32@Y,16]"}}, x: "f32[8@X,16]"):
    def loss(p):
        h = sc.tanh(x @ p["w1"])
        return sc.mean(sc.matmul(h, p["w2"], out_sharding=P("X", None)) ** 2)
    value, g = sc.value_and_grad(loss)(params)
    return {{k: params[k] - 0.1 * g[k] for k in params}}, value
'''


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
def test_pytree_annotated_parameters_are_programs(cli, tmp_path, future):
    """A parameter annotated with a dict of type strings is a program: one input per leaf,
    named by its path (`params.w1`) in --save / --inputs, in `check`, `run` and `inspect`."""
    s = tmp_path / "pytree.py"
    s.write_text(PYTREE_PROG.format(future=future))
    r = cli("check", str(s))
    assert r.exit_code == 0, r.stderr
    assert "a:f32[16,32@Y] b:f32[32@Y,16] c:f32[8@X,16]" in r.stdout
    r = cli("run", str(s), "--save", str(tmp_path / "io.npz"))
    assert r.exit_code == 0, r.stderr
    keys = sorted(np.load(tmp_path / "io.npz").files)
    assert keys == ["step.out.0", "step.out.1", "step.out.2", "step.params.w1", "step.params.w2", "step.x"]
    first = r.stdout
    r = cli("run", str(s), "--inputs", str(tmp_path / "io.npz"))
    assert r.exit_code == 0, r.stderr
    assert re.findall(r"out\S* .*", first) == re.findall(r"out\S* .*", r.stdout)
    r = cli("inspect", str(s))
    assert r.exit_code == 0 and "all-reduce" in r.stdout, r.stderr


def test_in_shardings_place_inputs_on_auto_meshes(cli, tmp_path):
    """On an Auto mesh the type cannot say where an input lives; `in_shardings` does, and
    `inspect` / `run` honour it: 512 B of a f32[64,16] per device instead of all 4 KiB."""
    body = '''import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((8,), ("X",), axis_types=(sc.AxisType.Auto,)))


@sc.jit{deco}
def double(x: "f32[64,16]"):
    return x * 2.0
'''
    rows = {}
    for name, deco in [("declared", '(in_shardings=P("X", None))'), ("plain", "")]:
        s = tmp_path / f"{name}.py"
        s.write_text(body.format(deco=deco))
        r = cli("inspect", str(s))
        assert r.exit_code == 0, r.stderr
        rows[name] = re.search(r"^arguments\s+(\d+)", r.stdout, re.M).group(1)
        r = cli("run", str(s), "--seed", "3")
        assert r.exit_code == 0 and "float32[64,16]" in r.stdout, r.stderr
    assert rows == {"declared": "512", "plain": "4096"}
