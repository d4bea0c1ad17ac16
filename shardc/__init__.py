"""shardc: a compiler for sharded array programs with sharding types.

    import shardc as sc
    mesh = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(mesh):
        x = sc.device_put(np.ones((8, 4)), sc.P("X", "Y"))
        print(sc.typeof(x))            # float32[8@X,4@Y]

The pipeline: `frontend` (tracing) → `ir` (typed IR) → `passes` (type check)
→ `emit` (StableHLO + sdy) → `runtime` (XLA via jaxlib).
"""
import os as _os

# Installed, `shardc.cli` is the top-level cli/ folder mapped into the package
# (setuptools package-dir). Run from a source checkout (the repository root on
# sys.path, as `python -m pytest` or `python -m ...` from the root do), make it
# findable the same way.
_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if (not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "cli"))
        and _os.path.isfile(_os.path.join(_root, "cli", "__init__.py"))):
    __path__.append(_root)

from . import dtypes as _dtypes
from .dtypes import bfloat16, bool_, float16, float32, int8, int16, int32, uint8, uint16, uint32
from .errors import (ShardcAssertionError, ShardcError, ShardcInternalError, ShardcNotImplementedError,
                     ShardcRuntimeError, ShardcTypeError, ShardcValueError, ShardingTypeError)
from .mesh import (AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh, make_mesh, set_mesh,
                   use_abstract_mesh)
from .sharding import NamedSharding, P, PartitionSpec
from .types import ArrayType, parse_type
from .frontend.tracing import typeof
from .frontend.jit import jit, Jit
from .runtime.array import Array, device_put, make_array_from_process_local_data
from .runtime.devices import set_cpu_device_count, set_platform
from .runtime import distributed
from .runtime.visualize import visualize_array_sharding
from .ops import *  # noqa: F401,F403
from .passes.ad import grad, value_and_grad, vjp
import shardc.nn as nn  # noqa: E402  sc.nn: models (absolute: `from .ops import *` bound `nn` to ops.nn)
from .ops import __dict__ as _ops_dict
from . import primitives as _primitives  # noqa: F401  (registers every primitive)
from .runtime import devices as _devices

__version__ = "0.1.0"

_devices._configure_from_env()
