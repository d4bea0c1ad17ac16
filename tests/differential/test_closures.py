"""Closures over sharded arrays inside regions whose mesh view differs from the enclosing
program's, against JAX 0.10.2: `shard_map` bodies (full and partial-manual), `auto_axes` /
`explicit_axes` regions, `scan` / `fori_loop` / `while_loop` / `cond` bodies inside `jit`, and
under `grad`. JAX's `Primitive.bind` reshards a value typed on an all-Auto mesh into a context
mesh with Manual axes (replicated), refuses one sharded on Explicit axes (NotImplementedError),
and otherwise checks the operand's mesh against the context mesh (ValueError). Types inside the
bodies are compared through `ns.note`."""
from __future__ import annotations

from oracle import Case, MeshSpec, check, param

EXPLICIT = {"1d": "1d", "2d": "2d", "3d": "3d"}
AUTO = {"1d_auto": MeshSpec((8,), ("X",), "A"), "2d_auto": MeshSpec((2, 4), ("X", "Y"), "AA"),
        "3d_auto": MeshSpec((2, 2, 2), ("X", "Y", "Z"), "AAA")}
#: the closed-over array's type on each explicit mesh (every sharding the mesh allows, by rank)
W_EXPLICIT = {"1d": ["f32[8@X,8]", "f32[8,8@X]", "f32[8]"],
              "2d": ["f32[8@X,8@Y]", "f32[8@Y,8]", "f32[8@(X,Y),8]"],
              "3d": ["f32[8@X,8@(Y,Z)]", "f32[8@Z,8@X]", "f32[8@(X,Y,Z)]"]}


def _smap_full(ns, x, w):
    """A full-manual body closes over `w` (JAX: refused on Explicit axes, whole on Auto)."""
    def body(a):
        ns.note(a, "a")
        return ns.note(a * ns.sum(w), "out")
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"))(x)


def _smap_partial(ns, x, w):
    """A body manual over X only closes over `w`."""
    def body(a):
        return ns.note(a * ns.sum(w), "out")
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"), axis_names={"X"})(x)


def _smap_const(ns, x):
    """A body closes over an array the program made (JAX's test_shmap_close_over)."""
    c = ns.arange(8.0)

    def body(a):
        return ns.note(a + c * 2, "out")
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"))(x)


def _auto_region(ns, x, w):
    """An `auto_axes` region closes over `w` typed on the Explicit mesh (JAX: context mismatch)."""
    return ns.auto_axes(lambda a: ns.note(a * w, "in"), out_sharding=ns.P())(x)


def _explicit_region(ns, x, w):
    """An `explicit_axes` region closes over `w` typed on the Auto mesh."""
    return ns.explicit_axes(lambda a: ns.note(a * w, "in"), in_sharding=ns.P())(x)


def _scan(ns, x, w):
    def body(c, _):
        return ns.note(ns.sin(c) * w, "carry"), None
    return ns.scan(body, x, None, length=3)[0]


def _fori(ns, x, w):
    return ns.fori_loop(0, 3, lambda i, c: ns.note(c + w * i, "carry"), x)


def _while(ns, x, w):
    def body(s):
        i, c = s
        return i + 1, ns.note(ns.cos(c) + w, "carry")
    return ns.while_loop(lambda s: s[0] < 3, body, (0, x))[1]


def _cond(ns, x, w):
    return ns.cond(ns.sum(x) > 0, lambda c: ns.note(c * w, "t"), lambda c: ns.note(c - w, "f"), x)


def _grad_of(fn):
    def g(ns, x, w):
        return ns.grad(lambda w: ns.sum(fn(ns, x, w)))(w)
    g.__name__ = f"grad_{fn.__name__.lstrip('_')}"
    return g


def _random_partial(ns, key_data, x):
    """`random.normal(..., out_sharding=)` inside a body manual over X: the sampler's `auto_axes`
    region pvaries on the body's mesh view (JAX's test_manual_mode_mix_random)."""
    keys = ns.random.split(ns.random.key(0), 2)
    keys = ns.reshard(keys, ns.P("X"))

    def body(k):
        k = k.squeeze(0)
        return ns.note(ns.random.normal(k, (1, 4), out_sharding=ns.P(None, "Y")), "sample")
    return ns.shard_map(body, out_specs=ns.P("X"), axis_names={"X"})(keys) + x


def _auto_in_partial(ns, x):
    """An `auto_axes` region inside a body manual over X mixes a varying and an invariant value."""
    def body(a):
        s = ns.ones((4,))   # invariant over X
        return ns.auto_axes(lambda a: ns.note(a * s, "in"), axes="Y", out_sharding=ns.P(None))(a)
    return ns.shard_map(body, in_specs=ns.P("X"), out_specs=ns.P("X"), axis_names={"X"})(x)


def _cases():
    out = []
    loops = [_scan, _fori, _while, _cond]
    for mname, mesh in EXPLICIT.items():
        for w in W_EXPLICIT[mname]:
            wid = w.replace("@", "_")
            for fn in [_smap_full, _smap_partial, _auto_region, *loops, *map(_grad_of, loops)]:
                if fn is _smap_partial and mname == "1d":
                    continue
                xt = "f32[8]" if fn in (_smap_full, _smap_partial) else w
                out.append(Case(f"{fn.__name__}-{mname}-{wid}", mesh, fn, (xt, w)))
    for mname, mesh in AUTO.items():
        for fn in [_smap_full, _explicit_region, *loops, _grad_of(_smap_full), _grad_of(_scan)]:
            xt = "f32[8]" if "smap" in fn.__name__ else "f32[8,8]"
            out.append(Case(f"{fn.__name__}-{mname}", mesh, fn, (xt, "f32[8,8]")))
        if mname != "1d_auto":
            out.append(Case(f"smap_partial-{mname}", mesh, _smap_partial, ("f32[8]", "f32[8,8]")))
    return out


#: compiled and run (values, shardings, collectives <= JAX's): one of each kind
RUN = [Case(f"{c.id}-jit", c.mesh, c.fn, c.args, mode="jit", collectives="at_most")
       for c in _cases() if c.id in {
           "smap_full-1d_auto", "smap_partial-2d_auto", "grad_smap_full-3d_auto", "scan-2d-f32[8_X,8_Y]",
           "grad_fori-3d-f32[8_Z,8_X]", "while-1d-f32[8_X,8]", "cond-2d-f32[8_(X,Y),8]",
           "grad_scan-2d_auto", "explicit_region-2d_auto", "auto_region-2d-f32[8_X,8_Y]"}]
#: concrete closures: eager shard_map bodies over an array the program made
EAGER = [Case(f"smap_const-{m}-{mode}", mesh, _smap_const, ("f32[8]",), mode=mode)
         for m, mesh in AUTO.items() for mode in ("eager", "jit")]
SPECIAL = [Case("random_partial-2d", MeshSpec((2, 2), ("X", "Y")), _random_partial, ("u32[2]", "f32[2,4]"),
                mode="jit", collectives="at_most"),
           Case("auto_in_partial-2d", MeshSpec((2, 4), ("X", "Y")), _auto_in_partial, ("f32[8,4]",)),
           Case("auto_in_partial-2d-jit", MeshSpec((2, 4), ("X", "Y")), _auto_in_partial, ("f32[8,4]",),
                mode="jit", collectives="at_most")]


@param(_cases())
def test_closure_types(case):
    check(case)


@param(RUN + EAGER + SPECIAL)
def test_closure_run(case):
    check(case)
