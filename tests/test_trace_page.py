"""The trace viewer (``gpusim.teaching.trace_page``): one self-contained page, stepped through in a real browser.

The browser test opens the page of a lost update in headless Chromium (the system's ``/usr/bin/chromium``,
driven by Playwright; never a downloaded browser), jumps to the bug, reads the values the page shows
and compares them with the simulator's trace, steps back and forth, and writes a screenshot to
``build/test-artifacts/trace-page.png``.  It skips, saying why, only where Chromium or Playwright is
missing.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gpusim.backends.sim import TraceEvent
from gpusim.cli import main
from gpusim.errors import InvalidArgument
from gpusim.explore import explore, replay
from gpusim.teaching.demo import find_lost_update
from gpusim.teaching.trace_page import racing_pair, trace_data, write_trace_html

ARTIFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _embedded(page: Path) -> dict:
    text = page.read_text()
    found = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def test_the_page_is_self_contained_with_the_trace_as_json(tmp_path):
    found = find_lost_update(threads=8, block=8, seed=0)
    page = Path(write_trace_html(found.run.trace, tmp_path / "lost.html", highlight=found.collision))
    text = page.read_text()
    assert "http://" not in text and "https://" not in text and "<script src" not in text and "<link" not in text
    data = _embedded(page)
    assert len(data["events"]) == len(found.run.trace)
    assert [e["step"] for e in data["events"] if e["mark"]] == [e.step for e in found.collision]
    assert data["events"][data["bug"]]["step"] == found.collision[-1].step
    assert data["cells"] == ["counter[0]"] and {t["thread"] for t in data["threads"]} == set(range(8))


def test_an_explorer_failure_and_a_replay_give_the_same_page_data(tmp_path):
    failure = explore("lost_update", policy="systematic").failure
    first = _embedded(Path(write_trace_html(failure, tmp_path / "f.html")))
    again = _embedded(Path(write_trace_html(replay(failure.replay_token), tmp_path / "r.html")))
    assert first["events"] == again["events"] and first["token"] == again["token"] == failure.replay_token
    assert first["message"].startswith("invariant") and any(e["mark"] for e in first["events"])


def test_the_racing_pair_and_bad_arguments(tmp_path):
    a = TraceEvent(0, 0, 0, "load", "x", 0, 0, "k.py:1")
    b = TraceEvent(1, 0, 1, "load", "x", 0, 0, "k.py:1")
    c = TraceEvent(2, 0, 1, "store", "x", 0, 1, "k.py:2")
    assert racing_pair([a, b]) == [] and racing_pair([a, b, c]) == [a, c]
    assert trace_data([a, b, c], [c])["bug"] == 2
    with pytest.raises(InvalidArgument, match="replay"):
        write_trace_html("lost_update@gs1-abc", tmp_path / "t.html")
    with pytest.raises(InvalidArgument, match="name it .html"):
        write_trace_html([a], tmp_path / "t.png")
    with pytest.raises(InvalidArgument, match="no folder"):
        write_trace_html([a], tmp_path / "missing" / "t.html")


def test_gpusim_demo_html_writes_the_page(tmp_path, capsys):
    page = tmp_path / "demo.html"
    assert main(["demo", "--threads", "8", "--block", "8", "--html", str(page), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["page"] == str(page)
    data = _embedded(page)
    assert data["token"] == record["token"] and sum(e["mark"] for e in data["events"]) == len(record["collision"])


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.skip("no chromium here (apt-get install -y chromium): the trace page is not opened in a browser")
    return path


def test_gpusim_explore_html_writes_the_failure_and_the_replay(tmp_path, capsys):
    page = tmp_path / "found.html"
    assert main(["explore", "lost_update", "--policy", "systematic", "--html", str(page), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["page"] == str(page) and record["failure"]["token"] in page.read_text()
    again = tmp_path / "replayed.html"
    assert main(["explore", "--replay", record["failure"]["replay"], "--html", str(again), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["page"] == str(again) and again.stat().st_size > 1000
    for argv, fragment in ((["--zoo", "--html", str(tmp_path / "z.html")], "--zoo writes no page"),
                           (["lost_update", "--html", "/nonexistent/dir/p.html"], "p.html")):
        assert main(["explore", *argv]) == 2
        err = capsys.readouterr().err
        assert fragment in err and err.count("\n") == 1


def test_a_browser_steps_to_the_collision_and_shows_its_values(tmp_path):
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    found = find_lost_update(threads=8, block=8, seed=0)
    page_path = write_trace_html(found.run.trace, tmp_path / "lost.html", highlight=found.collision,
                                 title="lost update", token=found.token)
    first_load, second_load, *_stores = found.collision
    last = found.collision[-1]
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(Path(page_path).as_uri())
            assert page.inner_text("#position").startswith(f"event 1 of {len(found.run.trace)}")
            page.keyboard.press("b")  # jump to the bug: the last of the colliding events
            assert page.inner_text("#ev-op") == last.op == "store"
            assert page.inner_text("#ev-thread") == f"block {last.block}, thread {last.thread}"
            assert page.inner_text("#ev-value") == str(last.value)
            cell = '#memory tr[data-cell="counter[0]"] td.value'
            assert page.inner_text(cell) == str(last.value)
            page.screenshot(path=str(_artifact("trace-page.png")))
            for load in (first_load, second_load):  # both loads of the collision read the same value
                page.click(f"#events tbody tr:nth-child({found.run.trace.index(load) + 1})")
                assert page.inner_text("#ev-op") == "load" and page.inner_text("#ev-value") == str(load.value)
                assert "one of the events that matter" in page.inner_text("#position")
            page.click("#next")
            after = found.run.trace[found.run.trace.index(second_load) + 1]
            assert page.inner_text("#ev-step") == str(after.step)
            page.keyboard.press("ArrowLeft")
            assert page.inner_text("#ev-step") == str(second_load.step)
            page.keyboard.press("End")
            assert page.inner_text(cell) == str(found.counter)  # the final value: short of 8
        finally:
            browser.close()
    assert errors == []


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name



_GEOMETRY = """() => {
  const r = (el) => el.getBoundingClientRect();
  const head = r(document.querySelector("#events thead th")), box = r(document.getElementById("events-box"));
  const lanes = r(document.getElementById("lanes-box")), controls = r(document.getElementById("controls"));
  const rows = [...document.querySelectorAll("#events tbody tr")];
  const span = (el) => [r(el).top, r(el).bottom];
  return {head: [head.top, head.bottom], box: [box.top, box.bottom], lanes: [lanes.left, lanes.right, lanes.top,
          lanes.bottom], controls: controls.bottom, height: window.innerHeight,
          current: rows.filter((tr) => tr.classList.contains("current")).map(span),
          marked: rows.filter((tr) => tr.classList.contains("marked")).map(span),
          matter: [...document.querySelectorAll("#matter tbody tr")].map(span),
          lanemarks: [...document.querySelectorAll(".ev.mark")].map((m) => [r(m).left, r(m).right, r(m).top,
                                                                            r(m).bottom])};
}"""


def _in_view(box: dict, top: float, bottom: float) -> bool:
    return top >= box["controls"] - 1 and bottom <= box["height"] + 1


def _in_the_table(box: dict, top: float, bottom: float, window: bool = True) -> bool:
    """Below the table's sticky header, inside its box (and in the window)."""
    return (top >= box["head"][1] - 1 and bottom <= box["box"][1] + 1
            and (not window or _in_view(box, top, bottom)))


def _race_verdict(tmp_path):
    from gpusim.exercises import check

    kernel = tmp_path / "cas_max.py"
    kernel.write_text("from gpusim import T, kernel\n\n\n@kernel(signature=\"int32[:], int32[:]\")\n"
                      "def max_by_cas(values, best):\n    mine = values[T.gtid()]\n    if mine > best[0]:\n"
                      "        T.atomic_cas(best, 0, best[0], mine)\n")
    return check(6, kernel)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_the_table_header_never_covers_a_row_and_jump_to_bug_shows_both_events(tmp_path, size):
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    found = find_lost_update(threads=64, block=32, seed=3)
    lost = write_trace_html(found.run.trace, tmp_path / "lost.html", highlight=found.collision,
                            title="lost update", message="x\n" * 6, token=found.token)
    verdict = _race_verdict(tmp_path)
    assert verdict.status == "race" and len(verdict.highlight) == 2
    race = write_trace_html(verdict, tmp_path / "race.html")
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(Path(lost).as_uri())
            # the token is folded: one line with its length and a copy button, not 700 characters
            assert len(found.token) > 300 and not page.is_visible("#token")
            assert page.inner_text("#token-length") == str(len(found.token))
            page.click("#copy")
            page.wait_for_function("document.getElementById('copied').textContent !== ''")  # a promise
            # stepping through: the current row always sits below the sticky header, inside the box
            for _ in range(40):
                page.keyboard.press("n")
                box = page.evaluate(_GEOMETRY)
                (top, bottom), = box["current"]
                assert box["head"][0] >= box["box"][0] - 1 and _in_the_table(box, top, bottom, window=False), box
            page.mouse.wheel(0, 400)
            page.wait_for_timeout(300)  # the wheel scrolls smoothly: let it end before jumping
            page.keyboard.press("b")  # jump to the bug: the last colliding event in the table, all of them listed
            box = page.evaluate(_GEOMETRY)
            (top, bottom), = box["current"]
            assert _in_the_table(box, top, bottom)
            assert len(box["matter"]) == len(found.collision) >= 2
            assert all(_in_view(box, top, bottom) for top, bottom in box["matter"]), box
            page.screenshot(path=str(_artifact(f"trace-page-lost-update-{size[0]}x{size[1]}.png")))
            # a race: "jump to bug" puts both racing accesses in view, in the table and in the lanes
            page.goto(Path(race).as_uri())
            page.mouse.wheel(0, 400)
            page.wait_for_timeout(300)  # the wheel scrolls smoothly: let it end before jumping
            page.click("#bug")
            box = page.evaluate(_GEOMETRY)
            assert len(box["marked"]) == 2
            assert all(_in_the_table(box, top, bottom) for top, bottom in box["marked"]), box
            left, right, up, down = box["lanes"]
            for mark_left, mark_right, mark_top, mark_bottom in box["lanemarks"]:
                assert left <= mark_left and mark_right <= right and up <= mark_top and mark_bottom <= down
                assert _in_view(box, mark_top, mark_bottom)
            page.screenshot(path=str(_artifact(f"trace-page-race-{size[0]}x{size[1]}.png")))
        finally:
            browser.close()
    assert errors == []
