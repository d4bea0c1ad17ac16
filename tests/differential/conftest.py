"""Fixtures shared by the differential tests that place arrays on both sides themselves."""
import jax
import pytest


@pytest.fixture
def meshes(mesh24):
    """shardc's 2×4 Explicit mesh and JAX's, each its library's context mesh (see `oracle.placed_pair`)."""
    jm = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    with jax.set_mesh(jm):
        yield mesh24, jm
