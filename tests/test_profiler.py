"""`shardc.profiler` is `jax.profiler`: a trace taken around a shardc program records that
program (its name, the `sc.named_scope` names XLA keeps as op names) and host annotations."""
from __future__ import annotations

from pathlib import Path

import jax
import numpy as np

import shardc as sc


def test_profiler_names_are_jaxs():
    assert set(sc.profiler.__all__) == {n for n in dir(jax.profiler) if not n.startswith("_")}
    assert all(getattr(sc.profiler, n) is getattr(jax.profiler, n) for n in sc.profiler.__all__)


def test_trace_records_a_shardc_program(tmp_path, mesh24):
    a = sc.device_put(np.ones((8, 4), np.float32), sc.P("X", "Y"))

    def shardc_profiled_step(x):
        with sc.named_scope("scope_in_trace"):
            return sc.sum(sc.sin(x))

    f = sc.jit(shardc_profiled_step)
    f(a)
    with sc.profiler.trace(str(tmp_path)):
        with sc.profiler.TraceAnnotation("host_annotation_here"):
            sc.block_until_ready(f(a))
    planes = list(Path(tmp_path).glob("plugins/profile/*/*.xplane.pb"))
    assert len(planes) == 1
    data = planes[0].read_bytes()
    for name in (b"host_annotation_here", b"shardc_profiled_step", b"scope_in_trace"):
        assert name in data, name
    assert b"never_ran_this_name" not in data

