"""Test set-up: 8 virtual CPU devices shared by shardc and the JAX oracle."""
import atexit
import os
import shutil
import tempfile

os.environ.setdefault("SHARDC_CPU_DEVICES", "8")
# The suite never shares state with the user's compilation cache: it is off for every test
# (a cached executable would hide a compile that changed), and pointed at a per-session
# temporary folder in case a test turns it on; tests of the cache use their own folders.
os.environ["SHARDC_CACHE"] = "0"
os.environ["SHARDC_CACHE_DIR"] = tempfile.mkdtemp(prefix="shardc-test-cache-")
atexit.register(shutil.rmtree, os.environ["SHARDC_CACHE_DIR"], True)

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
