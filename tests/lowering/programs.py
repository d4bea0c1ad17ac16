"""One small program per primitive, for the FileCheck tests of its lowering.

`PROGRAMS[name] = (mesh, arg_types, fn)`: `fn(*args)` traced on `arg_types`
(shardc type strings) on `mesh` ("1d" (8,), "2d" (2, 4), "3d" (2, 2, 2), all
Explicit; "auto": (2, 4) with Y Auto) contains primitive `name`.
"""
from __future__ import annotations

import numpy as np

import shardc as sc
from shardc import P
from shardc.core import bind
from shardc.primitives import collectives as coll
from shardc.primitives import shape as sp
from shardc.primitives import sharding_ops as so

from . import conv_programs

F = "f32[8@X,4@Y]"
I = "i32[8@X,4@Y]"
B = "bool[8@X,4@Y]"


def _unary(f, t=F):
    return ("2d", (t,), f)


def _binary(f, t=F):
    return ("2d", (t, t), f)


def _smap(body, in_specs, out_specs, types, mesh="2d", **kw):
    return (mesh, types, lambda *xs: sc.shard_map(body, in_specs=in_specs, out_specs=out_specs, **kw)(*xs))


PROGRAMS = {
    # --- elementwise: unary ---------------------------------------------------------------
    "neg": _unary(lambda x: -x),
    "abs": _unary(sc.abs),
    "sign": _unary(sc.sign),
    "floor": _unary(sc.floor),
    "ceil": _unary(sc.ceil),
    "round": _unary(sc.round),
    "sin": _unary(sc.sin),
    "cos": _unary(sc.cos),
    "tan": _unary(sc.tan),
    "tanh": _unary(sc.tanh),
    "exp": _unary(sc.exp),
    "expm1": _unary(sc.expm1),
    "log": _unary(sc.log),
    "log1p": _unary(sc.log1p),
    "sqrt": _unary(sc.sqrt),
    "rsqrt": _unary(sc.rsqrt),
    "cbrt": _unary(sc.cbrt),
    "logistic": _unary(sc.sigmoid),
    "erf": _unary(sc.erf),
    "not": _unary(sc.invert, I),
    "is_finite": _unary(sc.isfinite),
    "square": _unary(sc.square),
    # --- elementwise: n-ary ----------------------------------------------------------------
    "add": _binary(lambda x, y: x + y),
    "sub": _binary(lambda x, y: x - y),
    "mul": _binary(lambda x, y: x * y),
    "div": _binary(lambda x, y: x / y),
    "max": _binary(sc.maximum),
    "min": _binary(sc.minimum),
    "pow": _binary(sc.power),
    "rem": _binary(sc.remainder, I),
    "atan2": _binary(sc.arctan2),
    "and": _binary(lambda x, y: x & y, I),
    "or": _binary(lambda x, y: x | y, B),
    "xor": _binary(lambda x, y: x ^ y, I),
    # --- bitwise.py (and erf_inv) ----------------------------------------------------------
    "shift_left": _binary(lambda x, y: sc.lax.shift_left(x, y), I),
    "shift_right_logical": _binary(lambda x, y: sc.lax.shift_right_logical(x, y), I),
    "shift_right_arithmetic": _binary(lambda x, y: sc.lax.shift_right_arithmetic(x, y), I),
    "population_count": _unary(lambda x: sc.lax.population_count(x), I),
    "clz": _unary(lambda x: sc.lax.clz(x), I),
    "bitcast_convert_type": _unary(lambda x: sc.lax.bitcast_convert_type(x, np.int32)),
    "erf_inv": _unary(lambda x: sc.lax.erf_inv(x)),
    # --- callback.py -------------------------------------------------------------------------
    "debug_callback": _unary(lambda x: (sc.debug.callback(lambda v: None, x), x)[1]),
    "pure_callback": _unary(lambda x: sc.pure_callback(lambda v: v, sc.ShapeDtypeStruct(x.shape, x.dtype), x)),
    "io_callback": _unary(lambda x: sc.experimental.io_callback(lambda v: v, sc.ShapeDtypeStruct(x.shape, x.dtype), x)),
    "io_callback_ordered": _unary(lambda x: sc.experimental.io_callback(
        lambda v: v, sc.ShapeDtypeStruct(x.shape, x.dtype), x, ordered=True)),
    # forward over forward through a while loop: the outer pullback carries the inner JVP loop's
    # transposed stand-in through a reverse scan, where it is lowered (zeros, dead to the results)
    "while_jvp_transposed": ("2d", ("f32[2]",), lambda x: sc.jacfwd(sc.jacfwd(lambda a: sc.lax.while_loop(
        lambda c: c[1] < 3, lambda c: (sc.sin(c[0]) * a, c[1] + 1), (a, 0))[0].sum()))(x)),
    # --- special.py --------------------------------------------------------------------------
    "lgamma": _unary(lambda x: sc.lax.lgamma(x)),
    # inverse trig / hyperbolic (chlo, as JAX lowers them)
    **{n: _unary(lambda x, n=n: getattr(sc.lax, n)(x))
       for n in ("asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh")},
    "digamma": _unary(lambda x: sc.lax.digamma(x)),
    "erfc": _unary(lambda x: sc.lax.erfc(x)),
    "polygamma": _binary(lambda m, x: sc.lax.polygamma(m, x)),
    "zeta": _binary(lambda x, q: sc.lax.zeta(x, q)),
    "nextafter": _binary(lambda x, y: sc.lax.nextafter(x, y)),
    "bessel_i0e": _unary(lambda x: sc.lax.bessel_i0e(x), "bf16[8@X,4@Y]"),
    "bessel_i1e": _unary(lambda x: sc.lax.bessel_i1e(x)),
    "eq": _binary(lambda x, y: x == y),
    "ne": _binary(lambda x, y: x != y, I),
    "lt": _binary(lambda x, y: x < y),
    "le": _binary(lambda x, y: x <= y, I),
    "gt": _binary(lambda x, y: x > y),
    "ge": _binary(lambda x, y: x >= y),
    "convert_element_type": _unary(lambda x: x.astype(np.int32)),
    "integer_pow": _unary(lambda x: x ** 3),
    "select_n": ("2d", (B, F, F), sc.where),
    # --- shapes ------------------------------------------------------------------------------
    "broadcast_in_dim": ("2d", ("f32[4@Y]",), lambda x: sc.broadcast_to(x, (8, 4))),
    "reshape": ("2d", ("f32[8@X,4]",), lambda x: x.reshape(8, 2, 2)),
    "transpose": _unary(lambda x: x.T),
    "squeeze": ("2d", ("f32[8@X,1]",), lambda x: sc.squeeze(x, 1)),
    "rev": _unary(lambda x: x[::-1]),
    "concatenate": ("2d", ("f32[8,4@Y]", "f32[8,4@Y]"), lambda x, y: sc.concatenate([x, y], 0)),
    "slice": ("2d", ("f32[8,4@Y]",), lambda x: x[2:6]),
    "dynamic_slice": ("2d", ("f32[8,4@Y]", "i32[]"), lambda x, i: x[i]),
    "dynamic_update_slice": ("2d", ("f32[8,4@Y]",), lambda x: _dus(x)),
    "pad": ("2d", ("f32[8,4@Y]",), lambda x: _pad(x)),
    "iota": ("1d", (), lambda: sc.arange(8, out_sharding=P("X"))),
    # --- reductions ----------------------------------------------------------------------------
    "reduce_sum": _unary(lambda x: sc.sum(x, 1)),
    "reduce_max": _unary(lambda x: sc.max(x, 1)),
    "reduce_min": _unary(lambda x: sc.min(x, 1)),
    "reduce_prod": _unary(lambda x: sc.prod(x, 1)),
    "reduce_and": _unary(lambda x: sc.all(x, 1), B),
    "reduce_or": _unary(lambda x: sc.any(x, 1), B),
    "argmax": _unary(lambda x: sc.argmax(x, 1)),
    "argmin": _unary(lambda x: sc.argmin(x, 1)),
    "cumsum": ("2d", ("f32[8@X,4]",), lambda x: sc.cumsum(x, 1)),
    "cumprod": ("2d", ("f32[8@X,4]",), lambda x: sc.cumprod(x, 1)),
    "cummax": ("2d", ("f32[8@X,4]",), lambda x: sc.cummax(x, 1)),
    "cummin": ("2d", ("f32[8@X,4]",), lambda x: sc.cummin(x, 1)),
    # --- dot -------------------------------------------------------------------------------------
    "dot_general": ("2d", ("f32[8@X,16]", "f32[16,4@Y]"), lambda x, w: x @ w),
    # --- sharding ops ------------------------------------------------------------------------------
    "reshard": _unary(lambda x: sc.reshard(x, P("Y", None))),
    "sharding_constraint": ("auto", ("f32[8@X,4]",), lambda x: sc.with_sharding_constraint(x, P(None, "Y"))),
    "mesh_cast": ("2d", ("f32[8@X,4]",), lambda x: sc.auto_axes(lambda a: a * 2.0, out_sharding=P("X"))(x)),
    "copy": _unary(lambda x: bind(so.copy_p, x)),
    "stop_gradient": _unary(sc.stop_gradient),
    # --- collectives and casts (inside shard_map) ---------------------------------------------------
    "psum": _smap(lambda b: sc.psum(b, "X"), (P("X", "Y"),), P(None, "Y"), (F,)),
    "pmax": _smap(lambda b: sc.pmax(b, "Y"), (P("X", "Y"),), P("X"), (F,)),
    "pmin": _smap(lambda b: sc.pmin(b, "Y"), (P("X", "Y"),), P("X"), (F,)),
    "all_gather": _smap(lambda b: sc.all_gather(b, "Y", axis=1, tiled=True), (P("X", "Y"),), P("X", "Y"), (F,)),
    "psum_scatter": _smap(lambda b: sc.psum_scatter(b, "Y", scatter_dimension=0, tiled=True),
                          (P("X", None),), P(("X", "Y")), ("f32[16@X,4]",)),
    "ppermute": _smap(lambda b: sc.ppermute(b, "X", [(0, 1), (1, 0)]), (P("X", "Y"),), P("X", "Y"), (F,)),
    "all_to_all": _smap(lambda b: sc.all_to_all(b, "Y", 0, 1, tiled=True), (P(None, "Y"),), P("Y"),
                        ("f32[8,4@Y]",)),
    "axis_index": _smap(lambda b: b + sc.axis_index("X").astype(np.float32), (P("X", "Y"),), P("X", "Y"), (F,)),
    "pvary": _smap(lambda a, b: a + b, (P(None, "Y"), P("X", "Y")), P("X", "Y"), ("f32[4,4@Y]", F)),
    "preduced": _smap(lambda b: sc.pcast(b, "X", to="reduced"), (P(None, "Y"),), P(None, "Y", reduced={"X"}),
                      ("f32[8,4@Y]",)),
    "vary_unreduced_cast": _smap(lambda b: sc.pcast(b, "X", to="unreduced"), (P("X", "Y"),),
                                 P(None, "Y", unreduced={"X"}), (F,)),
    "reduced_vary_cast": _smap(lambda b: bind(coll.reduced_vary_cast, b, axes=("X",)),
                               (P(None, "Y", reduced={"X"}),), P("X", "Y"), ("f32[8,4@Y]{R:X}",)),
    "shard_map": _smap(lambda b: b * 2.0, (P("X", "Y"),), P("X", "Y"), (F,)),
    # --- gather / scatter -------------------------------------------------------------------------
    "gather": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: x[i]),
    "scatter_add": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: sc.grad(lambda a: sc.sum(a[i]))(x)),
    "scatter": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: x.at[i].set(1.0)),
    "scatter_sub": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: x.at[i].subtract(1.0)),
    "scatter_mul": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: x.at[i].multiply(2.0)),
    "scatter_min": ("2d", ("f32[8,4@Y]", "i32[3]"), lambda x, i: x.at[i].min(0.0)),
    "scatter_max": ("2d", ("i32[8,4@Y]", "i32[3]"), lambda x, i: x.at[i].max(0)),
    "scatter_apply": ("2d", ("f32[8,4]", "i32[3]"), lambda x, i: x.at[i].apply(sc.sin)),
    # --- sorting ------------------------------------------------------------------------------------
    "sort": ("2d", ("f32[8@X,4]", "i32[8@X,4]"), lambda x, i: sc.lax.sort((x, i), dimension=1, num_keys=1)),
    "top_k": ("2d", ("f32[8@X,4]",), lambda x: sc.lax.top_k(x, 2, axis=1)),
    # --- control flow -----------------------------------------------------------------------------
    "cond": ("2d", ("bool[]", F), lambda p, x: sc.cond(p, lambda a: a + 1.0, lambda a: a - 1.0, x)),
    "while": ("2d", (F,), lambda x: sc.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]),
    "scan": ("2d", ("f32[4,8@X]",), lambda xs: sc.scan(lambda c, x: (c + x, c * x), xs[0], xs)),
    # --- custom derivative rules (bound under differentiation only) -------------------------------
    "custom_vjp_call": ("2d", (F,), lambda x: sc.grad(lambda a: sc.sum(_custom_vjp_sin()(a)))(x)),
    # (value_and_grad: under `grad` alone the primal is dead code, not emitted, as in jax.jit)
    "custom_jvp_call": ("2d", (F,), lambda x: sc.value_and_grad(lambda a: sc.sum(_custom_jvp_exp()(a)))(x)),
    # custom_vmap: unbatched, the function itself is inlined (its vmap rule is never lowered)
    "custom_vmap_call": ("2d", (F,), lambda x: _custom_vmap_sin()(x)),
    # --- rematerialization ------------------------------------------------------------------------
    "checkpoint": ("2d", (F,), lambda x: sc.checkpoint(lambda a: sc.sin(sc.cos(a)))(x)),
    "name": ("2d", (F,), lambda x: sc.ad_checkpoint.checkpoint_name(x * 2.0, "doubled")),
    "optimization_barrier": ("2d", (F,), lambda x: sc.value_and_grad(lambda a: sc.sum(sc.checkpoint(sc.sin)(a)))(x)),
}


def _custom_vmap_sin():
    f = sc.custom_batching.custom_vmap(sc.sin)
    f.def_vmap(lambda n, b, a: (sc.cos(a), b[0]))
    return f


# the convolution's program lives beside its CHECK lines
PROGRAMS.update(conv_programs.PROGRAMS)


def _custom_vjp_sin():
    """sin with a VJP that saves cos(x) forward and doubles the cotangent."""
    f = sc.custom_vjp(lambda x: sc.sin(x))
    f.defvjp(lambda x: (sc.sin(x), sc.cos(x)), lambda cos_x, g: (2.0 * cos_x * g,))
    return f


def _custom_jvp_exp():
    """exp whose JVP rule is written as tangent · tanh(x) (transposed by reverse mode)."""
    f = sc.custom_jvp(lambda x: sc.exp(x))
    f.defjvp(lambda p, t: (sc.exp(p[0]), t[0] * sc.tanh(p[0])))
    return f



def _pad(x):
    return bind(sp.pad, x, np.float32(0.0), low=(1, 0), high=(2, 0), interior=(0, 0))


def _dus(x):
    update = sc.zeros((2, 4), out_sharding=P(None, "Y"))
    return bind(sp.dynamic_update_slice, x, update, np.int32(1), np.int32(0))

# the windowed and generic reductions' programs live beside their CHECK lines
from .windowed_programs import PROGRAMS as _WINDOWED  # noqa: E402

PROGRAMS.update(_WINDOWED)

# rng_bit_generator, rng_uniform, mulhi: their programs live beside their CHECK lines
from .lax_extra_programs import PROGRAMS as _LAX_EXTRA  # noqa: E402

PROGRAMS.update(_LAX_EXTRA)

# the complex-number primitives' and the FFT's programs live beside their CHECK lines
from .complex_programs import PROGRAMS as _COMPLEX  # noqa: E402

PROGRAMS.update(_COMPLEX)

# the linalg primitives' programs live beside their CHECK lines
from .linalg_programs import PROGRAMS as _LINALG  # noqa: E402

PROGRAMS.update(_LINALG)

# sc.ffi.ffi_call's primitives: their programs live beside their CHECK lines
from .ffi_programs import PROGRAMS as _FFI  # noqa: E402

PROGRAMS.update(_FFI)

# cholesky_update and scaled_dot: their programs live beside their CHECK lines
from .last_lax_programs import PROGRAMS as _LAST_LAX  # noqa: E402

PROGRAMS.update(_LAST_LAX)

# device_put to another memory and call_exported: their programs live beside their CHECK lines
from .export_memory_programs import PROGRAMS as _EXPORT_MEMORY  # noqa: E402

PROGRAMS.update(_EXPORT_MEMORY)
