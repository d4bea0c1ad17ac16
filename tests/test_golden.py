"""Golden files: every program of every script in examples/ must produce the
typed IR, StableHLO, collectives and outputs recorded under golden/.

This is the same comparison `shardc golden` runs. To accept an intended
change: `shardc golden --update`, then read the diff before committing it.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shardc.cli import golden as g
from shardc.cli.loading import configure_devices, load_script

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "golden"
SCRIPTS = g.find_scripts(EXAMPLES)


@pytest.fixture(scope="module", autouse=True)
def _devices():
    configure_devices(8, None)


def test_every_example_has_goldens():
    assert SCRIPTS, "no example scripts found"
    for s in SCRIPTS:
        assert (GOLDEN / s.stem).is_dir(), f"no golden/{s.stem}/ (run `shardc golden --update`)"


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_golden(script: Path):
    report = g.check_script(load_script(script, echo=False), GOLDEN)
    assert report.checked >= 4
    if not report.ok:
        pytest.fail("golden files differ; if intended, run `shardc golden --update` and review:\n\n"
                    + "\n".join(m.render() for m in report.mismatches), pytrace=False)


# --- the comparison itself ---------------------------------------------------------------------------
def test_numbers_compare_with_tolerance():
    a = "out: float32[8@X]\n  sum 13.47342  abs-sum 605.0692\n  values [-1.8037, 2e-07]\n"
    assert g.numbers_close(a, a.replace("13.47342", "13.47343"))        # 1e-6 relative
    assert g.numbers_close(a, a.replace("2e-07", "-3e-07"))             # tiny absolute
    assert not g.numbers_close(a, a.replace("13.47342", "13.6"))        # 1% off
    assert not g.numbers_close(a, a.replace("float32[8@X]", "float32[8]"))  # text is exact
    assert not g.numbers_close(a, a + "extra\n")


def test_a_changed_rule_fails_with_a_readable_diff(tmp_path):
    """Edit one golden (as if a rule changed the typed IR and the collectives):
    the check fails and names each file with a unified diff."""
    gold = tmp_path / "golden"
    shutil.copytree(GOLDEN / "megatron", gold / "megatron")
    typed = gold / "megatron" / "mlp.typed.txt"
    original = next(l for l in typed.read_text().splitlines() if "out_sharding=P('data', None)" in l)
    broken = original.replace("f32[8@data,16]", "f32[8,16]").replace("P('data', None)", "P()")
    typed.write_text(typed.read_text().replace(original, broken))
    coll = gold / "megatron" / "mlp.collectives.txt"
    coll.write_text(coll.read_text().replace("all-reduce", "reduce-scatter"))
    (gold / "megatron" / "gone.typed.txt").write_text("old\n")
    report = g.check_script(load_script(EXAMPLES / "megatron.py", echo=False), gold)
    assert not report.ok
    by_path = {m.path: m for m in report.mismatches}
    assert set(by_path) == {"megatron/mlp.typed.txt", "megatron/mlp.collectives.txt",
                            "megatron/gone.typed.txt"}
    diff = by_path["megatron/mlp.typed.txt"].render()
    assert "--- megatron/mlp.typed.txt (golden)" in diff
    assert "+++ megatron/mlp.typed.txt (now)" in diff
    assert f"\n-{broken}\n" in diff and f"\n+{original}\n" in diff
    assert "+all-reduce axes=(model)" in by_path["megatron/mlp.collectives.txt"].render()
    assert by_path["megatron/gone.typed.txt"].reason == "stale"

    # --update rewrites what differs and removes what is stale; then it passes.
    up = g.check_script(load_script(EXAMPLES / "megatron.py", echo=False), gold, update=True)
    assert up.ok and len(up.written) == 2 and up.removed == ["megatron/gone.typed.txt"]
    again = g.check_script(load_script(EXAMPLES / "megatron.py", echo=False), gold)
    assert again.ok, [m.render() for m in again.mismatches]


def test_goldens_have_no_paths_or_addresses():
    for p in GOLDEN.rglob("*"):
        if p.is_file():
            text = p.read_text(encoding="utf-8")
            assert str(ROOT) not in text, p
            assert "/tmp/" not in text and "/home/" not in text, p
            assert " at 0x" not in text, p
