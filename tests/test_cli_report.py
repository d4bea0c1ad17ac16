"""`shardc inspect --html`: the report is loaded in a real headless browser (Debian's
chromium driven by Playwright; `.ci/run` installs the package) and what renders is
checked: the mesh, the device grids (inputs, outputs and shard_map body blocks), the
collectives and cost-model rows, links to the source lines, and that the page loads
nothing from anywhere else."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from playwright.sync_api import sync_playwright

from shardc.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _report(tmp_path: Path, script: str, *flags: str) -> Path:
    out = tmp_path / f"{Path(script).stem}.html"
    r = CliRunner().invoke(main, ["inspect", str(EX / script), "--html", str(out), *flags],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def shardmap_page(browser, tmp_path_factory):
    path = _report(tmp_path_factory.mktemp("report"), "megatron_shardmap.py", "--collectives")
    requests: list[str] = []
    page = browser.new_page()
    page.on("request", lambda req: requests.append(req.url))
    page.goto(path.as_uri())
    yield page, path, requests
    page.close()


def test_page_is_self_contained(shardmap_page):
    page, path, requests = shardmap_page
    text = path.read_text()
    assert "<script" not in text and not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", text)
    assert requests == [path.as_uri()]          # nothing loaded but the page itself
    assert page.title() == "shardc report: megatron_shardmap.py"


def test_mesh_and_programs_render(shardmap_page):
    page, _, _ = shardmap_page
    cells = page.locator("#mesh td").all_inner_texts()
    assert cells == [f"CPU {i}" for i in range(8)]          # X=2 down, Y=4 across
    assert page.locator("section.program h2").all_inner_texts() == ["mlp", "mlp_data_parallel",
                                                                    "mlp_sequence_parallel"]


def _gridbox(page, program: str, title: str):
    sec = page.locator(f"section#prog-{program}")
    return sec.locator("div.gridbox").filter(has=page.locator(f"b:text-is('{title}')"))


def test_device_grids_show_blocks_and_devices(shardmap_page):
    page, _, _ = shardmap_page
    # w1: f32[16,32@Y] on X=2 x Y=4: block j of dim 1 lives on devices j and j+4
    w1 = _gridbox(page, "mlp", "in w1")
    assert w1.locator("td.cell .devs").all_inner_texts() == ["CPU 0,4", "CPU 1,5", "CPU 2,6", "CPU 3,7"]
    assert w1.locator("td.cell .slice").all_inner_texts() == ["[:, 0:8]", "[:, 8:16]", "[:, 16:24]", "[:, 24:32]"]
    colors = w1.locator("td.cell").evaluate_all("cs => cs.map(c => getComputedStyle(c).backgroundColor)")
    assert len(set(colors)) == 4 and "rgba(0, 0, 0, 0)" not in colors     # each block its own colour
    x = _gridbox(page, "mlp", "in x")                                     # replicated: one block, all devices
    assert x.locator("td.cell .devs").all_inner_texts() == ["CPU 0-7"]
    out = _gridbox(page, "mlp_sequence_parallel", "out")                  # f32[8@Y,16]: 4 rows
    assert out.locator("td.cell .devs").all_inner_texts() == ["CPU 0,4", "CPU 1,5", "CPU 2,6", "CPU 3,7"]
    assert out.locator("tr").count() == 4


def test_shard_map_body_blocks(shardmap_page):
    page, _, _ = shardmap_page
    sec = page.locator("section#prog-mlp")
    assert sec.locator("h4").first.inner_text().startswith("shard_map at megatron_shardmap.py:")
    arg2 = sec.locator("div.gridbox").filter(has=page.locator("b:text-is(\"argument 2: in_spec P('Y', None)\")"))
    assert arg2.locator("td.cell .slice").all_inner_texts() == ["[0:8, :]", "[8:16, :]", "[16:24, :]", "[24:32, :]"]
    assert "each device's body sees f32[8,16]{V:Y}" in arg2.inner_text()


def test_collectives_and_cost_rows_link_to_source(shardmap_page):
    page, _, _ = shardmap_page
    sec = page.locator("section#prog-mlp_sequence_parallel")
    row = sec.locator("table.collectives tr.coll")
    assert row.count() == 1
    cells = row.locator("td").all_inner_texts()
    assert cells[:4] == ["reduce-scatter", "Y", "128", "1"]
    cmp = sec.locator("table.compare tr.cmp")
    assert cmp.count() == 1 and "ok" in cmp.get_attribute("class")
    assert cmp.locator("td").all_inner_texts()[:5] == ["✓", "reduce-scatter", "Y", "128", "128"]
    assert "1 of 1 agree" in sec.inner_text()
    link = row.locator("a")
    href = link.get_attribute("href")
    assert re.fullmatch(r"#L\d+", href)
    link.click()
    target = page.locator(f"span.line{href}")
    assert page.evaluate("location.hash") == href
    assert 'sc.psum_scatter(_block(x, w1, w2), "Y", tiled=True)' in target.inner_text()
    assert "hit" in target.get_attribute("class")          # lines with collectives are highlighted
    mem = sec.locator("table.memory tr")
    assert mem.count() == 6 and "temporaries" in mem.all_inner_texts()[4]


def test_differences_render_flagged(browser, tmp_path):
    # the GPU model predicts a reduce-scatter where XLA on CPU all-reduces and slices
    path = _report(tmp_path, "ambiguous_dot.py", "-p", "reduce_scatter", "--memory", "--cost-model", "gpu")
    page = browser.new_page()
    page.goto(path.as_uri())
    row = page.locator("table.compare tr.cmp")
    assert row.count() == 1 and "bad" in row.get_attribute("class")
    texts = row.locator("td").all_inner_texts()
    assert texts[:5] == ["✗", "reduce-scatter", "X", "64", "128"]
    assert texts[-1].startswith("other kind: XLA all-reduces the whole buffer")
    assert "0 of 1 agree; 1 difference(s) flagged ✗" in page.locator("section.program").inner_text()
    page.close()
