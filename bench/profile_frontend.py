#!/usr/bin/env python
"""Profile shardc's front-end (trace + type check + emit + verify) and its call path.

    python bench/profile_frontend.py                       # all families at 1k and 10k eqns, cProfile
    python bench/profile_frontend.py --family mlp --size 10000 --top 30
    python bench/profile_frontend.py --call                # call overhead (1 and 8 devices)
    python bench/profile_frontend.py --pyinstrument        # call tree (needs `pip install pyinstrument`)

Prints, per program, the phase split (from `Traced.timings`) and the top functions by
self time and by cumulative time, each as a percentage of the profiled total.
Findings and suggested changes are written up in bench/PROFILE.md.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
import time

os.environ.setdefault("SHARDC_CPU_DEVICES", "8")

import jax  # noqa: E402

jax.config.update("jax_num_cpu_devices", int(os.environ["SHARDC_CPU_DEVICES"]))

import numpy as np  # noqa: E402

import shardc as sc  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs as pg  # noqa: E402
from run import calibrate, sc_types  # noqa: E402


def _short(func) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    parts = filename.replace("\\", "/").split("/")
    if "shardc" in parts:
        filename = "/".join(parts[parts.index("shardc"):])
    elif "site-packages" in parts:
        filename = "/".join(parts[parts.index("site-packages") + 1:])
    else:
        filename = parts[-1]
    return f"{filename}:{line}({name})"


def report(prof: cProfile.Profile, total: float, top: int) -> str:
    st = pstats.Stats(prof)
    rows = [(func, cc, nc, tt, ct) for func, (cc, nc, tt, ct, _callers) in st.stats.items()]
    out = io.StringIO()
    tot = sum(r[3] for r in rows)
    out.write(f"    profiled total {tot:.3f} s (wall without profiler {total:.3f} s)\n")
    out.write("    -- by self time --\n")
    for func, cc, nc, tt, ct in sorted(rows, key=lambda r: -r[3])[:top]:
        out.write(f"    {100 * tt / tot:5.1f}%  self {tt:7.3f}s  cum {ct:7.3f}s  calls {nc:>8}  {_short(func)}\n")
    out.write("    -- by cumulative time --\n")
    for func, cc, nc, tt, ct in sorted(rows, key=lambda r: -r[4])[:top]:
        out.write(f"    {100 * ct / tot:5.1f}%  cum {ct:7.3f}s  calls {nc:>8}  {_short(func)}\n")
    return out.getvalue()


def profile_frontend(fam: str, size: int, top: int, pyinstrument: bool) -> None:
    jfac, sfac, args = pg.FAMILIES[fam]
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(mesh):
        types = sc_types(args, mesh.abstract_mesh)
        n = calibrate(sfac, types, size)
        sc.jit(sfac(2)).trace(*types).lower()  # warm-up
        gc.collect()
        t0 = time.perf_counter()
        tr = sc.jit(sfac(n)).trace(*types)
        tr.lower()
        wall = time.perf_counter() - t0
        tm = tr.timings
        print(f"== {fam}, {len(tr.program.eqns)} eqns: trace {tm.trace:.3f}s  typecheck {tm.typecheck:.3f}s  "
              f"emit {tm.emit:.3f}s  verify {tm.verify:.3f}s  (wall {wall:.3f}s)")
        gc.collect()
        if pyinstrument:
            from pyinstrument import Profiler
            p = Profiler(interval=0.0005)
            p.start()
            sc.jit(sfac(n)).trace(*types).lower()
            p.stop()
            print(p.output_text(unicode=False, color=False, show_all=False))
            return
        prof = cProfile.Profile()
        prof.enable()
        sc.jit(sfac(n)).trace(*types).lower()
        prof.disable()
        print(report(prof, wall, top))


def profile_call(top: int, pyinstrument: bool, default_calls: int = 3000) -> None:
    data = np.ones((16, 16), np.float32)
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    for label in ("1 device", "8 devices"):
        calls = default_calls
        if label == "1 device":
            prog, x, ctx = sc.jit(pg.tiny_sc()), sc.asarray(data), None
        else:
            ctx = sc.set_mesh(mesh)
            ctx.__enter__()
            prog, x = sc.jit(pg.tiny_sc()), sc.device_put(data, sc.P("X", "Y"))
        t0 = time.perf_counter()
        for _ in range(5):
            prog(x).block_until_ready()
        if (time.perf_counter() - t0) / 5 > 1e-3:
            print(f"!! {label}: a steady-state call takes > 1 ms: the compiled program is not cached "
                  "(every call traces and compiles); profiling 20 calls")
            calls = 20
        for _ in range(100 if calls > 20 else 0):
            prog(x).block_until_ready()
        t0 = time.perf_counter()
        for _ in range(calls):
            prog(x).block_until_ready()
        wall = (time.perf_counter() - t0) / calls
        print(f"== call overhead, {label}: {wall * 1e6:.1f} µs / call ({calls} calls)")
        if pyinstrument:
            from pyinstrument import Profiler
            p = Profiler(interval=0.0001)
            p.start()
            for _ in range(calls):
                prog(x).block_until_ready()
            p.stop()
            print(p.output_text(unicode=False, color=False))
        else:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(calls):
                prog(x).block_until_ready()
            prof.disable()
            print(report(prof, wall * calls, top))
        if ctx is not None:
            ctx.__exit__(None, None, None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=list(pg.FAMILIES), action="append")
    ap.add_argument("--size", type=int, action="append", help="target primitive equations (default 1000, 10000)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--call", action="store_true", help="profile call overhead instead of the front-end")
    ap.add_argument("--pyinstrument", action="store_true", help="print pyinstrument's call tree")
    o = ap.parse_args(argv)
    if o.pyinstrument:
        try:
            import pyinstrument  # noqa: F401
        except ImportError:
            ap.error("--pyinstrument needs `pip install pyinstrument`")
    if o.call:
        profile_call(o.top, o.pyinstrument)
        return 0
    for fam in o.family or list(pg.FAMILIES):
        for size in o.size or (1_000, 10_000):
            profile_frontend(fam, size, o.top, o.pyinstrument)
    return 0


if __name__ == "__main__":
    sys.exit(main())
