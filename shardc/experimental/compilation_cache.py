"""`jax.experimental.compilation_cache`'s name for shardc's persistent cache of compiled
programs (`shardc/runtime/compile_cache.py`): `compilation_cache.set_cache_dir(path)`
moves it, as JAX's does."""
from ..runtime.compile_cache import *  # noqa: F403
from ..runtime.compile_cache import __all__  # noqa: F401
