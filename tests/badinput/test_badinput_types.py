"""Bad-input corpus (issue 15): type strings.

One strict grammar reads every type string (shardc/types.py `_Reader`): each case
below is a kind of malformed or impossible type string and asserts the outcome a
user sees: `ShardcValueError` (a ValueError), the key phrase, a caret under the
offending character, and the user's own file:line (this file). A property test
then checks the grammar against an independent regular expression over every
one-character mutation of a table of printed types.
"""
from __future__ import annotations

import itertools
import re

import pytest

import shardc as sc
from shardc import AxisType

# (case, type string, key phrase, column of the first caret)
CASES = [
    ("negative dim", "f32[-8]", "negative dim sizes are not allowed", 4),
    ("axis missing after @", "f32[8@]", "expected a mesh axis name", 6),
    ("unclosed axis tuple", "f32[8@(X,]", "expected a mesh axis name", 9),
    ("empty dim list with a comma", "f32[,]", "expected a dim size", 4),
    ("empty dim between commas", "f32[8,,4]", "expected a dim size", 6),
    ("trailing comma in dims", "f32[8,]", "expected a dim size", 6),
    ("dim beyond int64", "f32[99999999999999999999]", "larger than the largest int64", 4),
    ("element count beyond int64", "f32[4294967296,4294967296]", "more than the largest int64", 4),
    ("byte size beyond int64", "f32[2305843009213693952,2]", "more than the largest int64", 4),
    ("float dim", "f32[8.5]", "cannot parse dim '8.5'", 4),
    ("signed dim", "f32[+8]", "cannot parse dim '+8'", 4),
    ("underscore in dim", "f32[8_0]", "cannot parse dim '8_0'", 4),
    ("non-ASCII digit", "f32[\u0668]", "cannot parse dim", 4),
    ("two @ in a dim", "f32[8@X@Y]", "expected ',' or ']' after a dim", 7),
    ("empty axis tuple", "f32[8@()]", "expected a mesh axis name", 7),
    ("trailing comma in axis tuple", "f32[8@(X,)]", "expected a mesh axis name", 9),
    ("nested axis tuple", "f32[8@((X,Y))]", "expected a mesh axis name", 7),
    ("stray parenthesis", "f32[8@X)]", "expected ',' or ']' after a dim", 7),
    ("dims not closed", "f32[8,4", "no '[…]' with the dims", 7),
    ("no dims at all", "f32", "expected '[' and the dims", 3),
    ("text after the type", "f32[8] extra", "unexpected text after the type", 7),
    ("two weak markers", "~~f32[8]", "expected a dtype name", 1),
    ("unknown dtype", "flot32[8]", "unknown dtype name 'flot32'", 0),
    ("unknown axis", "f32[8@Z]", "Resource axis: Z of P('Z',) is not found", 6),
    ("unknown attribute", "f32[8]{Q:X}", "unknown attribute 'Q'", 7),
    ("attribute without axes", "f32[8]{U:}", "expected a mesh axis name", 9),
    ("trailing comma in attributes", "f32[8]{U:X,}", "expected V:, U: or R:", 11),
    ("attributes without a comma", "f32[8]{U:X R:Y}", "expected ',' or '}' after the axes", 11),
    ("attribute twice", "f32[8]{U:X, U:Y}", "U: appears twice", 12),
    ("unclosed attribute tuple", "f32[8]{U:(X,Y}", "expected ',' or ')'", 13),
    ("V outside shard_map", "f32[8]{V:X}", "values vary over Manual axes only", 9),
    ("indivisible dim", "f32[3@X,4]", "does not evenly divide", 4),
    ("axis on two dims", "f32[8@X,4@X]", "duplicate entries", 4),
    ("axis sharded and unreduced", "f32[8@X]{U:X}", "cannot overlap", 4),
]


@pytest.mark.parametrize("case,text,phrase,col", CASES, ids=[c[0] for c in CASES])
def test_bad_type_string(mesh24, case, text, phrase, col):
    with pytest.raises(sc.ShardcValueError) as info:
        sc.parse_type(text)
    e = info.value
    assert isinstance(e, ValueError)
    lines = str(e).splitlines()
    assert phrase in lines[0], lines[0]
    # the user's line: this file, where parse_type was called
    assert e.loc is not None and e.loc.file == __file__, e.loc
    # the caret line sits under the text, its first caret at the offending character
    assert lines[-2] == "    " + text, lines
    assert lines[-1].startswith("    ") and set(lines[-1][4:]) <= {" ", "^"}, lines
    assert lines[-1].index("^") - 4 == col, (lines[-1], col)


def test_v_inside_shard_map_is_accepted():
    """`{V:X}` is a type only where X is Manual (inside shard_map)."""
    m = sc.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Manual, AxisType.Explicit))
    t = sc.parse_type("f32[8]{V:X}", m.abstract_mesh)
    assert t.vma == frozenset({"X"}) and str(t) == "float32[8]{V:X}"


def test_non_string_type_is_an_error():
    with pytest.raises(sc.ShardcValueError, match="a type must be a string"):
        sc.parse_type(8)


# --- the grammar vs an independent regular expression ----------------------------------------------
_NAME = r"[^\s()\[\]{},@:~]+"
_AXES = rf"(?:{_NAME}|\(\s*{_NAME}(?:\s*,\s*{_NAME})*\s*\))"
_DIM = rf"\s*[0-9]+\s*(?:@\s*{_AXES}\s*)?"
_ATTR = rf"\s*[VUR]\s*:\s*{_AXES}\s*"
_SYNTAX = re.compile(rf"\s*~?\s*[A-Za-z][A-Za-z0-9_]*\s*\[(?:{_DIM}(?:,{_DIM})*|\s*)\]\s*"
                     rf"(?:\{{(?:{_ATTR}(?:,{_ATTR})*|\s*)\}})?\s*")
_PIECE = re.compile(rf"([0-9]+)\s*(?:@\s*({_AXES}))?")


def _reference(text: str):
    """(shape, spec) as the regular expression reads `text` (None when it is not a type string)."""
    if not _SYNTAX.fullmatch(text):
        return None
    dims = text[text.index("[") + 1:text.index("]")]
    shape, spec = [], []
    for m in _PIECE.finditer(dims):
        shape.append(int(m.group(1)))
        axes = tuple(re.findall(_NAME, m.group(2) or ""))
        spec.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return tuple(shape), tuple(spec)


def _printed_types() -> list[str]:
    """Printed types over the dtypes, ranks 0-3, shardings and U/R attributes of a 2x4 mesh."""
    out = []
    for dtype, dims, attrs in itertools.product(
            ["f32", "bf16", "i32", "bool"],
            [[], ["8@X"], ["8", "4@Y"], ["8@(X,Y)", "4"], ["2", "8@Y", "6"]],
            ["", "{U:X}", "{R:Y}", "{U:X, R:Y}"]):
        used = {a for d in dims for a in re.findall(r"[XY]", d)}
        if any(a in used for a in re.findall(r"[XY]", attrs)):
            continue
        out.append(f"{dtype}[{','.join(dims)}]{attrs}")
    return out


_MUTANTS = "@,()[]{}:~- 9X"


def test_grammar_round_trips_and_every_mutation_is_exact_or_underlined(mesh24):
    """Every printed type parses back to itself; every one-character mutation (deleted,
    doubled, replaced) either parses to exactly what the regular expression reads, or
    raises a ShardcValueError whose caret line underlines the mutated text."""
    checked = accepted = 0
    for text in _printed_types():
        t = sc.parse_type(text)
        assert sc.parse_type(str(t)) == t and t.str_short() == text, text
        mutations = {text[:i] + text[i + 1:] for i in range(len(text))}
        mutations |= {text[:i] + text[i] + text[i:] for i in range(len(text))}
        mutations |= {text[:i] + c + text[i + 1:] for i in range(len(text)) for c in _MUTANTS}
        for m in sorted(mutations - {text}):
            checked += 1
            ref = _reference(m)
            try:
                got = sc.parse_type(m)
            except sc.ShardcValueError as e:
                lines = str(e).splitlines()
                assert lines[-2] == "    " + m and "^" in lines[-1], (m, str(e))
                continue
            accepted += 1
            assert ref is not None, f"{m!r} accepted as {got} but it is not a type string"
            assert (got.shape, tuple(got.spec)) == ref, (m, got, ref)
    assert checked > 5000 and accepted > 100, (checked, accepted)
