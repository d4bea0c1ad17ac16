"""The JAX oracle: every differential test runs one program in JAX 0.10.2
and in shardc and compares what each says about it.

A `Case` is a program `fn(ns, *args)` written once against a namespace
(`JAX` or `SC`), the mesh it runs on (`MESHES`, or a `MeshSpec`) and its
arguments (shardc type strings such as ``"f32[8@X,4@Y]{R:X}"``, or `Placed`
arrays). `check(case, mode)` runs it on both sides and compares accept/reject
(error class and key phrase), `str(typeof)` of the outputs and of the types the
program notes inside bodies and regions (`ns.note`), and, when it runs, the
values, concrete output shardings and collectives of the partitioned HLO; see
`oracle.harness` for the details.

Modules: `meshes` (the mesh pairs), `namespaces` (JAX / SC), `types` (type
strings, spec enumeration, data), `cases` (Case, parametrize helpers),
`harness` (running and comparing), `hlo` (collectives and sdy annotations of
compiled / lowered modules), `shard_map` (manual-mode programs and tables), `modules` (a program
over a module pair, `jax.scipy.X` / `shardc.scipy.X`, run on both sides' meshes).
"""
from .cases import WHOLE_MESSAGE, Case, param, sample, sample_product
from .harness import (
                      Outcome,
                      abstract_args,
                      assert_values,
                      check,
                      check_eager,
                      check_types,
                      check_values,
                      compare,
                      concrete_args,
                      error_kind,
                      key_phrase,
                      run_jax,
                      run_sc,
                      run_side,
)
from .hlo import hlo_collectives, reported_collectives, sdy_constructs
from .meshes import BASIC_MESHES, MESHES, MeshSpec, axis_sizes, mesh_pair, placed_pair
from .namespaces import JAX, SC, bind
from .shard_map import S, smap, smap_case
from .types import Placed, data_for, entry_axes, entry_str, parse_type, spec_id, specs_for, type_str

__all__ = [
    "BASIC_MESHES", "Case", "JAX", "MESHES", "MeshSpec", "Outcome", "Placed", "S", "SC", "WHOLE_MESSAGE",
    "abstract_args", "assert_values", "axis_sizes", "bind", "check", "check_eager", "check_types",
    "check_values", "compare", "concrete_args", "data_for", "entry_axes", "entry_str", "error_kind",
    "hlo_collectives", "key_phrase", "mesh_pair", "param", "placed_pair", "parse_type", "reported_collectives", "run_jax",
    "run_sc", "run_side", "sample", "sample_product", "sdy_constructs", "smap", "smap_case", "spec_id",
    "specs_for", "type_str",
]
