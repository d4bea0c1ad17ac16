"""`sc.linear_transpose` and `sc.fwd_and_bwd`: JAX's top-level reverse-mode conveniences, over
`autodiff.py`'s `vjp` (they sit above `stages`, which they jit with).

- `linear_transpose(fun, *primals)`: the primals give only types (arrays or
  `ShapeDtypeStruct`s); the transpose of the linear `fun` is its VJP, taken at zero primals
  (the VJP of a linear function is the same at every point). As JAX, the function must be
  linear: an operation on the linear inputs with no transpose (`sin`, a product of two linear
  values) is refused with JAX's error before anything is computed.
- `fwd_and_bwd(fun, argnums)`: `fwd(*args) -> (out, residuals)`, `bwd(residuals, ct)`, both
  jitted by default so `bwd` compiles once. shardc's residuals are the differentiated primal
  arguments (a pytree) and `bwd` recomputes the forward inside its program; JAX's are the
  VJP closure's saved values. Values and cotangent types are JAX's; the residuals are opaque.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import jax.tree_util as tu
import numpy as np

from . import dtypes as dt
from .autodiff import vjp
from .core import Tracer, current_trace, raise_user_error, stage_eagerly, typeof
from .errors import ShardcNotImplementedError, ShardcTypeError
from .ops.control_flow import _trace_fn
from .ops.creation import full
from .ops.manual import pcast
from .sharding import PartitionSpec
from .stages import jit
from .transforms.ad import differentiable
from .types import ArrayType

__all__ = ["linear_transpose", "fwd_and_bwd"]


def _is_leaf(x) -> bool:
    return isinstance(x, Tracer) or getattr(x, "_shardc_type", None) is not None


def _type_of(x) -> ArrayType:
    """A primal's type: an array's, or a `ShapeDtypeStruct`'s (JAX's `shaped_abstractify`)."""
    sh = getattr(x, "sharding", None)
    if not _is_leaf(x) and hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.ndarray):
        spec = getattr(sh, "spec", None)
        t = typeof(np.zeros((), dt.canonicalize(x.dtype)))
        return t.update(shape=tuple(x.shape), weak_type=bool(getattr(x, "weak_type", False))) if spec is None \
            else typeof(full(tuple(x.shape), 0, x.dtype, out_sharding=PartitionSpec(*spec)))
    return typeof(x)


#: primitives linear in each operand on their own (a product with one linear operand is linear)
_BILINEAR = {"mul", "dot_general", "conv_general_dilated", "einsum"}
_LINEAR_IN_FIRST = {"div"}


def _check_linear(prog, n_in: int) -> None:
    """JAX's transpose fails on a nonlinear operation applied to the linear inputs: find one."""
    linear = {v.id for v in prog.in_vars[:n_in]}
    for e in prog.eqns:
        hit = [i for i, a in enumerate(e.inputs) if getattr(a, "id", None) in linear]
        if not hit:
            continue
        name = e.prim.name
        ok = (name in _BILINEAR and len(hit) == 1) or (name in _LINEAR_IN_FIRST and hit == [0]) or (
            name not in _BILINEAR | _LINEAR_IN_FIRST and name not in _NONLINEAR)
        if name in _BILINEAR and len(hit) > 1:
            raise_user_error(ShardcNotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for '{name}' of two linear operands "
                "not implemented (the function is not linear)"))
        if not ok:
            raise_user_error(ShardcNotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for '{name}' not implemented"))
        linear.update(v.id for v in e.outputs if differentiable(v.type))


#: elementwise operations that are not linear in their operands (no transpose rule in JAX)
_NONLINEAR = {
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "cbrt", "logistic", "pow", "integer_pow", "abs", "sign",
    "max", "min", "erf", "erfc", "erf_inv", "lgamma", "digamma", "atan2", "rem", "round", "floor", "ceil",
    "square", "reduce_max", "reduce_min", "reduce_prod", "argmax", "argmin", "sort", "cumprod", "cummax",
    "cummin", "cumlogsumexp", "tan", "is_finite", "nextafter", "igamma", "igammac", "random_gamma_grad",
    "bessel_i0e", "bessel_i1e", "polygamma", "zeta", "regularized_incomplete_beta", "top_k",
}


def linear_transpose(fun: Callable, *primals, reduce_axes: Sequence[Any] = ()) -> Callable:
    """The transpose of the linear function `fun` at `primals`' types: `f_t(ct) -> tuple of
    cotangents, one per primal` (JAX's `linear_transpose`)."""
    if reduce_axes:
        raise ShardcNotImplementedError("reduce_axes argument to transpose is deprecated")
    flat, in_tree = tu.tree_flatten(primals, is_leaf=_is_leaf)
    in_types = [_type_of(p) for p in flat]
    out_types, out_tree = _out_types(fun, in_tree, in_types)
    dtypes_ = [t.dtype for t in in_types + out_types]
    if not (all(dt.is_inexact(d) for d in dtypes_) or all(np.issubdtype(d, np.integer) for d in dtypes_)):
        raise_user_error(ShardcTypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and integer -> integer "
            f"functions, but got {[t.dtype for t in in_types]} -> {[t.dtype for t in out_types]}."))
    if not all(dt.is_inexact(d) for d in dtypes_):
        raise_user_error(ShardcNotImplementedError(
            "linear_transpose of integer -> integer functions is not supported (shardc differentiates "
            "float values only)"))

    def transposed_fun(out_cotangent):
        cts, tree2 = tu.tree_flatten(out_cotangent, is_leaf=_is_leaf)
        if tree2 != out_tree:
            raise_user_error(ShardcTypeError(
                f"cotangent tree does not match function output, expected {out_tree} but got {tree2}"))
        got = [_type_of(c) for c in cts]
        if [(t.shape, t.dtype) for t in got] != [(t.shape, t.dtype) for t in out_types]:
            raise_user_error(ShardcTypeError(
                "cotangent type does not match function output, expected "
                f"{tuple(t.str_short(short_dtypes=False) for t in out_types)} but got "
                f"{[t.str_short(short_dtypes=False) for t in got]}"))
        if current_trace() is None and not any(isinstance(c, Tracer) for c in cts):
            return stage_eagerly(lambda *c: _transpose(fun, in_tree, in_types, out_tree, c), cts,
                                 f"transpose_{getattr(fun, '__name__', 'f')}")
        return _transpose(fun, in_tree, in_types, out_tree, cts)

    return transposed_fun


def _out_types(fun, in_tree, in_types):
    """`fun`'s output types and tree, from tracing it (in the current program or a throwaway one)."""
    if current_trace() is None:
        res = {}

        def probe(*xs):
            body = _trace_fn(lambda *ys: fun(*tu.tree_unflatten(in_tree, list(ys))), in_types, list, "transpose")
            _check_linear(body.prog, len(in_types))
            res["types"], res["tree"] = body.out_types, body.tree
            return xs[0] if xs else 0.0
        stage_eagerly(probe, [_zeros(t) for t in in_types[:1]], "linear_transpose_types")
        return list(res["types"]), res["tree"]
    body = _trace_fn(lambda *ys: fun(*tu.tree_unflatten(in_tree, list(ys))), in_types, list, "transpose")
    _check_linear(body.prog, len(in_types))
    return list(body.out_types), body.tree


def _zeros(t: ArrayType):
    sharding = PartitionSpec(*t.spec) if not t.mesh.empty and t.mesh.has_explicit else None
    z = full(t.shape, 0, t.dtype, out_sharding=sharding)
    if t.vma and current_trace() is not None:   # inside shard_map: varying as the primal (JAX's in_avals)
        z = pcast(z, tuple(t.mesh.mesh_order(t.vma)), to="varying")
    return z


def _transpose(fun, in_tree, in_types, out_tree, cts):
    zeros = [_zeros(t) for t in in_types]
    _, pull = vjp(lambda *xs: fun(*tu.tree_unflatten(in_tree, list(xs))), *zeros)
    res = pull(tu.tree_unflatten(out_tree, list(cts)))
    return tu.tree_unflatten(in_tree, list(res))


# --- fwd_and_bwd -------------------------------------------------------------------------------
@tu.register_pytree_node_class
class _Residuals:
    """`fwd_and_bwd`'s residuals: the arguments (leaves: the differentiated ones, then the
    others); their positions and `has_aux` are static."""

    def __init__(self, dyn, others, static):
        self.dyn, self.others, self.static = list(dyn), list(others), static

    def tree_flatten(self):
        return (self.dyn, self.others), self.static

    @classmethod
    def tree_unflatten(cls, static, children):
        return cls(children[0], children[1], static)


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
    """`(fwd, bwd)`: `fwd(*args) -> (out, residuals)` (or `(out, residuals, aux)`),
    `bwd(residuals, ct)` the cotangents of the `argnums` arguments (one, or a tuple)."""
    if not callable(fun):
        raise ShardcTypeError(f"Expected a callable value, got {fun}")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def partial_fun(n, others, *dyn):
        at = dict(zip(nums, dyn))
        it = iter(others)
        return fun(*[at[i] if i in at else next(it) for i in range(n)])

    def fwd(*args):
        n = len(args)
        nums_ = [i % n for i in nums]
        dyn = [args[i] for i in nums_]
        others = [a for i, a in enumerate(args) if i not in nums_]
        res = vjp(functools.partial(partial_fun, n, others), *dyn, has_aux=has_aux)
        residuals = _Residuals(dyn, others, (n, has_aux))
        return (res[0], residuals, res[2]) if has_aux else (res[0], residuals)

    def bwd(residuals, outgrad):   # no annotation: sc.jit reads string annotations as types
        n, aux = residuals.static
        pull = vjp(functools.partial(partial_fun, n, residuals.others), *residuals.dyn, has_aux=aux)[1]
        g = pull(outgrad)
        return g[0] if isinstance(argnums, int) else g

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd
