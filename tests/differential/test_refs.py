"""Mutable array references (`new_ref`, `Ref`, `ref.get/set/swap/addupdate`, `freeze`, `empty_ref`,
`free_ref`, `ds`) against jax 0.10.2: each program is written once against a namespace (`sc` or
`jax`), runs on the 2x4 Explicit mesh with its arguments placed alike on both sides, and the two
sides must agree on accept/reject (error class and a key phrase found in both messages), on
`str(typeof)` of every result and of every reference (`Ref{float32[8@X,4]}`) and of what it
holds, and on the values: eagerly, in `jit` (references made inside, passed in, closed over),
in `scan` / `fori_loop` / `while_loop` / `cond` / `switch` bodies that close over them, under
`grad` / `jvp` / `vmap` of functions that make their own, for several dtypes and shardings."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from oracle import error_kind, placed_pair

import shardc as sc
from shardc import P

SC, JX = (sc, sc.numpy), (jax, jnp)
SPECS = [P(), P("X"), P(None, "Y"), P("X", "Y")]


# --- comparing the two sides -------------------------------------------------------------------------
def _leaves(out, ns):
    return jax.tree.flatten(out, is_leaf=lambda x: isinstance(x, ns.Ref))[0]


def _describe(x, ns):
    """(type string, numpy value) of a result leaf; a reference reads as its type and contents."""
    if isinstance(x, ns.Ref):
        v = x[...]
        return f"{ns.typeof(x)} holding {ns.typeof(v)}", np.asarray(v)
    if isinstance(x, (int, float, bool)) or x is None:
        return repr(type(x)), np.asarray(x)
    return str(ns.typeof(x)), np.asarray(x)


def _run(prog, side, args):
    ns, np_ = side
    try:
        out = prog(ns, np_, *args)
    except Exception as e:  # noqa: BLE001  (the error is what is compared)
        return None, e
    return [_describe(x, ns) for x in _leaves(out, ns)], None


def compare(prog, sc_args=(), jax_args=(), key: str | None = None):
    """Run `prog` on both sides; `key`: a phrase both errors must contain (a rejected case)."""
    got, sc_err = _run(prog, SC, sc_args)
    want, jax_err = _run(prog, JX, jax_args)
    if jax_err is not None or sc_err is not None:
        assert jax_err is not None and sc_err is not None, (
            f"accept/reject differ: JAX {jax_err!r}, shardc {sc_err!r}")
        assert error_kind(sc_err) is not None and error_kind(sc_err) == error_kind(jax_err), (sc_err, jax_err)
        assert key is not None, f"unexpected rejection: JAX {jax_err!r}; shardc {sc_err!r}"
        assert key in str(jax_err), (key, str(jax_err))
        assert key in str(sc_err), (key, str(sc_err))
        return
    assert key is None, f"both accepted a case expected to be rejected ({key!r})"
    assert len(got) == len(want), (got, want)
    for (ts, vs), (tj, vj) in zip(got, want):
        assert ts == tj, (ts, tj)
        assert vs.shape == vj.shape and vs.dtype == vj.dtype, (vs, vj)
        np.testing.assert_allclose(vs.astype(np.float64), vj.astype(np.float64), rtol=1e-5, atol=1e-5)


def _data(shape, dtype):
    n = int(np.prod(shape))
    base = np.arange(n).reshape(shape) % 7
    return (base > 2) if dtype == np.bool_ else base.astype(dtype)


def _placed(meshes, shape, dtype, spec):
    return placed_pair(meshes, _data(shape, dtype), spec)


# --- reads and writes, by index form and sharding ---------------------------------------------------------
def _whole(ns, np_, x):
    r = ns.new_ref(x)
    r[...] = r[...] * 2 + 1
    return r[...] + 1, ns.freeze(r)


def _iadd(ns, np_, x):
    r = ns.new_ref(x)
    r[...] += 1
    return r


def _int_index(ns, np_, x):
    r = ns.new_ref(x)
    r[0] += 1
    r[1, 2] = r[0, 0]
    return r, r[1], r[-1, 3]


def _slices(ns, np_, x):
    r = ns.new_ref(x)
    r[:, 1:3] = r[:, 1:3] * 10
    return r, r[:, ::2], r[..., 3:]


def _row_slices(ns, np_, x):
    r = ns.new_ref(x)
    r[2:6] = r[2:6] + r[0:4]
    return r, r[1:3]


def _ds(ns, np_, x):
    r = ns.new_ref(x)
    r[:, ns.ds(1, 2)] = r[:, ns.ds(0, 2)]
    return r, r[:, ns.ds(0, 2, 2)], r[:, ns.ds(3)]


def _ref_functions(ns, np_, x):
    r = ns.new_ref(x)
    old = ns.ref.swap(r, ..., r[...] * 3)
    ns.ref.set(r, (slice(None), slice(0, 1)), ns.ref.get(r, (slice(None), slice(1, 2))))
    ns.ref.addupdate(r, ..., ns.ref.get(r, ()))
    r.addupdate(r[...])
    return old, r, ns.typeof(r[...]).shape, len(r)


def _array_index(ns, np_, x):
    r = ns.new_ref(x)
    return r[np_.array([3, 0, 1])], r[np_.array([1, 2]), 1:3]


FORMS = [_whole, _iadd, _int_index, _slices, _row_slices, _ds, _ref_functions, _array_index]
#: the phrase of JAX's error where a form does not fit a sharding, else None
SHARDED_INT = "sharded ref (array reference) can only be indexed by slices, not integers"
SHARDED_SLICE = "sharded ref (array reference) can only be sliced along unsharded axes"


def _expected(form, spec) -> str | None:
    sharded = any(e is not None for e in spec)
    if form in (_int_index, _array_index) and sharded:
        return SHARDED_INT
    if form in (_slices, _ds) and len(spec) > 1 and spec[1] is not None:
        return SHARDED_SLICE
    if form is _row_slices and len(spec) > 0 and spec[0] is not None:
        return SHARDED_SLICE
    if form is _ref_functions and len(spec) > 1 and spec[1] is not None:
        return SHARDED_SLICE
    return None


IN_JIT = ([(f, s) for f in FORMS for s in (P(), P("X", "Y"))]
          + [(_row_slices, P("X")), (_slices, P(None, "Y")), (_ref_functions, P("X")), (_iadd, P(None, "Y"))])


@pytest.mark.parametrize("form,spec", IN_JIT, ids=lambda v: getattr(v, "__name__", str(v)))
def test_index_forms_in_jit(meshes, form, spec):
    """Traced: every index form on every sharding of an (8, 4) reference made inside `jit`;
    the programs return the reference's final value."""
    x, jx = _placed(meshes, (8, 4), np.float32, spec)

    def prog(ns, np_, a):
        def f(a):
            out = form(ns, np_, a)
            return [o[...] if isinstance(o, ns.Ref) else o for o in out] if isinstance(out, tuple) \
                else out[...]
        return ns.jit(f)(a)
    compare(prog, (x,), (jx,), _expected(form, spec))


@pytest.mark.parametrize("form,spec", [(_whole, P("X", "Y")), (_int_index, P()), (_slices, P("X")),
                                       (_ds, P()), (_ref_functions, P("X")), (_int_index, P("X"))],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_index_forms_eagerly(meshes, form, spec):
    """Eager references (each read and write an operation of its own) on a representative subset."""
    x, jx = _placed(meshes, (8, 4), np.float32, spec)
    compare(lambda ns, np_, a: form(ns, np_, a), (x,), (jx,), _expected(form, spec))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, jnp.bfloat16, np.bool_, np.uint8], ids=lambda d: np.dtype(d).name)
def test_dtypes_and_implicit_casts(meshes, dtype):
    """Writes of Python scalars and arrays of the reference's dtype; JAX's implicit casts (weak
    floats into float references, integers into integer ones) and its dtype errors otherwise."""
    x, jx = _placed(meshes, (8, 4), dtype, P(None, "Y"))

    def scalar_write(ns, np_, a):
        def f(a):
            r = ns.new_ref(a)
            r[...] = np_.ones_like(a)
            r[1:3] = r[3:5]
            r[...] = r[...] + (True if a.dtype == np.bool_ else 1)   # a weak scalar
            return ns.freeze(r)
        return ns.jit(f)(a)

    def float_write(ns, np_, a):
        r = ns.new_ref(a)
        r[...] = r[...].astype(np.float32) * 2.5
        return r

    def int8_write(ns, np_, a):
        r = ns.new_ref(a)
        r[...] = r[...].astype(np.int8)
        return r
    is_int = np.issubdtype(np.dtype(dtype), np.integer)
    compare(scalar_write, (x,), (jx,))
    compare(float_write, (x,), (jx,), None if dtype == np.float32 else "Invalid dtype for `swap`")
    compare(int8_write, (x,), (jx,), None if is_int else "Invalid dtype for `swap`")


# --- jit: references made inside, passed in, closed over ----------------------------------------------------
@pytest.mark.parametrize("spec", [P(), P("X", "Y")], ids=str)
def test_jit_arguments_and_closures(meshes, spec):
    x, jx = _placed(meshes, (8, 4), np.float32, spec)
    y, jy = _placed(meshes, (8, 4), np.float32, P())

    def prog(ns, np_, a, b):
        x_mut = ns.new_ref(a)
        c_mut = ns.new_ref(a * 0)

        @ns.jit
        def f(x_ref, y, *, scale):
            x_ref[...] += y * scale
            c_mut[...] = c_mut[...] + x_ref[...]
            return x_ref[...].sum(), y * 2

        @ns.jit
        def nested(x_ref, y):
            return f(x_ref, y, scale=2.0)

        outs = [f(x_mut, b, scale=1.0), f(x_mut, b, scale=1.0), nested(x_mut, b)]
        inner = ns.jit(lambda v: (lambda q: (q.__setitem__(..., q[...] * 3), ns.freeze(q))[1])(ns.new_ref(v)))(a)
        return outs, x_mut, c_mut, inner
    compare(prog, (x, y), (jx, jy))


def test_jit_pytree_and_static_arguments(meshes):
    x, jx = _placed(meshes, (8, 4), np.float32, P("X"))

    def prog(ns, np_, a):
        refs = {"a": ns.new_ref(a), "b": [ns.new_ref(a.sum(0))]}
        step = ns.jit(lambda d, k: (d["a"].__setitem__(..., d["a"][...] + k),
                                    d["b"][0].__setitem__(..., d["b"][0][...] * k), k)[-1],
                      static_argnums=1)
        return step(refs, 2), step(refs, 3), refs["a"], refs["b"][0]
    compare(prog, (x,), (jx,))


# --- control flow bodies closing over references ---------------------------------------------------------------
def _scan_body(ns, np_, a):
    r = ns.new_ref(a)
    acc = ns.new_ref(np_.zeros((), np.float32))

    def body(c, xs):
        r[...] = r[...] * 0.5 + xs
        acc[...] += r[...].sum()
        return c + 1, acc[...]
    c, ys = ns.lax.scan(body, 0, np_.ones((3, *a.shape), np.float32))
    return c, ys, r, acc


def _fori_body(ns, np_, a):
    r = ns.new_ref(a)
    ns.lax.fori_loop(0, 3, lambda i, c: (r.__setitem__(..., r[...] + i.astype(np.float32)), c + 1)[1], 0)
    return r


def _fori_dynamic(ns, np_, a):
    r = ns.new_ref(a)
    n = ns.new_ref(np_.int32(0))
    out = ns.lax.fori_loop(0, r[...].shape[0] + np_.int32(0) * n[...], lambda i, c: (
        n.__setitem__(..., n[...] + 1), r.__setitem__(..., r[...] * 2.0), c)[-1], np_.float32(1))
    return out, r, n


def _while_body(ns, np_, a):
    """The cond reads a reference (`limit`) that the body leaves alone; the body writes two. (A cond
    reading a reference its body writes: `test_while_cond_reads_a_reference_the_body_writes`.)"""
    r = ns.new_ref(a)
    k = ns.new_ref(np_.int32(0))
    limit = ns.new_ref(np_.float32(5.0))

    def cond(c):
        return c < limit[...]

    def body(c):
        k[...] += 1
        r[...] = r[...] + c
        return c * 2.0
    return ns.lax.while_loop(cond, body, np_.float32(1.0)), r, k


def _cond_body(ns, np_, a):
    r = ns.new_ref(a)
    w = ns.new_ref(np_.zeros((), np.int32))
    for pred in (True, False):
        ns.lax.cond(pred, lambda: w.__setitem__(..., w[...] + 1), lambda: r.__setitem__(..., r[...] - 1.0))
    out = ns.lax.cond(r[...].sum() > 0, lambda q: q[...] * 2.0, lambda q: q[...], r)
    ns.lax.cond(False, lambda q: None, lambda q: q.__setitem__(..., q[...] + 100.0), r)
    return out, r, w


def _switch_body(ns, np_, a):
    r = ns.new_ref(a)
    for i in (0, 2, 5):
        ns.lax.switch(i, [lambda: r.__setitem__(..., r[...] + 1.0), lambda: None,
                          lambda: r.__setitem__(..., r[...] * 3.0)])
    return r


def _nested_loops(ns, np_, a):
    r = ns.new_ref(a)

    def outer(i, c):
        def inner(j, c):
            r[...] = r[...] + 1.0
            return c + 1
        return ns.lax.fori_loop(0, 2, inner, c)
    return ns.lax.fori_loop(0, 3, outer, 0), r


def _body_made_ref(ns, np_, a):
    def body(c, x):
        q = ns.new_ref(x)
        q[...] += 2
        return c, q[...]
    return ns.lax.scan(body, 0, np_.stack([a, a + 1]))


CONTROL = [_scan_body, _fori_body, _fori_dynamic, _while_body, _cond_body, _switch_body, _nested_loops,
           _body_made_ref]


@pytest.mark.parametrize("spec", [P(), P("X", "Y")], ids=str)
@pytest.mark.parametrize("prog", CONTROL, ids=lambda f: f.__name__)
def test_control_flow_in_jit(meshes, prog, spec):
    """Bodies close over references made in the program: each reference used is threaded as a carry."""
    x, jx = _placed(meshes, (8, 4), np.float32, spec)

    def run(ns, np_, a):
        def f(a):
            out = prog(ns, np_, a)
            return jax.tree.map(lambda o: o[...] if isinstance(o, ns.Ref) else o, out,
                                is_leaf=lambda o: isinstance(o, ns.Ref))
        return ns.jit(f)(a)
    compare(run, (x,), (jx,))


@pytest.mark.parametrize("prog", [_scan_body, _while_body, _cond_body], ids=lambda f: f.__name__)
def test_control_flow_eagerly(meshes, prog):
    """Outside programs: eager references closed over by bodies run as programs of their own."""
    x, jx = _placed(meshes, (8, 4), np.float32, P("X"))
    compare(lambda ns, np_, a: prog(ns, np_, a), (x,), (jx,))


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "jit"])
def test_while_cond_reads_a_reference_the_body_writes(meshes, jitted):
    """Not compared with JAX: jax 0.10.2 never ends this loop (its discharged cond reads the
    counter's value from before the loop, so `k < 3` stays true). shardc threads the counter
    through cond and body alike, as Python reads the program: three turns."""
    x, _ = _placed(meshes, (8, 4), np.float32, P("X"))

    def f(a):
        r, k = sc.new_ref(a), sc.new_ref(np.int32(0))

        def body(c):
            k[...] += 1
            r[...] = r[...] + c
            return c * 2.0
        out = sc.lax.while_loop(lambda c: k[...] < 3, body, np.float32(1.0))
        return out, r[...], k[...]
    out, r, k = (sc.jit(f) if jitted else f)(x)
    assert int(k) == 3 and float(out) == 8.0
    np.testing.assert_array_equal(np.asarray(r), _data((8, 4), np.float32) + 7.0)   # + 1 + 2 + 4
    assert str(sc.typeof(r)) == "float32[8@X,4]"


def test_eager_reference_closed_over_by_jitted_loop(meshes):
    x, jx = _placed(meshes, (8, 4), np.float32, P(None, "Y"))

    def prog(ns, np_, a):
        r = ns.new_ref(a)
        f = ns.jit(lambda n: ns.lax.fori_loop(0, n, lambda i, c: (r.__setitem__(..., r[...] + 1.0), c + i)[1], 0))
        return f(3), f(2), r
    compare(prog, (x,), (jx,))


# --- transformations of functions that make their own references -------------------------------------------
def test_grad_jvp_vmap_of_internal_references(meshes):
    x, jx = _placed(meshes, (8, 4), np.float32, P("X"))

    def prog(ns, np_, a):
        def f(v):
            q = ns.new_ref(v)
            q[...] = np_.sin(q[...]) + q[...] * q[...]
            q[:, 1:3] = q[:, 1:3] * 2.0
            return ns.freeze(q).sum()

        def vm(row):
            q = ns.new_ref(row)
            q[...] = q[...] * q[...]
            return q[...]
        return ns.grad(f)(a), ns.jit(ns.grad(f))(a), ns.vmap(vm)(a)
    compare(prog, (x,), (jx,))


def test_grad_jvp_of_scalar_references():
    """JAX's own tests' scalar programs (references through jit and scan under grad), with no
    context mesh: under one, jax 0.10.2 refuses its own backward pass (the reference made from
    a Python scalar has the empty mesh, the cotangent added into it the context mesh). The
    differentiated scalars are float32: from a weak Python scalar, jax 0.10.2's `grad` of a
    reference's contents is weak and its `jit` strong, which shardc does not copy (strong both)."""
    def prog(ns, np_):
        def g(s):
            q = ns.new_ref(s)
            ns.lax.scan(lambda c, _: (q.__setitem__(..., np_.sin(q[...]) + np_.sin(q[...])), (None, None))[1],
                        None, None, length=2)
            return ns.freeze(q)

        def e(s):
            q = ns.empty_ref(ns.ShapeDtypeStruct((), np.float32))
            q[...] = 2.0 * s
            out = q[...]
            ns.free_ref(q)
            return out
        s, t = np.float32(1.5), np.float32(3.0)
        return (ns.grad(g)(s), ns.jit(ns.grad(g))(s), ns.jvp(ns.jit(e), (3.0,), (1.0,)),
                ns.jvp(ns.jit(e), (t,), (np.float32(1),)), ns.jit(ns.grad(e))(t))
    compare(prog)


# --- types ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_typeof_and_attributes(meshes, spec):
    x, jx = _placed(meshes, (8, 4), np.float32, spec)

    def prog(ns, np_, a):
        r = ns.new_ref(a)
        seen = []

        @ns.jit
        def f(q):
            seen.append(str(ns.typeof(q)))
            seen.append(str(ns.typeof(q[...])))
            return q[...] * 1
        f(r)
        return (str(ns.typeof(r)), r.shape, str(r.dtype), r.ndim, len(r), isinstance(r, ns.Ref),
                isinstance(a, ns.Ref), seen, str(ns.typeof(ns.new_ref(1.0))), str(ns.typeof(ns.new_ref(np.int32(3)))))
    got, want = prog(sc, sc.numpy, x), prog(jax, jnp, jx)
    assert got == want


# --- JAX's errors --------------------------------------------------------------------------------------------
def _ret_from_jit(ns, np_, a):
    return ns.jit(lambda v: ns.new_ref(v))(a)


def _ret_arg_from_jit(ns, np_, a):
    return ns.jit(lambda x_ref: x_ref)(ns.new_ref(a))


def _alias_jit(ns, np_, a):
    r = ns.new_ref(a)
    return ns.jit(lambda x_ref, y_ref: x_ref[...] + y_ref[...])(r, r)


def _closure_alias_jit(ns, np_, a):
    r = ns.new_ref(a)
    return ns.jit(lambda y_ref: r[...] + y_ref[...])(r)


def _ret_from_scan(ns, np_, a):
    return ns.lax.scan(lambda c, x: (ns.new_ref(c), x), 0, np_.arange(3))


def _alias_scan(ns, np_, a):
    r = ns.new_ref(a)
    return ns.lax.scan(lambda c, _: (None, None), (r, r), None, length=1)


def _ret_from_cond(ns, np_, a):
    return ns.lax.cond(True, lambda: ns.new_ref(1.0), lambda: ns.new_ref(2.0))


def _alias_cond(ns, np_, a):
    r = ns.new_ref(a)
    return ns.lax.cond(True, lambda x1, x2: 1, lambda x1, x2: 1, r, r)


def _closure_alias_cond(ns, np_, a):
    r = ns.new_ref(a)
    return ns.lax.cond(True, lambda y_ref: r[...] + y_ref[...], lambda y_ref: r[...] + y_ref[...], r)


def _ret_fori_carry(ns, np_, a):
    return ns.lax.fori_loop(0, 3, lambda i, q: q, ns.new_ref(a))


def _bad_shape(ns, np_, a):
    r = ns.new_ref(a)
    r[...] = 0.0
    return r


def _bad_shape_jit(ns, np_, a):
    return ns.jit(lambda v: ns.new_ref(v).__setitem__(0, v[:2]))(a)


def _bad_dtype(ns, np_, a):
    r = ns.new_ref(a)
    r[...] = r[...].astype(np.int32)
    return r


def _addupdate_sharding(ns, np_, a):
    r = ns.new_ref(a)
    ns.ref.addupdate(r, ..., np_.ones(a.shape, np.float32))
    return r


def _addupdate_dtype(ns, np_, a):
    r = ns.new_ref(a)
    ns.ref.addupdate(r, ..., 1)
    return r


def _piece_other_sharding(ns, np_, a):
    r = ns.new_ref(ns.reshard(a, ns.P(None, "Y")))
    r[1:3] = np_.zeros((2, 4), np.float32)
    return r


def _get_not_ref(ns, np_, a):
    return ns.ref.get(a, ())


def _list_ref(ns, np_, a):
    return ns.new_ref([1.0, 2.0])


def _empty_ref_eager(ns, np_, a):
    return ns.empty_ref(ns.ShapeDtypeStruct((2,), np.float32))


ERRORS = [
    (_ret_from_jit, "traced for jit returned a mutable array reference of type Ref{float32[8@X,4]}"),
    (_ret_arg_from_jit, "traced for jit returned a mutable array reference of type Ref{float32[8@X,4]}"),
    (_alias_jit, "appeared at both x_ref and y_ref"),
    (_closure_alias_jit, "was both closed over and passed as the argument y_ref"),
    (_ret_from_scan, "traced for scan returned a mutable array reference of type Ref{int32[]}"),
    (_alias_scan, "appeared at both c[0] and c[1]"),
    (_ret_from_cond, "traced for cond returned a mutable array reference of type Ref{float32[]}"),
    (_alias_cond, "at both x1 and x2"),
    (_closure_alias_cond, "closed over and passed as the argument y_ref"),
    (_ret_fori_carry, "traced for fori_loop returned a mutable array reference of type Ref{float32[8@X,4]}"),
    (_bad_shape, "Invalid shape for `swap`. Ref shape: (8, 4). Expected shape: (8, 4). Value shape: ()."),
    (_bad_shape_jit, SHARDED_INT),
    (_bad_dtype, "Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32."),
    (_addupdate_sharding, "Invalid sharding for `addupdate`"),
    (_addupdate_dtype, "Invalid shape for `addupdate`. Ref shape: (8, 4). Expected shape: (8, 4). Value shape: ()."),
    (_piece_other_sharding, "dynamic_update_slice operand sharding must be equal to update sharding"),
    (_get_not_ref, "Can only call `ref_get` on a `Ref`"),
    (_list_ref, "Error interpreting argument to new_ref as a JAX value"),
    (_empty_ref_eager, "Evaluation rule for 'empty_ref' not implemented"),
]


@pytest.mark.parametrize("prog,key", ERRORS, ids=[p.__name__ for p, _ in ERRORS])
def test_errors(meshes, prog, key):
    x, jx = _placed(meshes, (8, 4), np.float32, P("X"))
    compare(prog, (x,), (jx,), key)


def test_leaked_and_freed_references_are_refused(meshes):
    """shardc's own errors (JAX's are internal ones): a reference made while tracing and used after,
    a reference used after `free_ref` inside a program."""
    kept = []
    sc.jit(lambda v: kept.append(sc.new_ref(v)) or v)(np.float32(1.0))
    with pytest.raises(sc.ShardcTypeError, match="leaked reference"):
        kept[0][...]

    def freed(v):
        q = sc.new_ref(v)
        sc.free_ref(q)
        return q[...]
    with pytest.raises(sc.ShardcValueError, match="used after `free_ref`"):
        sc.jit(freed)(np.float32(1.0))
    r = sc.new_ref(np.float32(1.0))
    with pytest.raises(sc.ShardcNotImplementedError, match="make_jaxpr of a function that uses a mutable array"):
        sc.make_jaxpr(lambda: r[...] + 1)()
    with pytest.raises(sc.ShardcNotImplementedError, match="takes a mutable array reference"):
        sc.jit(lambda q: q[...]).lower(r)
