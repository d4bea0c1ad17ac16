"""complex64 against JAX: the dtype end to end (device_put / asarray of NumPy complex arrays,
weak Python `complex` scalars, `str(typeof)` as `complex64[8@X]`), the elementwise ops JAX
allows on complex numbers (types, values compiled and eagerly) and the ones it refuses
(its dtype errors), `lax.real` / `imag` / `complex` / `conj` with their dtype rules, the
`jnp` complex functions, reductions, `dot_general`, `convert_element_type`, `select`,
gradients (JAX's conjugate convention: `grad(|z|^2) == 2 conj(z)`), shardings of ranks
0-3 on 1-D to 3-D meshes, and vmap."""
from __future__ import annotations

import itertools

import numpy as np
from oracle import BASIC_MESHES, Case, check, param, sample, specs_for, type_str

SHAPES = [(), (8,), (8, 4), (4, 2, 8)]
C = "c64[8@X,4@Y]"

UNARY = {
    "neg": lambda ns, x: -x, "exp": lambda ns, x: ns.exp(x), "log": lambda ns, x: ns.log(x),
    "sqrt": lambda ns, x: ns.sqrt(x), "sin": lambda ns, x: ns.sin(x), "cos": lambda ns, x: ns.cos(x),
    "tanh": lambda ns, x: ns.tanh(x), "tan": lambda ns, x: ns.tan(x), "abs": lambda ns, x: ns.abs(x),
    "sign": lambda ns, x: ns.sign(x), "square": lambda ns, x: ns.square(x),
    "expm1": lambda ns, x: ns.expm1(x), "log1p": lambda ns, x: ns.log1p(x),
    "rsqrt": lambda ns, x: ns.lax.rsqrt(x), "ipow3": lambda ns, x: x ** 3, "ipow-2": lambda ns, x: x ** -2,
    "real": lambda ns, x: ns.real(x), "imag": lambda ns, x: ns.imag(x), "conj": lambda ns, x: ns.conj(x),
    "conjugate": lambda ns, x: ns.conjugate(x), "angle": lambda ns, x: ns.angle(x),
    "angle-deg": lambda ns, x: ns.angle(x, deg=True), "iscomplex": lambda ns, x: ns.iscomplex(x),
    "isreal": lambda ns, x: ns.isreal(x), "lax.real": lambda ns, x: ns.lax.real(x),
    "lax.imag": lambda ns, x: ns.lax.imag(x), "lax.conj": lambda ns, x: ns.lax.conj(x),
    "lax.abs": lambda ns, x: ns.lax.abs(x),
    "sum": lambda ns, x: ns.sum(x), "sum0": lambda ns, x: ns.sum(x, 0 if x.ndim else None), "prod": lambda ns, x: ns.prod(x, -1 if x.ndim else None),
    "mean": lambda ns, x: ns.mean(x), "astype-f32": lambda ns, x: x.astype(ns.float32),
    "astype-bool": lambda ns, x: x.astype(bool), "astype-i32": lambda ns, x: x.astype(ns.int32),
    "where": lambda ns, x: ns.where(ns.real(x) > 0, x, 2j), "transpose": lambda ns, x: x.T,
    "isfinite": lambda ns, x: ns.isfinite(x), "isinf": lambda ns, x: ns.isinf(x), "isnan": lambda ns, x: ns.isnan(x),
    "var": lambda ns, x: ns.var(x), "std-ddof": lambda ns, x: ns.std(x, ddof=1), "var-c64": lambda ns, x: ns.var(x, dtype=np.complex64),
    "round": lambda ns, x: ns.round(x * 3.0), "exp2": lambda ns, x: ns.exp2(x), "log10": lambda ns, x: ns.log10(x),
    "arcsin": lambda ns, x: ns.arcsin(x), "arctanh": lambda ns, x: ns.arctanh(x), "sinh": lambda ns, x: ns.sinh(x),
    "reciprocal": lambda ns, x: ns.reciprocal(x), "sinc": lambda ns, x: ns.sinc(x), "tril": lambda ns, x: ns.tril(x),
    "max": lambda ns, x: ns.max(x, -1 if x.ndim else None), "min": lambda ns, x: ns.min(x),
    "sort_complex": lambda ns, x: ns.sort_complex(x) if x.ndim else x, "cumsum": lambda ns, x: ns.cumsum(x),
    "cumprod": lambda ns, x: ns.cumprod(x), "at-set": lambda ns, x: x.at[0].set(1j) if x.ndim else x,
    "where-scalars": lambda ns, x: ns.where(ns.real(x) > 0, 1j, 2.0), "full": lambda ns, x: x * ns.full(x.shape, 1j),
    "equal-scalar": lambda ns, x: ns.equal(x, 1j), "maximum-scalar": lambda ns, x: ns.maximum(x, 0.5j),
    "nansum": lambda ns, x: ns.nansum(x), "isclose": lambda ns, x: ns.isclose(x, x * 1.000001),
    "x.real": lambda ns, x: (x.real, x.imag, x.conj(), x.conjugate()), "concat": lambda ns, x: ns.concatenate([x, x]) if x.ndim else x,
}
BINARY = {
    "less": lambda ns, x, y: x < y, "greater_equal": lambda ns, x, y: ns.greater_equal(x, y),
    "less-tie": lambda ns, x, y: ns.less(x, ns.lax.complex(ns.real(x), ns.imag(y))),
    "vdot": lambda ns, x, y: ns.vdot(x, y), "logaddexp": lambda ns, x, y: ns.logaddexp(x, y),
    "logaddexp2": lambda ns, x, y: ns.logaddexp2(x, y), "outer": lambda ns, x, y: ns.outer(x, y),
    "add": lambda ns, x, y: x + y, "sub": lambda ns, x, y: x - y, "mul": lambda ns, x, y: x * y,
    "div": lambda ns, x, y: x / y, "pow": lambda ns, x, y: x ** y, "eq": lambda ns, x, y: x == y,
    "ne": lambda ns, x, y: x != y, "maximum": lambda ns, x, y: ns.maximum(x, y),
    "minimum": lambda ns, x, y: ns.minimum(x, y), "lax.max": lambda ns, x, y: ns.lax.max(x, y),
    "lax.atan2": lambda ns, x, y: ns.lax.atan2(x, y),
}
#: what JAX refuses on complex operands (its dtype errors)
REFUSED = {
    "lt": lambda ns, x: ns.lax.lt(x, x), "ge": lambda ns, x: ns.lax.ge(x, x), "floor": lambda ns, x: ns.lax.floor(x),
    "ceil": lambda ns, x: ns.lax.ceil(x), "round": lambda ns, x: ns.lax.round(x),
    "rem": lambda ns, x: ns.lax.rem(x, x), "erf": lambda ns, x: ns.lax.erf(x), "cbrt": lambda ns, x: ns.lax.cbrt(x),
    "lax.real-f32": lambda ns, x: ns.lax.real(ns.real(x)), "lax.imag-f32": lambda ns, x: ns.lax.imag(ns.real(x)),
    "lax.conj-i32": lambda ns, x: ns.lax.conj(ns.real(x).astype(ns.int32)),
    "lax.complex-c64": lambda ns, x: ns.lax.complex(x, x),
    "lax.complex-bf16": lambda ns, x: ns.lax.complex(ns.real(x).astype(ns.bfloat16), ns.real(x).astype(ns.bfloat16)),
    "lax.complex-mixed": lambda ns, x: ns.lax.complex(ns.real(x), ns.real(x).astype(ns.float16)),
    "lax.add-mixed": lambda ns, x: ns.lax.add(x, ns.real(x)),
    "lax.abs-i": lambda ns, x: ns.lax.abs(ns.real(x).astype(ns.uint8)),
    "clip": lambda ns, x: ns.clip(x, 0, 1), "clip-bound": lambda ns, x: ns.clip(ns.real(x), 0.5j),
    "floor_divide": lambda ns, x: x // x, "remainder": lambda ns, x: x % x, "argmax": lambda ns, x: ns.argmax(x),
    "argmin": lambda ns, x: ns.argmin(x, 0),
}


def _pool(mesh, dname="c64"):
    return [type_str(dname, s, spec) for s in SHAPES for spec in specs_for(s, mesh)]


def type_cases():
    cases = []
    for (name, fn), mesh in itertools.product(UNARY.items(), BASIC_MESHES):
        cases += sample([Case(f"{name}-{mesh}-{t}", mesh, fn, (t,)) for t in _pool(mesh)], 2, salt=name)
    for (name, fn), mesh in itertools.product(BINARY.items(), BASIC_MESHES):
        cases += sample([Case(f"{name}-{mesh}-{t}", mesh, fn, (t, t)) for t in _pool(mesh)], 3, salt=name)
    for name, fn in REFUSED.items():
        # JAX traces argmax/argmin of complex numbers and refuses them when lowering (its comparator)
        mode = "jit" if name.startswith("arg") else "trace"
        cases.append(Case(f"refused-{name}", "2d", fn, (C,), expect="reject", mode=mode))
    # promotion with real operands and Python scalars, lax.complex / lax.conj of real arrays
    for other in ["f32[8@X,4@Y]", "~f32[8@X,4@Y]", "bf16[8@X,4@Y]", "i32[8@X,4@Y]", "~c64[8@X,4@Y]"]:
        cases.append(Case(f"promote-{other}", "2d", lambda ns, x, y: x * y, (C, other)))
    for lit in [1j, 2.5, 3, True, np.complex64(1 + 1j), np.complex128(2j)]:
        cases.append(Case(f"scalar-{lit!r}", "2d", (lambda v: lambda ns, x: x + v)(lit), ("f32[8@X,4@Y]",)))
    cases += [Case("lax.complex", "2d", lambda ns, x, y: ns.lax.complex(x, y), ("f32[8@X,4@Y]", "f32[8@X,4@Y]")),
              Case("lax.complex-scalar", "2d", lambda ns, x: ns.lax.complex(x, 2.0), ("f32[8@X,4@Y]",)),
              Case("lax.conj-f32", "2d", lambda ns, x: ns.lax.conj(x), ("f32[8@X,4@Y]",)),
              Case("jnp.real-f32", "2d", lambda ns, x: (ns.real(x), ns.imag(x), ns.conj(x)), ("f32[8@X,4@Y]",)),
              Case("angle-i32", "2d", lambda ns, x: ns.angle(x), ("i32[8@X,4@Y]",)),
              Case("angle-f32-0d", "2d", lambda ns, x: ns.angle(x), ("f32[]",)),
              Case("iscomplexobj", "2d", lambda ns, x, y: ns.asarray([ns.iscomplexobj(x), ns.iscomplexobj(y)]),
                   (C, "f32[8]")),
              Case("dot", "2d", lambda ns, x, y: x @ y, ("c64[8@X,16]", "c64[16,4@Y]")),
              Case("dot-mixed", "2d", lambda ns, x, y: x @ y, ("c64[8@X,16]", "f32[16,4@Y]")),
              Case("einsum", "2d", lambda ns, x, y: ns.einsum("ij,jk->ik", x, y), ("c64[8@X,16]", "c64[16,4@Y]"))]
    return cases


@param(type_cases())
def test_complex_types(case):
    check(case)


def value_cases():
    cases = []
    for name, fn in UNARY.items():
        mode = "eager" if name in ("exp", "sum", "real") else "jit"
        # XLA cannot partition a reduction whose reducer is complex max/min: JAX and shardc both fail
        # compiling it over a sharded dim, so those run on a replicated operand
        arg = "c64[8,4]" if name in ("max", "min") else C
        cases.append(Case(f"{name}-{mode}", "2d", fn, (arg,), mode=mode, tol=(1e-4, 1e-4)))
    for name, fn in BINARY.items():
        cases.append(Case(f"{name}-jit", "2d", fn, (C, C), mode="jit", tol=(1e-4, 1e-4)))
    cases += [
        Case("3d-mul-sum", "3d", lambda ns, x, y: ns.sum(x * y, 1), ("c64[4@X,2@Y,8@Z]", "c64[4@X,2@Y,8@Z]"), mode="jit"),
        Case("1d-scalar", "1d", lambda ns, x: x * (1 + 2j) - 0.5j, ("c64[8@X]",), mode="jit"),
        Case("promote-f32", "2d", lambda ns, x, y: x * y + 1j, ("f32[8@X,4@Y]", "c64[8@X,4@Y]"), mode="jit"),
        Case("dot", "2d", lambda ns, x, y: x @ y, ("c64[8@X,16]", "c64[16,4@Y]"), mode="jit", tol=(1e-4, 1e-4)),
        Case("lax.complex", "2d", lambda ns, x, y: ns.lax.complex(x, y), ("f32[8@X,4@Y]", "f32[8@X,4@Y]"),
             mode="jit"),
        Case("lax.conj-f32", "2d", lambda ns, x: ns.lax.conj(x), ("f32[8@X,4@Y]",), mode="jit"),
        Case("asarray", "2d", lambda ns, x: x + ns.asarray(np.array([1 + 2j, 3j, -1, 0.5 - 1j] * 2, np.complex64)),
             ("c64[8]",), mode="jit"),
        Case("constant-array", "2d", lambda ns, x: x * np.array([[1j, 2, 3 - 1j, 4]], np.complex64), (C,),
             mode="jit"),
        Case("nonfinite", "1d", lambda ns, x: x * ns.asarray(np.array([np.inf + 1j, 1j * np.nan] * 4,
                                                                       np.complex64)), ("c64[8]",), mode="jit"),
    ]
    return cases


@param(value_cases())
def test_complex_values(case):
    check(case)


def _g(f):
    return lambda ns, x: ns.grad(lambda v: f(ns, v))(x)


GRADS = {
    "abs2": lambda ns, z: ns.sum(ns.abs(z) ** 2),
    "real-sq": lambda ns, z: ns.sum(ns.real(z * z)),
    "imag-exp": lambda ns, z: ns.sum(ns.imag(ns.exp(z))),
    "abs-sin": lambda ns, z: ns.sum(ns.abs(ns.sin(z) / (z + 3.0))),
    "real-conj-log": lambda ns, z: ns.sum(ns.real(ns.conj(z) * ns.log(z))),
    "lax.complex": lambda ns, z: ns.sum(ns.abs(ns.lax.complex(ns.real(z), 2.0 * ns.imag(z)))),
    "astype": lambda ns, z: ns.sum(ns.real(z).astype(np.complex64) * z).real,
    "dot": lambda ns, z: ns.real(ns.sum(z @ ns.conj(z).T)),
    "sqrt-tanh": lambda ns, z: ns.real(ns.sum(ns.sqrt(z) * ns.tanh(z))),
}


def grad_cases():
    cases = [Case(f"grad-{name}", "2d", _g(f), (C,), mode="jit", tol=(1e-4, 1e-4)) for name, f in GRADS.items()]
    cases += [Case("grad-f32-to-complex", "2d", _g(lambda ns, x: ns.sum(ns.abs(x * (1 + 2j)))), ("f32[8@X,4@Y]",),
                   mode="jit", tol=(1e-4, 1e-4)),
              Case("grad-complex-output", "2d", _g(lambda ns, z: ns.sum(z)), (C,), expect="reject"),
              Case("grad-scalar", "2d", lambda ns, z: ns.grad(lambda v: ns.abs(v) ** 2)(z), ("c64[]",), mode="jit"),
              Case("vjp", "2d", lambda ns, z: ns.vjp(lambda v: v * v, z)[1](ns.ones_like(z))[0], (C,), mode="jit"),
              Case("jvp-exp", "2d", lambda ns, x: ns.jvp(ns.exp, (x,), (x,)), (C,), mode="jit", tol=(1e-4, 1e-4)),
              Case("jvp-abs2", "2d", lambda ns, x: ns.jvp(lambda v: ns.abs(v) ** 2, (x,), (x,)), (C,), mode="jit",
                   tol=(1e-4, 1e-4)),
              Case("linearize", "2d", lambda ns, x: ns.linearize(lambda v: ns.sin(v) * 2j, x)[1](x), (C,), mode="jit",
                   tol=(1e-4, 1e-4)),
              Case("vmap-grad", "2d", lambda ns, x: ns.vmap(ns.grad(lambda v: ns.abs(v) ** 2))(x), ("c64[8@X]",),
                   mode="jit"),
              Case("scan", "2d", lambda ns, x: ns.lax.scan(lambda c, r: (c * r, c), x[0], x)[0], (C,), mode="jit",
                   tol=(1e-4, 1e-4)),
              Case("cond", "2d", lambda ns, x: ns.lax.cond(True, lambda v: v * 1j, lambda v: -v, x), (C,), mode="jit")]
    return cases


@param(grad_cases())
def test_complex_grads(case):
    check(case)


def vmap_cases():
    return [Case("vmap-real", "2d", lambda ns, x: ns.vmap(lambda r: ns.real(r) * r)(x), (C,), mode="jit"),
            Case("vmap-complex", "2d", lambda ns, x, y: ns.vmap(ns.lax.complex, in_axes=(0, 1))(x, y),
                 ("f32[8@X,4]", "f32[4,8@X]"), mode="jit"),
            Case("vmap-conj-abs", "1d", lambda ns, x: ns.vmap(lambda r: ns.abs(ns.conj(r)))(x), ("c64[8@X,4]",),
                 mode="jit")]


@param(vmap_cases())
def test_complex_vmap(case):
    check(case)
