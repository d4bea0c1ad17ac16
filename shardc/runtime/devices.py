"""Which devices shardc runs on, and the CPU virtual-device count."""
from __future__ import annotations

import os
import warnings

from ..errors import ShardcValueError, located

_platform: str | None = None


#: the most virtual CPU devices shardc asks XLA for: each costs ~130 KB and start-up time, so
#: 100000 would take ~13 GB and minutes before failing (4096: the largest pod slices simulated)
MAX_CPU_DEVICES = 4096


@located
def set_cpu_device_count(n: int) -> None:
    """Use `n` virtual CPU devices (must happen before JAX's backends start)."""
    if isinstance(n, bool) or not hasattr(n, "__index__") or not 1 <= n.__index__() <= MAX_CPU_DEVICES:
        raise ShardcValueError(f"the number of virtual CPU devices must be an integer from 1 to "
                               f"{MAX_CPU_DEVICES}, got {n!r}")
    import jax
    from jax._src import xla_bridge
    if xla_bridge.backends_are_initialized():
        import jax as _j
        have = len(_j.devices("cpu"))
        if have == n:
            return
        raise ShardcValueError(
            f"cannot set {n} CPU devices: the runtime already started with {have}; call "
            "sc.set_cpu_device_count(N) (or set SHARDC_CPU_DEVICES=N) before creating any array")
    jax.config.update("jax_num_cpu_devices", int(n))


def set_platform(name: str | None) -> None:
    """Run on `cpu`, `gpu` or `tpu` (default: JAX's default backend)."""
    global _platform
    if name not in (None, "cpu", "gpu", "tpu", "cuda", "rocm"):
        raise ShardcValueError(f"unknown platform {name!r}; expected cpu, gpu or tpu")
    _platform = name


def platform() -> str | None:
    return _platform


def default_devices() -> list:
    import jax
    try:
        return list(jax.devices(_platform) if _platform else jax.devices())
    except RuntimeError as e:
        raise ShardcValueError(f"no devices for platform {_platform!r}: {e}") from None


def backend_for(devices):
    # jax.extend.backend.get_backend itself (importing `jax.extend` loads Pallas: ~90 ms at the first compile)
    from jax._src import xla_bridge
    return xla_bridge.get_backend(devices[0].platform)


def _configure_from_env() -> None:
    """SHARDC_CPU_DEVICES / SHARDC_PLATFORM at import; a bad value is a warning and is ignored
    (an exception here would make `import shardc` itself fail, with a traceback)."""
    n = os.environ.get("SHARDC_CPU_DEVICES", "").strip()
    p = os.environ.get("SHARDC_PLATFORM", "").strip()
    try:
        if n:
            set_cpu_device_count(int(n) if n.isdigit() else n)
        if p:
            set_platform(p)
    except ShardcValueError as e:
        warnings.warn(f"{'SHARDC_PLATFORM' if 'platform' in e.message else 'SHARDC_CPU_DEVICES'} ignored: "
                      f"{e.message}", RuntimeWarning, stacklevel=2)
