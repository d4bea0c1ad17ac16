"""A persistent compilation cache: XLA executables kept on disk between processes.

Why: every `shardc run` / `inspect` / `golden` of an unchanged script, and every
new Python process calling an `sc.jit` program, would otherwise compile each
program with XLA again, which is most of what a user waits for. An executable
is stored under a key that covers everything its machine code depends on
(the same inputs as JAX's `jax_compilation_cache_dir`, `jax/_src/cache_key.py`):

* the emitted StableHLO + sdy module text, verified (it carries donation as
  `tf.aliasing_output`, the layouts and the source locations XLA keeps);
* the device assignment: every device's id, process index and kind, and the
  number of processes (each rank of a multi-process job keys the same entry,
  as JAX does; the entry is the whole SPMD program); XLA's topology
  fingerprint on accelerators; the host CPU's architecture and feature flags
  (XLA's CPU code uses the features of the machine that compiled it);
* the platform and its version; the jax, jaxlib and XLA-client versions and
  shardc's; the compile options (partitions, replicas, device assignment,
  debug options) and XLA_FLAGS / LIBTPU_INIT_ARGS, hashed by JAX's own
  functions so that dump-only flags are left out exactly as JAX leaves them.

Where (one scheme): `SHARDC_CACHE_DIR` if set and non-empty, else
`$XDG_CACHE_HOME/shardc`, else `~/.cache/shardc`. `SHARDC_CACHE=0` (or
`false`/`off`/`no`) disables it; `SHARDC_CACHE_MAX_BYTES` caps its size
(default 1 GiB; `512M`, `2G` accepted), least recently used entries evicted
first. The API overrides the environment: `set_cache_dir`, `set_enabled`,
`disabled()`, `set_max_size`, `clear`.

Safety:
* an entry is written to a temporary file in the cache directory and renamed
  into place, so readers never see a partial file and two processes writing
  the same entry leave one whole entry;
* an entry is `MAGIC | header length | JSON header | payload | sha256 of all
  before it`; a corrupt, truncated, foreign-version or wrong-key entry is
  removed and the program compiled again (bytes are never handed to XLA
  before the checksum and header match);
* entries are opened with O_NOFOLLOW: a symbolic link is refused and removed;
* the directory is created 0700, and a directory not owned by this user or
  writable by others is not used (loading an executable runs its code);
* nothing is written outside the directory, and `clear` removes only files
  named as entries.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import re
import secrets
import stat
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import ShardcValueError

__all__ = ["CacheOutcome", "Entry", "cache_dir", "clear", "compile_or_load", "disabled", "entries",
           "is_enabled", "max_size", "set_cache_dir", "set_enabled", "set_max_size", "total_size"]

MAGIC = b"SHARDC-XLA-CACHE\n"
FORMAT = 1
SUFFIX = ".xc"
DEFAULT_MAX_BYTES = 1 << 30
_NAME_RE = re.compile(r"^[A-Za-z0-9_.]{1,48}-[0-9a-f]{64}\.xc$")
_TMP_RE = re.compile(r"^\.tmp-\d+-[0-9a-f]{12}\.xc$")
_TMP_STALE_S = 600.0
_OFF = ("0", "false", "off", "no")
_UNSET: Any = object()

# API overrides (the environment is read at every compile when these are unset)
_dir_override: Any = _UNSET
_enabled_override: bool | None = None
_max_override: int | None = None
_warned: set[str] = set()
# bytes in the directory as last scanned plus this process's writes since: a full scan
# (every entry's stat) runs only when that passes the cap, or every _RESCAN_WRITES writes /
# _RESCAN_S seconds (to see other processes' writes), not on every write
_tally: dict[str, Any] = {"where": None, "bytes": 0, "writes": 0, "at": 0.0}
_RESCAN_WRITES = 64
_RESCAN_S = 30.0


@dataclasses.dataclass(frozen=True)
class CacheOutcome:
    """What the cache did for one compile: `status` is 'hit' (loaded), 'miss'
    (compiled, then stored when `stored`) or 'off' (disabled, or unusable:
    `reason` says why); `seconds` is the load or compile time; for a hit,
    `xla_seconds` is what XLA took when the entry was stored (the time saved)."""

    status: str
    seconds: float
    key: str | None = None
    path: Path | None = None
    stored: bool = False
    reason: str = ""
    xla_seconds: float | None = None

    @property
    def hit(self) -> bool:
        return self.status == "hit"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One stored executable (what `entries()` lists)."""

    path: Path
    size: int
    last_used: float


# --- configuration ---------------------------------------------------------------------------------
def set_cache_dir(path: str | os.PathLike | None) -> None:
    """Use `path` as the cache directory (None or '': back to SHARDC_CACHE_DIR / the default,
    as an empty SHARDC_CACHE_DIR is). A relative path is taken from the current directory now."""
    global _dir_override
    empty = path is None or not os.fspath(path).strip()
    _dir_override = _UNSET if empty else Path(path).expanduser().absolute()


def set_enabled(flag: bool | None) -> bool | None:
    """Turn the cache on or off for this process (None: back to SHARDC_CACHE).
    Returns the previous override, so a caller can restore it."""
    global _enabled_override
    prev, _enabled_override = _enabled_override, flag
    return prev


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """No cache inside the block (what `--no-cache` does)."""
    prev = set_enabled(False)
    try:
        yield
    finally:
        set_enabled(prev)


def set_max_size(nbytes: int | None) -> None:
    """Cap the directory at `nbytes` (None: back to SHARDC_CACHE_MAX_BYTES / 1 GiB)."""
    global _max_override
    if nbytes is not None and (isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0):
        raise ShardcValueError(f"the cache size cap must be a non-negative number of bytes, got {nbytes!r}")
    _max_override = nbytes


def is_enabled() -> bool:
    if _enabled_override is not None:
        return _enabled_override
    return os.environ.get("SHARDC_CACHE", "1").strip().lower() not in _OFF


def cache_dir() -> Path | None:
    """The directory in use, or None when the cache is disabled."""
    if not is_enabled():
        return None
    if _dir_override is not _UNSET:
        return _dir_override
    env = os.environ.get("SHARDC_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "shardc"


def max_size() -> int:
    if _max_override is not None:
        return _max_override
    env = os.environ.get("SHARDC_CACHE_MAX_BYTES", "").strip()
    if not env:
        return DEFAULT_MAX_BYTES
    m = re.fullmatch(r"(\d+)\s*([kKmMgGtT]?)(?:i?[bB])?", env)
    if m is None:
        _warn_once("max", f"SHARDC_CACHE_MAX_BYTES={env!r} is not a size (e.g. 1073741824, 512M, 2G); "
                          "using 1 GiB")
        return DEFAULT_MAX_BYTES
    return int(m.group(1)) * 1024 ** " kmgt".index(m.group(2).lower() or " ")


# --- listing and clearing ------------------------------------------------------------------------
def entries(directory: str | os.PathLike | None = None) -> list[Entry]:
    """The entries stored in `directory` (default: the one in use), least recently used first."""
    d = Path(directory) if directory is not None else cache_dir()
    if d is None or not d.is_dir():
        return []
    out = []
    with os.scandir(d) as it:
        for e in it:
            if _NAME_RE.match(e.name) and e.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    st = e.stat(follow_symlinks=False)
                    out.append(Entry(Path(e.path), st.st_size, st.st_mtime))
    return sorted(out, key=lambda x: x.last_used)


def total_size(directory: str | os.PathLike | None = None) -> int:
    return sum(e.size for e in entries(directory))


def clear(directory: str | os.PathLike | None = None) -> int:
    """Remove every entry (and leftover temporary file) from the cache directory;
    other files in it are left alone. Returns how many entries were removed."""
    d = Path(directory) if directory is not None else cache_dir()
    if d is None or not d.is_dir():
        return 0
    n = 0
    with os.scandir(d) as it:
        for e in it:
            if _NAME_RE.match(e.name) or _TMP_RE.match(e.name):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(e.path)
                    n += bool(_NAME_RE.match(e.name))
    _tally["where"] = None
    return n


# --- the key ---------------------------------------------------------------------------------------
@functools.cache
def _versions() -> str:
    import jax
    import jaxlib
    from jax._src.lib import xla_client as xc
    # the package is imported by the time anything compiles (read, not imported: runtime sits below it)
    ours = getattr(sys.modules.get("shardc"), "__version__", "unknown")
    return f"format {FORMAT} shardc {ours} jax {jax.__version__} jaxlib {jaxlib.__version__} xla_client {xc._version}"


def cache_key(text: str, devices: Sequence, options, backend) -> str:
    """The hex sha256 of everything the executable depends on (see the module docstring)."""
    import jax
    from jax._src import cache_key as jck

    h = hashlib.sha256()

    def put(label: str, data: str | bytes) -> None:
        b = data.encode("utf-8") if isinstance(data, str) else data
        h.update(label.encode() + b"\0" + len(b).to_bytes(8, "big") + b)

    put("versions", _versions())
    put("platform", f"{backend.platform}\0{backend.platform_version}")
    put("devices", ";".join(f"{d.id}:{d.process_index}:{d.device_kind}" for d in devices)
        + f"|processes {jax.process_count()}|topology {_topology(devices)}")
    put("host", _host_cpu())
    flags = hashlib.sha256()
    jck._hash_xla_flags(flags, jck.get_flag_prefixes())
    put("xla flags", flags.digest())
    opts = hashlib.sha256()
    jck._hash_serialized_compile_options(opts, options, strip_device_assignment=False)
    put("compile options", opts.digest())
    put("module", text)
    return h.hexdigest()


def _topology(devices: Sequence) -> str:
    """XLA's fingerprint of the devices' topology (what JAX keys on), '' where the backend has none.
    Not for CPUs: there it differs between the ranks of one job (each sees its own devices as
    local) and adds nothing to the device kinds and the host's CPU features."""
    from jax._src.lib import xla_client as xc
    if devices[0].platform == "cpu":
        return ""
    try:
        return str(xc.get_topology_for_devices(list(devices)).fingerprint())
    except Exception:  # noqa: BLE001  (JAX falls back to the device kinds too)
        return ""


@functools.cache
def _host_cpu() -> str:
    """The host CPU's architecture and feature flags: XLA's CPU code is compiled for the
    features of the machine it ran on, and a cache folder may be shared (NFS) between machines."""
    import platform
    flags = ""
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith(("flags", "Features"))), "")
    return f"{platform.machine()} {platform.processor()} {flags}"


def _module_name(text: str) -> str:
    m = re.search(r"module\s+@\"?([\w.$-]+)", text[:4096])
    name = re.sub(r"[^A-Za-z0-9_.]", "_", m.group(1) if m else "module")[:48]
    return name or "module"


# --- compile or load ----------------------------------------------------------------------------------
def compile_or_load(backend, text: str, devices: Sequence, device_list, options,
                    host_callbacks: Sequence[Any] = ()) -> tuple[Any, CacheOutcome]:
    """The loaded executable for `text` on `devices`: from the cache when a valid
    entry exists, else compiled by XLA (its errors propagate) and stored. A module
    with host callbacks (Python functions XLA calls) is compiled with them and never
    cached: a stored executable could not call this process's functions."""
    d = cache_dir()
    t0 = time.perf_counter()
    if host_callbacks:
        exe = _compile_with_callbacks(backend, text, device_list, options, host_callbacks)
        return exe, CacheOutcome("off", time.perf_counter() - t0, reason="host callbacks")
    if d is None:
        exe = backend.compile_and_load(text, device_list, options)
        return exe, CacheOutcome("off", time.perf_counter() - t0, reason="disabled")
    why = _usable_dir(d)
    if why:
        _warn_once(str(d), f"shardc's compilation cache is not used: {why}")
        exe = backend.compile_and_load(text, device_list, options)
        return exe, CacheOutcome("off", time.perf_counter() - t0, reason=why)
    key = cache_key(text, devices, options, backend)
    path = d / f"{_module_name(text)}-{key}{SUFFIX}"
    found = _read(path, key)
    if found is not None:
        payload, header = found
        try:
            exe = backend.deserialize_executable(payload, device_list, options)
        except Exception:  # noqa: BLE001  (a whole, matching entry XLA still refuses: drop it)
            _remove(path)
        else:
            took = header.get("compile_seconds")
            return exe, CacheOutcome("hit", time.perf_counter() - t0, key, path,
                                     xla_seconds=float(took) if isinstance(took, (int, float)) else None)
    t0 = time.perf_counter()
    exe = backend.compile_and_load(text, device_list, options)
    seconds = time.perf_counter() - t0
    stored = _store(d, path, key, exe, backend, seconds)
    return exe, CacheOutcome("miss", seconds, key, path, stored)


def _compile_with_callbacks(backend, text: str, device_list, options, host_callbacks: Sequence[Any]):
    """XLA takes host callbacks only with a parsed module (in JAX's MLIR context)."""
    from jax._src.interpreters import mlir  # late: JAX's MLIR context, only for modules with callbacks
    from jax._src.lib.mlir import ir  # late: as above
    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        return backend.compile_and_load(module, device_list, options, host_callbacks=list(host_callbacks))


def _usable_dir(d: Path) -> str:
    """'' when `d` exists (created 0700 if missing) and is safe to load code from."""
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(d)
    except OSError as e:
        return f"cannot create {d} ({e.strerror or e})"
    if not stat.S_ISDIR(st.st_mode):
        return f"{d} is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{d} belongs to another user"
    if st.st_mode & 0o022:
        return f"{d} is writable by other users (chmod go-w it)"
    return ""


def _read(path: Path, key: str) -> tuple[bytes, dict] | None:
    """The payload and header of a valid entry at `path`, or None (a bad entry is removed)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError:   # ELOOP: a symbolic link; or unreadable
        _remove(path)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            _remove(path)
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            blob = f.read()
        found = _parse(blob, key)
        if found is None:
            _remove(path)
            return None
        with contextlib.suppress(OSError):   # last used: eviction takes the oldest first
            if os.utime in os.supports_fd:
                os.utime(fd)
            else:
                os.utime(path, follow_symlinks=False)
        return found
    finally:
        os.close(fd)


def _parse(blob: bytes, key: str) -> tuple[bytes, dict] | None:
    n = len(MAGIC)
    if len(blob) < n + 4 + 32 or not blob.startswith(MAGIC):
        return None
    if hashlib.sha256(blob[:-32]).digest() != blob[-32:]:
        return None
    hlen = int.from_bytes(blob[n:n + 4], "big")
    try:
        header = json.loads(blob[n + 4:n + 4 + hlen])
    except ValueError:
        return None
    payload = blob[n + 4 + hlen:-32]
    if (not isinstance(header, dict) or header.get("key") != key or header.get("versions") != _versions()
            or header.get("payload_bytes") != len(payload)):
        return None
    return payload, header


def _store(d: Path, path: Path, key: str, exe, backend, seconds: float) -> bool:
    """Write the entry (temporary file + rename), then evict down to the cap."""
    try:
        payload = exe.serialize()
    except Exception:  # noqa: BLE001  (a backend that cannot serialize executables)
        return False
    header = json.dumps({"key": key, "versions": _versions(), "platform": backend.platform,
                         "payload_bytes": len(payload), "compile_seconds": round(seconds, 6),
                         "created": time.time()}).encode()
    body = MAGIC + len(header).to_bytes(4, "big") + header + payload
    blob = body + hashlib.sha256(body).digest()
    cap = max_size()
    if len(blob) > cap:
        return False
    tmp = d / f".tmp-{os.getpid()}-{secrets.token_hex(6)}{SUFFIX}"
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "wb", closefd=False) as f:
                f.write(blob)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        _warn_once(f"write {d}", f"shardc's compilation cache could not write to {d} ({e.strerror or e})")
        return False
    t = _tally
    if (t["where"] != (str(d), cap) or t["writes"] >= _RESCAN_WRITES or time.monotonic() - t["at"] > _RESCAN_S
            or t["bytes"] + len(blob) > cap):
        t.update(where=(str(d), cap), bytes=_evict(d, cap, keep=path), writes=0, at=time.monotonic())
    else:
        t["bytes"] += len(blob)
        t["writes"] += 1
    return True


def _evict(d: Path, cap: int, keep: Path) -> int:
    """Remove least recently used entries until the directory holds at most `cap` bytes
    (and temporary files a crashed writer left behind); the bytes left."""
    now = time.time()
    found: list[tuple[float, int, str]] = []
    with os.scandir(d) as it:
        for e in it:
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if _NAME_RE.match(e.name) and stat.S_ISREG(st.st_mode):
                found.append((st.st_mtime, st.st_size, e.path))
            elif _TMP_RE.match(e.name) and now - st.st_mtime > _TMP_STALE_S:
                _remove(Path(e.path))
    total = sum(s for _, s, _ in found)
    for _, size, p in sorted(found):
        if total <= cap:
            break
        if p == str(keep):
            continue
        _remove(Path(p))
        total -= size
    return total


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _warn_once(what: str, msg: str) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(msg, RuntimeWarning, stacklevel=3)
