"""The ambiguous contraction and its three fixes, side by side.

`x` is split over X along its columns and `w` along its rows, so each device
can multiply its blocks but ends up with a *partial sum* of `x @ w`. Where
should the partial sums go? `sc.dot(x, w)` refuses to guess; each program
below answers with `out_sharding=`:

* `all_reduce`:     rows whole            sum everywhere: an all-reduce over X
* `reduce_scatter`: rows split over X     sum, keep a row slice each: a reduce-scatter
                                          (XLA's CPU backend does it as an all-reduce
                                          and a local slice)
* `unreduced`:      unreduced={"X"}       keep the partial sums: no communication now
* `unreduced_then_reshard`: the same, summed later by an explicit `sc.reshard`
                                          (XLA reports that all-reduce on the line
                                          that made the partial sums, the `sc.dot`)

(The output columns stay split over Y, as `w`'s are.) All four get the same
inputs from `shardc run`, so their outputs agree.
"""
import shardc as sc
from shardc import P

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


@sc.jit
def all_reduce(x: "f32[8,32@X]", w: "f32[32@X,16@Y]"):
    return sc.dot(x, w, out_sharding=P(None, "Y"))


@sc.jit
def reduce_scatter(x: "f32[8,32@X]", w: "f32[32@X,16@Y]"):
    return sc.dot(x, w, out_sharding=P("X", "Y"))


@sc.jit
def unreduced(x: "f32[8,32@X]", w: "f32[32@X,16@Y]"):
    return sc.dot(x, w, out_sharding=P(None, "Y", unreduced={"X"}))


@sc.jit
def unreduced_then_reshard(x: "f32[8,32@X]", w: "f32[32@X,16@Y]"):
    partial = sc.dot(x, w, out_sharding=P(None, "Y", unreduced={"X"}))
    return sc.reshard(partial, P("X", "Y"))
