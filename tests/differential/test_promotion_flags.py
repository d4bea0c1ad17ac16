"""`jax_numpy_rank_promotion` ('allow' / 'warn' / 'raise') and `jax_numpy_dtype_promotion`
('standard' / 'strict') against JAX 0.10.2, set the three ways a JAX user sets them (context
manager, decorator, `config.update`): a table of `jnp` functions x operand ranks / dtypes under
each value, compared with the oracle (accept/reject with error class and phrase, `str(typeof)`
of the results; traced under jit, and a subset run eagerly and compiled), plus the warnings
('warn': a UserWarning on both sides exactly where JAX warns, none where it does not).
JAX decides every verdict: the cases do not state it."""
from __future__ import annotations

import contextlib
import itertools
import warnings

import jax
import pytest
from oracle import JAX, Case, compare, param, run_jax, run_sc

import shardc as sc


def _np(ns):
    """The side's `numpy` namespace (for functions `sc` has only under `shardc.numpy`)."""
    return jax.numpy if ns is JAX else sc.numpy


RANK_PHRASE = "with the config option jax_numpy_rank_promotion='raise'"
STRICT_PHRASE = "have no available implicit dtype promotion path when jax_numpy_dtype_promotion=strict"

# --- rank promotion -------------------------------------------------------------------------
#: jnp functions of two arrays (JAX's promote_args / promote_args_numeric / _inexact family)
BINARY = {
    "+": lambda ns, x, y: x + y,
    "*": lambda ns, x, y: x * y,
    "add": lambda ns, x, y: ns.add(x, y),
    "subtract": lambda ns, x, y: ns.subtract(x, y),
    "true_divide": lambda ns, x, y: ns.true_divide(x, y),
    "floor_divide": lambda ns, x, y: ns.floor_divide(x, y),
    "remainder": lambda ns, x, y: ns.remainder(x, y),
    "power": lambda ns, x, y: ns.power(x, y),
    "maximum": lambda ns, x, y: ns.maximum(x, y),
    "minimum": lambda ns, x, y: ns.minimum(x, y),
    "arctan2": lambda ns, x, y: ns.arctan2(x, y),
    "hypot": lambda ns, x, y: ns.hypot(x, y),
    "logaddexp": lambda ns, x, y: ns.logaddexp(x, y),
    "less": lambda ns, x, y: ns.less(x, y),
    "equal": lambda ns, x, y: ns.equal(x, y),
    "copysign": lambda ns, x, y: ns.copysign(x, y),
    "nextafter": lambda ns, x, y: _np(ns).nextafter(x, y),
    "fmod": lambda ns, x, y: _np(ns).fmod(x, y),
    "heaviside": lambda ns, x, y: _np(ns).heaviside(x, y),
    "logical_xor": lambda ns, x, y: ns.logical_xor(x > 0, y > 0),
    "fmax": lambda ns, x, y: ns.fmax(x, y),
    "float_power": lambda ns, x, y: ns.float_power(x, y),
    "divmod": lambda ns, x, y: ns.divmod(x, y),
    "isclose": lambda ns, x, y: ns.isclose(x, y),
    "where": lambda ns, x, y: ns.where(x > 0, x, y),
    "clip": lambda ns, x, y: ns.clip(x, y, None),
}
#: operand shapes: a rank promotion (several ranks > 0), or none (same rank, size-1 dims, rank 0)
SHAPES = {
    "r1-r2": ("f32[8@X]", "f32[4,8@X]"),
    "r2-r1": ("f32[4,8]", "f32[8]"),
    "r1-r3": ("f32[8]", "f32[2,4,8]"),
    "r2-r3": ("f32[4,8]", "f32[2,4,8]"),
    "r0-r2": ("f32[]", "f32[4,8@X]"),
    "r2-r0": ("f32[4,8]", "f32[]"),
    "same": ("f32[4,8@X]", "f32[4,8@X]"),
    "size1": ("f32[1,8]", "f32[4,8]"),
    "r0-r0": ("f32[]", "f32[]"),
}
RANK_CASES = [Case(f"{op}-{sh}", "1d", fn, SHAPES[sh], phrase=RANK_PHRASE)
              for (op, fn), sh in itertools.product(BINARY.items(), SHAPES)]

#: with Python scalars, n-ary functions and ints
MORE = [
    Case("scalar-right", "1d", lambda ns, x: x + 2.0, ("f32[4,8]",), phrase=RANK_PHRASE),
    Case("scalar-left", "1d", lambda ns, x: ns.multiply(3, x), ("i32[4,8]",), phrase=RANK_PHRASE),
    Case("int-bitwise", "1d", lambda ns, x, y: ns.bitwise_and(x, y), ("i32[8]", "i32[4,8]"), phrase=RANK_PHRASE),
    Case("int-shift", "1d", lambda ns, x, y: ns.left_shift(x, y), ("i32[4,8]", "i32[8]"), phrase=RANK_PHRASE),
    Case("bool-or", "1d", lambda ns, x, y: ns.logical_or(x, y), ("bool[8]", "bool[2,4,8]"), phrase=RANK_PHRASE),
    Case("where-cond-rank", "1d", lambda ns, c, x, y: ns.where(c, x, y), ("bool[8]", "f32[4,8]", "f32[4,8]"),
         phrase=RANK_PHRASE),
    Case("clip-three", "1d", lambda ns, x, lo, hi: ns.clip(x, lo, hi), ("f32[4,8]", "f32[8]", "f32[]"),
         phrase=RANK_PHRASE),
    Case("matmul-batch", "1d", lambda ns, x, y: ns.matmul(x, y), ("f32[2,4,8]", "f32[8,3]"), phrase=RANK_PHRASE),
    Case("mean-divide", "1d", lambda ns, x: ns.mean(x, axis=0), ("f32[4,8@X]",), phrase=RANK_PHRASE),
    Case("softmax", "1d", lambda ns, x: ns.softmax(x, axis=-1), ("f32[4,8]",), phrase=RANK_PHRASE),
    Case("broadcast_to", "1d", lambda ns, x: ns.broadcast_to(x, (4, 8)), ("f32[8]",), phrase=RANK_PHRASE),
]


def _is_rank_warning(w) -> bool:
    return issubclass(w.category, UserWarning) and "automatic rank promotion" in str(w.message)


def _run_flagged(case: Case, side, mode: str, cm) -> tuple:
    """One side run under `cm` (a context manager of that side's flag), with its rank warnings.
    JAX warns when it traces, and `jnp.add` & co. are jitted functions whose traces it keeps:
    its caches are emptied first so that each case is a first trace on both sides."""
    if side is run_jax:
        jax.clear_caches()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with cm:
            out = side(case, mode)
    return out, [w for w in ws if _is_rank_warning(w)]


def _check_rank(case: Case, value: str, mode: str = "trace") -> None:
    j, jw = _run_flagged(case, run_jax, mode, jax.numpy_rank_promotion(value))
    s, sw = _run_flagged(case, run_sc, mode, sc.numpy_rank_promotion(value))
    compare(case, j, s, mode)
    assert bool(jw) == bool(sw), f"[{case.id} {value}] JAX warned {len(jw)}x, shardc {len(sw)}x"


@param(RANK_CASES + MORE)
@pytest.mark.parametrize("value", ["allow", "warn", "raise"])
def test_rank_promotion(case, value):
    _check_rank(case, value)


@param([c for c in RANK_CASES if c.id.split("-", 1)[0] in ("+", "maximum", "where")] + MORE[:3])
@pytest.mark.parametrize("value", ["warn", "raise"])
def test_rank_promotion_eager_and_compiled(case, value):
    _check_rank(case, value, "eager")
    _check_rank(case, value, "run")


def test_rank_promotion_warns_with_jaxs_message():
    x, y = sc.numpy.ones((3,)), sc.numpy.ones((2, 3))
    with sc.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"Following NumPy automatic rank promotion for maximum on "
                                             r"shapes \(3,\) \(2, 3\)\. Set the jax_numpy_rank_promotion"):
            sc.numpy.maximum(x, y)
    with jax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"Following NumPy automatic rank promotion for maximum on "
                                             r"shapes \(3,\) \(2, 3\)\. Set the jax_numpy_rank_promotion"):
            jax.numpy.maximum(jax.numpy.ones((3,)), jax.numpy.ones((2, 3)))


WHOLE = {"+": lambda m, x, y: x + y, "/": lambda m, x, y: x / y, "**": lambda m, x, y: x ** y,
         "<=": lambda m, x, y: x <= y, "maximum": lambda m, x, y: m.maximum(x, y),
         "subtract": lambda m, x, y: m.subtract(x, y), "arctan2": lambda m, x, y: m.arctan2(x, y)}


@pytest.mark.parametrize("op", sorted(WHOLE))
@pytest.mark.parametrize("value", ["warn", "raise"])
def test_rank_promotion_whole_message_as_jax(op, value):
    """The whole message JAX gives (function name and shapes included) is in shardc's / is shardc's warning."""
    got = {}
    for name, m, cm in (("jax", jax.numpy, jax.numpy_rank_promotion), ("sc", sc.numpy, sc.numpy_rank_promotion)):
        if name == "jax":
            jax.clear_caches()
        with warnings.catch_warnings(record=True) as ws, cm(value):
            warnings.simplefilter("always")
            try:
                WHOLE[op](m, m.ones((8,)), m.ones((2, 4, 8)))
                got[name] = " | ".join(str(w.message) for w in ws if _is_rank_warning(w))
            except ValueError as e:
                got[name] = str(e)
    assert got["jax"] and got["jax"] in got["sc"], got


# --- dtype promotion -----------------------------------------------------------------------
DTYPES = ["bool", "i8", "i32", "u8", "bf16", "f16", "f32", "c64"]
OPERANDS = [f"{w}{d}[8@X]" for d in DTYPES for w in ("", "~") if not (w and d == "bool")]
PAIRS = [Case(f"add-{a}-{b}", "1d", lambda ns, x, y: x + y, (a, b), phrase=STRICT_PHRASE)
         for a, b in itertools.product(OPERANDS, OPERANDS)]
SCALARS = {"True": True, "2": 2, "2.5": 2.5, "1j": 1j}
WITH_SCALARS = [Case(f"scalar-{a}-{name}", "1d", (lambda v: (lambda ns, x: ns.multiply(x, v)))(v), (a,),
                     phrase=STRICT_PHRASE)
                for a in OPERANDS for name, v in SCALARS.items()]
NARY = {
    "concatenate": lambda ns, x, y: ns.concatenate([x, y]),
    "stack": lambda ns, x, y: ns.stack([x, y]),
    "where": lambda ns, x, y: ns.where(True, x, y),
    "maximum": lambda ns, x, y: ns.maximum(x, y),
    "arctan2": lambda ns, x, y: ns.arctan2(x, y),
    "clip": lambda ns, x, y: ns.clip(x, y, None),
    "result_type": lambda ns, x, y: ns.zeros((), ns.result_type(x, y)),
}
NARY_CASES = [Case(f"{op}-{a}-{b}", "1d", fn, (a, b), phrase=STRICT_PHRASE)
              for (op, fn), (a, b) in itertools.product(
                  NARY.items(), [("f32[8]", "i32[8]"), ("f32[8]", "bf16[8]"), ("f32[8]", "~f32[8]"),
                                 ("i32[8]", "~f32[8]"), ("f32[8]", "f32[8]"), ("~i32[8]", "~f32[8]")])]


def _check_dtype(case: Case, value: str, mode: str = "trace") -> None:
    j, _ = _run_flagged(case, run_jax, mode, jax.numpy_dtype_promotion(value))
    s, _ = _run_flagged(case, run_sc, mode, sc.numpy_dtype_promotion(value))
    compare(case, j, s, mode)


@param(PAIRS + WITH_SCALARS + NARY_CASES)
def test_strict_dtype_promotion(case):
    _check_dtype(case, "strict")


@param(NARY_CASES)
def test_standard_dtype_promotion_unchanged(case):
    _check_dtype(case, "standard")


@param([c for c in PAIRS if c.id in ("add-f32[8@X]-i32[8@X]", "add-f32[8@X]-~f32[8@X]",
                                     "add-bf16[8@X]-~i32[8@X]", "add-i8[8@X]-~i8[8@X]")])
def test_strict_eager_and_compiled(case):
    _check_dtype(case, "strict", "eager")
    _check_dtype(case, "strict", "run")


def test_strict_error_class_is_jaxs_type_promotion_error():
    with sc.numpy_dtype_promotion("strict"):
        with pytest.raises(ValueError, match=STRICT_PHRASE) as e:
            sc.numpy.ones(3, "int32") + sc.numpy.ones(3, "float32")
    assert isinstance(e.value, sc.dtypes.TypePromotionError)
    assert jax.dtypes.TypePromotionError.__mro__[1] is ValueError


@pytest.mark.parametrize("value", ["standard", "strict"])
@pytest.mark.parametrize("a,b", [("int32", "float32"), ("uint8", int), ("bfloat16", "float16"), ("float32", float),
                                 ("int8", float), ("bool", int), ("float32", "float32")])
def test_promote_types_under_the_flag(a, b, value):
    """`jnp.promote_types` (JAX's own function) reads shardc's flag, not JAX's."""
    with jax.numpy_dtype_promotion(value):
        try:
            theirs = jax.numpy.promote_types(a, b)
        except jax.dtypes.TypePromotionError as e:
            theirs = e
    with sc.numpy_dtype_promotion(value):
        if isinstance(theirs, Exception):
            with pytest.raises(sc.dtypes.TypePromotionError, match=STRICT_PHRASE):
                sc.numpy.promote_types(a, b)
        else:
            assert sc.numpy.promote_types(a, b) == theirs


# --- how the flags are set -----------------------------------------------------------------
def _update(name, value):
    @contextlib.contextmanager
    def cm():
        before = sc.config.read(name)
        sc.config.update(name, value)
        try:
            yield
        finally:
            sc.config.update(name, before)
    return cm()


def test_config_update_decorator_restore_and_retrace():
    """`config.update` and `@numpy_rank_promotion(...)` act as the `with` form; the flag is restored
    after the block (also on an exception), and a jitted program traced under 'allow' is traced
    again under 'raise' (rejected there, as in JAX), then accepted again after."""
    x, y = sc.numpy.ones((8,)), sc.numpy.ones((4, 8))
    f = sc.jit(lambda a, b: a + b)
    jf = jax.jit(lambda a, b: a + b)
    assert f(x, y).shape == jf(jax.numpy.ones(8), jax.numpy.ones((4, 8))).shape == (4, 8)
    for cm in (_update("jax_numpy_rank_promotion", "raise"), sc.numpy_rank_promotion("raise")):
        with cm, jax.numpy_rank_promotion("raise"):
            with pytest.raises(ValueError, match=RANK_PHRASE):
                f(x, y)
            with pytest.raises(ValueError, match=RANK_PHRASE):
                jf(jax.numpy.ones(8), jax.numpy.ones((4, 8)))
        assert sc.config.jax_numpy_rank_promotion == "allow" and f(x, y).shape == (4, 8)

    @sc.numpy_dtype_promotion("strict")
    def strict_add(a, b):
        return a + b
    with pytest.raises(ValueError, match=STRICT_PHRASE):
        strict_add(x, sc.numpy.ones(8, "int32"))
    assert sc.numpy_dtype_promotion.value == "standard"
    assert sc.typeof(strict_add(x, x)) == sc.typeof(x)

    with pytest.raises(ZeroDivisionError):
        with sc.numpy_rank_promotion("warn"):
            1 / 0
    assert sc.numpy_rank_promotion.value == "allow"
    with pytest.raises(ValueError, match="new enum value must be in"):
        sc.config.update("jax_numpy_rank_promotion", "sometimes")
    with pytest.raises(ValueError, match="is not a valid NumpyDtypePromotion"):
        sc.config.update("jax_numpy_dtype_promotion", "loose")
