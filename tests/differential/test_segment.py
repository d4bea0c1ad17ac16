"""Differential: `jax.ops.segment_sum/prod/max/min` (as `sc.ops.*`) against JAX 0.10.2: types
of sharded data on 1-D to 3-D meshes, values (ids out of range and negative dropped, empty
segments holding the identity, `bucket_size`, sorted/unique hints, `mode`), accept/reject
(traced `num_segments`, negative `num_segments`), and under `grad`, `vmap` and `jit`."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracle import BASIC_MESHES, Case, Placed, check, param, sample, specs_for

OPS = ["segment_sum", "segment_prod", "segment_max", "segment_min"]
DTYPES = ["f32", "bf16", "i32"]
IDS = np.array([0, 3, 3, 1, -1, 7, 2, 0], np.int32)     # -1 and 7 (>= num_segments 5) are dropped
SHAPES = [(8,), (8, 4), (8, 2, 4)]


def _ids(ns):
    return ns.asarray(IDS)


def _type_cases():
    cases = []
    for op, dtype, shape, mesh in itertools.product(OPS, DTYPES, SHAPES, BASIC_MESHES):
        pool = [Case(f"{op}-{dtype}-{shape}-{mesh}-{spec}", mesh,
                     (lambda o: lambda ns, d: getattr(ns.ops, o)(d, _ids(ns), 5))(op),
                     (Placed(shape, spec, dtype),))
                for spec in specs_for(shape, mesh)]
        cases += sample(pool, 2, salt=op + dtype + str(shape) + mesh)
    return cases


TYPE_CASES = _type_cases()


@param(TYPE_CASES)
def test_segment_types(case):
    check(case, "trace")


@param(sample(TYPE_CASES, 12, salt="values"))
def test_segment_values(case):
    """Compiled on both sides: values, result shardings and collectives."""
    check(case, "jit", collectives="at_most")


VARIANTS = {
    "no-num_segments": lambda ns, op, d: getattr(ns.ops, op)(d, ns.asarray(np.abs(IDS))),
    "bucket_size": lambda ns, op, d: getattr(ns.ops, op)(d, _ids(ns), 5, bucket_size=3),
    "sorted": lambda ns, op, d: getattr(ns.ops, op)(d, ns.asarray(np.sort(np.abs(IDS))), 8,
                                                    indices_are_sorted=True),
    "unique": lambda ns, op, d: getattr(ns.ops, op)(d, ns.asarray(np.arange(8)[::-1].copy()), 8,
                                                    unique_indices=True),
    "mode-clip": lambda ns, op, d: getattr(ns.ops, op)(d, _ids(ns), 5, mode="clip"),
    "zero-segments": lambda ns, op, d: getattr(ns.ops, op)(d, _ids(ns), 0),
    "host-data": lambda ns, op, d: getattr(ns.ops, op)(np.arange(8.0, dtype=np.float32), IDS, 5),
    "negative-num_segments": lambda ns, op, d: getattr(ns.ops, op)(d, _ids(ns), -1),
    "traced-num_segments": lambda ns, op, d: ns.jit(lambda x, n: getattr(ns.ops, op)(x, _ids(ns), n))(
        d, ns.asarray(np.int32(5))),
    "traced-ids-no-num_segments": lambda ns, op, d: ns.jit(lambda x, i: getattr(ns.ops, op)(x, i))(d, _ids(ns)),
    "grad": lambda ns, op, d: ns.grad(lambda x: getattr(ns.ops, op)(x, _ids(ns), 5).sum())(d),
    "vmap": lambda ns, op, d: ns.vmap(lambda x: getattr(ns.ops, op)(x, _ids(ns), 5), in_axes=1)(d),
}
# bucket_size on sharded data: JAX 0.10.2 fails inside its own stack of buckets ("Incompatible
# types for broadcasting"); the buckets are compared on replicated data
VARIANT_CASES = [Case(f"{name}-{op}", "2d", (lambda f, o: lambda ns, d: f(ns, o, d))(f, op),
                      (Placed((8, 4), (None, None) if name == "bucket_size" else ("X", "Y"), "f32"),))
                 for (name, f), op in itertools.product(VARIANTS.items(), OPS)]


@param(VARIANT_CASES)
def test_segment_variants(case):
    check(case, "eager")


@pytest.mark.parametrize("op", OPS)
def test_jax_ops_is_shardc_ops(op):
    """`import shardc as jax; jax.ops.segment_sum` resolves, as `jax.ops.segment_sum` does."""
    import jax

    import shardc as sc
    assert set(n for n in dir(jax.ops) if not n.startswith("_")) <= set(dir(sc.ops))
    assert getattr(sc.ops, op).__name__ == op
