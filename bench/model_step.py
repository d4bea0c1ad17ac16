"""The model-scale training steps of bench/models.py as a shardc script, for the CLI:

    shardc check bench/model_step.py        # type-checks both steps (timed by `bench/run.py --only model`)
    shardc inspect bench/model_step.py -p transformer24

The parameter annotations are pytrees of type strings (one per leaf), built from the same
layouts the benchmark uses; the step itself is `models.build` with shardc's namespaces.
"""
import os
import sys

import shardc as sc
import shardc.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

sc.set_mesh(sc.make_mesh((2, 4), ("X", "Y")))


def _type(shape, spec) -> str:
    return "f32[" + ",".join(f"{d}@{s}" if s else str(d) for d, s in zip(shape, spec)) + "]"


def _program(kind: str):
    tree, xl = models.layouts(kind)
    ptypes = [{k: _type(*leaf) for k, leaf in layer.items()} for layer in tree]
    step = models.build(sc, jnp, sc.P, kind)

    def train_step(params, momentum, x, y):
        return step(params, momentum, x, y)

    train_step.__name__ = train_step.__qualname__ = kind
    train_step.__annotations__ = {"params": ptypes, "momentum": ptypes, "x": _type(*xl), "y": _type(*xl)}
    return sc.jit(train_step)


mlp100 = _program("mlp100")
transformer24 = _program("transformer24")
