"""`shardc.scipy.cluster`: JAX 0.10.2's `jax.scipy.cluster` (its `vq` module)."""
from . import vq

__all__ = ["vq"]
