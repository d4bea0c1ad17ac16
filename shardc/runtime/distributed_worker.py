"""One rank of a job started by `sc.distributed.launch`:

    python -m shardc.runtime.distributed_worker (--script PATH | --call MODULE:FUNCTION) -- ARGS...

Joins the job (`sc.distributed.initialize()` from the `SHARDC_DIST_*`
environment), runs the target, then leaves: on success through JAX's shutdown
barrier; on any failure by printing the traceback and `os._exit(code)` at once,
so that no rank waits for a barrier the failed one will never reach.
"""
from __future__ import annotations

import os
import sys
import time
import traceback


def _exit(code: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        dist = sys.modules.get("shardc.runtime.distributed")
        if code != 0 and dist is not None and dist.leaving():
            time.sleep(5)   # the watchdog is ending this rank after a peer hung (exit code 3): not this failure
    finally:
        os._exit(code)


def _resolve(spec: str):
    import importlib
    mod, _, qual = spec.partition(":")
    obj = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def main(argv: list[str]) -> None:
    if "--" in argv:
        i = argv.index("--")
        own, args = argv[:i], argv[i + 1:]
    else:
        own, args = argv, []
    if len(own) != 2 or own[0] not in ("--script", "--call"):
        sys.stderr.write(__doc__)
        _exit(2)
    kind, what = own
    rank = os.environ.get("SHARDC_DIST_PROCESS_ID", "?")
    code = 0
    try:
        from shardc.runtime import distributed  # late: after this rank's environment is read
    except BaseException:  # noqa: BLE001
        sys.stderr.write(f"shardc: rank {rank} failed:\n{traceback.format_exc()}")
        _exit(1)
    distributed._state.say_early = True
    try:
        distributed.initialize()
    except distributed.ShardcError as e:    # bad settings, or the job did not form: in words, no traceback
        if not getattr(e, "said", False):       # (a settings mismatch is said as soon as it is found)
            sys.stderr.write(f"shardc: {e}\n")
        _exit(2 if isinstance(e, distributed.ShardcValueError) else 3)
    try:
        if kind == "--script":
            import runpy
            sys.argv = [what, *args]
            sys.path.insert(0, os.path.dirname(os.path.abspath(what)))
            runpy.run_path(what, run_name="__main__")
        else:
            ret = _resolve(what)(list(args))
            code = ret if isinstance(ret, int) and not isinstance(ret, bool) else 0
    except SystemExit as e:
        c = e.code
        code = c if isinstance(c, int) else (0 if c is None else 1)
        if not isinstance(c, int) and c is not None:
            sys.stderr.write(f"{c}\n")
    except BaseException:  # noqa: BLE001  (anything: report it and leave without the barrier)
        if distributed.leaving():   # a collective broken by the hung rank's exit: the watchdog said why
            _exit(3)
        sys.stderr.write(f"shardc: rank {rank} failed:\n{traceback.format_exc()}")
        _exit(1)
    if code != 0:
        sys.stderr.write(f"shardc: rank {rank} exited with code {code}\n")
        _exit(code)
    try:
        from shardc.runtime import distributed  # late: the rank may have died before importing shardc
        sys.stdout.flush()
        distributed.shutdown()
    except BaseException:  # noqa: BLE001
        sys.stderr.write(f"shardc: rank {rank} failed to shut down cleanly:\n{traceback.format_exc()}")
        _exit(1)
    _exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
