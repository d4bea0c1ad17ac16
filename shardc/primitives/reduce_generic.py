"""The rest of JAX's reductions: the generic `reduce` (a reducer body over n operands,
JAX's `reduce_p`), `reduce_xor`, `reduce_precision` and `approx_top_k` (the primitive
behind `lax.approx_max_k` / `approx_min_k`), as JAX 0.10.2's `lax.py` and `ann.py`.

Sharding: `reduce` and `reduce_xor` drop the reduced dims' spec entries (a sharded
reduced dim all-reduces); `reduce_precision` keeps its operand's type, U/R sets
included; `approx_top_k`'s reduction dim must be unsharded (JAX's error).
"""
from __future__ import annotations

from jax._src.lib import _jax as _jaxlib  # XLA's approx-top-k output size (JAX's shape rule asks it too)

from .. import dtypes as dt
from ..core import Primitive, bind, current_trace
from ..emit.text import int_list, tensor_type, ttype
from ..errors import ShardcNotImplementedError, ShardcRuntimeError, ShardcTypeError, ShardcValueError, ShardingTypeError
from ..ir import Program
from ..sharding import PartitionSpec
from ..types import ArrayType
from .elementwise import dtype_error
from .gather import scatter_add
from .prefix_scan import reduce_tree
from .reductions import Reduce
from .sort import permutation_scatter_dnums

__all__ = ["reduce", "reduce_xor", "reduce_precision", "approx_top_k"]

_NONE: frozenset[str] = frozenset()


def _aval_repr(t: ArrayType) -> str:
    """JAX's `repr` of a ShapedArray."""
    return f"ShapedArray({t.str_short(short_dtypes=False)}{', weak_type=True' if t.weak_type else ''})"


# --- reduce (generic) --------------------------------------------------------------------------
class GenericReduce(Primitive):
    """`reduce(*operands, *init_values; jaxpr, dimensions)`: `jaxpr` folds 2n scalars
    (n accumulators, n elements) into n."""

    name = "reduce"
    multiple_results = True

    def shape_rule(self, *ins: ArrayType, jaxpr, dimensions):
        n = len(ins) // 2
        ops, inits = ins[:n], ins[n:]
        if any(i.ndim for i in inits):
            raise ShardcValueError(f"reduce found non-scalar initial value: {[i.shape for i in inits]}")
        if [o.dtype for o in ops] != [i.dtype for i in inits]:
            raise ShardcTypeError(
                "reduce operand dtypes should match corresponding initial value dtypes, got "
                f"operands=[{', '.join(map(_aval_repr, ops))}] and initial_values=[{', '.join(map(_aval_repr, inits))}]")
        for o in ops:
            if any(not 0 <= d < o.ndim for d in dimensions):
                raise ShardcValueError(f"reduce dimensions {tuple(dimensions)} out of range for shape {o.shape}")
        return [(tuple(d for k, d in enumerate(o.shape) if k not in dimensions), o.dtype,
                 o.weak_type and i.weak_type) for o, i in zip(ops, inits)]

    def sharding_rule(self, *ins: ArrayType, jaxpr, dimensions):
        n = len(ins) // 2
        return [tuple(e for k, e in enumerate(o.spec) if k not in dimensions) for o in ins[:n]]

    def ur_rule(self, *ins: ArrayType, **_):
        if any(t.unreduced or t.reduced for t in ins):
            raise ShardcNotImplementedError(
                "unreduced/reduced rule for reduce is not implemented. Please file an issue at "
                "https://github.com/jax-ml/jax/issues")
        return (_NONE, _NONE)

    def vma_rule(self, *ins: ArrayType, **_):
        return super().vma_rule(*ins[:len(ins) // 2])

    def batch(self, B, axis, args, dims, *, jaxpr, dimensions):
        n = len(args) // 2
        if any(d is not None for d in dims[n:]):
            raise ShardcNotImplementedError("reduce batching is not implemented for batched initial values")
        ops = [B.bdim_at_front(a, d, axis.size, axis.entry) for a, d in zip(args[:n], dims[:n])]
        outs = B.bind(self, *ops, *args[n:], jaxpr=jaxpr, dimensions=tuple(d + 1 for d in dimensions))
        return outs, [0] * n

    def vjp(self, L, cts, ins, outs, *, jaxpr, dimensions):
        """JAX's `_reduce_jvp` transposed: the reduction redone as a tree of halvings (the
        reducer applied elementwise to the halves), differentiated by replay. For a monoid
        (what `lax.reduce` requires) this is JAX's gradient; for a body that is not one (JAX:
        "the result is undefined"), JAX's JVP also replaces the primal output by the tree's,
        which this rule does not, so gradients through its square etc. can differ."""
        n = len(ins) // 2
        ops, inits = list(ins[:n]), list(ins[n:])
        trace = current_trace()
        start = len(trace.eqns)
        res = reduce_tree(L, lambda a, b: L.eval_program(jaxpr, a + b), ops, inits, tuple(dimensions))
        grads = L.backward(trace, trace.eqns[start:], [o._var for o in ops], [r._var for r in res], list(cts))
        return [*grads, *([None] * n)]

    def format_params(self, p):
        return f"dimensions={tuple(p['dimensions'])}"

    def sub_programs(self, params):
        return [params["jaxpr"]]

    def lower(self, ctx, eqn, *args):
        dims = "".join(f"{', ' if i else ': '}{d}" for i, d in enumerate(eqn.params["dimensions"]))
        return lower_with_reducer(ctx, eqn, args, f'"stablehlo.reduce"({", ".join(args)}) <{{dimensions = '
                                  f'array<i64{dims}>}}>')


def lower_with_reducer(ctx, eqn, args, head: str) -> list[str]:
    """An op whose region is the reducer body `eqn.params["jaxpr"]` over scalar pairs (the
    generic `reduce` and `reduce_window`): `head` is the op up to its region."""
    n = len(args) // 2
    body: Program = eqn.params["jaxpr"]
    types = [a.type for a in eqn.inputs]
    outs = [o.type for o in eqn.outputs]
    lhs, names = ctx.results(n)
    ctx.emit(f"{lhs} = {head} ({{")
    inner = ctx.child(body.mesh)
    block = [inner.fresh("arg") for _ in range(2 * n)]
    sts = [tensor_type((), t.dtype) for t in types[n:]] * 2
    ctx.emit("^bb0(" + ", ".join(f"{b}: {s}" for b, s in zip(block, sts)) + "):")
    res = inner.lower_body(body, block)
    inner.emit(f"stablehlo.return {', '.join(res)} : {', '.join(sts[:n])}")
    sig_out = ttype(outs[0]) if n == 1 else "(" + ", ".join(ttype(o) for o in outs) + ")"
    ctx.emit(f"}}) : ({', '.join(ttype(t) for t in types)}) -> {sig_out}{ctx._loc}")
    return names


reduce = GenericReduce()


# --- reduce_xor --------------------------------------------------------------------------------
class ReduceXor(Reduce):
    """`reduce_xor(x, axes)`: bitwise xor over `axes` (bool or integer operands)."""

    def __init__(self):
        super().__init__("xor")

    def shape_rule(self, x: ArrayType, *, axes, out_sharding=None):
        if x.dtype != dt.bool_ and not dt.is_int(x.dtype):
            raise ShardcTypeError(f"logical reduction requires operand dtype bool or int, got {x.dtype.name}.")
        (shape, d, _), = super().shape_rule(x, axes=axes)
        return [(shape, d, False)]

    def vjp(self, L, g, ins, outs, **_):
        return [None]

    def lower(self, ctx, eqn, x):
        src, out = eqn.inputs[0].type, eqn.outputs[0].type
        init = ctx.scalar(False if src.dtype == dt.bool_ else 0, src.dtype)
        st = tensor_type((), src.dtype)
        return [ctx.op(f"stablehlo.reduce({x} init: {init}) applies stablehlo.xor across "
                       f"dimensions = {int_list(eqn.params['axes'])} : ({ttype(src)}, {st}) -> {ttype(out)}")]


reduce_xor = ReduceXor()


# --- reduce_precision --------------------------------------------------------------------------
class ReducePrecision(Primitive):
    """`reduce_precision(x; exponent_bits, mantissa_bits)`: round to a narrower float format."""

    name = "reduce_precision"

    def shape_rule(self, x: ArrayType, *, exponent_bits, mantissa_bits):
        if exponent_bits < 1:
            raise ShardcValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
        if mantissa_bits < 0:
            raise ShardcValueError(f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}")
        if not dt.is_float(x.dtype):
            raise dtype_error("reduce_precision", "f", x.dtype)
        return [(x.shape, x.dtype, x.weak_type)]

    def sharding_rule(self, x: ArrayType, **_):
        return [x.spec]

    def ur_rule(self, x: ArrayType, **_):
        return (x.unreduced, x.reduced)

    def batch(self, B, axis, args, dims, **p):
        return B.bind(self, args[0], **p), dims[0]

    def vjp(self, L, g, ins, outs, **p):
        """Linear, as JAX's `ad.deflinear`: the cotangent rounded the same way."""
        return [bind(self, g, **p)]

    def format_params(self, p):
        return f"exponent_bits={p['exponent_bits']} mantissa_bits={p['mantissa_bits']}"

    def lower(self, ctx, eqn, x):
        p = eqn.params
        return [ctx.op(f"stablehlo.reduce_precision {x}, format = e{p['exponent_bits']}m{p['mantissa_bits']} : "
                       f"{ttype(eqn.inputs[0].type)}")]


reduce_precision = ReducePrecision()


# --- approx_top_k ------------------------------------------------------------------------------
def approx_output_size(n: int, rank: int, k: int, recall_target: float, aggregate_to_topk: bool,
                       override: int) -> int:
    """XLA's `ApproxTopKReductionOutputSize` (what JAX's shape rule asks jaxlib for)."""
    if aggregate_to_topk:
        return k
    return int(_jaxlib.approx_top_k_reduction_output_size(n, rank, k, recall_target, aggregate_to_topk,
                                                       override)[0])


class ApproxTopK(Primitive):
    """`approx_top_k(x; k, reduction_dimension, recall_target, is_max_k,
    reduction_input_size_override, aggregate_to_topk)`: values and int32 indices."""

    name = "approx_top_k"
    multiple_results = True

    def shape_rule(self, x: ArrayType, *, k, reduction_dimension, recall_target, is_max_k,
                   reduction_input_size_override, aggregate_to_topk):
        if k <= 0:
            raise ShardcValueError(f"k must be positive, got {k}")
        if x.ndim == 0:
            raise ShardcTypeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
        dims = list(x.shape)
        if dims[reduction_dimension] < k:
            raise ShardcValueError(
                f"k must be smaller than the size of reduction_dim {dims[reduction_dimension]}, got {k}")
        if not dt.is_float(x.dtype):
            raise ShardcValueError("operand must be a floating type")
        dims[reduction_dimension] = approx_output_size(dims[reduction_dimension], len(dims), k, recall_target,
                                                       aggregate_to_topk, reduction_input_size_override)
        return [(tuple(dims), x.dtype, x.weak_type), (tuple(dims), dt.int32, False)]

    def sharding_rule(self, x: ArrayType, *, reduction_dimension, **_):
        if x.spec[reduction_dimension] is not None:
            raise ShardingTypeError(
                f"reduction dimension {reduction_dimension} in operand {x.str_short(short_dtypes=False)} should be unsharded "
                "i.e. the spec of that dim should be `None`.")
        return [x.spec, x.spec]

    def batch(self, B, axis, args, dims, *, reduction_dimension, **p):
        d = dims[0]
        ndim = B.type_of(args[0]).ndim
        dim_map = [i for i in range(ndim) if i != d]
        outs = B.bind(self, args[0], reduction_dimension=dim_map[reduction_dimension], **p)
        return outs, [d, d]

    def vjp(self, L, cts, ins, outs, *, reduction_dimension, **_):
        """JAX's `_approx_top_k_jvp` (`take_along_axis` at the indices) transposed: the values'
        cotangent scattered back at the indices."""
        x = ins[0]
        t = x.aval
        g = cts[0]
        axis = reduction_dimension % t.ndim
        idx = L.expand_dims(outs[1], (t.ndim,))
        z = L.full(t.shape, 0, g.aval.dtype, out_sharding=_spec_of(t))
        return [bind(scatter_add, z, idx, g, dimension_numbers=permutation_scatter_dnums(t.ndim, axis),
                     mode="promise_in_bounds", out_sharding=None)]

    def format_params(self, p):
        return (f"k={p['k']} reduction_dimension={p['reduction_dimension']} recall_target={p['recall_target']} "
                f"is_max_k={p['is_max_k']} reduction_input_size_override={p['reduction_input_size_override']} "
                f"aggregate_to_topk={p['aggregate_to_topk']}")

    def lower(self, ctx, eqn, x):
        """XLA's CPU fallback for `ApproxTopK` (what JAX's `is_fallback` custom call becomes): a
        sort of (values, iota) by the `GT` / `LT` comparator, then the first entries."""
        t = eqn.inputs[0].type
        out_v = eqn.outputs[0].type
        dim = eqn.params["reduction_dimension"] % t.ndim
        override = eqn.params["reduction_input_size_override"]
        if 0 <= override < t.shape[dim]:   # the custom call's verifier, where JAX's compile fails
            raise ShardcRuntimeError("'stablehlo.custom_call' op reduction_input_size_override out of range "
                                     f"({override} < {t.shape[dim]}, the reduction dim's size)")
        it = t.update(dtype=dt.int32)
        io = ctx.op(f"stablehlo.iota dim = {dim} : {ttype(it)}")
        sv, si = tensor_type((), t.dtype), tensor_type((), dt.int32)
        cmp = "GT" if eqn.params["is_max_k"] else "LT"
        srt = ctx.op(
            f'"stablehlo.sort"({x}, {io}) <{{dimension = {dim} : i64, is_stable = false}}> ({{',
            n_results=2,
            region=[f"^bb0(%t0: {sv}, %t1: {sv}, %t2: {si}, %t3: {si}):",
                    f"  %t4 = stablehlo.compare {cmp}, %t0, %t1, FLOAT : ({sv}, {sv}) -> tensor<i1>",
                    "  stablehlo.return %t4 : tensor<i1>",
                    f"}}) : ({ttype(t)}, {ttype(it)}) -> ({ttype(t)}, {ttype(it)})"])
        if out_v.shape == t.shape:
            return list(srt)
        lim = ", ".join(f"0:{n}" for n in out_v.shape)
        return [ctx.op(f"stablehlo.slice {r} [{lim}] : ({ttype(src)}) -> {ttype(o.type)}")
                for r, src, o in zip(srt, (t, it), eqn.outputs)]


def _spec_of(t: ArrayType):
    return None if t.mesh.empty else PartitionSpec(*t.spec)


approx_top_k = ApproxTopK()
