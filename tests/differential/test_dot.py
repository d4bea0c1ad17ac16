"""Differential: dot / matmul / @ / tensordot / einsum / dot_general with
every sharding pair of small operands: batch dims, contracting dims sharded on
one or both sides (the ambiguity error), `out_sharding` incl. unreduced and its
errors (JAX rules §2.9, §3.2)."""
from __future__ import annotations

import itertools

import numpy as np
from oracle import BASIC_MESHES, Case, check_types, check_values, param, sample, sample_product, specs_for, type_str

MATMUL = {
    "dot": lambda ns, a, b: ns.dot(a, b),
    "matmul": lambda ns, a, b: ns.matmul(a, b),
    "@": lambda ns, a, b: a @ b,
    "tensordot": lambda ns, a, b: ns.tensordot(a, b, axes=1),
    "einsum": lambda ns, a, b: ns.einsum("ij,jk->ik", a, b),
    "einsum_T": lambda ns, a, b: ns.einsum("ij,jk->ki", a, b),
    "dot_general": lambda ns, a, b: ns.dot_general(a, b, (((1,), (0,)), ((), ()))),
}


def matmul_cases():
    cases = []
    for mesh in BASIC_MESHES:
        lhs, rhs = (8, 8), (8, 16)
        if mesh == "2d":
            lhs, rhs = (8, 4), (4, 16)
        pairs = list(itertools.product(specs_for(lhs, mesh), specs_for(rhs, mesh)))
        base = [(type_str("f32", lhs, a), type_str("f32", rhs, b)) for a, b in pairs]
        every = [Case(f"@-{mesh}-{a}·{b}", mesh, MATMUL["@"], (a, b)) for a, b in base]
        cases += every if mesh != "3d" else sample(every, 400, salt="mm")
        for op, fn in MATMUL.items():
            if op == "@":
                continue
            cases += sample([Case(f"{op}-{mesh}-{a}·{b}", mesh, fn, (a, b)) for a, b in base], 12, salt=op)
    # dtypes: promotion and preferred_element_type
    for da, db in itertools.product(("f32", "bf16", "i32"), repeat=2):
        a, b = type_str(da, (8, 4), ("X", None)), type_str(db, (4, 16), (None, "Y"))
        cases.append(Case(f"@-dtypes-2d-{a}·{b}", "2d", MATMUL["@"], (a, b)))
    cases.append(Case("dot-preferred-2d", "2d",
                      lambda ns, a, b: ns.dot(a, b, preferred_element_type=np.float32),
                      ("bf16[8@X,4]", "bf16[4,16@Y]")))
    # vectors and batched matmul
    vec = [("f32[8@X,4]", "f32[4]"), ("f32[8@X,4@Y]", "f32[4@Y]"), ("f32[4]", "f32[4,16@Y]"),
           ("f32[4@X]", "f32[4@X,16]"), ("f32[4@Y]", "f32[4]"), ("f32[4@Y]", "f32[4@Y]"),
           ("f32[2@X,8,4]", "f32[4,16@Y]"), ("f32[2@X,8,4]", "f32[2,4,16@Y]"),
           ("f32[2,8@X,4]", "f32[2@X,4,16]"), ("f32[2@X,8,4@Y]", "f32[2@X,4@Y,16]"),
           ("f32[4,16@Y]", "f32[2@X,16,8]"), ("f32[2@X,1,8,4]", "f32[3,4,16@Y]")]
    for a, b in vec:
        for op in ("matmul", "dot"):
            cases.append(Case(f"{op}-vec-2d-{a}·{b}", "2d", MATMUL[op], (a, b)))
    return cases


MATMUL_CASES = matmul_cases()


@param(MATMUL_CASES)
def test_matmul_types(case):
    check_types(case)


# --- batch dims (einsum / dot_general) ---------------------------------------------------------------------------
def batch_cases():
    cases = []
    for mesh in ("2d", "3d"):
        a_s, b_s = (2, 8, 4), (2, 4, 16)
        pairs = list(itertools.product(specs_for(a_s, mesh), specs_for(b_s, mesh)))
        pool = [Case(f"einsum-bij,bjk-{mesh}-{type_str('f32', a_s, a)}·{type_str('f32', b_s, b)}", mesh,
                     lambda ns, x, y: ns.einsum("bij,bjk->bik", x, y),
                     (type_str("f32", a_s, a), type_str("f32", b_s, b))) for a, b in pairs]
        cases += sample(pool, 150, salt="b" + mesh)
        pool = [Case(f"dot_general-batch-{mesh}-{c.args[0]}·{c.args[1]}", mesh,
                     lambda ns, x, y: ns.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), c.args) for c in pool]
        cases += sample(pool, 40, salt="dgb" + mesh)
    # reference cases and other subscripts
    for sub, a, b in [("bij,bjk->bik", "f32[2@X,8,4]", "f32[2@X,4,16@Y]"),
                      ("bij,bjk->bik", "f32[2@X,8,4]", "f32[2,4,16@Y]"),
                      ("bij,bjk->bik", "f32[2,8,4]", "f32[2@X,4,16@Y]"),
                      ("bij,bjk->bik", "f32[4@X,8,4]", "f32[4@Y,4,16]"),
                      ("ij,jk->ki", "f32[8@X,4]", "f32[4,16@Y]"),
                      ("bx,bx->b", "f32[4,8@Y]", "f32[4,8@Y]"), ("bx,bx->b", "f32[4@X,8]", "f32[4@X,8@Y]"),
                      ("ij,kj->ik", "f32[8@X,4]", "f32[16@Y,4]"), ("ij,ij->", "f32[8@X,4]", "f32[8,4]"),
                      ("ijk,kl->ijl", "f32[2@X,8,4@Y]", "f32[4,16]"), ("ij,k->ijk", "f32[8@X,4]", "f32[16@Y]")]:
        cases.append(Case(f"einsum-ref-{sub}-2d-{a}·{b}", "2d", lambda ns, x, y, sub=sub: ns.einsum(sub, x, y), (a, b)))
    cases.append(Case("dot_general-batch-ref-3d", "3d",
                      lambda ns, x, y: ns.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
                      ("f32[8@X,4@Y,2@Z]", "f32[8@Y,2@Z,4@X]")))
    misc = [
        ("ij,j->i out P(X)", lambda ns, a, b: ns.einsum("ij,j->i", a, b, out_sharding=ns.P("X")), ("f32[8,4@Y]", "f32[4@Y]")),
        ("j,ij->i", lambda ns, a, b: ns.einsum("j,ij->i", a, b), ("f32[4@Y]", "f32[8@X,4]")),
        ("ij,jk->ki out U", lambda ns, a, b: ns.einsum("ij,jk->ki", a, b, out_sharding=ns.P("Y", None, unreduced={"X"})),
         ("f32[8,4@X]", "f32[4@X,16]")),
        ("bij,bjk->bki out", lambda ns, a, b: ns.einsum("bij,bjk->bki", a, b, out_sharding=ns.P("X", "Y")),
         ("f32[2@X,8,4]", "f32[2@X,4,16]")),
        ("bij,bjk->kbi", lambda ns, a, b: ns.einsum("bij,bjk->kbi", a, b), ("f32[2@X,8,4]", "f32[2@X,4,16@Y]")),
        ("ab,cd->cdab", lambda ns, a, b: ns.einsum("ab,cd->cdab", a, b), ("f32[8@X,4]", "f32[4,16@Y]")),
        ("ab,bc->c", lambda ns, a, b: ns.einsum("ab,bc->c", a, b), ("f32[8@X,4]", "f32[4,16@Y]")),
        ("einsum preferred", lambda ns, a, b: ns.einsum("ij,jk->ik", a, b, preferred_element_type=np.float32),
         ("bf16[8@X,4]", "bf16[4,16@Y]")),
        ("matmul out batch", lambda ns, a, b: ns.matmul(a, b, out_sharding=ns.P("X", None, "Y")), ("f32[2@X,8,4]", "f32[4,16]")),
        ("matmul vec out", lambda ns, a, b: ns.matmul(a, b, out_sharding=ns.P(None, "X")), ("f32[4]", "f32[2@X,4,16]")),
        ("dot 3d·3d", lambda ns, a, b: ns.dot(a, b), ("f32[2@X,8,4]", "f32[3,4,16@Y]")),
        ("tensordot 2 axes", lambda ns, a, b: ns.tensordot(a, b, axes=([1, 2], [0, 1])), ("f32[8@X,4,2]", "f32[4,2,16@Y]")),
        ("dot_general batch U", lambda ns, a, b: ns.dot_general(a, b, (([1], [1]), ([0], [0])),
                                                                 out_sharding=ns.P(None, unreduced={"Y"})),
         ("f32[8@X,4@Y]", "f32[8,4@Y]")),
        ("dot_general mixed", lambda ns, a, b: ns.dot_general(a, b, (([1], [0]), ([], []))), ("bf16[8@X,4]", "f32[4,16@Y]")),
        ("bool@bool", lambda ns, a, b: a @ b, ("bool[8@X,4]", "bool[4,16@Y]")),
        ("dot scalar", lambda ns, a: ns.dot(2, a), ("i32[8@X,4]",)),
    ]
    for name, fn, args in misc:
        cases.append(Case(f"misc-{name}-2d", "2d", fn, args))
    cases.append(Case("einsum3-2d", "2d", lambda ns, x, y, z: ns.einsum("ij,jk,kl->il", x, y, z),
                      ("f32[8@X,4]", "f32[4,16]", "f32[16,8@Y]")))
    return cases


BATCH = batch_cases()


@param(BATCH)
def test_batch_dot_types(case):
    check_types(case)


# --- out_sharding, incl. unreduced -----------------------------------------------------------------------------------
OUT_SPECS = {
    "P()": lambda P: P(), "P(X)": lambda P: P("X"), "P(-,Y)": lambda P: P(None, "Y"),
    "P(Y,X)": lambda P: P("Y", "X"), "U{X}": lambda P: P(unreduced={"X"}), "U{Y}": lambda P: P(unreduced={"Y"}),
    "P(X)U{Y}": lambda P: P("X", None, unreduced={"Y"}), "U{X,Y}": lambda P: P(unreduced={"X", "Y"}),
    "P(X,X)": lambda P: P("X", "X"), "R{X}": lambda P: P(reduced={"X"}), "P(Y)U{X}": lambda P: P("Y", unreduced={"X"}),
}


def out_sharding_cases():
    cases = []
    operands = [("f32[8,4@X]", "f32[4@X,16]"), ("f32[8@X,4@Y]", "f32[4@Y,16]"), ("f32[8,4@X]", "f32[4,16]"),
                ("f32[8,4@(X,Y)]", "f32[4@(X,Y),16]"), ("f32[8,4@X]", "f32[4@Y,16]"), ("f32[8,4]", "f32[4,16]"),
                ("f32[8@X,4]", "f32[4,16@Y]"), ("f32[8,16]{U:X}", "f32[16,2]"), ("f32[8,4]{R:X}", "f32[4,8@X]"),
                ("f32[8,4@Y]", "f32[4@Y,16@X]")]
    for (a, b), (name, spec) in itertools.product(operands, OUT_SPECS.items()):
        for op in ("dot", "einsum", "dot_general", "matmul"):
            if op == "einsum":
                fn = lambda ns, x, y, spec=spec: ns.einsum("ij,jk->ik", x, y, out_sharding=spec(ns.P))
            elif op == "dot_general":
                fn = lambda ns, x, y, spec=spec: ns.dot_general(x, y, (((1,), (0,)), ((), ())),
                                                                out_sharding=spec(ns.P))
            else:
                fn = lambda ns, x, y, spec=spec, op=op: getattr(ns, op)(x, y, out_sharding=spec(ns.P))
            cases.append(Case(f"{op}-out{name}-2d-{a}·{b}", "2d", fn, (a, b)))
    # the einsum seed and 3-D mesh variants
    cases.append(Case("einsum-seed-1d", "1d", lambda ns, x, y: ns.einsum("bx,bx->b", x, y, out_sharding=ns.P(unreduced={"X"})),
                      ("f32[4,8@X]", "f32[4,8@X]")))
    cases.append(Case("einsum-seed-noout-1d", "1d", lambda ns, x, y: ns.einsum("bx,bx->b", x, y),
                      ("f32[4,8@X]", "f32[4,8@X]")))
    for spec in [dict(unreduced={"X", "Z"}), dict(unreduced={"X"}), dict()]:
        cases.append(Case(f"dot-out-3d-{sorted(spec.get('unreduced', []))}", "3d",
                          lambda ns, x, y, spec=spec: ns.dot(x, y, out_sharding=ns.P("Y", **spec)),
                          ("f32[8@Y,8@(X,Z)]", "f32[8@(X,Z),16]")))
    return cases


OUT_SHARDING = out_sharding_cases()


@param(OUT_SHARDING)
def test_dot_out_sharding_types(case):
    check_types(case)


# --- values and collectives ------------------------------------------------------------------------------------------
def value_cases():
    picked = sample(MATMUL_CASES, 30, salt="v")
    picked += sample(BATCH, 12, salt="v")
    picked += sample(OUT_SHARDING, 24, salt="v")
    ids = {c.id for c in picked}
    for c in MATMUL_CASES + OUT_SHARDING:
        if c.id in ("@-2d-f32[8,4@X]·f32[4,16@X]", "dot-outU{X}-2d-f32[8,4@X]·f32[4@X,16]",
                    "dot-outP()-2d-f32[8,4@X]·f32[4@X,16]", "dot-outP(X)-2d-f32[8,4@X]·f32[4@X,16]",
                    "@-2d-f32[8@X,4@Y]·f32[4,16]") and c.id not in ids:
            picked.append(c)
    return picked


@param(value_cases())
def test_dot_values(case):
    check_values(case)


# --- einsum: NumPy's whole grammar and JAX's contraction order ----------------------------------------------------
# (subscripts, operand shapes): `...`, repeated indices (traces, diagonals), implicit outputs,
# size-1 broadcasting, three and four operands whose order opt_einsum picks
GRAMMAR = [
    ("ii->", [(4, 4)]), ("ii->i", [(4, 4)]), ("iij->j", [(4, 4, 8)]), ("ij->", [(8, 4)]), ("ij", [(8, 4)]),
    ("ji", [(8, 4)]), ("...ij,...jk->...ik", [(2, 8, 4), (2, 4, 16)]), ("ij...,j->i...", [(8, 4, 2), (4,)]),
    ("...,...->...", [(8, 4), (8, 4)]), ("ij,jk", [(8, 4), (4, 16)]), ("i,i", [(8,), (8,)]),
    ("bij,bj->bi", [(2, 1, 4), (2, 4)]), ("ij,ij->ij", [(8, 1), (8, 4)]), ("iaj,ibj->ij", [(8, 2, 4), (8, 2, 4)]),
    ("ijk,kji->", [(2, 8, 4), (4, 8, 2)]), ("ij,jk,kl->il", [(8, 4), (4, 16), (16, 2)]),
    ("ab,cd,bc->ad", [(8, 2), (4, 16), (2, 4)]), ("bsd,dkh->bskh", [(2, 8, 4), (4, 2, 8)]),
    ("ij,jk,kl,lm->im", [(8, 4), (4, 2), (2, 16), (16, 4)]), ("ii,ij->j", [(4, 4), (4, 8)]),
]
OPTIMIZE = ("auto", False, True, "greedy")


def _grammar_types(shapes, mesh: str, salt: str) -> list[tuple[str, ...]]:
    """Up to 6 sharding combinations of the operands (every combination for one operand)."""
    pools = [[type_str("f32", s, spec) for spec in specs_for(s, mesh)] for s in shapes]
    unsharded = tuple(p[0] for p in pools)
    return list(dict.fromkeys([unsharded, *sample_product(pools, 5, salt=salt)]))


def einsum_grammar_cases():
    cases = []
    for sub, shapes in GRAMMAR:
        for mesh in BASIC_MESHES:
            for k, types in enumerate(_grammar_types(shapes, mesh, salt=sub + mesh)):
                opt = OPTIMIZE[k % len(OPTIMIZE)]
                cases.append(Case(f"einsum-grammar-{sub}-{opt}-{mesh}-{'·'.join(types)}", mesh,
                                  lambda ns, *xs, sub=sub, opt=opt: ns.einsum(sub, *xs, optimize=opt), types))
    # an explicit contraction path, out_sharding with one and with several contractions, and errors
    cases += [
        Case("einsum-path-2d", "2d", lambda ns, x, y, z: ns.einsum("ij,jk,kl->il", x, y, z,
                                                                   optimize=[(1, 2), (0, 1)]),
             ("f32[8@X,4]", "f32[4,16@Y]", "f32[16,2]")),
        Case("einsum-ellipsis-out-2d", "2d", lambda ns, x, y: ns.einsum("...ij,...jk->...ik", x, y,
                                                                        out_sharding=ns.P("X", None, "Y")),
             ("f32[2@X,8,4]", "f32[2@X,4,16@Y]")),
        Case("einsum-3ops-out-2d", "2d", lambda ns, x, y, z: ns.einsum("ab,cd,bc->ad", x, y, z,
                                                                       out_sharding=ns.P("X")),
             ("f32[8@X,2]", "f32[4,16@Y]", "f32[2,4]")),
        Case("einsum-diag-sharded-2d", "2d", lambda ns, x: ns.einsum("ii->i", x), ("f32[4@X,4@Y]",)),
        Case("einsum-err-rank-2d", "2d", lambda ns, x: ns.einsum("ijk->i", x), ("f32[8,4]",)),
        Case("einsum-err-size-2d", "2d", lambda ns, x, y: ns.einsum("ij,jk->ik", x, y), ("f32[8,4]", "f32[2,16]")),
        Case("einsum-err-count-2d", "2d", lambda ns, x: ns.einsum("ij,jk->ik", x), ("f32[8,4]",)),
        Case("einsum-err-output-2d", "2d", lambda ns, x: ns.einsum("ij->k", x), ("f32[8,4]",)),
    ]
    return cases


EINSUM_GRAMMAR = einsum_grammar_cases()


@param(EINSUM_GRAMMAR)
def test_einsum_grammar_types(case):
    check_types(case)


@param(sample([c for c in EINSUM_GRAMMAR if "-err-" not in c.id], 40, salt="eg")
       + [c for c in EINSUM_GRAMMAR if c.id.startswith(("einsum-path", "einsum-ellipsis-out", "einsum-3ops"))])
def test_einsum_grammar_values(case):
    check_values(case)


# --- operands of different dtypes (JAX's `_dot_general_dtype_rule`: the higher-precision type,
# `preferred_element_type` upcasts) and the VJP of a bf16 product accumulated in f32 -------------------
DN = (((1,), (0,)), ((), ()))
MIXED = [
    Case("mixed-f32-bf16", "2d", lambda ns, a, b: ns.dot_general(a, b, DN), ("f32[8@X,4]", "bf16[4,16@Y]")),
    Case("mixed-bf16-f16", "2d", lambda ns, a, b: ns.dot_general(a, b, DN), ("bf16[8@X,4]", "f16[4,16]")),
    Case("mixed-i8-i32", "2d", lambda ns, a, b: ns.dot_general(a, b, DN), ("i8[8,4]", "i32[4,16@Y]")),
    Case("mixed-f32-bf16-preferred", "2d",
         lambda ns, a, b: ns.dot_general(a, b, DN, preferred_element_type=np.float32), ("bf16[8@X,4]", "f32[4,16]")),
    Case("mixed-narrowing-preferred", "2d",
         lambda ns, a, b: ns.dot_general(a, b, DN, preferred_element_type=np.int8), ("i32[8,4]", "i32[4,16]")),
    Case("grad-bf16-preferred-f32", "2d",
         lambda ns, a, b: ns.grad(lambda a, b: ns.sum(ns.dot_general(a, b, DN, preferred_element_type=np.float32)),
                                  argnums=(0, 1))(a, b), ("bf16[8@X,4]", "bf16[4,16@Y]")),
    Case("grad-mixed", "2d",
         lambda ns, a, b: ns.grad(lambda a, b: ns.sum(ns.dot_general(a, b, DN) ** 2), argnums=(0, 1))(a, b),
         ("f32[8@X,4]", "bf16[4,16]")),
    Case("grad-attention-bf16", "2d",
         lambda ns, q, k, v: ns.grad(lambda q: ns.sum(ns.nn.dot_product_attention(q, k, v, is_causal=True)
                                                      .astype(np.float32)))(q),
         ("bf16[2@X,8,4,8]", "bf16[2@X,8,4,8]", "bf16[2@X,8,4,8]")),
]


@param(MIXED)
def test_mixed_dtype_dot_general(case):
    check_values(case)
