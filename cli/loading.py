"""Loading a script: configure devices, import the file, find its programs.

A *script* is a Python file; its *programs* are the module-level `sc.jit`
functions (`sc.Jit` instances) whose parameters all carry type strings
(`def f(x: "f32[8@X,4]")`). A script sets its mesh at module level with
`sc.set_mesh(sc.make_mesh(...))`.

Each script is imported in its own copy of the context variables (the mesh
context lives there), so importing a script never changes the caller's mesh,
and every later stage (trace, lower, compile, run) of its programs runs back
inside that copy, under the script's own mesh. While user code runs, what it
prints goes to stderr, so that stdout carries only what the command emits.

Exit codes: bad usage (no such program, a program without type strings, no
programs at all, devices that cannot be had) is 2; a script that fails to
import or a program that fails to type-check, compile or run is 1.
"""
from __future__ import annotations

import contextlib
import contextvars
import importlib.util
import inspect
import io
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import click

import shardc as sc

USAGE = 2
PROGRAM_ERROR = 1


class UsageFailure(click.ClickException):
    """Bad usage of the command: exit code 2."""

    exit_code = USAGE


class ProgramFailure(click.ClickException):
    """A script or program failed (import, type check, compile, run): exit code 1."""

    exit_code = PROGRAM_ERROR


# --- devices ------------------------------------------------------------------------------------
def configure_devices(devices: int, platform: str | None) -> None:
    """Set the CPU virtual-device count and the platform; must run before any import of a script."""
    if devices < 1:
        raise UsageFailure(f"--devices must be at least 1, got {devices}")
    try:
        sc.set_cpu_device_count(devices)
        sc.set_platform(platform)
    except sc.ShardcError as e:
        raise UsageFailure(str(e)) from None
    if platform not in (None, "cpu"):
        import jax
        try:
            jax.devices(platform)
        except RuntimeError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UsageFailure(f"platform {platform!r} is not available here: {first}") from None


# --- programs -----------------------------------------------------------------------------------
@dataclass
class ScriptProgram:
    """One program of a script: its module-level name, the `sc.Jit`, its typed parameters."""

    name: str
    jit: sc.Jit
    params: list[str]
    types: list[str]

    def signature(self) -> str:
        return f"{self.name}(" + ", ".join(f"{p}: {t}" for p, t in zip(self.params, self.types)) + ")"


def _untyped_params(fun: Callable) -> tuple[list[str], list[str], list[str]]:
    """(names, type strings, names without a type string) of `fun`'s array parameters; a
    parameter annotated with a pytree of type strings gives one per leaf (`params.w1`)."""
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        return [], [], ["<signature unavailable>"]
    missing = [("*" if p.kind == p.VAR_POSITIONAL else "**") + p.name for p in sig.parameters.values()
               if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    leaves = sc.stages.signature_leaves(fun)
    missing += [name for name, t in leaves if t is None]
    return [name for name, _ in leaves], [t for _, t in leaves if t is not None], missing


@dataclass
class Script:
    """An imported script, its programs, and the context its code runs in."""

    path: Path                      # absolute
    display: str                    # as the user named it (for messages)
    module: ModuleType
    context: contextvars.Context
    programs: list[ScriptProgram]
    untyped: dict[str, str] = field(default_factory=dict)   # name -> why it is not a program
    echo: bool = True               # show what user code prints (on stderr)

    @property
    def stem(self) -> str:
        return self.path.stem

    def call(self, fn: Callable, *args, **kwargs) -> Any:
        """Run `fn` inside the script's context, with user prints sent to stderr
        (or dropped, for a script loaded with `echo=False`)."""
        def guarded():
            with contextlib.redirect_stdout(sys.stderr if self.echo else io.StringIO()):
                return fn(*args, **kwargs)
        return self.context.run(guarded)

    @property
    def mesh(self):
        return self.context.run(sc.get_mesh)

    def select(self, name: str | None) -> list[ScriptProgram]:
        """The programs `-p NAME` picks (all of them without a name)."""
        if name is None:
            if not self.programs:
                extra = ""
                if self.untyped:
                    extra = " (" + "; ".join(f"`{n}`: {why}" for n, why in self.untyped.items()) + ")"
                raise UsageFailure(
                    f"{self.display} defines no programs: a program is a module-level `@sc.jit` "
                    f"function whose parameters all carry type strings, e.g. "
                    f"`def f(x: \"f32[8@X,4]\")`{extra}")
            return list(self.programs)
        for p in self.programs:
            if name in (p.name, p.jit.name):
                return [p]
        if name in self.untyped:
            raise UsageFailure(
                f"`{name}` in {self.display} is an `sc.jit` function but not a program the CLI can "
                f"run: {self.untyped[name]}; annotate every parameter with a type string, "
                f"e.g. `def {name}(x: \"f32[8@X,4]\")`")
        known = ", ".join(p.name for p in self.programs) or "none"
        raise UsageFailure(f"no program named `{name}` in {self.display} (programs: {known})")

    def relsource(self, source: str | None) -> str:
        """`file:line` with the file relative to the script's folder (no absolute paths)."""
        if not source:
            return "?"
        m = re.match(r"^(.*):(\d+)$", source)
        if not m:
            return source
        file, line = m.group(1), m.group(2)
        return f"{self.relfile(file)}:{line}"

    def relfile(self, file: str) -> str:
        try:
            p = Path(file).resolve()
        except (OSError, ValueError):
            return os.path.basename(file)
        if p == self.path:
            return self.path.name
        try:
            return p.relative_to(self.path.parent).as_posix()
        except ValueError:
            return p.name


def _script_traceback(exc: BaseException, path: Path) -> str:
    """The exception with only the frames outside the import machinery and this CLI."""
    here = str(Path(__file__).resolve().parent)
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<frozen") and not f.filename.startswith(here)]
    lines = traceback.format_list(frames)
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def load_script(path: str | os.PathLike, echo: bool = True) -> Script:
    """Import the script at `path` (devices must already be configured).

    What the script prints goes to stderr, or nowhere with `echo=False`."""
    display = str(path)
    p = Path(path)
    if not p.exists():
        raise UsageFailure(f"no such script: {display}")
    if p.is_dir() or p.suffix != ".py":
        raise UsageFailure(f"{display} is not a Python script (expected a .py file)")
    p = p.resolve()
    mod_name = "shardc_script_" + re.sub(r"\W", "_", p.stem)
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise UsageFailure(f"cannot import {display}")
    module = importlib.util.module_from_spec(spec)
    context = contextvars.copy_context()

    def do_import():
        sys.modules[mod_name] = module
        sys.path.insert(0, str(p.parent))
        try:
            with contextlib.redirect_stdout(sys.stderr if echo else io.StringIO()):
                spec.loader.exec_module(module)
        finally:
            try:
                sys.path.remove(str(p.parent))
            except ValueError:
                pass

    try:
        context.run(do_import)
    except sc.ShardcError as e:
        sys.modules.pop(mod_name, None)
        hint = ""
        m = re.search(r"needs (\d+) devices but only \d+ are available", str(e))
        if m:
            hint = f"\n(hint: run with --devices {m.group(1)})"
        raise ProgramFailure(f"{display} failed to import:\n{e}{hint}") from None
    except SystemExit as e:
        sys.modules.pop(mod_name, None)
        raise ProgramFailure(f"{display} called sys.exit({e.code!r}) while being imported") from None
    except Exception as e:  # noqa: BLE001  (any error in the user's script)
        sys.modules.pop(mod_name, None)
        raise ProgramFailure(f"{display} failed to import:\n{_script_traceback(e, p)}") from None

    programs: list[ScriptProgram] = []
    untyped: dict[str, str] = {}
    seen: set[int] = set()
    for name, obj in list(vars(module).items()):
        if not isinstance(obj, sc.Jit) or id(obj) in seen or name.startswith("_"):
            continue
        seen.add(id(obj))
        params, types, missing = _untyped_params(obj.fun)
        if missing:
            untyped[name] = "parameters without type strings: " + ", ".join(missing)
            continue
        programs.append(ScriptProgram(name, obj, params, types))
    return Script(p, display, module, context, programs, untyped, echo)
