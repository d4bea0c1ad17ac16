"""Dispatch cost of an already-compiled program: shardc against `jax.jit`, in CPU time.

    SHARDC_CPU_DEVICES=8 python bench/dispatch.py [--calls N] [--reps R] [--cases 1,aot,tree,8]
    PYTHONPATH=/path/to/other/copy python bench/dispatch.py     # the same for another copy of shardc

`bench/run.py --only call` reports wall-clock medians, which on the shared 2-core machine move
by 2-3x with the load other processes put on it. This script reports, per case, the **minimum
CPU time** (`time.process_time`) per call over many repetitions, which load hardly moves, the
ratio of the calling thread's minimum CPU time (`time.thread_time`: without XLA's worker threads,
which on 8 devices spin and wait more the more loaded the machine is), and the wall-clock median; shardc and JAX repetitions alternate. Every call is `f(*args)` then
`.block_until_ready()` on the result (as `bench/run.py`). Cases: `x + 1.0` on f32[16,16] on one
device without a mesh (`prog(x)`, and the AOT `Compiled` object), a pytree argument
(`{"a": x, "b": (x, x)}`, three leaves), host arguments (`prog(x, 0.1, numpy_array)`: a Python
float and a NumPy array beside the array), and `prog(x)` on 8 devices (`P('X', 'Y')` on a (2, 4)
Explicit mesh; XLA's work dominates there, and its threads count in CPU time). No timing is
asserted anywhere.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("SHARDC_CPU_DEVICES", "8")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding as JNS  # noqa: E402

import shardc as sc  # noqa: E402


def _loop(fn, args, calls: int, clock) -> float:
    t0 = clock()
    for _ in range(calls):
        fn(*args).block_until_ready()
    return (clock() - t0) / calls


def _measure(fn, args, calls: int, reps: int) -> tuple[float, float, float]:
    """(min CPU seconds per call: the process's, the calling thread's; median wall seconds per call)."""
    for _ in range(max(50, calls // 10)):
        fn(*args).block_until_ready()
    gc.collect()
    cpu = [_loop(fn, args, calls, time.process_time) for _ in range(reps)]
    thread = [_loop(fn, args, calls, time.thread_time) for _ in range(reps)]
    wall = [_loop(fn, args, calls, time.perf_counter) for _ in range(reps)]
    return min(cpu), min(thread), statistics.median(wall)


def _cases(which: list[str]):
    """(name, shardc callable, its args, jax callable, its args, calls divisor) per case."""
    data = np.ones((16, 16), np.float32)
    x, xj = sc.asarray(data), jax.device_put(data, jax.devices()[0])
    add = lambda v: v + 1.0   # noqa: E731
    tree = lambda d: d["a"] + d["b"][0] * d["b"][1]   # noqa: E731
    if "1" in which:
        yield "1 device, prog(x)", sc.jit(add), (x,), jax.jit(add), (xj,), 1
    if "aot" in which:
        yield ("1 device, AOT compiled(x)", sc.jit(add).lower(x).compile(), (x,),
               jax.jit(add).lower(xj).compile(), (xj,), 1)
    if "tree" in which:
        yield ("1 device, prog({a, b: (x, x)})", sc.jit(tree), ({"a": x, "b": (x, x)},), jax.jit(tree),
               ({"a": xj, "b": (xj, xj)},), 1)
    if "host" in which:   # a Python float and a NumPy array beside the array (a learning rate, a batch)
        scaled = lambda v, lr, b: v * lr + b   # noqa: E731
        yield "1 device, prog(x, 0.1, numpy)", sc.jit(scaled), (x, 0.1, data), jax.jit(scaled), (xj, 0.1, data), 1
    if "8" in which:
        mesh = sc.make_mesh((2, 4), ("X", "Y"))
        jmesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
        with sc.set_mesh(mesh):
            x8 = sc.device_put(data, sc.P("X", "Y"))
        xj8 = jax.device_put(data, JNS(jmesh, jax.P("X", "Y")))
        yield "8 devices, prog(x)", (mesh, sc.jit(add)), (x8,), (jmesh, jax.jit(add)), (xj8,), 10


def _in_mesh(side, args, calls, reps, sc_side: bool):
    if not isinstance(side, tuple):
        return _measure(side, args, calls, reps)
    mesh, fn = side
    with (sc.set_mesh if sc_side else jax.set_mesh)(mesh):
        return _measure(fn, args, calls, reps)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000, help="calls per repetition (8 devices: a tenth)")
    ap.add_argument("--reps", type=int, default=9, help="repetitions per side and round (two rounds)")
    ap.add_argument("--cases", default="1,aot,tree,host,8", help="comma-separated: 1, aot, tree, host, 8")
    o = ap.parse_args(argv)
    print(f"machine: nproc={os.cpu_count()}, load average={os.getloadavg()[0]:.1f}, python="
          f"{platform.python_version()}, jax={jax.__version__}, shardc from {os.path.dirname(sc.__file__)}, "
          f"{len(jax.devices())} x {jax.devices()[0].platform}\n")
    print("| call | shardc CPU | jax CPU | **CPU ratio** | thread CPU ratio | shardc wall | jax wall | wall ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, s_fn, s_args, j_fn, j_args, div in _cases(o.cases.split(",")):
        calls = max(10, o.calls // div)
        rounds = [(_in_mesh(s_fn, s_args, calls, o.reps, True), _in_mesh(j_fn, j_args, calls, o.reps, False))
                  for _ in range(2)]
        s_cpu, j_cpu = min(r[0][0] for r in rounds), min(r[1][0] for r in rounds)
        s_thr, j_thr = min(r[0][1] for r in rounds), min(r[1][1] for r in rounds)
        s_wall = statistics.median(r[0][2] for r in rounds)
        j_wall = statistics.median(r[1][2] for r in rounds)
        us = lambda t: f"{t * 1e6:.2f} µs"   # noqa: E731
        print(f"| {name} | {us(s_cpu)} | {us(j_cpu)} | **{s_cpu / j_cpu:.2f}x** | {s_thr / j_thr:.2f}x | {us(s_wall)} "
              f"| {us(j_wall)} | {s_wall / j_wall:.2f}x |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
