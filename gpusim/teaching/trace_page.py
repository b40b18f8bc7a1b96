"""An interactive trace viewer: one self-contained HTML page to step through an interleaving.

:func:`write_trace_html` writes a single file — inline CSS and JavaScript, the trace embedded as JSON,
nothing fetched from a server or the network — in which a learner steps through a run: one lane per
thread (grouped by warp), the memory cells with their values at the current step, the events that
matter (the racing pair, the colliding updates) marked, barriers and warp collectives drawn apart.
Buttons and keys move through it: ``→``/``n`` next, ``←``/``p`` previous, ``b`` jump to the bug (every
event that matters in view: both sides of a collision), ``Home``/``End`` first and last.  The events table's
header stays above its rows as they scroll; the replay token is folded, with a button that copies it.

What it takes: a list of :class:`~gpusim.backends.sim.trace.TraceEvent`, or anything that carries a
``trace`` — an explorer's ``Failure`` (``gpusim.explore.explore(...).failure``), a ``Replayed``
(``gpusim.explore.replay("scenario@gs1-...")``), an exercise's
:class:`~gpusim.exercises.checker.Verdict`.  So a replay token becomes a page with
``write_trace_html(replay(token), "trace.html")``.

>>> import tempfile, pathlib
>>> from gpusim.teaching.demo import find_lost_update
>>> found = find_lost_update(threads=4, block=4)
>>> folder = tempfile.mkdtemp()
>>> page = write_trace_html(found.run.trace, f"{folder}/lost.html", highlight=found.collision)
>>> text = pathlib.Path(page).read_text()
>>> "<script src" in text, '"op": "store"' in text
(False, True)
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from gpusim.backends.sim import TraceEvent
from gpusim.errors import InvalidArgument
from gpusim.language import MEETINGS
from gpusim.teaching.files import check_output_folder, write_whole

__all__ = ["MAX_EVENTS", "check_page_path", "racing_pair", "trace_data", "write_trace_html"]

#: The most events a page holds (the last ones, which end at the failure); the rest are counted.
MAX_EVENTS = 5000



def check_page_path(path: str | os.PathLike, option: str = "--html") -> None:
    """Refuse, before any work, a page path that cannot be written: not ``.html``, a folder, no such folder.

    >>> check_page_path("/nonexistent/trace.html")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: --html '/nonexistent/trace.html': no folder '/nonexistent' to write it in
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidArgument(f"{option} {str(path)!r} is a folder, not a file")
    if target.suffix.lower() not in (".html", ".htm"):
        raise InvalidArgument(f"{option} {str(path)!r}: the page is HTML; name it .html")
    check_output_folder(path, option)


def racing_pair(events: Sequence[TraceEvent]) -> list[TraceEvent]:
    """The last two accesses to one element by different threads, one of them a write (``[]`` if none).

    >>> a = TraceEvent(0, 0, 0, "load", "x", 0, 0, "k.py:1")
    >>> b = TraceEvent(1, 0, 1, "store", "x", 0, 1, "k.py:2")
    >>> racing_pair([a, b]) == [a, b]
    True
    """
    last: dict[tuple[str, int], dict[tuple[int, int], TraceEvent]] = {}
    found: list[TraceEvent] = []
    for event in events:
        if not event.array:
            continue
        seen = last.setdefault((event.array, event.index), {})
        who = (event.block, event.thread)
        for other, earlier in seen.items():
            if other != who and (_writes(event) or _writes(earlier)):
                found = [earlier, event]
        seen[who] = event
    return found


def _writes(event: TraceEvent) -> bool:
    return event.op not in ("load", "atomic_load")


def _shown(value: object) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        return f"{_shown(value[0])} -> {_shown(value[1])}"
    if value is None:
        return ""
    if hasattr(value, "item"):
        value = value.item()
    return repr(value) if isinstance(value, float) else str(value)


def _cell_value(event: TraceEvent) -> str | None:
    """What the element holds after ``event`` as the trace tells it (an atomic: its new value)."""
    if not event.array or event.value is None:
        return None
    if isinstance(event.value, tuple) and len(event.value) == 2:
        return _shown(event.value[1])
    return _shown(event.value)


def trace_data(events: Sequence[TraceEvent], highlight: Iterable[TraceEvent] = (), *, title: str = "",
               message: str = "", token: str | None = None, warp_size: int = 32) -> dict[str, Any]:
    """The page's data: the events (at most :data:`MAX_EVENTS`), the threads as lanes, the cells, what to mark."""
    events = list(events)
    omitted = max(0, len(events) - MAX_EVENTS)
    events = events[omitted:]
    marked = set(highlight)
    threads = sorted({(e.block, e.thread) for e in events})
    lane_of = {who: k for k, who in enumerate(threads)}
    rows = [{"block": b, "thread": t, "warp": t // warp_size, "lane": t % warp_size} for b, t in threads]
    cells = sorted({f"{e.array}[{e.index}]" for e in events if e.array})
    rendered = []
    for e in events:
        rendered.append({
            "step": e.step, "block": e.block, "thread": e.thread, "row": lane_of[(e.block, e.thread)],
            "warp": e.thread // warp_size, "lane": e.thread % warp_size, "op": e.op,
            "cell": f"{e.array}[{e.index}]" if e.array else "", "value": _shown(e.value), "after": _cell_value(e),
            "line": e.location, "mark": e in marked, "sync": e.op in MEETINGS, "fence": e.op == "threadfence",
        })
    marks = [k for k, e in enumerate(rendered) if e["mark"]]
    return {"title": title or "trace", "message": message, "token": token, "omitted": omitted, "threads": rows,
            "cells": cells, "events": rendered, "bug": marks[-1] if marks else len(rendered) - 1,
            "weak": any(e.op == "publish" for e in events)}


def _source_fields(source: Any) -> tuple[list[TraceEvent], list[TraceEvent], str, str | None]:
    """Events, what to mark, the message and the replay token of whatever was passed."""
    if isinstance(source, str):
        raise InvalidArgument("write_trace_html takes a trace, not a token: pass gpusim.explore.replay(token)")
    if hasattr(source, "trace"):
        events = list(source.trace)
        marked = list(getattr(source, "highlight", None) or [])
        if not marked and callable(getattr(source, "interleaving", None)):
            marked = racing_pair(source.interleaving(None)) or source.interleaving(8)
        kind, message = getattr(source, "kind", None), getattr(source, "message", None) or ""
        plain = not kind or message.startswith(str(kind)) or hasattr(source, "status")  # a verdict says it in words
        text = message if plain else f"{kind}: {message}"
        token = getattr(source, "replay_token", None)
        if token is None and getattr(source, "token", None):
            scenario = getattr(source, "scenario", None)
            token = source.token if scenario is None or "@" in source.token else f"{scenario}@{source.token}"
        # the racing access the simulator stopped before is no event of the trace: shown after the last one
        late = [e for e in marked if e not in events and (not events or e.step > events[-1].step)]
        return [*events, *late], marked or racing_pair(events), text, token
    try:
        events = list(source)
    except TypeError:
        raise InvalidArgument(f"write_trace_html needs trace events or a Failure, Replayed or Verdict, "
                              f"got {type(source).__name__}") from None
    if not all(isinstance(e, TraceEvent) for e in events):
        raise InvalidArgument("write_trace_html needs TraceEvent objects (a run's .trace)")
    return events, racing_pair(events), "", None


def write_trace_html(source: Any, path: str | os.PathLike, *, highlight: Iterable[TraceEvent] | None = None,
                     title: str | None = None, message: str | None = None, token: str | None = None) -> str:
    """Write the interleaving of ``source`` as one self-contained HTML page; return its path.

    Parameters
    ----------
    source:
        A list of trace events (``run.trace``), or an object with a ``trace``: an explorer
        ``Failure`` (``explore(...).failure``), a ``Replayed`` (``gpusim.explore.replay(token)``), an
        exercise ``Verdict``.
    path:
        The ``.html`` file to write.
    highlight:
        The events to mark; "jump to bug" goes to the last of them.  By default the object's own
        (a verdict's racing pair, a failure's interleaving) or the last racing pair of the trace.
    title, message, token:
        Shown at the top; by default taken from ``source`` (its kind and message, its replay token).
    """
    check_page_path(path, "path")
    events, marked, text, found_token = _source_fields(source)
    data = trace_data(events, marked if highlight is None else highlight, title=title or "gpusim trace",
                      message=text if message is None else message, token=found_token if token is None else token)
    page = _PAGE.replace("__TITLE__", html.escape(data["title"])).replace(
        "__DATA__", json.dumps(data).replace("</", "<\\/"))
    return write_whole(path, lambda partial: Path(partial).write_text(page, encoding="utf-8"))


_PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:12px;color:#222;padding-bottom:60vh}
h1{font-size:18px;margin:0 0 4px} pre{margin:4px 0;white-space:pre-wrap}
#token-box{margin:2px 0 4px;font-size:13px} #token-box summary{cursor:pointer}
#token{display:block;font:12px monospace;word-break:break-all;max-height:6em;overflow-y:auto}
#side thead th,#events-box thead th{position:sticky;top:0;background:#eee;z-index:1}
#controls{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ccc;z-index:2}
button{font:inherit;margin-right:4px} #position{margin-left:8px;font-weight:600}
#layout{display:flex;gap:16px;align-items:flex-start;margin-top:8px}
#lanes-box{overflow-x:auto;flex:1;border:1px solid #ddd;max-height:40vh;overflow-y:auto}
#lanes{position:relative}
.row{position:relative;height:16px;border-bottom:1px solid #f0f0f0;white-space:nowrap}
.row.warp-start{border-top:2px solid #888}
.label{position:sticky;left:0;display:inline-block;width:86px;background:#fafafa;font:11px monospace;z-index:1;
 height:16px;line-height:16px;padding-left:2px}
.ev{position:absolute;top:2px;width:10px;height:11px;border-radius:2px;background:#9ab;cursor:pointer}
.ev.load{background:#6a9fd8}.ev.store{background:#e39b3c}.ev.atomic{background:#9a6ad8}
.ev.sync{background:#555;width:4px}.ev.fence{background:#2a8a4a}.ev.publish{background:#e3c23c}
.ev.mark{outline:2px solid #d00;outline-offset:1px}.ev.future{opacity:.25}
.ev.current{box-shadow:0 0 0 3px #000}
#cursor{position:absolute;top:0;bottom:0;width:12px;background:rgba(255,220,0,.35);pointer-events:none}
#side{width:420px;max-height:40vh;overflow-y:auto} #side h3{margin:4px 0;font-size:14px}
table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ddd;padding:2px 6px;
 font:12px monospace;text-align:left} tr.changed td{background:#fff3b0} tr.marked td:first-child{color:#d00;
 font-weight:700} tr.current td{background:#ffe680}
#events-box{max-height:30vh;overflow-y:auto;margin-top:10px;position:relative;border:1px solid #ddd}
.legend span{display:inline-block;margin-right:10px}.legend i{display:inline-block;width:10px;height:10px;
 margin-right:3px;vertical-align:middle}
</style></head><body>
<h1 id="title"></h1><pre id="message"></pre>
<details id="token-box" hidden><summary>replay token (<span id="token-length"></span> characters): it replays this
run exactly <button id="copy" type="button">copy</button> <span id="copied"></span></summary>
<code id="token"></code></details>
<div id="controls">
<button id="first" title="Home">&laquo; first</button><button id="prev" title="&#x2190; or p">&#x25C0; previous</button>
<button id="next" title="&#x2192; or n">next &#x25B6;</button><button id="last" title="End">last &raquo;</button>
<button id="bug" title="b">jump to bug</button><span id="position"></span>
<div class="legend"><span><i style="background:#6a9fd8"></i>load</span><span><i style="background:#e39b3c"></i>store
</span><span><i style="background:#9a6ad8"></i>atomic</span><span><i style="background:#555"></i>barrier / warp
collective</span><span><i style="background:#2a8a4a"></i>fence</span><span><i style="background:#e3c23c"></i>store
made visible (weak memory)</span><span><i style="outline:2px solid #d00;background:#fff"></i>the events that
matter</span> &mdash; keys: &#x2192;/n next, &#x2190;/p previous, b bug, Home/End</div>
</div>
<p>One lane per thread (b: block, w: warp, t: thread in the block), a thick line between warps; one column
per event, in the order the schedule ran them. Click an event to go there.</p>
<div id="layout"><div id="lanes-box"><div id="lanes"><div id="cursor"></div></div></div>
<div id="side"><h3>The events that matter</h3><table id="matter"><thead><tr><th>step</th><th>thread</th>
<th>operation</th><th>where</th><th>value</th><th>line</th></tr></thead><tbody></tbody></table>
<h3>This event</h3><table id="event"><tbody>
<tr><th>step</th><td id="ev-step"></td></tr><tr><th>thread</th><td id="ev-thread"></td></tr>
<tr><th>warp, lane</th><td id="ev-warp"></td></tr><tr><th>operation</th><td id="ev-op"></td></tr>
<tr><th>where</th><td id="ev-where"></td></tr><tr><th>value</th><td id="ev-value"></td></tr>
<tr><th>line</th><td id="ev-line"></td></tr></tbody></table>
<h3>Memory after this event</h3><table id="memory"><thead><tr><th>cell</th><th>value</th><th>last by</th></tr>
</thead><tbody></tbody></table><p id="memnote"></p></div></div>
<div id="events-box"><table id="events"><thead><tr><th>#</th><th>step</th><th>thread</th><th>operation</th>
<th>where</th><th>value</th><th>line</th></tr></thead><tbody></tbody></table></div>
<script type="application/json" id="trace-data">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("trace-data").textContent);
const E = D.events, W = 14, X0 = 92;
let cur = 0;
const $ = (id) => document.getElementById(id);
$("title").textContent = D.title;
$("message").textContent = D.message + (D.omitted ? "\n(" + D.omitted + " earlier events omitted)" : "");
if (D.token) {
  $("token").textContent = D.token; $("token-length").textContent = D.token.length;
  $("token-box").hidden = false;
}
$("copy").onclick = (ev) => {
  ev.preventDefault();
  const done = (how) => { $("copied").textContent = how; };
  const fallback = () => {
    const area = document.createElement("textarea"); area.value = D.token; document.body.appendChild(area);
    area.select(); let ok = false; try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove(); done(ok ? "copied" : "open the token and copy it by hand");
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(D.token).then(() => done("copied"), fallback);
  } else { fallback(); }
};
const who = (e) => "(" + e.block + "," + e.thread + ")";
function kind(e) {
  if (e.sync) return "sync"; if (e.fence) return "fence"; if (e.op === "publish") return "publish";
  if (e.op.startsWith("atomic")) return "atomic"; if (e.op === "store") return "store";
  return e.op === "load" ? "load" : "other";
}
const lanes = $("lanes"), rows = [];
lanes.style.width = (X0 + W * E.length + 20) + "px";
D.threads.forEach((t, k) => {
  const row = document.createElement("div");
  const first = k === 0 || D.threads[k - 1].warp !== t.warp || D.threads[k - 1].block !== t.block;
  row.className = "row" + (first ? " warp-start" : "");
  const label = document.createElement("span");
  label.className = "label"; label.textContent = "b" + t.block + " w" + t.warp + " t" + t.thread;
  label.title = "block " + t.block + ", warp " + t.warp + ", lane " + t.lane;
  row.appendChild(label); lanes.appendChild(row); rows.push(row);
});
const marks = E.map((e, k) => {
  const m = document.createElement("span");
  m.className = "ev " + kind(e) + (e.mark ? " mark" : "");
  m.style.left = (X0 + W * k) + "px";
  m.title = e.step + " " + who(e) + " " + e.op + " " + e.cell + " " + e.value;
  m.onclick = () => go(k);
  rows[e.row].appendChild(m);
  return m;
});
const evBody = $("events").tBodies[0];
const evRows = E.map((e, k) => {
  const tr = evBody.insertRow();
  [k, e.step, who(e), e.op, e.cell, e.value, e.line].forEach((v) => { tr.insertCell().textContent = v; });
  if (e.mark) tr.className = "marked";
  tr.onclick = () => go(k);
  return tr;
});
const matterBody = $("matter").tBodies[0];
E.forEach((e, k) => {
  if (!e.mark) return;
  const tr = matterBody.insertRow();
  [e.step, who(e), e.op, e.cell, e.value, e.line].forEach((v) => { tr.insertCell().textContent = v; });
  tr.onclick = () => go(k); tr.dataset.event = k;
});
const memBody = $("memory").tBodies[0], memRows = {};
D.cells.forEach((c) => {
  const tr = memBody.insertRow(); tr.dataset.cell = c;
  tr.insertCell().textContent = c; const v = tr.insertCell(); v.className = "value"; tr.insertCell();
  memRows[c] = tr;
});
$("memnote").textContent = D.weak ? "Weak memory: a store is the writer's own until it is made visible; "
  + "the table shows the visible values." : "Values as the trace saw them (a cell read before any write shows "
  + "the value read).";
function memoryAt(k) {
  const mem = {}, by = {};
  for (let j = 0; j <= k; j++) {
    const e = E[j];
    if (!e.cell || e.after === null) continue;
    if (D.weak && e.op === "store") continue;
    if (e.op.endsWith("load") && e.cell in mem) continue;
    mem[e.cell] = e.after; by[e.cell] = who(e);
  }
  return [mem, by];
}
// Scroll one axis of a box so that [lo, hi) shows between `pad` (a sticky header, the lane labels) and the
// far edge: both ends when they fit, else the start.
function fit(pos, size, lo, hi, pad, last) {
  if (hi - lo > size - pad) return last === undefined ? lo - pad : last - size / 2;
  if (lo < pos + pad) return lo - pad;
  if (hi > pos + size) return hi - size;
  return pos;
}
function headHeight() { return $("events").tHead.offsetHeight; }
// Show events `ks` (indices): their marks in the lanes, their rows in the table below its sticky header; when
// they do not all fit, the current one (the bug, for "jump to bug").
function show(ks) {
  const box = $("lanes-box"), ev = $("events-box");
  const xs = ks.map((k) => X0 + W * k), ys = ks.map((k) => rows[E[k].row].offsetTop);
  box.scrollLeft = fit(box.scrollLeft, box.clientWidth, Math.min(...xs), Math.max(...xs) + W + 4, X0 + 4,
                       X0 + W * cur);
  box.scrollTop = fit(box.scrollTop, box.clientHeight, Math.min(...ys), Math.max(...ys) + 16, 0,
                      rows[E[cur].row].offsetTop);
  const tops = ks.map((k) => evRows[k].offsetTop);
  const ends = ks.map((k) => evRows[k].offsetTop + evRows[k].offsetHeight);
  ev.scrollTop = fit(ev.scrollTop, ev.clientHeight, Math.min(...tops), Math.max(...ends), headHeight() + 2,
                     evRows[cur].offsetTop);
}
// Bring the lanes and the table into the window, below the sticky controls.
function intoWindow() {
  const below = $("controls").offsetHeight + 4;  // where the controls stick once the page scrolls
  const top = $("layout").getBoundingClientRect().top, bottom = $("events-box").getBoundingClientRect().bottom;
  if (top < below || bottom > window.innerHeight) window.scrollBy(0, top - below);
}
function go(k) {
  if (!E.length) return;
  cur = Math.max(0, Math.min(E.length - 1, k));
  const e = E[cur];
  $("position").textContent = "event " + (cur + 1) + " of " + E.length + " (step " + e.step + ")"
    + (e.mark ? " \u2014 one of the events that matter" : "");
  $("ev-step").textContent = e.step; $("ev-thread").textContent = "block " + e.block + ", thread " + e.thread;
  $("ev-warp").textContent = e.warp + ", " + e.lane; $("ev-op").textContent = e.op;
  $("ev-where").textContent = e.cell; $("ev-value").textContent = e.value
    || (e.mark && cur === E.length - 1 && e.cell ? "(the run stopped before this access: the race)" : "");
  $("ev-line").textContent = e.line;
  marks.forEach((m, j) => { m.classList.toggle("future", j > cur); m.classList.toggle("current", j === cur); });
  evRows.forEach((r, j) => r.classList.toggle("current", j === cur));
  [...matterBody.rows].forEach((r) => r.classList.toggle("current", Number(r.dataset.event) === cur));
  const [mem, by] = memoryAt(cur);
  D.cells.forEach((c) => {
    const tr = memRows[c];
    tr.cells[1].textContent = c in mem ? mem[c] : "?"; tr.cells[2].textContent = by[c] || "";
    tr.classList.toggle("changed", c === e.cell);
    tr.classList.toggle("marked", E.some((x, j) => j <= cur && x.mark && x.cell === c));
  });
  $("cursor").style.left = (X0 + W * cur - 1) + "px";
  show([cur]);
}
// "jump to bug": the last event that matters, with every one of them in view (both sides of a collision).
function bug() {
  go(D.bug);
  $("side").scrollTop = 0;
  const marked = E.map((e, k) => (e.mark ? k : -1)).filter((k) => k >= 0);
  show(marked.length ? marked : [cur]);
  intoWindow();
}
$("first").onclick = () => go(0); $("last").onclick = () => go(E.length - 1);
$("prev").onclick = () => go(cur - 1); $("next").onclick = () => go(cur + 1); $("bug").onclick = bug;
document.addEventListener("keydown", (ev) => {
  if (ev.key === "b") { ev.preventDefault(); bug(); return; }
  const keys = {ArrowRight: cur + 1, n: cur + 1, ArrowLeft: cur - 1, p: cur - 1, Home: 0, End: E.length - 1};
  if (ev.key in keys) { ev.preventDefault(); go(keys[ev.key]); }
});
go(0);
</script></body></html>
"""
