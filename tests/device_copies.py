"""A test helper: every copy between the host and a device, recorded (the device-resident tests assert there are
none, or only the few numbers a result needs)."""

from __future__ import annotations

import numpy as np

from gpusim import Device


def watch(dev: Device) -> list[tuple[str, int]]:
    """Record every copy between the host and ``dev`` from now on: ("in", entries) and ("out", entries)."""
    copies: list[tuple[str, int]] = []
    to_host, array = dev.to_host, dev.array

    def watched_to_host(a):
        out = to_host(a)
        copies.append(("out", int(out.size)))
        return out

    def watched_array(a):
        if not dev.holds(a):
            copies.append(("in", int(np.asarray(a).size)))
        return array(a)

    dev.to_host, dev.array = watched_to_host, watched_array
    return copies
