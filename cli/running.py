"""Building and running one program: the stages with their timings,
deterministic inputs, and the output summaries `run` prints and `out.txt`
golden files hold."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import shardc as sc

from .loading import Script, ScriptProgram, UsageFailure

# --- stages ---------------------------------------------------------------------------------------


@dataclass
class Stages:
    """What the pipeline produced for one program (later stages may be None)."""

    traced: Any
    lowered: Any = None
    compiled: Any = None

    @property
    def in_types(self) -> list:
        return list(self.traced.program.in_types)

    @property
    def out_types(self) -> list:
        return list(self.traced.program.out_types)

    def out_labels(self) -> list[str]:
        return output_labels(self.traced.program.out_tree, len(self.out_types))


def build(script: Script, prog: ScriptProgram, upto: str = "compile") -> Stages:
    """Trace (then type check, emit, verify; then XLA compile) `prog` with its
    signature's types. `upto` is 'trace', 'typecheck', 'lower' or 'compile'.
    Raises `sc.ShardcError` for the user's mistakes."""
    def go():
        traced = prog.jit.trace()
        st = Stages(traced)
        if upto == "typecheck":
            from shardc.passes.typecheck import typecheck  # late: the CLI configures devices before shardc starts JAX
            typecheck(traced.program)
        if upto in ("lower", "compile"):
            st.lowered = traced.lower()
        if upto == "compile":
            st.compiled = st.lowered.compile()
        return st
    return script.call(go)


def output_labels(out_tree, n: int) -> list[str]:
    """`out` for a single array; `out[0]`, `out['y']`, … for a tree of outputs."""
    import jax.tree_util as tu
    if out_tree is None or n == 0:
        return [f"out[{i}]" for i in range(n)]
    try:
        tree = tu.tree_unflatten(out_tree, list(range(n)))
    except Exception:  # noqa: BLE001
        return [f"out[{i}]" for i in range(n)]
    if n == 1 and not isinstance(tree, (list, tuple, dict)):
        return ["out"]
    leaves = tu.tree_flatten_with_path(tree)[0]
    return ["out" + tu.keystr(path) for path, _ in leaves]


# --- inputs ---------------------------------------------------------------------------------------
def draw_inputs(types: list, seed: int) -> list[np.ndarray]:
    """Deterministic host data for each input type: floats standard normal,
    signed ints in [-4, 4], unsigned ints in [0, 8), bools fair coin flips.
    Every program draws from a fresh `default_rng(seed)` in parameter order,
    so programs with the same signature get the same inputs."""
    rng = np.random.default_rng(seed)
    out = []
    for t in types:
        dt = np.dtype(t.dtype)
        shape = tuple(t.shape)
        if dt == np.bool_:
            a = rng.random(shape) < 0.5
        elif np.issubdtype(dt, np.signedinteger):
            a = rng.integers(-4, 5, size=shape)
        elif np.issubdtype(dt, np.unsignedinteger):
            a = rng.integers(0, 8, size=shape)
        else:  # floating (incl. bfloat16 and friends)
            a = rng.standard_normal(shape)
        out.append(np.asarray(a).astype(dt))
    return out


def _available_host_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where there is none)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_host_memory(prog: ScriptProgram, types: list) -> None:
    """Refuse, before allocating anything, inputs the host cannot hold: drawing them takes about
    three times their size (float64 draws, the cast, the device copy), and an allocation that
    large would swap the machine or bring in the OOM killer rather than fail."""
    sizes = [(int(np.prod(t.shape, dtype=object)) * np.dtype(t.dtype).itemsize, p, t)
             for p, t in zip(prog.params, types)]
    need = sum(b for b, _, _ in sizes)
    avail = _available_host_memory()
    if avail is not None and 3 * need > avail:
        b, pname, t = max(sizes, key=lambda x: x[0])
        raise sc.ShardcRuntimeError(
            f"the inputs of `{prog.name}` need {need} bytes of host memory ({need / 2**30:.1f} GiB; the largest, "
            f"`{pname}`: {t}, {b / 2**30:.1f} GiB) and about three times that to draw and place them, but "
            f"{avail / 2**30:.1f} GiB are available", fix="use smaller shapes (`shardc check` and `compile` "
                                                          "work on any size: they allocate nothing)")


def load_inputs(path: str, prog: ScriptProgram, types: list) -> list[np.ndarray]:
    """Inputs from an `.npz`: key `PROGRAM.PARAM` or `PARAM` per parameter."""
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        raise UsageFailure(f"cannot read --inputs {path}: {e}") from None
    out = []
    with data:
        keys = set(data.files)
        for pname, t in zip(prog.params, types):
            key = next((k for k in (f"{prog.name}.{pname}", pname) if k in keys), None)
            if key is None:
                raise UsageFailure(
                    f"--inputs {path} has no array for `{prog.name}`'s parameter `{pname}` "
                    f"(looked for keys '{prog.name}.{pname}' and '{pname}'; it has: "
                    f"{', '.join(sorted(keys)) or 'none'})")
            a = np.asarray(data[key])
            if tuple(a.shape) != tuple(t.shape):
                raise UsageFailure(f"--inputs {path}: '{key}' has shape {tuple(a.shape)} but `{pname}` "
                                   f"has type {t} (shape {tuple(t.shape)})")
            if a.dtype != np.dtype(t.dtype):
                if not np.can_cast(a.dtype, t.dtype, casting="same_kind"):
                    raise UsageFailure(f"--inputs {path}: '{key}' has dtype {a.dtype} but `{pname}` "
                                       f"has type {t}")
                a = a.astype(t.dtype)
            out.append(a)
    return out


def place(host: list[np.ndarray], types: list, placements: list | None = None) -> list:
    """Put host data on devices with each type's sharding, or where the program's
    `in_shardings` says (Auto axes, which types do not show); call inside the script's context."""
    out = []
    for a, t, spec in zip(host, types, placements or [None] * len(types)):
        if t.mesh.empty:
            out.append(a)
        elif spec is not None and t.mesh.auto_axes:
            out.append(sc.device_put(a, spec))
        elif t.unreduced:
            full = sc.device_put(a, sc.P(*t.spec, reduced=t.reduced))
            out.append(sc.reshard(full, t.pspec))
        else:
            out.append(sc.device_put(a, t.pspec))
    return out


# --- running --------------------------------------------------------------------------------------
@dataclass
class RunResult:
    stages: Stages
    inputs: list[np.ndarray]
    outputs: list[np.ndarray]
    timings: dict[str, float] = field(default_factory=dict)


def _block(outs) -> list:
    import jax.tree_util as tu
    leaves = tu.tree_leaves(outs, is_leaf=lambda x: isinstance(x, sc.Array))
    for o in leaves:
        if hasattr(o, "block_until_ready"):
            o.block_until_ready()
    return leaves


def timed_runs(compiled, args: list, repeat: int) -> tuple[list, float, list[float]]:
    """Run once (the first run) and `repeat` more times (steady state), blocking
    on each: the outputs of the first run, its time, and the steady times."""
    t0 = time.perf_counter()
    outs = _block(compiled(*args))
    first = time.perf_counter() - t0
    steady = []
    for _ in range(max(repeat, 0)):
        t0 = time.perf_counter()
        _block(compiled(*args))
        steady.append(time.perf_counter() - t0)
    return outs, first, steady


def run_program(script: Script, prog: ScriptProgram, *, seed: int = 0, inputs: str | None = None,
                repeat: int = 5) -> RunResult:
    """Build, place inputs, run once (first run) and `repeat` more times (steady state)."""
    st = build(script, prog, "compile")
    types = st.in_types
    check_host_memory(prog, types)
    host = load_inputs(inputs, prog, types) if inputs else draw_inputs(types, seed)

    def go():
        placed = place(host, types, prog.jit.declared_placements(len(types)))
        outs, first, steady = timed_runs(st.compiled, placed, repeat)
        return [np.asarray(o) for o in outs], first, steady

    values, first, steady = script.call(go)
    tm = st.traced.timings
    timings = {"trace": tm.trace, "type check": tm.typecheck, "emit": tm.emit, "verify": tm.verify,
               compile_label(st.compiled): tm.compile, "first run": first}
    if steady:
        timings["steady-state run"] = statistics.median(steady)
    return RunResult(st, host, values, timings)


def compile_label(compiled) -> str:
    """The timing line of the XLA phase: a load from the compilation cache says so."""
    return "XLA compile (cache hit)" if compiled.cache_hit else "XLA compile"


# --- summaries ------------------------------------------------------------------------------------
FULL_VALUES = 32     # print every value of arrays up to this size
FEW_VALUES = 6


def _fmt(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return f"{float(v):.6g}"


def checksum(a: np.ndarray) -> tuple[str, str]:
    """(sum, sum of absolute values), as text; bools count their Trues."""
    if a.dtype == np.bool_:
        n = int(a.sum())
        return str(n), str(n)
    if np.issubdtype(a.dtype, np.integer):
        return str(int(a.astype(np.int64).sum())), str(int(np.abs(a.astype(np.int64)).sum()))
    f = a.astype(np.float64)
    return f"{f.sum():.7g}", f"{np.abs(f).sum():.7g}"


def values_text(a: np.ndarray, few: int = FEW_VALUES) -> str:
    """Every value of a small array; the first `few` of a larger one."""
    flat = a.reshape(-1)
    n = flat.size if flat.size <= FULL_VALUES else few
    body = ", ".join(_fmt(v) for v in flat[:n])
    more = f", … ({flat.size - n} more)" if n < flat.size else ""
    return f"[{body}{more}]"


def out_text(script: Script, prog: ScriptProgram, res: RunResult, seed: int) -> str:
    """The `out.txt` golden: input/output types and a summary of every output."""
    lines = [f"# {script.path.name}: {prog.name}, inputs from seed {seed}"]
    for pname, t in zip(prog.params, res.stages.in_types):
        lines.append(f"in  {pname}: {t}")
    for label, t, a in zip(res.stages.out_labels(), res.stages.out_types, res.outputs):
        s, sa = checksum(a)
        lines.append(f"{label}: {t}")
        lines.append(f"  shape {tuple(a.shape)} dtype {a.dtype}")
        lines.append(f"  sum {s}  abs-sum {sa}")
        if a.size:
            lines.append(f"  min {_fmt(a.min())}  max {_fmt(a.max())}")
        lines.append(f"  values (row-major) {values_text(a)}")
    return "\n".join(lines) + "\n"
