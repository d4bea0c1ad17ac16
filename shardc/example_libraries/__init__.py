"""`shardc.example_libraries`, as JAX 0.10.2's `jax.example_libraries`: `optimizers` (sgd, momentum,
adam, ... with their schedules) and `stax` (a small neural-net layer library), JAX's own code
ported onto shardc. `from shardc.example_libraries import optimizers, stax`."""
from . import optimizers, stax

__all__ = ["optimizers", "stax"]
