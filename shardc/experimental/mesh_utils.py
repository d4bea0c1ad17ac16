"""`jax.experimental.mesh_utils`: arranging devices into a mesh-shaped array. These
only order devices (no computation), so they are JAX's own functions; the array they
return is what `sc.Mesh(devices, axis_names)` takes."""
from jax.experimental.mesh_utils import create_device_mesh, create_hybrid_device_mesh

__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]
