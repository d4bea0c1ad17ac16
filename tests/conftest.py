"""Test set-up: 8 virtual CPU devices shared by shardc and the JAX oracle."""
import os

os.environ.setdefault("SHARDC_CPU_DEVICES", "8")

import jax  # noqa: E402

jax.config.update("jax_num_cpu_devices", int(os.environ["SHARDC_CPU_DEVICES"]))

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import shardc as sc  # noqa: E402


@pytest.fixture
def mesh24():
    """A 2×4 Explicit mesh ('X', 'Y') set as the context mesh."""
    m = sc.make_mesh((2, 4), ("X", "Y"))
    with sc.set_mesh(m):
        yield m


@pytest.fixture
def rng():
    return np.random.default_rng(0)
