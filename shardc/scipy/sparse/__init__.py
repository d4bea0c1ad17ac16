"""`shardc.scipy.sparse`: JAX 0.10.2's `jax.scipy.sparse` (its one public name, `linalg`: the
iterative solvers `cg`, `gmres`, `bicgstab`; see docs/scipy.md)."""
from . import linalg

__all__ = ["linalg"]
