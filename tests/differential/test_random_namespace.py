"""`import shardc as jax; jax.random`: every public name of jax.random 0.10.2 is in
`shardc.random.__all__`, not yet built (with the issue) or excluded (with the reason);
docs/random.md holds the same sets. A new JAX name, or one that appears here while
still listed, fails `test_every_jax_random_name_is_accounted_for`."""
from __future__ import annotations

import jax.random as jr
from jax.extend.core import Primitive

import shardc.random as sr

EXCLUDED = {
    "random_gamma_p": "a jax.extend.core.Primitive object (JAX's jaxpr internals; shardc's are shardc.core.Primitive)",
}
NOT_YET: set[str] = set()
#: shardc's own public names, not jax.random's: the typed key array class (JAX's is a jax.Array of a key dtype)
OWN = {"KeyArray"}


def test_every_jax_random_name_is_accounted_for():
    names = {n for n in dir(jr) if not n.startswith("_")}
    ours = set(sr.__all__) - OWN
    assert all(isinstance(getattr(jr, n), Primitive) for n in EXCLUDED if n.endswith("_p"))
    assert not (ours & NOT_YET) and not (ours & set(EXCLUDED)) and not (NOT_YET & set(EXCLUDED))
    union = ours | NOT_YET | set(EXCLUDED)
    assert names == union, f"not accounted for: {sorted(names - union)}; not jax.random names: {sorted(union - names)}"
    assert all(hasattr(sr, n) for n in sr.__all__)
    assert OWN <= set(sr.__all__) and not (OWN & names)
