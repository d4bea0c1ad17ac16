#!/usr/bin/env python
"""Run JAX's own sharding-in-types tests with JAX's names bound to shardc's (issue 13).

    SHARDC_CPU_DEVICES=8 python tools/port_jax_tests.py /work/.mirror/jax-ml+jax/repo \
        [--rev jax-v0.10.2] [--class ShardingInTypesTest] [-k SUBSTR] [--timeout 90] \
        [--json out.json] [--markdown out.md]

The path is a JAX repository (a git directory read with `git show REV:FILE`, or a
checkout). The tool extracts `tests/pjit_test.py::ShardingInTypesTest` and
`tests/shard_map_test.py::ShardMapTest`, executes their module with a custom
`__import__`: `jax`, `jax.numpy`, `jax.lax`, `jax.sharding`, ... resolve to shardc's
modules (`import shardc as jax`), `jax._src.test_util` to a small stand-in for JAX's
test utilities (meshes over 8 CPU devices, `assertArraysEqual`, ...). Every test case
(parameterized ones expanded) runs in a worker process, each in a fresh context (no mesh
leaks; shardc's caches cleared); a case that exceeds `--timeout` or crashes the worker is
a failure and the worker is restarted.

Each case is one of
* passed;
* failed: the exception and the first line of its message, grouped by cause;
* not portable: it reaches JAX internals (`jax._src` names, jaxprs, config flags, cache
  counters, the text of a lowered module), JAX skips it on 8 CPU devices, or it calls a
  public JAX function shardc does not have yet ("not yet built: jax.numpy.foo").

A case that checks lowered StableHLO text with `assertIn`/`assertEqual` passes when
shardc's text satisfies the check and is "not portable (lowered text)" when it does not;
compiled (XLA HLO) text is a real check.

This is a measuring tool, not a CI test: CI has no network and no JAX checkout.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import collections
import contextlib
import contextvars
import functools
import io
import itertools
import json
import math
import os
import re
import select
import subprocess
import sys
import time
import traceback
import types
import unittest
from pathlib import Path

CLASSES = {"ShardingInTypesTest": "tests/pjit_test.py", "ShardMapTest": "tests/shard_map_test.py"}
_RESULT = "@@PORT_RESULT@@ "


# ================================================================================================
# outcomes raised by the stand-ins
# ================================================================================================
class NotPortable(BaseException):
    """The case reaches a JAX internal (BaseException: `assertRaises(Exception)` must not catch it)."""


class NotBuilt(BaseException):
    """The case calls a public JAX function shardc does not have yet."""


class _Skip(BaseException):
    """JAX itself skips the case here (device kind / count)."""


# ================================================================================================
# the stand-ins for jax modules
# ================================================================================================
def _sc():
    import shardc
    return shardc


class _Internal:
    """A JAX internal: using it (calling, reading a value) makes the case not portable.

    Used as a decorator (called with one function) it wraps the function so that
    calling it is what raises: a class body that decorates with it still loads."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        full = f"{self._name}.{attr}"
        if full in _INTERNAL_MAP:
            return _INTERNAL_MAP[full]()
        return _Internal(full)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and isinstance(args[0], types.FunctionType):
            fn, name = args[0], self._name

            @functools.wraps(fn)
            def raiser(*a, **k):
                raise NotPortable(f"internal: {name}")
            return raiser
        raise NotPortable(f"internal: {self._name}")

    def _use(self, *_):
        raise NotPortable(f"internal: {self._name}")

    __enter__ = __iter__ = __bool__ = __len__ = __getitem__ = __eq__ = __hash__ = _use
    __int__ = __float__ = __index__ = __add__ = __mul__ = __lt__ = __gt__ = _use

    def __repr__(self):
        return f"<jax internal {self._name}>"


class _Missing(_Internal):
    """A public JAX name shardc does not have (yet)."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Missing(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        raise NotBuilt(self._name)

    def _use(self, *_):
        raise NotBuilt(self._name)

    __enter__ = __iter__ = __bool__ = __len__ = __getitem__ = __eq__ = __hash__ = _use
    __int__ = __float__ = __index__ = __add__ = __mul__ = __lt__ = __gt__ = _use
    __instancecheck__ = _use

    def __repr__(self):
        return f"<not in shardc: {self._name}>"


class _Mod(types.ModuleType):
    """A jax module bound to a shardc module: shardc's attribute if it has one, else a
    `_Missing` (public in JAX) or `_Internal` (not public in JAX) stand-in."""

    def __init__(self, jax_name: str, target, overrides: dict | None = None, real=None):
        super().__init__(jax_name)
        self._target, self._overrides, self._real = target, overrides or {}, real

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in self._overrides:
            v = self._overrides[attr]
            return v() if isinstance(v, _Lazy) else v
        if self._target is not None and hasattr(self._target, attr):
            return getattr(self._target, attr)
        real = self._real() if callable(self._real) else self._real
        if real is not None and not hasattr(real, attr):
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        return _Missing(f"{self.__name__}.{attr}")


class _Lazy:
    def __init__(self, f):
        self.f = f

    def __call__(self):
        return self.f()


def _real(name):
    import importlib  # late: the real JAX module, only to tell public names from typos
    return lambda: importlib.import_module(name)


class _Flag:
    """`config.<flag>`: reading `.value` gives JAX's default; setting it is a config flag."""

    def __init__(self, name):
        self._name = name

    @property
    def value(self):
        from jax._src import config as jc  # late: JAX's default value of the flag
        return getattr(jc, self._name).value

    def __call__(self, *a, **k):
        return _Internal(f"config.{self._name}")(*a, **k)

    def __getattr__(self, attr):
        raise NotPortable(f"internal: config.{self._name}.{attr}")


class _Config(types.ModuleType):
    def __init__(self):
        super().__init__("jax._src.config")

    def parse_flags_with_absl(self):
        pass

    def update(self, *a, **k):
        raise NotPortable("internal: config.update")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Flag(attr)


# --------------------------------------------------------------------------- test utilities ---
class _LoweredText(str):
    """The text of a lowered module: a failing assertion on it is 'not portable'."""

    def count(self, *a):
        return _TextInt(str.count(self, *a))


class _TextInt(int):
    pass


def _marked(args) -> bool:
    return any(isinstance(a, (_LoweredText, _TextInt)) for a in args)


def _canon(dt):
    import numpy as np
    dt = np.dtype(dt)
    return {np.dtype("float64"): np.dtype("float32"), np.dtype("int64"): np.dtype("int32"),
            np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64")}.get(dt, dt)


def _dtype_of(x):
    import numpy as np
    if isinstance(x, (bool, int, float, complex)):
        return None  # weakly typed Python scalars match any dtype (as JAX's assertDtypesMatch)
    dt = getattr(x, "dtype", None)
    return None if dt is None else _canon(np.dtype(dt))


def _matches(regex: str, msg: str) -> bool:
    """JAX's regex found in shardc's message, where JAX's API names (`jax.shard_map`,
    `jax.lax.pcast`, `jax.set_mesh`) may be shardc's (`sc.shard_map`, `sc.pcast`, ...)."""
    if re.search(regex, msg):
        return True
    pat = re.sub(r"jax(\\)?\.(lax(\\)?\.|sharding(\\)?\.)?", r"sc\\.", regex)
    norm = re.sub(r"\b(sc|jax)\.(lax\.|sharding\.)?", "sc.", msg)
    try:
        return re.search(pat, norm) is not None
    except re.error:
        return False


class _RaisesCtx:
    """assertRaises / assertRaisesRegex: tells a different exception class apart."""

    def __init__(self, tc, exc, regex):
        self.tc, self.exc, self.regex = tc, exc, regex
        self.exception = None

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is None:
            name = getattr(self.exc, "__name__", str(self.exc))
            raise AssertionError(f"{name} not raised")
        if issubclass(et, (NotPortable, NotBuilt, _Skip, unittest.SkipTest)):
            return False
        if not issubclass(et, self.exc):
            first = (str(ev).strip().splitlines() or [""])[0]
            raise AssertionError(f"wrong exception class: expected {self.exc.__name__}, got "
                                 f"{et.__name__}: {first}") from ev
        self.exception = ev
        if self.regex is not None and not _matches(self.regex, str(ev)):
            first = (str(ev).strip().splitlines() or [""])[0]
            raise AssertionError(f"message mismatch: {self.regex!r} not found in: {first}") from ev
        return True


class JaxTestCase(unittest.TestCase):
    """The part of `jtu.JaxTestCase` the two classes use, over NumPy."""

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)

    def rng(self):
        import numpy as np
        return np.random.RandomState(0)

    def assertArraysEqual(self, x, y, *, check_dtypes=True, err_msg="", allow_object_dtype=False,
                          verbose=True):
        import numpy as np
        if check_dtypes:
            self.assertDtypesMatch(x, y)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=err_msg)

    def assertDtypesMatch(self, x, y, *, canonicalize_dtypes=True):
        a, b = _dtype_of(x), _dtype_of(y)
        if a is not None and b is not None and a != b:
            raise AssertionError(f"dtypes differ: {a} != {b}")

    def assertArraysAllClose(self, x, y, *, check_dtypes=True, atol=None, rtol=None, err_msg=""):
        import numpy as np
        if check_dtypes:
            self.assertDtypesMatch(x, y)
        xa, ya = np.asarray(x), np.asarray(y)
        if xa.dtype.kind == "V" or str(xa.dtype) == "bfloat16":
            xa = xa.astype(np.float32)
        if ya.dtype.kind == "V" or str(ya.dtype) == "bfloat16":
            ya = ya.astype(np.float32)
        tol = 1e-2 if str(getattr(x, "dtype", "")) in ("bfloat16", "float16") else 1e-5
        np.testing.assert_allclose(xa, ya, atol=tol if atol is None else atol,
                                   rtol=tol if rtol is None else rtol, err_msg=err_msg)

    def assertAllClose(self, x, y, *, check_dtypes=True, atol=None, rtol=None, canonicalize_dtypes=True,
                       err_msg=""):
        if isinstance(x, dict) and isinstance(y, dict):
            self.assertEqual(set(x), set(y))
            for k in x:
                self.assertAllClose(x[k], y[k], check_dtypes=check_dtypes, atol=atol, rtol=rtol)
        elif isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            self.assertEqual(len(x), len(y))
            for a, b in zip(x, y):
                self.assertAllClose(a, b, check_dtypes=check_dtypes, atol=atol, rtol=rtol)
        elif x is None or y is None:
            self.assertIs(x, y)
        else:
            self.assertArraysAllClose(x, y, check_dtypes=check_dtypes, atol=atol, rtol=rtol, err_msg=err_msg)

    def assertRaises(self, exc, *args, **kwargs):
        ctx = _RaisesCtx(self, exc, None)
        if args:
            with ctx:
                args[0](*args[1:], **kwargs)
            return None
        return ctx

    def assertRaisesRegex(self, exc, regex, *args, **kwargs):
        ctx = _RaisesCtx(self, exc, regex)
        if args:
            with ctx:
                args[0](*args[1:], **kwargs)
            return None
        return ctx

    def assertRaisesWithLiteralMatch(self, exc, msg, *args, **kwargs):
        return self.assertRaisesRegex(exc, re.escape(msg), *args, **kwargs)

    def assertLen(self, x, n, msg=None):
        self.assertEqual(len(x), n, msg)

    def assertEmpty(self, x, msg=None):
        self.assertEqual(len(x), 0, msg)

    def assertNotEmpty(self, x, msg=None):
        self.assertNotEqual(len(x), 0, msg)

    def assertSameElements(self, a, b, msg=None):
        self.assertEqual(set(a), set(b), msg)


def _text_aware(name):
    orig = getattr(unittest.TestCase, name)

    def wrapped(self, *args, **kwargs):
        try:
            return orig(self, *args, **kwargs)
        except AssertionError:
            if _marked(args):
                raise NotPortable("lowered-text check: shardc's StableHLO text differs") from None
            raise
    wrapped.__name__ = name
    return wrapped


for _n in ("assertIn", "assertNotIn", "assertEqual", "assertRegex", "assertNotRegex", "assertTrue",
           "assertFalse", "assertGreater", "assertLess", "assertNotEqual"):
    setattr(JaxTestCase, _n, _text_aware(_n))


class _Params:
    """What a parameterized decorator evaluates to: a list of (suffix, args, kwargs)."""

    def __init__(self, cases):
        self.cases = list(cases)


def _named_parameters(*cases):
    if len(cases) == 1 and not isinstance(cases[0], (tuple, dict)):
        cases = tuple(cases[0])
    out = []
    for c in cases:
        if isinstance(c, dict):
            c = dict(c)
            out.append(("_" + str(c.pop("testcase_name")).lstrip("_"), (), c))
        else:
            out.append(("_" + str(c[0]).lstrip("_"), tuple(c[1:]), {}))
    return _Params(out)


def _parameters(*cases):
    if len(cases) == 1 and not isinstance(cases[0], (tuple, dict)):
        cases = tuple(cases[0])
    out = []
    for i, c in enumerate(cases):
        if isinstance(c, dict):
            out.append((str(i), (), dict(c)))
        elif isinstance(c, (tuple, list)):   # absl spreads any non-string iterable case as arguments
            out.append((str(i), tuple(c), {}))
        else:
            out.append((str(i), (c,), {}))
    return _Params(out)


def _product(*dict_lists, **kwargs):
    pools = [list(v) for v in dict_lists] + [[{k: x} for x in v] for k, v in kwargs.items()]
    out = []
    for i, combo in enumerate(itertools.product(*pools)):
        kw = {}
        for d in combo:
            kw.update(d)
        out.append((str(i), (), kw))
    return _Params(out)


def _sample_product(*dict_lists, **kwargs):
    """`jtu.sample_product`: JAX runs a sample of 10 of the product (its default
    JAX_NUM_GENERATED_CASES); a fixed-seed sample here."""
    import random as _random
    full = _product(*dict_lists, **kwargs).cases
    if len(full) <= 10:
        return _Params(full)
    return _Params(sorted(_random.Random(0).sample(full, 10), key=lambda c: int(c[0])))


class _Dtypes:
    all_floating = ["bfloat16", "float16", "float32"]
    floating = ["float32"]
    all_integer = ["int8", "int16", "int32"]
    integer = ["int32"]
    all_unsigned = ["uint8", "uint16", "uint32"]
    all_inexact = all_floating
    all = all_floating + all_integer + all_unsigned + ["bool"]

    def supported(self, dts):
        return list(dts)


def _check_grads():
    """JAX's own `check_grads` (finite differences vs jvp / vjp / linearize), a second
    copy of its module with its `api` bound to shardc's transformations."""
    import importlib.util
    sc = _sc()
    spec = importlib.util.find_spec("jax._src.public_test_util")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.api = types.SimpleNamespace(jvp=sc.jvp, vjp=sc.vjp, linearize=sc.linearize)
    return mod.check_grads


def _jtu_module() -> types.ModuleType:
    """The stand-in for `jax._src.test_util`."""
    sc = _sc()
    import numpy as np
    m = types.ModuleType("jax._src.test_util")
    m.JaxTestCase = JaxTestCase
    m.request_cpu_devices = lambda n: None
    m.dtypes = _Dtypes()
    m.device_under_test = lambda: "cpu"
    m.test_device_matches = lambda kinds: "cpu" in kinds
    m.is_cloud_tpu_at_least = lambda *a: False
    m.is_device_tpu = lambda *a, **k: False
    m.is_device_tpu_at_least = lambda *a: False
    m.is_device_cuda = lambda: False
    m.is_device_rocm = lambda: False

    def identity_deco(*a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return lambda f: f
    m.thread_unsafe_test = identity_deco
    m.pytest_mark_if_available = identity_deco
    m.ignore_warning = identity_deco
    m.skip_on_flag = identity_deco

    def run_on_devices(*kinds, skip_reason=None):
        def deco(f):
            @functools.wraps(f)
            def g(*a, **k):
                if "cpu" not in kinds:
                    raise _Skip(f"JAX runs it on {', '.join(kinds)} only")
                return f(*a, **k)
            return g
        return deco
    m.run_on_devices = run_on_devices

    def skip_on_devices(*kinds):
        def deco(f):
            @functools.wraps(f)
            def g(*a, **k):
                if "cpu" in kinds:
                    raise _Skip("JAX skips it on cpu")
                return f(*a, **k)
            return g
        return deco
    m.skip_on_devices = skip_on_devices

    def devices():
        import jax  # late: older shardc versions have no sc.devices
        return sc.devices() if hasattr(sc, "devices") else jax.devices()

    def create_mesh(mesh_shape, axis_names, iota_order=False, axis_types=None):
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        size = math.prod(mesh_shape)
        if len(devices()) < size:
            raise _Skip(f"needs {size} devices")
        if axis_types is None:
            axis_types = (sc.AxisType.Auto,) * len(mesh_shape)
        if iota_order:
            devs = sorted(devices(), key=lambda d: d.id)[:size]
            arr = np.empty(size, dtype=object)
            arr[:] = devs
            return sc.Mesh(arr.reshape(mesh_shape), axis_names, axis_types=axis_types)
        return sc.make_mesh(mesh_shape, axis_names, axis_types)
    m.create_mesh = create_mesh

    def with_explicit_mesh(sizes, names, axis_types=None, iota_order=False):
        names = (names,) if isinstance(names, str) else tuple(names)
        axis_types = (sc.AxisType.Explicit,) * len(names) if axis_types is None else axis_types

        def deco(fn):
            @functools.wraps(fn)
            def mesh_fn(*args, **kwargs):
                mesh = create_mesh(sizes, names, iota_order, axis_types=axis_types)
                with sc.set_mesh(mesh):
                    return fn(*args, **kwargs, mesh=mesh)
            return mesh_fn
        return deco
    m.with_explicit_mesh = with_explicit_mesh

    @contextlib.contextmanager
    def with_mesh(named_shape):
        names, shape = zip(*named_shape) if named_shape else ((), ())
        mesh = create_mesh(shape, names, axis_types=(sc.AxisType.Auto,) * len(shape))
        with sc.set_mesh(mesh):
            yield
    m.with_mesh = with_mesh
    m.with_mesh_from_kwargs = lambda f: lambda *a, **k: with_mesh(k["mesh"])(f)(*a, **k)

    def rand(scale):
        def maker(rng):
            def draw(shape, dtype):
                return (rng.standard_normal(shape) * scale).astype(dtype)
            return draw
        return maker
    m.rand_default = rand(3.0)
    m.rand_small = rand(1e-1)

    @contextlib.contextmanager
    def capture_stdout():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            yield lambda: buf.getvalue()
    m.capture_stdout = capture_stdout
    m.check_grads = _check_grads()
    for name in ("count_jit_tracing_cache_miss", "count_pjit_cpp_cache_miss", "count_jit_compilation_cache_miss",
                 "count_jit_and_pmap_lowerings", "count_primitive_compiles",
                 "BufferDonationTestCase", "assert_dot_precision", "count_subjaxpr_to_hlo_conversion"):
        setattr(m, name, _Internal(f"jtu.{name}"))
    return m


# --------------------------------------------------------------------------- name bindings ---
_ADAPTERS: dict = {}


def _jax_default_meshes(sc):
    """`jax.sharding.Mesh` / `AbstractMesh` default to Auto axes; shardc's default to
    Explicit (SPEC: no Auto trap). The binding supplies JAX's default where a test
    omits `axis_types` (`--sc-mesh-default` binds shardc's classes as they are)."""
    if "Mesh" in _ADAPTERS:
        return _ADAPTERS

    class Mesh(sc.Mesh):
        def __init__(self, devices, axis_names, axis_types=None):
            if axis_types is None:
                n = 1 if isinstance(axis_names, str) else len(tuple(axis_names))
                axis_types = (sc.AxisType.Auto,) * n
            super().__init__(devices, axis_names, axis_types)

    class AbstractMesh(sc.AbstractMesh):
        def __init__(self, axis_sizes, axis_names, axis_types=None, **kw):
            if axis_types is None:
                axis_types = (sc.AxisType.Auto,) * len(tuple(axis_names))
            super().__init__(axis_sizes, axis_names, axis_types, **kw)

    _ADAPTERS.update(Mesh=Mesh, AbstractMesh=AbstractMesh)
    return _ADAPTERS


_SC_MESH_DEFAULT = [False]


def _mesh_cls(name):
    sc = _sc()
    return getattr(sc, name) if _SC_MESH_DEFAULT[0] else _jax_default_meshes(sc)[name]

#: jax internals that are just public names under another path
_INTERNAL_MAP = {
    "jax._src.core.ShardingTypeError": lambda: _sc().ShardingTypeError,
    "jax.custom_derivatives.SymbolicZero": lambda: _sc().custom_derivatives.SymbolicZero,
    "jax._src.core.ShapedArray": lambda: _Internal("jax.core.ShapedArray"),
    "jax._src.mesh.AxisType": lambda: _sc().AxisType,
    "jax._src.mesh.AbstractMesh": lambda: _mesh_cls("AbstractMesh"),
    "jax._src.mesh.Mesh": lambda: _mesh_cls("Mesh"),
    "jax._src.mesh.get_abstract_mesh": lambda: _sc().get_abstract_mesh,
    "jax._src.mesh.use_abstract_mesh": lambda: _sc().use_abstract_mesh,
    "jax._src.mesh.get_concrete_mesh": lambda: _sc().get_mesh,
    "jax._src.sharding_impls.NamedSharding": lambda: _sc().NamedSharding,
    "jax._src.sharding_impls.set_mesh": lambda: _sc().set_mesh,
    "jax._src.shard_map.shard_map": lambda: _sc().shard_map,
    "jax._src.array.make_array_from_callback": lambda: _sc().make_array_from_callback,
    "jax._src.mesh.AbstractDevice": lambda: _Missing("jax.sharding.AbstractDevice"),
    "jax._src.mesh.empty_concrete_mesh": lambda: _Internal("jax._src.mesh.empty_concrete_mesh"),
}

_UTIL = ("jax._src.util",)


def _bindings() -> dict[str, types.ModuleType]:
    """Module name -> stand-in, for every `jax...` module the tests import."""
    sc = _sc()
    import importlib

    import shardc.lax as sl
    import shardc.numpy as snp
    import shardc.sharding as ss
    mods: dict = {}
    subs = {n: _Mod(f"jax.numpy.{n}", getattr(snp, n, None), real=_real(f"jax.numpy.{n}"))
            for n in ("linalg", "fft")}
    jnp = _Mod("jax.numpy", snp, subs, real=_real("jax.numpy"))
    lax = _Mod("jax.lax", sl, real=_real("jax.lax"))
    sharding = _Mod("jax.sharding", ss, {
        "Mesh": _mesh_cls("Mesh"), "AbstractMesh": _mesh_cls("AbstractMesh"), "reshard": sc.reshard, "auto_axes": sc.auto_axes, "explicit_axes": sc.explicit_axes,
        "set_mesh": sc.set_mesh, "get_mesh": sc.get_mesh}, real=_real("jax.sharding"))
    nn = _Mod("jax.nn", sc.nn, real=_real("jax.nn"))
    random = _Mod("jax.random", sc.random, real=_real("jax.random"))
    tree_util = _Mod("jax.tree_util", sc.tree_util, real=_real("jax.tree_util"))
    tree = _Mod("jax.tree", getattr(sc, "tree", None), real=_real("jax.tree"))
    stages = _Mod("jax.stages", sc.stages, real=_real("jax.stages"))
    dtypes = _Mod("jax.dtypes", sc.dtypes, real=_real("jax.dtypes"))
    errors = _Mod("jax.errors", sc.errors, real=_real("jax.errors"))
    adc = _Mod("jax.ad_checkpoint", sc.ad_checkpoint, real=_real("jax.ad_checkpoint"))
    config = _Config()
    internal = {n: _Internal(n) for n in ("make_jaxpr", "config", "core", "extend", "interpreters", "api_util",
                                          "custom_derivatives", "experimental", "profiler",
                                          "legacy_prng_key", "monitoring", "transfer_guard", "log_compiles",
                                          "explain_cache_misses", "numpy_rank_promotion",
                                          "numpy_dtype_promotion", "enable_checks", "checking_leaks",
                                          "default_matmul_precision", "enable_x64", "debug_nans")}
    internal["config"] = config
    jax = _Mod("jax", sc, {**internal, "numpy": jnp, "lax": lax, "sharding": sharding, "nn": nn,
                           "random": random, "tree_util": tree_util, "tree": tree, "stages": stages,
                           "dtypes": dtypes, "errors": errors, "ad_checkpoint": adc, "P": sc.P,
                           "Array": sc.Array, "ops": _Mod("jax.ops", None, real=_real("jax.ops")),
                           "scipy": _Internal("jax.scipy")}, real=_real("jax"))
    for m in (jnp, lax, sharding, nn, random, tree_util, tree, stages, dtypes, errors, adc):
        mods[m.__name__] = m
    mods["jax"] = jax
    mods["jax._src.config"] = config
    mods["jax._src.test_util"] = _jtu_module()
    for u in _UTIL:
        mods[u] = importlib.import_module(u)
    return mods


def _make_import(mods: dict):
    real_import = builtins.__import__

    def resolve(name: str):
        if name in mods:
            return mods[name]
        if name.startswith("jax._src") or name.startswith("jax.experimental") or name.startswith(
                ("jax.interpreters", "jax.extend", "jax.core", "jax.api_util", "jax.custom_derivatives")):
            return _Internal(name)
        return _Missing(name)

    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "jax" or name.startswith("jax.")):
            mod = resolve(name)
            if fromlist:
                return _FromList(name, mod, resolve)
            return mods["jax"]
        return real_import(name, globals, locals, fromlist, level)
    return imp


class _FromList:
    """`from jax.x import y`: y is an attribute of jax.x or the submodule jax.x.y."""

    def __init__(self, name, mod, resolve):
        self._name, self._mod, self._resolve = name, mod, resolve

    def __getattr__(self, attr):
        full = f"{self._name}.{attr}"
        sub = self._resolve(full)
        if isinstance(sub, types.ModuleType):
            return sub
        if full in _INTERNAL_MAP:
            return _INTERNAL_MAP[full]()
        try:
            return getattr(self._mod, attr)
        except AttributeError:
            return sub


# ================================================================================================
# loading a test class
# ================================================================================================
def read_source(repo: str, rev: str, path: str) -> str:
    p = Path(repo) / path
    if p.is_file():
        return p.read_text()
    return subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _strip_module(src: str, cls: str) -> tuple[ast.Module, dict[str, list[str]]]:
    """The module without other test classes and `__main__`; the class's test methods lose
    their decorators (returned as source, evaluated per case)."""
    tree = ast.parse(src)
    body, decos = [], {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name != cls and node.name.endswith("Test"):
            continue
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ClassDef) and node.name == cls:
            node.decorator_list = []
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    decos[item.name] = [ast.unparse(d) for d in item.decorator_list]
                    item.decorator_list = []
        body.append(node)
    tree.body = body
    return tree, decos


def load_class(src: str, cls: str, filename: str):
    """Execute the stripped module with jax bound to shardc; returns (class, globals, decorators)."""
    tree, decos = _strip_module(src, cls)
    mods = _bindings()
    bi = dict(vars(builtins))
    bi["__import__"] = _make_import(mods)
    g = {"__name__": "jax_tests_" + cls, "__builtins__": bi}
    params = types.SimpleNamespace(named_parameters=_named_parameters, parameters=_parameters,
                                   product=_product, TestCase=JaxTestCase)
    absl = types.SimpleNamespace(main=lambda *a, **k: None)
    for node in tree.body:
        one = ast.Module(body=[node], type_ignores=[])
        try:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and ("absl" in ast.unparse(node)):
                g["parameterized"], g["absltest"] = params, absl
                continue
            exec(compile(one, filename, "exec"), g)
        except (NotPortable, NotBuilt, Exception) as e:  # noqa: BLE001 - a helper the tests may not need
            print(f"[load] {filename}:{node.lineno}: {type(e).__name__}: {e}", file=sys.stderr)
    jtu = g.get("jtu")
    if jtu is not None:
        jtu.sample_product = _sample_product
    return g[cls], g, decos


def expand_cases(cls, g, decos) -> dict[str, tuple]:
    """case id -> (method name, wrapped function or an exception, args, kwargs)."""
    out = {}
    for name in sorted(decos, key=lambda n: getattr(getattr(cls, n), "__code__").co_firstlineno):
        fn = getattr(cls, name)
        cases = [("", (), {})]
        err = None
        for src in reversed(decos[name]):
            try:
                d = eval(src, g)
                if isinstance(d, _Params):
                    cases = [(s + t, a + b, {**k, **kk}) for (s, a, k) in d.cases for (t, b, kk) in cases]
                else:
                    fn = d(fn)
            except (NotPortable, NotBuilt, _Skip, Exception) as e:  # noqa: BLE001
                err = e
        for suffix, args, kwargs in cases:
            out[name + suffix] = (name, err if err is not None else fn, args, kwargs)
    return out


# ================================================================================================
# running one case (in a worker)
# ================================================================================================
def _first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0][:300] if s else ""


def run_case(cls, entry) -> dict:
    name, fn, args, kwargs = entry
    if isinstance(fn, BaseException):
        return _verdict(fn)
    tc = cls(name)
    sc = _sc()

    def go():
        fn(tc, *args, **kwargs)
    try:
        contextvars.copy_context().run(go)
    except BaseException as e:  # noqa: BLE001 - the verdict
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return _verdict(e)
    finally:
        with contextlib.suppress(Exception):
            sc.clear_caches()
    return {"status": "passed"}


def _verdict(e: BaseException) -> dict:
    if isinstance(e, NotPortable):
        return {"status": "not_portable", "reason": str(e)}
    if isinstance(e, NotBuilt):
        return {"status": "not_portable", "reason": f"not yet built: {e}"}
    if isinstance(e, (_Skip, unittest.SkipTest)):
        return {"status": "not_portable", "reason": f"JAX skips it here: {e}"}
    if "_Internal" in str(e) or "jax internal" in str(e):
        return {"status": "not_portable", "reason": f"internal: a JAX internal object reached shardc ({_first_line(e)[:80]})"}
    tb = traceback.extract_tb(e.__traceback__)
    where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb)
                  if "shardc" not in f.filename and "port_jax_tests" not in f.filename), "")
    return {"status": "failed", "exc": type(e).__name__, "msg": _first_line(e), "where": where}


def _patch_shardc():
    """Lowered text is marked (a failing check on it is not portable); jaxprs are internal."""
    sc = _sc()
    orig = sc.Lowered.as_text

    def as_text(self, *a, **k):
        return _LoweredText(orig(self, *a, **k))
    sc.Lowered.as_text = as_text
    for cls_, attr in ((sc.Traced, "jaxpr"), (sc.Lowered, "compiler_ir")):
        setattr(cls_, attr, property(lambda self, a=attr: _Internal(f"{type(self).__name__}.{a}")._use()))


def worker(src_file: str, cls_name: str) -> None:
    """Read case ids on stdin, write one result line per case on the real stdout."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _patch_shardc()
    # messages name the test's line as `jax/tests/pjit_test.py:NNN`
    cls, g, decos = load_class(Path(src_file).read_text(), cls_name, "jax/" + CLASSES[cls_name])
    cases = expand_cases(cls, g, decos)
    out.write(_RESULT + json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        cid = line.strip()
        t0 = time.time()
        res = run_case(cls, cases[cid])
        res.update(id=cid, seconds=round(time.time() - t0, 2))
        out.write(_RESULT + json.dumps(res) + "\n")


# ================================================================================================
# the driver
# ================================================================================================
class _Worker:
    def __init__(self, src_file, cls_name, env):
        self.p = subprocess.Popen([sys.executable, __file__, "--worker", src_file, cls_name], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.read(300)

    def read(self, timeout):
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            line = self.p.stdout.readline()
            if not line:
                return {"status": "failed", "exc": "WorkerCrash", "msg": "the worker process died", "where": ""}
            if line.startswith(_RESULT):
                return json.loads(line[len(_RESULT):])

    def run(self, cid, timeout):
        self.p.stdin.write(cid + "\n")
        self.p.stdin.flush()
        return self.read(timeout)

    def kill(self):
        with contextlib.suppress(Exception):
            self.p.kill()
            self.p.wait(10)


def list_cases(src: str, cls_name: str, filename: str) -> list[str]:
    _patch_shardc()
    cls, g, decos = load_class(src, cls_name, filename)
    return list(expand_cases(cls, g, decos))


def measure(repo, rev, cls_name, k, timeout, tmpdir, log) -> list[dict]:
    src = read_source(repo, rev, CLASSES[cls_name])
    src_file = os.path.join(tmpdir, Path(CLASSES[cls_name]).name)
    Path(src_file).write_text(src)
    ids = list_cases(src, cls_name, src_file)
    if k:
        ids = [i for i in ids if any(s in i for s in k)]
    env = dict(os.environ, SHARDC_CPU_DEVICES=os.environ.get("SHARDC_CPU_DEVICES", "8"))
    results, w = [], None
    for n, cid in enumerate(ids):
        if w is None:
            w = _Worker(src_file, cls_name, env)
        res = w.run(cid, timeout)
        if res is None or res.get("exc") == "WorkerCrash":
            w.kill()
            w = None
            res = res or {"status": "failed", "exc": "Timeout", "msg": f"no result within {timeout} s", "where": ""}
        res.update(id=cid, cls=cls_name)
        results.append(res)
        if log:
            extra = res.get("reason") or f"{res.get('exc', '')}: {res.get('msg', '')}"
            print(f"[{n + 1}/{len(ids)}] {cid}: {res['status']} {'' if res['status'] == 'passed' else extra}"[:240],
                  file=sys.stderr, flush=True)
    if w is not None:
        w.kill()
    return results


# ------------------------------------------------------------------------------- grouping ---
_CAUSES = [
    (r"dtype object is not supported|key<fry>|PRNG implementation", "typed PRNG keys as array data (shardc.random)"),
    (r"tuple\.index|spmd_axis_name", "vmap of shard_map with spmd_axis_name (sc.vmap)"),
    (r"complex64", "complex dtypes (shardc has none)"),
    (r"axis_index_groups", "collectives with axis_index_groups (not built)"),
    (r"Attempted boolean conversion|at mesh coordinates",
     "Python on per-device values: JAX runs an eager shard_map body op by op, shardc stages it"),
    (r"__array__\(\) was called on traced", "a traced value converted to NumPy"),
    (r"SVD|numpy_linalg|segment_", "jnp.linalg / segment ops (not built)"),
    (r"^Named.*spec=P\(|^NamedSharding\(.*!= NamedSharding|^P\(.*\) != P\(",
     "concrete sharding of a result differs (spec spelled or placed differently)"),
    (r"should match the aval mesh", "a value typed on another mesh than the context (mesh changes, closures)"),
    (r"not under a mesh context", "a PartitionSpec with no context mesh (JAX takes the mesh from elsewhere)"),
    (r"SingleDeviceSharding", "uncommitted single-device arrays mixed with mesh-placed ones"),
    (r"reshape of an unreduced/reduced operand|cannot overlap with reduced", "unreduced/reduced rules stricter than JAX"),
    (r"the worker process died", "the process crashed (XLA abort)"),
    (r"not raised", "accepts a program JAX rejects"),
    (r"^wrong exception class", "rejects with a different exception class"),
    (r"^message mismatch", "rejects with a different message"),
    (r"shardc bug|does not verify", "internal error (a shardc bug)"),
    (r"has no value while tracing", "traced value used as a concrete one"),
    (r"has no attribute", "missing attribute"),
    (r"unexpected keyword argument|positional argument", "call signature differs"),
]


def cause_of(r: dict) -> str:
    text = r.get("msg", "")
    if r.get("exc") == "Timeout":
        return "timeout"
    if r.get("exc") == "ShardcInternalError":
        return "internal error (a shardc bug)"
    for pat, name in _CAUSES:
        if re.search(pat, text):
            if name == "missing attribute":
                m = re.search(r"'(\w+)' object has no attribute '(\w+)'|module '([\w.]+)' has no attribute '(\w+)'",
                              r.get("msg", ""))
                if m:
                    return f"missing attribute: {m.group(1) or m.group(3)}.{m.group(2) or m.group(4)}"
            return name
    if r.get("exc") == "AssertionError":
        return "different result (a test assertion fails)"
    return f"raises {r.get('exc')}"


def reason_group(reason: str) -> str:
    if reason.startswith("not yet built"):
        return "not yet built in shardc"
    if reason.startswith("JAX skips"):
        return "JAX skips it on 8 CPU devices"
    if reason.startswith("lowered-text"):
        return "checks lowered StableHLO text"
    return "reaches JAX internals"


def summarize(results: list[dict]) -> str:
    lines = []
    by_cls = collections.defaultdict(list)
    for r in results:
        by_cls[r["cls"]].append(r)
    lines.append("| class | cases | passed | failed | not portable | pass rate (portable) |")
    lines.append("|---|---|---|---|---|---|")
    for c, rs in by_cls.items():
        n = collections.Counter(r["status"] for r in rs)
        port = n["passed"] + n["failed"]
        rate = f"{100 * n['passed'] / port:.1f}%" if port else "-"
        lines.append(f"| {c} | {len(rs)} | {n['passed']} | {n['failed']} | {n['not_portable']} | {rate} |")
    lines.append("")
    lines.append("Failures by cause:\n")
    lines.append("| cause | count | cases |")
    lines.append("|---|---|---|")
    fails = [r for r in results if r["status"] == "failed"]
    groups = collections.defaultdict(list)
    for r in fails:
        groups[cause_of(r)].append(r)
    for cause, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {cause} | {len(rs)} | {', '.join(r['id'] for r in rs[:6])}{' ...' if len(rs) > 6 else ''} |")
    lines.append("")
    lines.append("Not portable, by reason:\n")
    lines.append("| reason | count |")
    lines.append("|---|---|")
    np_groups = collections.Counter()
    detail = collections.Counter()
    for r in results:
        if r["status"] == "not_portable":
            np_groups[reason_group(r["reason"])] += 1
            detail[r["reason"]] += 1
    for g, n in np_groups.most_common():
        lines.append(f"| {g} | {n} |")
    lines.append("")
    lines.append("Most frequent not-portable reasons:\n")
    for reason, n in detail.most_common(25):
        lines.append(f"- {n} × {reason}")
    return "\n".join(lines)


def failure_list(results: list[dict]) -> str:
    lines = []
    groups = collections.defaultdict(list)
    for r in results:
        if r["status"] == "failed":
            groups[cause_of(r)].append(r)
    for cause, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"\n#### {cause} ({len(rs)})\n")
        for r in rs:
            msg = r.get("msg", "").replace("|", "\\|")[:200]
            lines.append(f"- `{r['cls']}.{r['id']}`: {r.get('exc')}: {msg}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", help="JAX repository (git dir or checkout)")
    ap.add_argument("--rev", default="jax-v0.10.2")
    ap.add_argument("--class", dest="classes", action="append", choices=sorted(CLASSES))
    ap.add_argument("-k", action="append", help="run only case ids containing this (repeatable)")
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds per case")
    ap.add_argument("--json", help="write every case's verdict here")
    ap.add_argument("--markdown", help="write the summary and the failure list here")
    ap.add_argument("--list", action="store_true", help="only list the case ids")
    ap.add_argument("--from-json", help="summarize the verdicts saved by an earlier --json run (runs nothing)")
    ap.add_argument("-q", action="store_true", help="no per-case progress")
    ap.add_argument("--sc-mesh-default", action="store_true",
                    help="bind jax.sharding.Mesh/AbstractMesh to shardc's (Explicit by default) as they are")
    ap.add_argument("--expect", help="a file of case ids (Class.case, one a line) that pass: exit 1, naming "
                                     "them, if any of those run does not pass (a regression)")
    ap.add_argument("--write-expected", help="write the ids of the passing cases here (the pinned list)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.sc_mesh_default or os.environ.get("PORT_SC_MESH_DEFAULT"):
        _SC_MESH_DEFAULT[0] = True
        os.environ["PORT_SC_MESH_DEFAULT"] = "1"
    if a.worker:
        worker(*a.worker)
        return 0
    if a.from_json:
        results = json.loads(Path(a.from_json).read_text())
        text = summarize(results)
        print(text)
        if a.markdown:
            Path(a.markdown).write_text(text + "\n\nEvery failure:\n" + failure_list(results) + "\n")
        return _expected(results, a.expect, a.write_expected)
    if not a.repo:
        ap.error("the JAX repository path is required")
    os.environ.setdefault("SHARDC_CPU_DEVICES", "8")
    import tempfile
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in a.classes or list(CLASSES):
            if a.list:
                src = read_source(a.repo, a.rev, CLASSES[c])
                for cid in list_cases(src, c, CLASSES[c]):
                    print(f"{c}.{cid}")
                continue
            results += measure(a.repo, a.rev, c, a.k, a.timeout, tmp, not a.q)
    if a.list:
        return 0
    text = summarize(results)
    print(text)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    if a.markdown:
        Path(a.markdown).write_text(text + "\n\nEvery failure:\n" + failure_list(results) + "\n")
    return _expected(results, a.expect, a.write_expected)


def _expected(results: list[dict], expect: str | None, write: str | None) -> int:
    """Compare with (and/or write) the pinned list of passing cases: 1 when a pinned case
    that ran did not pass."""
    passed = sorted(f"{r['cls']}.{r['id']}" for r in results if r["status"] == "passed")
    if write:
        Path(write).write_text("".join(f"{p}\n" for p in passed))
    if not expect:
        return 0
    pinned = {ln.strip() for ln in Path(expect).read_text().splitlines() if ln.strip() and not ln.startswith("#")}
    ran = {f"{r['cls']}.{r['id']}": r for r in results}
    regressed = sorted(p for p in pinned if p in ran and ran[p]["status"] != "passed")
    for p in regressed:
        r = ran[p]
        print(f"REGRESSED {p}: {r['status']} {r.get('exc', r.get('reason', ''))}: {r.get('msg', '')}"[:300])
    print(f"pinned: {len(pinned & set(ran))} ran, {len(regressed)} regressed; "
          f"{len(set(passed) - pinned)} passing cases not pinned yet")
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
