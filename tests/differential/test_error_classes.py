"""`jax.errors`' named classes: a ported program that catches `jax.errors.X` (with `import shardc as
jax`) catches what shardc raises where JAX raises X. Each situation runs on both sides; shardc's
exception has JAX's class name, is an instance of `shardc.errors.X`, and of the builtin base JAX's is."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import shardc as sc
import shardc.numpy as snp

#: name -> fn(top, numpy) that raises
SITUATIONS = {
    "bool-of-tracer": lambda T, N: T.jit(lambda x: 1 if x > 0 else 2)(1.0),
    "while-on-tracer": lambda T, N: T.jit(lambda x: [x := x - 1 for _ in range(3) if x])(1.0),
    "index-of-tracer": lambda T, N: T.jit(lambda n: list(range(n)))(3),
    "list-index-of-tracer": lambda T, N: T.jit(lambda i: [1, 2, 3][i])(1),
    "numpy-of-tracer": lambda T, N: T.jit(lambda x: np.sin(x))(1.0),
    "asarray-of-tracer": lambda T, N: T.jit(lambda x: np.asarray(x))(N.ones(3)),
    "float-of-tracer": lambda T, N: T.jit(lambda x: float(x))(1.0),
    "int-of-tracer": lambda T, N: T.jit(lambda x: int(x))(1),
    "item-of-tracer": lambda T, N: T.jit(lambda x: x.item())(1.0),
    "tolist-of-tracer": lambda T, N: T.jit(lambda x: x.tolist())(N.ones(2)),
    "shape-from-tracer": lambda T, N: T.jit(lambda n: N.zeros(n))(3),
    "bool-mask-index": lambda T, N: T.jit(lambda x: x[x > 0])(N.ones(3)),
    "nonzero-no-size": lambda T, N: T.jit(lambda x: N.nonzero(x))(N.ones(3)),
}


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return e
    raise AssertionError("did not raise")


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_error_class_as_jax(name):
    j = _raised(lambda: SITUATIONS[name](jax, jnp))
    s = _raised(lambda: SITUATIONS[name](sc, snp))
    builtin = next(c for c in type(j).__mro__ if c.__module__ == "builtins")
    assert isinstance(s, builtin) and isinstance(s, sc.ShardcError), (builtin, s)
    if type(j) is not builtin:   # one of jax.errors' classes: shardc's of that name
        assert type(s).__name__ == type(j).__name__, (j, s)
        assert isinstance(s, getattr(sc.errors, type(j).__name__)), s


def test_leaked_tracer_is_an_unexpected_tracer_error():
    for top in (jax, sc):
        saved = []
        top.jit(lambda x, saved=saved: saved.append(x) or x)(1.0)
        with pytest.raises(top.errors.UnexpectedTracerError):
            saved[0] + 1


def test_every_jax_errors_name_is_in_shardc_errors():
    names = [n for n in dir(jax.errors) if not n.startswith("_")]
    assert [n for n in names if not hasattr(sc.errors, n)] == []
    hierarchy = ("ConcretizationTypeError", "TracerBoolConversionError", "TracerIntegerConversionError",
                 "TracerArrayConversionError", "NonConcreteBooleanIndexError", "UnexpectedTracerError",
                 "KeyReuseError", "JAXTypeError", "JAXIndexError")
    for n in hierarchy:   # the same subclass relations as JAX's
        for m in hierarchy:
            assert issubclass(getattr(sc.errors, n), getattr(sc.errors, m)) == issubclass(
                getattr(jax.errors, n), getattr(jax.errors, m)), (n, m)
