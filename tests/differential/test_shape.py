"""Differential: creation with `out_sharding`, `*_like`, reshape (the
reference's split/merge cases and generated ones), transpose, broadcast_to,
expand_dims, squeeze, concatenate/stack, slicing and integer indexing
(JAX rules §2.1, §2.5, §2.6, §2.10, §2.11)."""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
from oracle import BASIC_MESHES, Case, check, check_types, check_values, param, sample, spec_id, specs_for, type_str

DT = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "i32": np.int32, "bool": np.bool_}
SHAPES = {0: (), 1: (8,), 2: (8, 4), 3: (4, 2, 8), 4: (2, 4, 2, 8)}


# --- creation ---------------------------------------------------------------------------------------
def _zeros(shape, d, spec):
    return lambda ns: ns.zeros(shape, DT[d], out_sharding=ns.P(*spec))


def creation_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for rank, shape in SHAPES.items():
            valid = specs_for(shape, mesh)
            invalid = specs_for(shape, mesh, valid=False)
            chosen = _pick(valid, 10, "z" + mesh) + _pick(invalid, 3, "zi" + mesh)
            for k, spec in enumerate(chosen):
                d = list(DT)[k % 4]
                cases.append(Case(f"zeros-{mesh}-{d}{shape}-{spec_id(spec)}", mesh, _zeros(shape, d, spec)))
                if k % 3 == 0:
                    cases.append(Case(f"ones-{mesh}-{shape}-{spec_id(spec)}", mesh,
                                      lambda ns, shape=shape, spec=spec: ns.ones(shape, out_sharding=ns.P(*spec))))
                if k % 3 == 1:
                    cases.append(Case(f"full3.-{mesh}-{shape}-{spec_id(spec)}", mesh,
                                      lambda ns, shape=shape, spec=spec: ns.full(shape, 3.0, out_sharding=ns.P(*spec))))
                    cases.append(Case(f"full2i-{mesh}-{shape}-{spec_id(spec)}", mesh,
                                      lambda ns, shape=shape, spec=spec: ns.full(shape, 2, out_sharding=ns.P(*spec))))
                if k % 3 == 2:
                    cases.append(Case(f"fullbf16-{mesh}-{shape}-{spec_id(spec)}", mesh,
                                      lambda ns, shape=shape, spec=spec: ns.full(shape, 1.5, ml_dtypes.bfloat16,
                                                                                 out_sharding=ns.P(*spec))))
    # duplicates, unknown axes, no out_sharding, NamedSharding-free P() cases
    for mesh, shape, spec in [("2d", (8, 8), ("X", "X")), ("3d", (8, 8), (("X", "Y"), "Y")),
                              ("2d", (8, 4), ("Z",)), ("2d", (3, 4), ("X",)), ("1d", (4,), ("X",)),
                              ("2d", (8, 4), ()), ("3d", (8, 4), (None, None))]:
        cases.append(Case(f"zeros-ref-{mesh}-{shape}-{spec_id(spec)}", mesh, _zeros(shape, "f32", spec)))
    for mesh in BASIC_MESHES:
        cases.append(Case(f"zeros-noshard-{mesh}", mesh, lambda ns: ns.zeros((8, 4))))
        cases.append(Case(f"full-noshard-{mesh}", mesh, lambda ns: ns.full((8, 4), 2.5)))
    # arange
    for mesh, n, spec, extra in [("1d", 8, ("X",), {}), ("2d", 8, ("X",), {}), ("2d", 8, ("Y",), {}),
                                 ("2d", 8, (("X", "Y"),), {}), ("2d", 8, (("Y", "X"),), {}),
                                 ("3d", 16, (("X", "Y", "Z"),), {}), ("2d", 6, ("Y",), {}),
                                 ("2d", 8, (), {}), ("2d", 16, ("Y",), {"step": 2, "start": 4}),
                                 ("2d", 8, ("X",), {"dtype": np.float32}), ("3d", 8, ("Z",), {})]:
        def fn(ns, n=n, spec=spec, extra=extra):
            kw = dict(extra)
            start = kw.pop("start", None)
            step = kw.pop("step", None)
            if start is not None:
                return ns.arange(start, start + n * step, step, out_sharding=ns.P(*spec), **kw)
            return ns.arange(n, out_sharding=ns.P(*spec), **kw)
        cases.append(Case(f"arange-{mesh}-{n}-{spec_id(spec)}-{sorted(extra)}", mesh, fn))
    return cases


def _pick(specs, n, salt):
    cs = [Case(spec_id(s), "", None) for s in specs]
    keep = {c.id for c in sample(cs, n, salt)}
    return [s for s in specs if spec_id(s) in keep]


LIKE = {
    "zeros_like": lambda ns, x: ns.zeros_like(x),
    "ones_like": lambda ns, x: ns.ones_like(x),
    "full_like3": lambda ns, x: ns.full_like(x, 3),
    "full_like2.5": lambda ns, x: ns.full_like(x, 2.5),
    "zeros_like_i32": lambda ns, x: ns.zeros_like(x, dtype=np.int32),
    "zeros_like_P()": lambda ns, x: ns.zeros_like(x, out_sharding=ns.P()),
    "ones_like_P(Y)": lambda ns, x: ns.ones_like(x, out_sharding=ns.P("Y")),
    "zeros_like_same_shape": lambda ns, x: ns.zeros_like(x, shape=x.shape),
    "full_like_new_shape": lambda ns, x: ns.full_like(x, 2, shape=(2,) + x.shape),
    "ones_like_weak": lambda ns, x: ns.ones_like(x * 0 + ns.full(x.shape, 1.5, out_sharding=ns.P())),
}


def like_cases():
    cases = []
    for name, fn in LIKE.items():
        for mesh in ("2d", "3d"):
            for d in DT:
                for rank in (0, 2, 3):
                    for spec in _pick(specs_for(SHAPES[rank], mesh), 2, name + d):
                        t = type_str(d, SHAPES[rank], spec)
                        cases.append(Case(f"{name}-{mesh}-{t}", mesh, fn, (t,)))
    for t in ["f32[8,4]{R:X}", "f32[8@Y,4]{R:X}"]:
        for name in ("zeros_like", "full_like2.5"):
            cases.append(Case(f"{name}-2d-{t}", "2d", LIKE[name], (t,)))
    return cases


CREATION = creation_cases() + like_cases()


@param(CREATION)
def test_creation_types(case):
    check_types(case)


# --- reshape ------------------------------------------------------------------------------------------
# (mesh, input type, new shape) from the reference (§2.6 and test_reshape_split_merge_one_axis)
RESHAPE_REF = [
    ("2d", "f32[8@X,4]", (32,)), ("2d", "f32[8@X,4@Y]", (32,)), ("2d", "f32[4@X,4@Y]", (16,)),
    ("2d", "f32[2@X,4@Y,4]", (8, 4)), ("2d", "f32[2@X,4,4@Y]", (8, 4)), ("2d", "f32[2@X,4@Y,4]", (2, 16)),
    ("2d", "f32[8@X,4]", (2, 4, 4)), ("2d", "f32[8@X,4@Y]", (2, 4, 4)), ("2d", "f32[8@(X,Y),4]", (2, 4, 4)),
    ("2d", "f32[8@(X,Y),4]", (8, 2, 2)), ("2d", "f32[16@(X,Y)]", (2, 8)), ("2d", "f32[16@(Y,X)]", (4, 4)),
    ("2d", "f32[12@X]", (4, 3)), ("2d", "f32[12@X]", (2, 6)), ("2d", "f32[8@Y]", (4, 2)),
    ("2d", "f32[8@X,4@Y]", (8, 1, 4)), ("2d", "f32[8@X,4@Y]", (1, 8, 4, 1)), ("2d", "f32[6,4@X]", (3, 2, 4)),
    ("2d", "f32[8,4]", (4, 8)), ("2d", "f32[8@X,4@Y]", (4, 8)), ("2d", "f32[8@X,4@Y]", (16, 2)),
    ("2d", "f32[8@X,4@Y]", (8, 2, 2)), ("2d", "f32[12@X]", (3, 4)), ("2d", "f32[8@Y]", (2, 4)),
    ("2d", "f32[16@(X,Y)]", (4, 4)), ("2d", "f32[4,4@X]", (16,)), ("2d", "f32[2@X,4,4@Y]", (2, 16)),
    ("2d", "f32[2@X,4@Y,8]", (4, 16)),
    # test_reshape_split_merge_one_axis runs on a 2x2 mesh; ('X','Y') of the 2x2x2 mesh matches it
    ("3d", "f32[4@X,6,8@Y]", (4, 2, 3, 8)), ("3d", "f32[4@X,6@Y,8]", (4, 2, 3, 8)),
    ("3d", "f32[4@X,6@Y,8]", (4, 3, 2, 8)), ("3d", "f32[4,2@Y,3,8@X]", (4, 6, 8)),
    ("3d", "f32[10@X,1]", (2, 5, 1, 1)), ("3d", "f32[4,2,6@Y,8@X]", (4, 12, 8)),
    ("3d", "f32[4,12@(X,Y),8]", (4, 4, 3, 8)),
]


def reshape_cases():
    cases = []
    for mesh, t, new in RESHAPE_REF:
        cases.append(Case(f"reshape-ref-{mesh}-{t}->{new}", mesh, lambda ns, x, new=new: ns.reshape(x, new), (t,)))
    cases.append(Case("reshape-ref-2d-out_sharding", "2d",
                      lambda ns, x: ns.reshape(x, (4, 8), out_sharding=ns.P("X", "Y")), ("f32[8@X,4@Y]",)))
    cases.append(Case("ravel-2d-f32[8@X,4]", "2d", lambda ns, x: ns.ravel(x), ("f32[8@X,4]",)))
    cases.append(Case("ravel-2d-f32[4,4@X]", "2d", lambda ns, x: ns.ravel(x), ("f32[4,4@X]",)))
    cases.append(Case("reshape-method-2d", "2d", lambda ns, x: x.reshape(2, 4, 4), ("f32[8@X,4@Y]",)))
    cases.append(Case("reshape-minus1-2d", "2d", lambda ns, x: ns.reshape(x, (-1, 4, 2)), ("f32[8@X,4@Y]",)))
    # generated: every spec of a few shapes × targets that split, merge, do both or insert 1s
    targets = {
        (8, 4): [(32,), (2, 4, 4), (8, 2, 2), (4, 8), (2, 16), (8, 4, 1), (1, 8, 4), (2, 2, 2, 4), (4, 2, 4)],
        (2, 4, 4): [(8, 4), (2, 16), (32,), (2, 2, 2, 4), (2, 4, 2, 2), (1, 2, 4, 4)],
        (16,): [(2, 8), (4, 4), (8, 2), (2, 2, 4), (16, 1)],
        (4, 2, 8): [(8, 8), (4, 16), (64,), (4, 2, 2, 4)],
    }
    for mesh in BASIC_MESHES:
        for src, news in targets.items():
            for spec in specs_for(src, mesh):
                t = type_str("f32", src, spec)
                for new in news:
                    cases.append(Case(f"reshape-{mesh}-{t}->{new}", mesh,
                                      lambda ns, x, new=new: ns.reshape(x, new), (t,)))
    # out_sharding: any valid target spec is taken as is; invalid ones are rejected
    for mesh in ("2d", "3d"):
        for spec in specs_for((4, 8), mesh)[:12] + specs_for((4, 8), mesh, valid=False)[:3]:
            cases.append(Case(f"reshape-out-{mesh}-{spec_id(spec)}", mesh,
                              lambda ns, x, spec=spec: ns.reshape(x, (4, 8), out_sharding=ns.P(*spec)),
                              ("f32[8@X,4]",)))
    return cases


RESHAPE = reshape_cases()


def _reshape_sample():
    ref = [c for c in RESHAPE if "-ref-" in c.id or "out" in c.id or "ravel" in c.id]
    gen = [c for c in RESHAPE if c not in ref]
    return ref + sample(gen, 1500, salt="reshape")


@param(_reshape_sample())
def test_reshape_types(case):
    check_types(case)


def reshape_f_cases():
    """`order="F"`: JAX's one reshape with `dimensions` reversed, whose sharding rule reads the operand
    as given against the reversed sizes: size-1 dims come and go, a sharded dim never splits or merges."""
    targets = {(8, 4): [(32,), (4, 8), (2, 16), (8, 4), (4, 2, 4), (1, 8, 4), (8, 4, 1), (2, 2, 8)],
               (2, 4, 4): [(8, 4), (4, 8), (32,), (2, 2, 2, 4), (4, 4, 2), (2, 4, 4)],
               (8, 1): [(8,), (1, 8), (2, 4)], (4, 2, 8): [(8, 8), (64,), (4, 2, 2, 4), (8, 2, 4), (16, 4)]}
    cases = []
    for mesh in BASIC_MESHES:
        for src, news in targets.items():
            for spec in specs_for(src, mesh):
                t = type_str("f32", src, spec)
                for new in news:
                    cases.append(Case(f"reshapeF-{mesh}-{t}->{new}", mesh,
                                      lambda ns, x, new=new: ns.reshape(x, new, order="F"), (t,)))
    for mesh, t, new in [("2d", "f32[8@X,4]", (4, -1)), ("1d", "f32[8@X,4]", (8, 2, 2)), ("2d", "f32[2@X,4,4@Y]", (2, 16))]:
        cases.append(Case(f"reshapeF-method-{mesh}-{t}->{new}", mesh,
                          lambda ns, x, new=new: x.reshape(new, order="F"), (t,)))
    return cases


@param(sample(reshape_f_cases(), 600, salt="reshapeF"))
def test_reshape_f_order_types(case):
    check_types(case)


@param([Case(f"reshapeF-vals-{t}->{new}", "2d", lambda ns, x, new=new: ns.reshape(x, new, order="F"), (t,),
             mode="jit", collectives="at_most")
        for t, new in [("f32[8@X,4]", (4, 2, 4)), ("f32[8@X,4@Y]", (4, 8)), ("f32[8@X,1]", (2, 4)),
                       ("f32[2,4@Y,4]", (2, 2, 2, 4))]])
def test_reshape_f_order_values(case):
    check(case)


# --- transpose, broadcast_to, expand_dims, squeeze ---------------------------------------------------------
def layout_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for rank in (2, 3, 4):
            shape = SHAPES[rank]
            specs = _pick(specs_for(shape, mesh), 6, f"tr{rank}")
            for spec in specs:
                t = type_str("f32", shape, spec)
                for perm in itertools.permutations(range(rank)):
                    if rank == 4 and perm[0] not in (0, 3):
                        continue
                    cases.append(Case(f"transpose{perm}-{mesh}-{t}", mesh,
                                      lambda ns, x, perm=perm: ns.transpose(x, perm), (t,)))
                cases.append(Case(f"transpose-{mesh}-{t}", mesh, lambda ns, x: ns.transpose(x), (t,)))
                if rank == 2:
                    cases.append(Case(f".T-{mesh}-{t}", mesh, lambda ns, x: x.T, (t,)))
                cases.append(Case(f"swapaxes-{mesh}-{t}", mesh, lambda ns, x: ns.swapaxes(x, 0, -1), (t,)))
                cases.append(Case(f"moveaxis-{mesh}-{t}", mesh, lambda ns, x: ns.moveaxis(x, 0, -1), (t,)))
                for ax in (0, 1, -1, (0, 2)):
                    cases.append(Case(f"expand_dims{ax}-{mesh}-{t}", mesh,
                                      lambda ns, x, ax=ax: ns.expand_dims(x, ax), (t,)))
                cases.append(Case(f"x[None]-{mesh}-{t}", mesh, lambda ns, x: x[None], (t,)))
                cases.append(Case(f"x[:,None]-{mesh}-{t}", mesh, lambda ns, x: x[:, None], (t,)))
    for mesh in ("2d", "3d"):
        for spec in specs_for((8, 1, 4), mesh):
            t = type_str("f32", (8, 1, 4), spec)
            cases.append(Case(f"squeeze1-{mesh}-{t}", mesh, lambda ns, x: ns.squeeze(x, 1), (t,)))
            cases.append(Case(f"squeeze-{mesh}-{t}", mesh, lambda ns, x: ns.squeeze(x), (t,)))
        cases.append(Case(f"squeeze-bad-{mesh}", mesh, lambda ns, x: ns.squeeze(x, 0), ("f32[8@X,1,4]",)))
    # broadcast_to: rank/size-1 broadcasting, with and without out_sharding
    bt = [("f32[4@Y]", (8, 4), None), ("f32[4]", (8, 4), None), ("f32[8@X,1]", (8, 4), None),
          ("f32[1,4@Y]", (2, 8, 4), None), ("f32[8@X,4@Y]", (8, 4), None),
          ("f32[4]", (8, 4), ("X", "Y")), ("f32[4@Y]", (8, 4), ("X", "Y")), ("f32[4@Y]", (8, 4), ("Y",)),
          ("f32[4@X]", (8, 4), (None, "Y")), ("f32[8@X,1]", (8, 4), ("X", "Y")), ("f32[8@X,1]", (8, 4), ("Y",)),
          ("f32[8,4]", (8, 4), ("X",)), ("f32[8@X,4]", (8, 4), ("X",)), ("f32[8@X,4]", (8, 4), (None, "X")),
          ("f32[]", (8, 4), ("X", "Y")), ("f32[1]", (8, 4), (("X", "Y"),)), ("i32[4@Y]", (2, 8, 4), (None, "X"))]
    for t, shape, spec in bt:
        if spec is None:
            fn = lambda ns, x, shape=shape: ns.broadcast_to(x, shape)
        else:
            fn = lambda ns, x, shape=shape, spec=spec: ns.broadcast_to(x, shape, out_sharding=ns.P(*spec))
        cases.append(Case(f"broadcast_to-2d-{t}->{shape}-{spec_id(spec) if spec else 'none'}", "2d", fn, (t,)))
    # lax.broadcast_in_dim takes its out_sharding as is (quirk 4)
    for spec in [("X",), (None, "Y"), ("Y", "X"), ("X", "X")]:
        cases.append(Case(f"broadcast_in_dim-2d-{spec_id(spec)}", "2d",
                          lambda ns, x, spec=spec: ns.broadcast_in_dim(x, (8, 4), (0,), out_sharding=ns.P(*spec)),
                          ("f32[8@X]",)))
    return cases


LAYOUT = layout_cases()


@param(LAYOUT)
def test_layout_types(case):
    check_types(case)


# --- concatenate / stack ------------------------------------------------------------------------------------
def concat_cases():
    cases = []
    for mesh in BASIC_MESHES:
        for (sa, sb, ax) in [((8, 4), (8, 4), 0), ((8, 4), (8, 4), 1), ((8, 4), (8, 8), 1), ((2, 4, 8), (2, 4, 8), 2)]:
            pairs = list(itertools.product(specs_for(sa, mesh), specs_for(sb, mesh)))
            pc = [Case(f"concat{ax}-{mesh}-{type_str('f32', sa, a)},{type_str('f32', sb, b)}", mesh,
                       lambda ns, x, y, ax=ax: ns.concatenate([x, y], axis=ax),
                       (type_str("f32", sa, a), type_str("f32", sb, b))) for a, b in pairs]
            same = [c for c in pc if c.args[0].split("[")[1].replace("8", "").replace("4", "") ==
                    c.args[1].split("[")[1].replace("8", "").replace("4", "")]
            cases += sample(same, 15, salt="cs") + sample([c for c in pc if c not in same], 15, salt="c")
        for spec in _pick(specs_for((8, 4), mesh), 5, "st"):
            t = type_str("f32", (8, 4), spec)
            for ax in (0, 1, 2):
                cases.append(Case(f"stack{ax}-{mesh}-{t}", mesh, lambda ns, x, ax=ax: ns.stack([x, x, x], axis=ax), (t,)))
            cases.append(Case(f"concat3-{mesh}-{t}", mesh, lambda ns, x: ns.concatenate([x, x * 2, x], axis=0), (t,)))
    cases.append(Case("concat-ref-2d-[X,Y]+[X,1@Y]", "2d", lambda ns, x, y: ns.concatenate([x, y], axis=1),
                      ("f32[4@X,4@Y]", "f32[4@X,4@Y]")))
    cases.append(Case("concat-ref-2d-rep+shard", "2d", lambda ns, x, y: ns.concatenate([x, y], axis=0),
                      ("f32[8@X,4@Y]", "f32[8,4]")))
    cases.append(Case("concat-dtype-2d", "2d", lambda ns, x, y: ns.concatenate([x, y], axis=0),
                      ("f32[8@X,4]", "i32[8@X,4]")))
    return cases


CONCAT = concat_cases()


@param(CONCAT)
def test_concat_types(case):
    check_types(case)


# --- slicing and indexing ---------------------------------------------------------------------------------------
INDEX = {
    "[0:2]": lambda x: x[0:2], "[1:3]": lambda x: x[1:3], "[::2]": lambda x: x[::2], "[4:]": lambda x: x[4:],
    "[3:]": lambda x: x[3:], "[:,1:3]": lambda x: x[:, 1:3], "[:,:4]": lambda x: x[:, :4], "[0]": lambda x: x[0],
    "[:,0]": lambda x: x[:, 0], "[-1]": lambda x: x[-1], "[...,0]": lambda x: x[..., 0],
    "[None,0]": lambda x: x[None, 0], "[1:7]": lambda x: x[1:7], "[2:10,4:8]": lambda x: x[2:10, 4:8],
    "[:8:2,1]": lambda x: x[:8:2, 1], "[...]": lambda x: x[...], "[:,None,2:6]": lambda x: x[:, None, 2:6],
    "[::-1]": lambda x: x[::-1], "[::-2]": lambda x: x[::-2], "[6:1:-2]": lambda x: x[6:1:-2],
    "[:,::-1]": lambda x: x[:, ::-1], "[-1::-4,0]": lambda x: x[-1::-4, 0],
}


def index_cases():
    cases = []
    for mesh, shape in [("1d", (16, 8)), ("2d", (16, 8)), ("3d", (16, 8)), ("3d", (8, 8, 4))]:
        specs = specs_for(shape, mesh)
        for name, f in INDEX.items():
            pc = [Case(f"x{name}-{mesh}-{type_str('f32', shape, s)}", mesh, lambda ns, x, f=f: f(x),
                       (type_str("f32", shape, s),)) for s in specs]
            cases += sample(pc, 8, salt=name)
        # a traced scalar index (dynamic_slice)
        for s in _pick(specs, 6, "dyn" + mesh):
            t = type_str("f32", shape, s)
            cases.append(Case(f"x[i]-{mesh}-{t}", mesh, lambda ns, x, i: x[i], (t, "i32[]")))
            cases.append(Case(f"x[:,i]-{mesh}-{t}", mesh, lambda ns, x, i: x[:, i], (t, "i32[]")))
    # the reference's table (§2.11)
    for t, f in [("f32[8@X,4]", "[:,1:3]"), ("f32[8@X,4@Y]", "[0:2]"), ("f32[8@X,4@Y]", "[1:3]"),
                 ("f32[8@X,4@Y]", "[::2]"), ("f32[16@X,8@Y]", "[4:]"), ("f32[8,4@Y]", "[0]"),
                 ("f32[8@X,4@Y]", "[0]"), ("f32[8@X,4@Y]", "[:,1:3]"), ("f32[16@X,8@Y]", "[3:]")]:
        cases.append(Case(f"x{f}-ref-2d-{t}", "2d", lambda ns, x, f=f: INDEX[f](x), (t,)))
    cases.append(Case("x[i]-ref-2d-f32[8@X,4]", "2d", lambda ns, x, i: x[i], ("f32[8@X,4]", "i32[]")))
    cases.append(Case("x[:,i]-ref-2d-f32[8@X,4]", "2d", lambda ns, x, i: x[:, i], ("f32[8@X,4]", "i32[]")))
    return cases


INDEXING = index_cases()


@param(INDEXING)
def test_indexing_types(case):
    check_types(case)


# --- values and collectives for a sample --------------------------------------------------------------------
def value_cases():
    picked = sample([c for c in CREATION if c.args == ()], 10, salt="v")
    picked += sample([c for c in CREATION if c.args], 6, salt="v")
    picked += sample(RESHAPE, 24, salt="v")
    picked += sample(LAYOUT, 14, salt="v")
    picked += sample(CONCAT, 10, salt="v")
    picked += sample(INDEXING, 16, salt="v")
    return picked


@param(value_cases())
def test_shape_values(case):
    check_values(case)
