#!/usr/bin/env python
"""shardc vs JAX, measured in one run on one machine.

    python bench/run.py            # full run (~3-5 minutes on 2 cores)
    python bench/run.py --quick    # smaller sizes, fewer repetitions (< 1 minute)
    python bench/run.py --only frontend,call --json out.json

Sections (each prints a Markdown table):

  frontend     shardc trace + type check + emit (verify reported separately) vs
               `jax.jit(f).trace(*args).lower()`, for elementwise chains, MLP stacks and
               attention blocks on a (2, 4) Explicit mesh at ~100 / 1k / 10k primitive
               equations, plus the growth exponent (log-log slope of time vs size).
  call         call overhead of a compiled tiny program, called in a loop and blocked on,
               on 1 device and on 8 devices: `prog(x)` vs `jax.jit(f)(x)`.
  collectives  number and bytes of each collective kind in XLA's partitioned HLO.
  compile      XLA compile time of shardc's StableHLO text vs JAX's for the same program.
  cache        the persistent compilation cache: `.compile()` of every program of
               examples/megatron.py and examples/train_layers.py cold (cache off: XLA
               compiles) vs warm (loaded from the cache), the entry size, and `shardc run`
               of each script end to end (a fresh process each) cold vs warm.
               The other sections run with the cache off, so they time XLA itself.
  cli          `shardc run` of an unchanged script (examples/train_layers.py and the model-scale
               bench/model_step.py -p mlp100), whole process, cold vs cached, and the import
               floor every run pays (`shardc --version`: imports, start and exit).

All times are medians of several repetitions of `time.perf_counter` intervals.
Every repetition builds a fresh Python function and a fresh `sc.jit` / `jax.jit`, so
no per-function tracing cache is hit on either side. No timing is asserted.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

os.environ.setdefault("SHARDC_CPU_DEVICES", "8")

import jax  # noqa: E402

jax.config.update("jax_num_cpu_devices", int(os.environ["SHARDC_CPU_DEVICES"]))

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType as JAxisType  # noqa: E402
from jax.sharding import NamedSharding as JNS  # noqa: E402
from jax.sharding import PartitionSpec as JP  # noqa: E402

import shardc as sc  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402
import programs as pg  # noqa: E402

perf = time.perf_counter
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES_FULL = (100, 1_000, 10_000)
SIZES_QUICK = (100, 1_000)


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
def median(xs):
    return statistics.median(xs)


def fmt_s(t: float) -> str:
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.1f} ms"
    return f"{t * 1e6:.0f} µs"


def fmt_us(t: float) -> str:
    return f"{t * 1e6:,.0f} µs" if t < 1e-2 else f"{t * 1e3:,.1f} ms"


def slope(xs, ys) -> float:
    """Least-squares slope of log(y) against log(x)."""
    lx, ly = np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float))
    if len(lx) < 2:
        return float("nan")
    return float(np.polyfit(lx, ly, 1)[0])


def table(headers, rows) -> str:
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    return "\n".join(out)


def _dim_text(d: int, s) -> str:
    if not s:
        return f"{d}"
    return f"{d}@({','.join(s)})" if isinstance(s, tuple) else f"{d}@{s}"


def sc_types(args, amesh):
    """`sc.ArrayType`s from (shape, spec) pairs, via the documented type strings
    (a spec entry is None, an axis name or a tuple of axis names)."""
    out = []
    for shape, spec in args:
        dims = ",".join(_dim_text(d, s) for d, s in zip(shape, spec))
        out.append(sc.parse_type(f"f32[{dims}]", amesh))
    return out


# Front-end meshes: (shape, axis names, how the programs' 'Y' is mapped). The programs are
# written for ('X', 'Y'); on the 1-D mesh what was on Y is replicated, on the 3-D mesh it is
# sharded over (Y, Z), so every mesh spreads the arrays over all 8 devices where it can.
FRONTEND_MESHES = {
    "1d": ((8,), ("X",), {"Y": None}),
    "2d": ((2, 4), ("X", "Y"), {}),
    "3d": ((2, 2, 2), ("X", "Y", "Z"), {"Y": ("Y", "Z")}),
}


def remap_args(args, remap: dict):
    """The (shape, spec) list with the spec entries renamed by `remap`."""
    return [(shape, tuple(remap.get(s, s) if s else s for s in spec)) for shape, spec in args]


def jax_structs(args, jmesh):
    return [jax.ShapeDtypeStruct(shape, jnp.float32, sharding=JNS(jmesh, JP(*spec))) for shape, spec in args]


def count_jax_eqns(jaxpr) -> int:
    """Primitive equations, counting the bodies of call-like equations (pjit,
    custom_jvp, ...) instead of the calls themselves."""
    n = 0
    for e in jaxpr.eqns:
        subs = []
        for v in e.params.values():
            for x in (v if isinstance(v, (tuple, list)) else (v,)):
                if hasattr(x, "eqns"):
                    subs.append(x)
                elif hasattr(x, "jaxpr") and hasattr(x.jaxpr, "eqns"):
                    subs.append(x.jaxpr)
        if subs:
            n += sum(count_jax_eqns(s) for s in subs)
        else:
            n += 1
    return n


def count_sc_eqns(eqns) -> int:
    n = 0
    for e in eqns:
        subs = [v for v in e.params.values() if hasattr(v, "eqns")]
        n += sum(count_sc_eqns(s.eqns) for s in subs) if subs else 1
    return n


# ------------------------------------------------------------------------------------------------
# environment
# ------------------------------------------------------------------------------------------------
def machine_info() -> dict:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    # which shardc is measured: the repository's (commit, and whether shardc/ has local
    # edits) or another copy on PYTHONPATH (its path)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(sc.__file__)))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.realpath(pkg) != os.path.realpath(root):
        commit = f"copy at {pkg}"
    else:
        try:
            commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True, timeout=10).stdout.strip()
            dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "shardc"],
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            commit += " (shardc/ modified)" if dirty else ""
        except Exception:
            commit = "?"
    import jaxlib
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "shardc": f"{sc.__version__} @ {commit}",
        "platform": platform.platform(),
        "devices": f"{len(jax.devices())} x {jax.devices()[0].platform}",
    }


# ------------------------------------------------------------------------------------------------
# 1. front-end speed
# ------------------------------------------------------------------------------------------------
#: the front end's clock: wall (`perf_counter`), or CPU time of this process with `--cpu`
_FE_CLOCK = [time.perf_counter]


def use_cpu_clock() -> None:
    """`--cpu`: time the front-end sections with `time.process_time` (this process's CPU time, all
    threads), on both sides, so that other processes loading the machine do not count. shardc's
    phase split (`Traced.timings`) reads `shardc.stages.time.perf_counter`, pointed here at
    `process_time` (a benchmark-only substitution: nothing else in shardc reads that name)."""
    import types as pytypes

    import shardc.stages as stages
    _FE_CLOCK[0] = time.process_time
    stages.time = pytypes.SimpleNamespace(perf_counter=time.process_time)


def settle() -> None:
    """Collect garbage, then make glibc's malloc consolidate the small blocks the last repetition
    freed: its first request of >= 1 KiB after many frees walks them all (`malloc_consolidate`),
    ~0.5 ms after a JAX lowering, and would otherwise land in whichever side is timed next
    (measured: shardc's dce of a 100-equation program, 55 µs alone, took 500-800 µs right after a
    JAX repetition; a `bytearray(4096)` took that time instead and the dce its 55 µs). Both sides
    call it before they are timed."""
    gc.collect()
    bytearray(1 << 12)


def sc_frontend_once(factory, n, types) -> dict:
    settle()
    clock = _FE_CLOCK[0]
    prog = sc.jit(factory(n))
    t0 = clock()
    traced = prog.trace(*types)
    lowered = traced.lower()
    wall = clock() - t0
    tm = traced.timings
    del lowered
    return {"trace": tm.trace, "typecheck": tm.typecheck, "emit": tm.emit, "verify": tm.verify,
            "tte": tm.trace + tm.typecheck + tm.emit, "wall": wall,
            "eqns": count_sc_eqns(traced.program.eqns)}


def jax_frontend_once(factory, n, structs) -> dict:
    settle()
    clock = _FE_CLOCK[0]
    jf = jax.jit(factory(n))
    t0 = clock()
    traced = jf.trace(*structs)
    t1 = clock()
    lowered = traced.lower()
    t2 = clock()
    del lowered
    return {"trace": t1 - t0, "lower": t2 - t1, "total": t2 - t0, "eqns": count_jax_eqns(traced.jaxpr.jaxpr)}


def peak_bytes(fn) -> int:
    """Peak Python-heap bytes allocated while `fn` runs (tracemalloc: allocations made by C++
    code, MLIR's included, are not seen; a separate run, as tracemalloc slows Python down)."""
    import tracemalloc
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def calibrate(sc_factory, types, target: int) -> int:
    """The repeat count whose shardc program has about `target` primitive equations."""
    c1 = count_sc_eqns(sc.jit(sc_factory(1)).trace(*types).program.eqns)
    c2 = count_sc_eqns(sc.jit(sc_factory(2)).trace(*types).program.eqns)
    per, base = c2 - c1, c1 - (c2 - c1)
    return max(1, round((target - base) / per))


def frontend_meshes(labels) -> list:
    """(label, sc mesh, JAX mesh, spec remap) for each of `labels` (keys of FRONTEND_MESHES)."""
    out = []
    for label in labels:
        shape, names, remap = FRONTEND_MESHES[label]
        out.append((label.upper().replace("D", "-D"), sc.make_mesh(shape, names),
                    jax.make_mesh(shape, names, axis_types=(JAxisType.Explicit,) * len(shape)), remap))
    return out


def bench_frontend(meshes, sizes, reps_for, results, memory: bool = False, families=None) -> str:
    """Every family (or those named in `families`) at every size on every mesh of `meshes`
    (see `frontend_meshes`)."""
    rows, exp_rows = [], []
    res = results.setdefault("frontend", {})
    many = len(meshes) > 1
    for label, mesh, jmesh, remap in meshes:
        amesh = mesh.abstract_mesh
        for fam, (jfac, sfac, args) in pg.FAMILIES.items():
            if families and fam not in families:
                continue
            args = remap_args(args, remap)
            name = f"{fam} @ {label}" if many else fam
            types, structs = sc_types(args, amesh), jax_structs(args, jmesh)
            with sc.set_mesh(mesh), jax.set_mesh(jmesh):
                # warm-up both sides (imports, per-primitive caches, MLIR context)
                sc_frontend_once(sfac, 2, types)
                jax_frontend_once(jfac, 2, structs)
                per_size = {}
                for size in sizes:
                    n = calibrate(sfac, types, size)
                    scs, jxs = [], []
                    for _ in range(reps_for(size)):
                        jxs.append(jax_frontend_once(jfac, n, structs))
                        scs.append(sc_frontend_once(sfac, n, types))
                    s = {k: median([r[k] for r in scs]) for k in scs[0]}
                    j = {k: median([r[k] for r in jxs]) for k in jxs[0]}
                    s["tte_min"], j["total_min"] = min(r["tte"] for r in scs), min(r["total"] for r in jxs)
                    if memory:
                        s["peak"] = peak_bytes(lambda: sc_frontend_once(sfac, n, types))
                        j["peak"] = peak_bytes(lambda: jax_frontend_once(jfac, n, structs))
                    per_size[size] = {"shardc": s, "jax": j, "reps": len(scs), "n": n}
                    rows.append(([label] if many else []) + [
                        fam, f"{int(s['eqns'])} / {int(j['eqns'])}",
                        fmt_s(s["trace"]), fmt_s(s["typecheck"]), fmt_s(s["emit"]), fmt_s(s["tte"]),
                        fmt_s(s["verify"]), fmt_s(j["trace"]), fmt_s(j["lower"]), fmt_s(j["total"]),
                        f"**{j['total'] / s['tte']:.2f}x**", f"{j['total_min'] / s['tte_min']:.2f}x",
                        f"{j['total'] / (s['tte'] + s['verify']):.2f}x"]
                        + ([f"{s['peak'] / s['eqns'] / 1024:.1f} / {j['peak'] / j['eqns'] / 1024:.1f}"]
                           if memory else []))
                    print(f"  [frontend] {label} {fam:<11} {int(s['eqns']):>6} eqns: shardc {fmt_s(s['tte'])} "
                          f"(+verify {fmt_s(s['verify'])}), jax {fmt_s(j['total'])}: "
                          f"{j['total'] / s['tte']:.2f}x", file=sys.stderr, flush=True)
            xs_s = [per_size[z]["shardc"]["eqns"] for z in sizes]
            xs_j = [per_size[z]["jax"]["eqns"] for z in sizes]
            ys_s = [per_size[z]["shardc"]["tte"] for z in sizes]
            ys_v = [per_size[z]["shardc"]["tte"] + per_size[z]["shardc"]["verify"] for z in sizes]
            ys_j = [per_size[z]["jax"]["total"] for z in sizes]
            row = ([label] if many else []) + [fam, f"{slope(xs_s, ys_s):.2f}", f"{slope(xs_s, ys_v):.2f}",
                                               f"{slope(xs_j, ys_j):.2f}"]
            if len(sizes) >= 3:
                row += [f"{slope(xs_s[-2:], ys_s[-2:]):.2f}", f"{slope(xs_j[-2:], ys_j[-2:]):.2f}"]
            exp_rows.append(row)
            res[name] = {str(k): v for k, v in per_size.items()}
            res[name]["exponent"] = {"shardc_tte": slope(xs_s, ys_s), "shardc_tte_verify": slope(xs_s, ys_v),
                                     "jax": slope(xs_j, ys_j)}
    mesh_col = ["mesh"] if many else []
    head = mesh_col + ["program", "eqns sc / jax", "sc trace", "sc typecheck", "sc emit", "sc trace+type+emit",
                       "sc verify", "jax trace", "jax lower", "jax trace+lower", "speed-up (jax / sc t+t+e)",
                       "speed-up of minima", "speed-up incl. verify"] + (
                           ["peak KiB / eqn sc / jax"] if memory else [])
    ehead = mesh_col + ["program", "sc t+t+e", "sc t+t+e+verify", "jax trace+lower"]
    if len(sizes) >= 3:
        ehead += [f"sc t+t+e {sizes[-2]}→{sizes[-1]}", f"jax {sizes[-2]}→{sizes[-1]}"]
    clock = "CPU time (`--cpu`)" if _FE_CLOCK[0] is time.process_time else "wall time"
    res["clock"] = clock
    return (f"### Front-end: trace + type check + emit vs `jax.jit(f).trace(*args).lower()` ({clock}, medians)\n\n"
            + table(head, rows)
            + "\n\n### Growth exponent (log-log slope of time vs primitive equations; 1.0 = linear)\n\n"
            + table(ehead, exp_rows))


# ------------------------------------------------------------------------------------------------
# 2. call overhead
# ------------------------------------------------------------------------------------------------
def _loop(fn, x, calls: int) -> float:
    t0 = perf()
    for _ in range(calls):
        fn(x).block_until_ready()
    return (perf() - t0) / calls


def _per_call(fn, x, calls: int, reps: int) -> float:
    # a probe first: if a "steady-state" call is slow (e.g. a program cache that never
    # hits, so every call re-traces and re-compiles), shrink the loop to stay in budget
    probe = _loop(fn, x, 5)
    if probe > 1e-3:
        calls, reps = max(3, int(2.0 / probe / 3)), 3
    else:
        for _ in range(max(20, calls // 10)):  # warm-up (caches, allocator)
            fn(x).block_until_ready()
    gc.collect()
    return median([_loop(fn, x, calls) for _ in range(reps)])


def bench_call(mesh, jmesh, calls: int, reps: int, results) -> str:
    rows = []
    res = results.setdefault("call", {})
    data = np.ones((16, 16), np.float32)

    # 1 device, no mesh
    prog = sc.jit(pg.tiny_sc())
    x = sc.asarray(data)
    jf = jax.jit(pg.tiny_jax())
    xj = jax.device_put(data, jax.devices()[0])
    compiled_sc = prog.lower(x).compile()
    compiled_jx = jf.trace(xj).lower().compile()
    cases = [("1 device", "prog(x)", prog, x, jf, xj),
             ("1 device", "AOT compiled(x)", compiled_sc, x, compiled_jx, xj)]
    # 8 devices, (2, 4) mesh, x sharded P('X', 'Y')
    with sc.set_mesh(mesh), jax.set_mesh(jmesh):
        prog8 = sc.jit(pg.tiny_sc())
        x8 = sc.device_put(data, sc.P("X", "Y"))
        jf8 = jax.jit(pg.tiny_jax())
        xj8 = jax.device_put(data, JNS(jmesh, JP("X", "Y")))
        compiled_sc8 = prog8.lower(x8).compile()
        compiled_jx8 = jf8.trace(xj8).lower().compile()
        cases8 = [("8 devices", "prog(x)", prog8, x8, jf8, xj8),
                  ("8 devices", "AOT compiled(x)", compiled_sc8, x8, compiled_jx8, xj8)]
        measured8 = [(c, _per_call(c[2], c[3], calls, reps), _per_call(c[4], c[5], calls, reps)) for c in cases8]
    measured = [(c, _per_call(c[2], c[3], calls, reps), _per_call(c[4], c[5], calls, reps)) for c in cases]
    for (where, how, *_), ts, tj in measured + measured8:
        flag = " (**> 1 ms: is the compiled program cached?**)" if ts > 1e-3 else ""
        rows.append([where, how, fmt_us(ts) + flag, fmt_us(tj), f"**{ts / tj:.2f}x**"])
        res[f"{where} {how}"] = {"shardc": ts, "jax": tj}
        print(f"  [call] {where} {how}: shardc {fmt_us(ts)}, jax {fmt_us(tj)}", file=sys.stderr, flush=True)
    return ("### Call overhead: tiny compiled program `x + 1.0` on f32[16,16], called in a loop, "
            f"blocking on each result ({calls} calls × {reps} reps, median)\n\n"
            + table(["devices", "call", "shardc / call", "jax.jit / call", "ratio (sc / jax, lower is better)"],
                    rows))


# ------------------------------------------------------------------------------------------------
# 3. collectives parity
# ------------------------------------------------------------------------------------------------
_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
          "collective-broadcast", "ragged-all-to-all")
_COLL_RE = re.compile(r"=\s*(?P<shape>\([^=]*?\)|[a-z0-9]+\[[^\]]*\](?:\{[^}]*\})?)\s+"
                      r"(?P<kind>" + "|".join(_KINDS) + r")(?:-start)?\(")
_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4,
          "f32": 4, "s64": 8, "u64": 8, "f64": 8}


def hlo_collectives(hlo: str) -> dict[str, list[int]]:
    """kind -> [count, bytes per device (output shapes summed)], parsed independently of shardc."""
    out: dict[str, list[int]] = {}
    for line in hlo.splitlines():
        m = _COLL_RE.search(line)
        if not m:
            continue
        shapes = re.findall(r"([a-z]+[0-9]*)\[([0-9,]*)\]", m.group("shape"))
        dtype, dims = shapes[-1]
        nbytes = math.prod(int(d) for d in dims.split(",") if d) * _BYTES.get(dtype, 4)
        c = out.setdefault(m.group("kind"), [0, 0])
        c[0] += 1
        c[1] += nbytes
    return out


def bench_collectives(mesh, jmesh, results) -> str:
    amesh = mesh.abstract_mesh
    rows = []
    res = results.setdefault("collectives", {})
    all_ok = True
    for name, jfac, sfac, args in pg.COLLECTIVE_PROGRAMS:
        with sc.set_mesh(mesh), jax.set_mesh(jmesh):
            s_hlo = sc.jit(sfac()).trace(*sc_types(args, amesh)).lower().compile().as_text()
            j_hlo = jax.jit(jfac()).trace(*jax_structs(args, jmesh)).lower().compile().as_text()
        s, j = hlo_collectives(s_hlo), hlo_collectives(j_hlo)
        res[name] = {"shardc": s, "jax": j}
        kinds = sorted(set(s) | set(j)) or ["(none)"]
        for k in kinds:
            sn, sb = s.get(k, [0, 0])
            jn, jb = j.get(k, [0, 0])
            ok = sn <= jn and sb <= jb
            all_ok &= ok
            rows.append([name, k, f"{sn} ({sb:,} B)" if k in s else "0", f"{jn} ({jb:,} B)" if k in j else "0",
                         "ok (≤ JAX)" if ok else "**MORE than JAX**"])
    results["collectives_all_ok"] = all_ok
    return ("### Collectives in the partitioned HLO: count (bytes per device, output shapes summed over the ops)\n\n"
            + table(["program", "kind", "shardc", "JAX", "verdict"], rows))


# ------------------------------------------------------------------------------------------------
# 4. XLA compile time
# ------------------------------------------------------------------------------------------------
def _xla_compile(text: str, devices) -> float:
    import jax.extend
    from jax._src.lib import xla_client as xc
    backend = jax.extend.backend.get_backend(devices[0].platform)
    opts = jax.extend.backend.get_compile_options(
        num_replicas=1, num_partitions=len(devices), device_assignment=np.array([[d.id for d in devices]]))
    t0 = perf()
    exe = backend.compile_and_load(text, xc.DeviceList(tuple(devices)), opts)
    dt = perf() - t0
    del exe
    return dt


def bench_compile(mesh, jmesh, reps: int, sizes, results) -> str:
    amesh = mesh.abstract_mesh
    devices = list(mesh.devices.flat)
    progs = [(name, jfac, sfac, args) for name, jfac, sfac, args in pg.COLLECTIVE_PROGRAMS
             if name in ("megatron_mlp", "attention_block", "ambiguous dot -> P('X')")]
    for fam, (jfac, sfac, args) in pg.FAMILIES.items():
        for size in sizes:
            n = calibrate(sfac, sc_types(args, amesh), size)
            progs.append((f"{fam} ~{size} eqns", (lambda jf=jfac, n=n: jf(n)), (lambda sf=sfac, n=n: sf(n)), args))
    rows = []
    res = results.setdefault("compile", {})
    for name, jfac, sfac, args in progs:
        with sc.set_mesh(mesh), jax.set_mesh(jmesh):
            s_low = sc.jit(sfac()).trace(*sc_types(args, amesh)).lower()
            s_text = s_low.as_text(locations=True)           # what shardc hands to XLA
            j_low = jax.jit(jfac()).trace(*jax_structs(args, jmesh)).lower()
            j_text = j_low.as_text(debug_info=True)
            xs, xj, es, ej = [], [], [], []
            for _ in range(reps):
                gc.collect()
                xj.append(_xla_compile(j_text, devices))
                xs.append(_xla_compile(s_text, devices))
                # each side's own compile stage, end to end (shardc: re-emit with locations,
                # re-verify, compile; JAX: compile its in-memory module)
                jl = jax.jit(jfac()).trace(*jax_structs(args, jmesh)).lower()
                t0 = perf()
                jl.compile()
                ej.append(perf() - t0)
                sl = sc.jit(sfac()).trace(*sc_types(args, amesh)).lower()
                t0 = perf()
                sl.compile()
                es.append(perf() - t0)
        ms, mj, me, mje = median(xs), median(xj), median(es), median(ej)
        res[name] = {"xla_shardc_text": ms, "xla_jax_text": mj, "stage_shardc": me, "stage_jax": mje,
                     "text_bytes_shardc": len(s_text), "text_bytes_jax": len(j_text)}
        rows.append([name, f"{len(s_text) / 1024:.0f} / {len(j_text) / 1024:.0f} KiB", fmt_s(ms), fmt_s(mj),
                     f"**{ms / mj:.2f}x**", fmt_s(me), fmt_s(mje), f"{me / mje:.2f}x"])
        print(f"  [compile] {name}: xla(sc text) {fmt_s(ms)}, xla(jax text) {fmt_s(mj)}", file=sys.stderr,
              flush=True)
    return ("### XLA compile time of the emitted text (same `compile_and_load`, same options; "
            f"median of {reps})\n\n"
            + table(["program", "text sc / jax", "XLA(sc text)", "XLA(jax text)", "ratio sc / jax",
                     "sc `.compile()`", "jax `.compile()`", "stage ratio"], rows))


# ------------------------------------------------------------------------------------------------
# 5. the persistent compilation cache
# ------------------------------------------------------------------------------------------------
CACHE_EXAMPLES = ("megatron.py", "train_layers.py")
# `shardc run` of whole scripts, cold (cache off: XLA compiles) vs cached; the model-scale
# step (bench/model_step.py's 100-layer MLP, forward + grad + update) is where XLA matters
CLI_SCRIPTS = (("examples/train_layers.py",), ("bench/model_step.py", "-p", "mlp100"))


def _shardc_run_wall(script: str, env: dict, *extra: str) -> float:
    t0 = perf()
    # -P: the current directory (this repository) is not put first on sys.path, so the copy of
    # shardc first on PYTHONPATH is the one measured, as the header line says
    subprocess.run([sys.executable, "-P", "-m", "shardc.cli.main", "run", script, *extra, "-q", "--repeat", "1"],
                   env=env, check=True, capture_output=True, cwd=ROOT)
    return perf() - t0


def _shardc_run_times(script: str, env: dict, *extra: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `shardc run` process: CPU is its user + system time, all threads
    (`RUSAGE_CHILDREN`), which other processes loading the machine do not inflate."""
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = _shardc_run_wall(script, env, *extra)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _cli_env(d: str) -> dict:
    """The environment of the timed `shardc run`s: the cache in `d`, and Python's bytecode cache
    on (in a folder of `d`, as an installed package has its .pyc files) even where the machine
    sets PYTHONDONTWRITEBYTECODE, so neither run recompiles shardc's sources."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHARDC_CACHE") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(SHARDC_CACHE_DIR=os.path.join(d, "cli"), NO_COLOR="1", PYTHONPYCACHEPREFIX=os.path.join(d, "pyc"))
    return env


def bench_cli_cache(reps: int, results, scripts=CLI_SCRIPTS) -> str:
    """`shardc run` of an unchanged script, whole process, cold (SHARDC_CACHE=0) vs cached,
    interleaved, in wall time and in the process's CPU time; plus the floor every run pays
    (`import shardc.cli.main` in a fresh process)."""
    import tempfile
    rows = []
    res = results.setdefault("cli_cache", {})
    with tempfile.TemporaryDirectory() as d:
        env = _cli_env(d)
        # the floor of every run: a `shardc` process that imports the CLI and leaves the way a run
        # does (`--version`: click's eager option, nothing traced or compiled)
        imp = [sys.executable, "-P", "-m", "shardc.cli.main", "--version"]
        subprocess.run(imp, env=env, check=True, cwd=ROOT)                 # writes the .pyc files
        floor = [_timed_child(imp, env) for _ in range(reps)]
        fw, fc = median([w for w, _ in floor]), median([c for _, c in floor])
        res["shardc --version"] = {"wall": fw, "cpu": fc}
        for script, *extra in scripts:
            _shardc_run_wall(script, env, *extra)                          # fills the cache
            pairs = [(_shardc_run_times(script, dict(env, SHARDC_CACHE="0"), *extra),
                      _shardc_run_times(script, env, *extra)) for _ in range(reps)]
            wc, ww = median([c[0] for c, _ in pairs]), median([w[0] for _, w in pairs])
            cc, cw = median([c[1] for c, _ in pairs]), median([w[1] for _, w in pairs])
            name = " ".join([script, *extra])
            res[name] = {"cold_wall": wc, "cached_wall": ww, "cold_cpu": cc, "cached_cpu": cw, "runs": pairs}
            rows.append([f"`shardc run {name}`", fmt_s(wc), fmt_s(ww), f"**{wc / ww:.2f}x**", fmt_s(cc), fmt_s(cw),
                         f"**{cc / cw:.2f}x**", f"{(cc - fc) / (cw - fc):.2f}x" if cw > fc else "—"])
            print(f"  [cli cache] {name}: wall cold {fmt_s(wc)} cached {fmt_s(ww)}; CPU cold {fmt_s(cc)} "
                  f"cached {fmt_s(cw)}", file=sys.stderr, flush=True)
    return ("### `shardc run` of an unchanged script: cold (`SHARDC_CACHE=0`, XLA compiles) vs cached, whole "
            f"process (`-q --repeat 1`: a first run and one more), median of {reps} interleaved pairs\n\n"
            + table(["script", "wall cold", "wall cached", "wall cold / cached", "CPU cold", "CPU cached",
                     "CPU cold / cached", "CPU, less the floor"], rows)
            + f"\n\nFloor (`shardc --version`, a fresh process: imports, start and exit, median of {reps}): "
            + f"{fmt_s(fw)} wall, {fmt_s(fc)} CPU")


def _timed_child(cmd: list, env: dict) -> tuple[float, float]:
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = perf()
    subprocess.run(cmd, env=env, check=True, cwd=ROOT)
    wall = perf() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def bench_cache(reps: int, results) -> str:
    import tempfile

    from shardc.cli.loading import load_script
    cache = sc.compilation_cache
    rows = []
    res = results.setdefault("cache", {})
    with tempfile.TemporaryDirectory() as d:
        cache.set_cache_dir(d)
        for ex in CACHE_EXAMPLES:
            script = load_script(os.path.join(ROOT, "examples", ex), echo=False)
            tot_cold = tot_warm = 0.0
            for prog in script.select(None):
                lowered = script.call(lambda: prog.jit.trace().lower())
                cache.set_enabled(False)
                cold = []
                for _ in range(reps):
                    gc.collect()
                    t0 = perf()
                    script.call(lowered.compile)
                    cold.append(perf() - t0)
                cache.set_enabled(True)
                first = script.call(lowered.compile)          # stores the entry
                assert first.cache_outcome.status == "miss", first.cache_outcome
                warm = []
                for _ in range(reps):
                    gc.collect()
                    t0 = perf()
                    c = script.call(lowered.compile)
                    warm.append(perf() - t0)
                    assert c.cache_hit
                mc, mw = median(cold), median(warm)
                size = c.cache_outcome.path.stat().st_size
                tot_cold, tot_warm = tot_cold + mc, tot_warm + mw
                res[f"{ex}:{prog.name}"] = {"cold": mc, "warm": mw, "entry_bytes": size}
                rows.append([f"{ex} `{prog.name}`", fmt_s(mc), fmt_s(mw), f"**{mc / mw:.1f}x**",
                             f"{size / 1024:.1f} KiB"])
                print(f"  [cache] {ex} {prog.name}: cold {fmt_s(mc)}, warm {fmt_s(mw)}, entry {size} B",
                      file=sys.stderr, flush=True)
            rows.append([f"{ex}, all programs", fmt_s(tot_cold), fmt_s(tot_warm), f"**{tot_cold / tot_warm:.1f}x**",
                         ""])
            env = {k: v for k, v in os.environ.items() if not k.startswith("SHARDC_CACHE")}
            env.update(SHARDC_CACHE_DIR=os.path.join(d, "cli"), NO_COLOR="1")
            path = os.path.join("examples", ex)
            _shardc_run_wall(path, env)                                    # fills the cache
            walls = [(_shardc_run_wall(path, dict(env, SHARDC_CACHE="0")), _shardc_run_wall(path, env))
                     for _ in range(max(1, reps // 2))]                  # interleaved: same machine load
            wc, ww = median([c for c, _ in walls]), median([w for _, w in walls])
            res[f"{ex}:shardc run"] = {"cold": wc, "warm": ww}
            rows.append([f"`shardc run examples/{ex}` (whole process, median of {len(walls)})", fmt_s(wc),
                         fmt_s(ww), f"{wc / ww:.2f}x", ""])
        cache.set_cache_dir(None)
        cache.set_enabled(False)
    return ("### Persistent compilation cache: `.compile()` cold (XLA) vs warm (loaded from the cache), "
            f"median of {reps}\n\n"
            + table(["program", "cold", "warm", "cold / warm", "entry"], rows))


# ------------------------------------------------------------------------------------------------
# 6. model scale: a training step (forward + grad + update) written once, run on both sides
# ------------------------------------------------------------------------------------------------
MODEL_KINDS = ("mlp100", "transformer24")


def _tree_types(kind, make):
    tree, xl = models.layouts(kind)
    params = [{k: make(*leaf) for k, leaf in layer.items()} for layer in tree]
    return params, params, make(*xl), make(*xl)


def _tree_values(kind, put):
    tree, xl = models.layouts(kind)
    vp, vm, x, y = models.init_values(kind)
    return ([{k: put(vp[i][k], leaf[1]) for k, leaf in layer.items()} for i, layer in enumerate(tree)],
            [{k: put(vm[i][k], leaf[1]) for k, leaf in layer.items()} for i, layer in enumerate(tree)],
            put(x, xl[1]), put(y, xl[1]))


def _step_times(fn, args, steps: int) -> float:
    for leaf in jax.tree_util.tree_leaves(fn(*args)):     # the first call: warm-up
        leaf.block_until_ready()
    ts = []
    for _ in range(steps):
        t0 = perf()
        out = fn(*args)
        for leaf in jax.tree_util.tree_leaves(out):
            leaf.block_until_ready()
        ts.append(perf() - t0)
    return median(ts)


def _model_side(name, jit, trace_args, run_args, compile_cached, steps):
    t0 = perf()
    traced = jit.trace(*trace_args)
    t1 = perf()
    lowered = traced.lower()
    t2 = perf()
    compiled = lowered.compile()
    t3 = perf()
    cached = compile_cached(jit, trace_args)
    hlo = compiled.as_text()
    step = _step_times(compiled, run_args, steps)
    print(f"  [model] {name}: trace {fmt_s(t1 - t0)} lower {fmt_s(t2 - t1)} compile {fmt_s(t3 - t2)} "
          f"cached {fmt_s(cached)} step {fmt_s(step)}", file=sys.stderr, flush=True)
    return {"trace": t1 - t0, "lower": t2 - t1, "compile": t3 - t2, "compile_cached": cached, "step": step,
            "collectives": hlo_collectives(hlo)}


def _sc_cached_compile(jit, args) -> float:
    """A fresh trace + lower, then `.compile()` served by shardc's persistent cache."""
    lowered = jit.trace(*args).lower()
    t0 = perf()
    compiled = lowered.compile()
    assert compiled.cache_hit, compiled.cache_outcome
    return perf() - t0


def _jax_cached_compile(jit, args) -> float:
    """A fresh jit + trace + lower, then `.compile()` served by JAX's persistent cache."""
    jax.clear_caches()                        # drop JAX's in-memory executable cache
    lowered = jit.trace(*args).lower()
    t0 = perf()
    lowered.compile()
    return perf() - t0


def bench_model(mesh, jmesh, steps: int, results) -> str:
    import tempfile

    import shardc.numpy as snp
    amesh = mesh.abstract_mesh
    rows, coll_rows = [], []
    res = results.setdefault("model", {})
    with tempfile.TemporaryDirectory() as d:
        sc.compilation_cache.set_cache_dir(os.path.join(d, "shardc"))
        sc.compilation_cache.set_enabled(True)
        jax.config.update("jax_compilation_cache_dir", os.path.join(d, "jax"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
        try:
            for kind in MODEL_KINDS:
                with sc.set_mesh(mesh):
                    s_types = _tree_types(kind, lambda shape, spec: sc.parse_type(
                        "f32[" + ",".join(f"{n}@{a}" if a else str(n) for n, a in zip(shape, spec)) + "]", amesh))
                    s_vals = _tree_values(kind, lambda v, spec: sc.device_put(v, sc.P(*spec)))
                    s = _model_side(f"{kind} shardc", sc.jit(models.build(sc, snp, sc.P, kind)), s_types, s_vals,
                                    _sc_cached_compile, steps)
                with jax.set_mesh(jmesh):
                    j_types = _tree_types(kind, lambda shape, spec: jax.ShapeDtypeStruct(
                        shape, jnp.float32, sharding=JNS(jmesh, JP(*spec))))
                    j_vals = _tree_values(kind, lambda v, spec: jax.device_put(v, JNS(jmesh, JP(*spec))))
                    j = _model_side(f"{kind} jax", jax.jit(models.build(jax, jnp, JP, kind)), j_types, j_vals,
                                    _jax_cached_compile, steps)
                res[kind] = {"shardc": s, "jax": j}
                for what in ("trace", "lower", "compile", "compile_cached", "step"):
                    rows.append([kind, what.replace("_", " "), fmt_s(s[what]), fmt_s(j[what]),
                                 f"**{j[what] / s[what]:.2f}x**"])
                fe_s, fe_j = s["trace"] + s["lower"], j["trace"] + j["lower"]
                rows.append([kind, "trace + lower", fmt_s(fe_s), fmt_s(fe_j), f"**{fe_j / fe_s:.2f}x**"])
                for k in sorted(set(s["collectives"]) | set(j["collectives"])) or ["(none)"]:
                    sn, sb = s["collectives"].get(k, [0, 0])
                    jn, jb = j["collectives"].get(k, [0, 0])
                    coll_rows.append([kind, k, f"{sn} ({sb:,} B)", f"{jn} ({jb:,} B)",
                                      "ok (≤ JAX)" if sn <= jn and sb <= jb else "**MORE than JAX**"])
        finally:
            sc.compilation_cache.set_cache_dir(None)
            sc.compilation_cache.set_enabled(False)
            jax.config.update("jax_compilation_cache_dir", None)
        script = os.path.join(ROOT, "bench", "model_step.py")
        t0 = perf()
        subprocess.run([sys.executable, "-P", "-m", "shardc.cli.main", "check", script, "-q"], check=True,
                       capture_output=True, cwd=ROOT, env=dict(os.environ, NO_COLOR="1"))
        res["shardc check"] = perf() - t0
    return ("### Model scale: training step (forward + `value_and_grad` + momentum-SGD update), "
            f"one source for both sides (bench/models.py), (2, 4) mesh; step: median of {steps}\n\n"
            + table(["model", "stage", "shardc", "JAX", "speed-up (jax / sc)"], rows)
            + f"\n\n`shardc check bench/model_step.py` (both steps, whole process): {res['shardc check']:.1f} s\n\n"
            + "Collectives in the partitioned HLO of the step: count (bytes per device)\n\n"
            + table(["model", "kind", "shardc", "JAX", "verdict"], coll_rows))


# ------------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="sizes 100 and 1k, fewer repetitions (< 1 minute)")
    ap.add_argument("--only", default="frontend,call,collectives,compile,cache,cli,model",
                    help="comma-separated sections: frontend, call, collectives, compile, cache, cli, model")
    ap.add_argument("--json", metavar="PATH", help="also write the raw numbers as JSON")
    ap.add_argument("--sizes", help="front-end sizes in equations, comma-separated (default 100,1000,10000; "
                                    "100000 takes minutes per family)")
    ap.add_argument("--memory", action="store_true", help="front end: also the peak Python heap per equation")
    ap.add_argument("--cpu", action="store_true", help="front end: CPU time of this process (time.process_time) "
                                                       "instead of wall time, for a loaded machine")
    ap.add_argument("--families", help="front-end families, comma-separated (default: all; "
                                       "elementwise, mlp, attention, train step)")
    ap.add_argument("--reps", type=int, help="front-end repetitions per size (default 11 / 7 / 5 / 3 from 100 "
                                             "to 100k equations)")
    ap.add_argument("--meshes", default="2d", help="front-end meshes, comma-separated from 1d (8,), 2d (2, 4), "
                                                   "3d (2, 2, 2) (default 2d)")
    opts = ap.parse_args(argv)
    sections = [s.strip() for s in opts.only.split(",") if s.strip()]

    t_start = perf()
    sc.compilation_cache.set_enabled(False)      # every section times XLA itself, but `cache`
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    jmesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(JAxisType.Explicit,) * 2)
    info = machine_info()
    results: dict = {"machine": info, "quick": opts.quick}
    out = ["## shardc vs JAX" + (" (--quick)" if opts.quick else ""), "",
           "machine: " + ", ".join(f"{k}={v}" for k, v in info.items()), ""]
    if "frontend" in sections:
        sizes = SIZES_QUICK if opts.quick else SIZES_FULL
        if opts.sizes:
            sizes = tuple(int(z) for z in opts.sizes.split(","))
        reps = (lambda z: 5 if z <= 100 else 3) if opts.quick else (
            lambda z: 11 if z <= 100 else 7 if z <= 1_000 else 5 if z <= 10_000 else 3)
        if opts.cpu:
            use_cpu_clock()
        labels = [m.strip().lower().replace("-", "") for m in opts.meshes.split(",") if m.strip()]
        if opts.reps:
            reps = lambda z: opts.reps  # noqa: E731
        fams = [f.strip() for f in opts.families.split(",")] if opts.families else None
        out += [bench_frontend(frontend_meshes(labels), sizes, reps, results, memory=opts.memory, families=fams), ""]
    if "call" in sections:
        out += [bench_call(mesh, jmesh, 300 if opts.quick else 1000, 3 if opts.quick else 7, results), ""]
    if "collectives" in sections:
        out += [bench_collectives(mesh, jmesh, results), ""]
    if "compile" in sections:
        out += [bench_compile(mesh, jmesh, 1 if opts.quick else 3, (1_000,), results), ""]
    if "cache" in sections:
        out += [bench_cache(3 if opts.quick else 7, results), ""]
    if "cli" in sections:
        out += [bench_cli_cache(2 if opts.quick else 3, results), ""]
    if "model" in sections:
        out += [bench_model(mesh, jmesh, 3 if opts.quick else 10, results), ""]
    total = perf() - t_start
    results["seconds"] = total
    out.append(f"(benchmark wall time: {total:.0f} s)")
    print("\n".join(out))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
