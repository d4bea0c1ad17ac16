"""The package's layering, as `tools/import_graph.py` measures it: no import
cycle among shardc's modules (function-level imports included), every
function-level import marked `# late: <reason>`, and the base modules import
nothing above them."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("import_graph", ROOT / "tools" / "import_graph.py")
graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = graph  # dataclasses look their module up there
_spec.loader.exec_module(graph)

BASE = {"shardc.errors", "shardc.dtypes", "shardc.mesh", "shardc.sharding", "shardc.types", "shardc.ir"}
#: what each base module may import (inside the package)
BASE_ALLOWED = {
    "shardc.errors": set(),
    "shardc.dtypes": {"shardc.errors"},
    "shardc.mesh": {"shardc.errors"},
    "shardc.sharding": {"shardc.errors", "shardc.mesh"},
    "shardc.types": {"shardc.errors", "shardc.dtypes", "shardc.mesh", "shardc.sharding"},
    "shardc.ir": {"shardc.errors", "shardc.mesh", "shardc.types"},
}


def test_no_import_cycle():
    cycles = graph.cycles(graph.imports())
    assert cycles == [], f"import cycles: {cycles}"


def test_function_level_imports_are_marked_and_few():
    late = [e for e in graph.imports() if e.late]
    unmarked = [f"{e.src}:{e.line} -> {e.dst}" for e in late if not e.marked]
    assert unmarked == [], f"function-level imports without `# late: <reason>`: {unmarked}"
    assert len(late) <= 8, [f"{e.src}:{e.line} -> {e.dst}" for e in late]


def test_base_modules_import_nothing_above_them():
    bad = [f"{e.src} -> {e.dst}" for e in graph.imports()
           if e.src in BASE and e.dst not in BASE_ALLOWED[e.src]]
    assert bad == []


def test_core_imports_only_base_modules():
    bad = [e.dst for e in graph.imports() if e.src == "shardc.core" and e.dst not in BASE]
    assert bad == []


def test_primitives_do_not_import_layers_above_them():
    """Rules build with the kit the transformation passes in, never with `ops` or the driver."""
    above = ("shardc.ops", "shardc.lax", "shardc.autodiff", "shardc.stages", "shardc.emit.stablehlo",
             "shardc.runtime", "shardc.passes")
    bad = [f"{e.src} -> {e.dst}" for e in graph.imports()
           if e.src.startswith("shardc.primitives") and e.dst.startswith(above)]
    assert bad == []


def test_namespace_has_no_stray_modules():
    """`import shardc as sc`: every public name is a function, class or value, except
    the submodules that mirror JAX's (`sc.nn`, `sc.lax`, `sc.sharding`, …); in JAX
    `jnp.shape` is a function, so `sc.shape` must not be the `ops.shape` module."""
    import types

    import shardc as sc
    modules = {n for n in sc.__all__ if isinstance(getattr(sc, n), types.ModuleType)}
    assert modules == {"nn", "lax", "distributed", "ad_checkpoint", "tree", "tree_util", "random", "numpy",
                       "typing", "debug", "experimental", "scipy", "custom_batching", "custom_derivatives",
                       "image", "profiler", "memory", "export", "ffi", "ref"}, modules
    assert sc.sharding.__name__ == "shardc.sharding"
    assert not isinstance(getattr(sc, "shape", None), types.ModuleType)
    assert all(hasattr(sc, n) for n in sc.__all__)


def test_installed_packages_are_the_source_packages():
    """pyproject's explicit package list names every package folder (and nothing else),
    so `pip install .` installs what the source tree has."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "shardc").rglob("__init__.py")}
    assert listed == found | {"shardc.cli"}, (listed, found)
