"""The race detector of the compiled engine: :mod:`.races`' happens-before rules in numba.

The same vector clocks and the same shadow memory as :class:`~gpusim.backends.sim.races.RaceDetector`,
step for step: program order, barriers and ``syncwarp`` (every member's past before every member's
future; a shuffle or vote orders nothing, the compiled engine's warps being independent), atomics
acquire-release on their location, ``threadfence`` a sequentially consistent fence, and a report per
(array name, lines, hazard kind), the first one found.  A race state is a tuple (:func:`race_state`);
the generator of each thread calls :func:`race_access` after each load and store of a global or shared
array, :func:`race_atomic` after each atomic and :func:`race_fence` after each fence, and the scheduler
calls :func:`race_barrier` when a barrier or a ``syncwarp`` releases its members.  ``race_access`` and
``race_atomic`` return ``True`` when a race was found in ``raise`` mode: the thread then yields ``FAIL``
and the reference simulator replays the launch and raises :class:`~gpusim.errors.DataRace`.

Reports come back as rows of :data:`REPORT_FIELDS`; :func:`reports_of` turns them into the reference's
:class:`~gpusim.backends.sim.races.RaceReport`.

>>> import numpy as np
>>> state = race_state(2, np.array([0, 4]), np.array([1]), np.array([0]), 0)  # 2 threads, one array of 4
>>> race_access(state, 0, 0, 1, 1, True, 0, False, 0), race_access(state, 1, 0, 1, 0, False, 1, False, 0)
(False, False)
>>> reports_of(race_rows(state), 2, ["k.py:5", "k.py:6"], lambda code: ("global", "a"))
[RaceReport(kind='RAW', memory='global', array='a', index=1, first=((0, 0), 'store', 'k.py:5'), \
second=((0, 1), 'load', 'k.py:6'))]
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba import types
from numba.typed import Dict, List

from .lowering import OPERATIONS
from .races import RaceReport

__all__ = ["KINDS", "REPORT_FIELDS", "race_access", "race_atomic", "race_barrier", "race_fence",
           "race_rows", "race_state", "reports_of"]

#: Hazard kinds, by number.
KINDS = ("RAW", "WAR", "WAW")
#: The columns of a report row.
REPORT_FIELDS = ("kind", "code", "index", "first_thread", "first_op", "first_site", "thread", "op", "site")
_RECORD = 7  # thread, epoch, operation, site, atomic, steps, next record


@numba.njit(cache=True)
def race_state(n, bases, checked, names, mode):
    """A fresh race state for ``n`` threads.  Array number ``c`` has cells ``bases[c] .. bases[c + 1] - 1``;
    ``checked[c]`` is 0 when its races are intended anywhere (not checked), else 1 plus twice the bit mask of the
    steps within which they are intended (:func:`~gpusim.language.kernels.within`; 0: none); ``names[c]`` is its
    name's number (reports are deduplicated by name); ``mode`` 1 stops at the first race (``raise``)."""
    clocks = np.zeros((n, n), np.int32)
    for t in range(n):
        clocks[t, t] = 1
    cells = np.zeros((bases[-1], 8), np.int64)  # write: thread, epoch, op, site, atomic; readers: head, tail;
    # the write's steps
    cells[:, 0] = -1
    cells[:, 5] = -1
    cells[:, 6] = -1
    records = List.empty_list(types.int64)
    readers = Dict.empty(types.int64, types.int64)  # cell * n + thread -> record
    atomics = Dict.empty(types.int64, types.int32[:])
    fence = np.zeros(n, np.int32)
    reports = List.empty_list(types.int64)
    seen = Dict.empty(types.int64, types.int64)
    info = np.array([mode, n], np.int64)
    return clocks, cells, records, readers, atomics, fence, reports, seen, info, bases, checked, names


@numba.njit(cache=True)
def _report(state, kind, code, index, first, first_op, first_site, thread, op, site):
    key = ((state[11][code] * 4 + kind) * (1 << 24) + first_site) * (1 << 24) + site
    if key in state[7]:
        return False
    state[7][key] = 1
    reports = state[6]
    reports.append(kind)
    reports.append(code)
    reports.append(index)
    reports.append(first)
    reports.append(first_op)
    reports.append(first_site)
    reports.append(thread)
    reports.append(op)
    reports.append(site)
    return True


@numba.njit(cache=True)
def race_access(state, thread, code, index, op, is_write, site, atomic, steps):
    """A checked access by ``thread`` to element ``index`` of array ``code``, made inside the declared steps
    ``steps`` (a bit mask): True when a race stops the run.  A race between two accesses both inside one of the
    steps within which the array's races are intended is not reported."""
    checked = state[10][code]
    if checked == 0:  # an intended race: not checked
        return False
    steps = steps & (checked >> 1)
    clocks, cells, records, readers = state[0], state[1], state[2], state[3]
    n = state[8][1]
    cell = state[9][code] + index
    clock = clocks[thread]
    found = False
    writer = cells[cell, 0]
    if writer >= 0 and writer != thread and cells[cell, 1] > clock[writer] and not (atomic and cells[cell, 4] != 0) \
            and steps & cells[cell, 7] == 0:
        found = _report(state, 2 if is_write else 0, code, index, writer, cells[cell, 2], cells[cell, 3], thread,
                        op, site)
    if is_write:
        r = cells[cell, 5]
        while r >= 0:
            base = r * _RECORD
            reader = records[base]
            if reader != thread and records[base + 1] > clock[reader] and not (atomic and records[base + 4] != 0) \
                    and steps & records[base + 5] == 0:
                if not found:
                    found = _report(state, 1, code, index, reader, records[base + 2], records[base + 3], thread,
                                    op, site)
                break
            r = records[base + 6]
        r = cells[cell, 5]
        while r >= 0:  # the readers are forgotten
            readers.pop(cell * n + records[r * _RECORD])
            r = records[r * _RECORD + 6]
        cells[cell, 0] = thread
        cells[cell, 1] = clock[thread]
        cells[cell, 2] = op
        cells[cell, 3] = site
        cells[cell, 4] = 1 if atomic else 0
        cells[cell, 5] = -1
        cells[cell, 6] = -1
        cells[cell, 7] = steps
    else:
        key = cell * n + thread
        r = readers.get(key, -1)
        if r < 0:  # a new reader goes to the end of the list (the reference's dict order)
            r = len(records) // _RECORD
            records.append(thread)
            for _ in range(_RECORD - 2):
                records.append(0)
            records.append(-1)
            readers[key] = r
            if cells[cell, 6] >= 0:
                records[cells[cell, 6] * _RECORD + 6] = r
            else:
                cells[cell, 5] = r
            cells[cell, 6] = r
        base = r * _RECORD
        records[base + 1] = clock[thread]
        records[base + 2] = op
        records[base + 3] = site
        records[base + 4] = 1 if atomic else 0
        records[base + 5] = steps
    return found and state[8][0] == 1


@numba.njit(cache=True)
def race_atomic(state, thread, code, index, op, site, steps):
    """An atomic: acquire then release on its location, then (unless the array is an intended race) its access."""
    clock = state[0][thread]
    cell = state[9][code] + index
    atomics = state[4]
    if cell in atomics:
        sync = atomics[cell]
        for k in range(clock.shape[0]):
            if sync[k] > clock[k]:
                clock[k] = sync[k]
        sync[:] = clock
    else:
        atomics[cell] = clock.copy()
    clock[thread] += 1
    return race_access(state, thread, code, index, op, op != 7, site, True, steps)


@numba.njit(cache=True)
def race_fence(state, thread):
    """``threadfence``: after every earlier fence of any thread."""
    clock = state[0][thread]
    fence = state[5]
    for k in range(clock.shape[0]):
        if fence[k] > clock[k]:
            clock[k] = fence[k]
    fence[:] = clock
    clock[thread] += 1


@numba.njit(cache=True)
def race_barrier(state, members, count):
    """A released barrier of ``members[:count]``: every member's past before every member's future."""
    clocks = state[0]
    joined = np.zeros(clocks.shape[1], np.int32)
    for j in range(count):
        clock = clocks[members[j]]
        for k in range(joined.shape[0]):
            if clock[k] > joined[k]:
                joined[k] = clock[k]
    for j in range(count):
        clocks[members[j]] = joined
        clocks[members[j], members[j]] += 1


@numba.njit(cache=True)
def race_rows(state):
    """The reports found, one row of :data:`REPORT_FIELDS` each."""
    flat = state[6]
    rows = np.zeros((len(flat) // 9, 9), np.int64)
    for k in range(len(flat)):
        rows[k // 9, k % 9] = flat[k]
    return rows


def reports_of(rows: np.ndarray, block: int, sites: list[str], array: Callable[[int], tuple[str, str]]
               ) -> list[RaceReport]:
    """The :class:`RaceReport` of each row; ``array(code)`` gives an array's memory kind and name."""
    reports = []
    for kind, code, index, first, first_op, first_site, thread, op, site in rows.tolist():
        memory, name = array(code)
        reports.append(RaceReport(KINDS[kind], memory, name, index,
                                  (divmod(first, block), OPERATIONS[first_op], sites[first_site]),
                                  (divmod(thread, block), OPERATIONS[op], sites[site])))
    return reports
