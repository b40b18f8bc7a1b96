"""The machine a benchmark runs on: its short name (the results folder), whether it has a GPU, and the stamp every
area writes into its JSON (device, date, commit, command).

>>> slug("NVIDIA H100 80GB HBM3"), slug("NVIDIA H200"), slug("NVIDIA GeForce RTX 4090")
('h100', 'h200', 'nvidia-geforce-rtx-4090')
>>> cpu_slug(2)
'cpu-2cores'
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def slug(name: str) -> str:
    """A short folder name for a GPU's name: its model (``h100``, ``a100``), else the whole name in lower case."""
    match = re.search(r"\b([a-z]{1,2}\d{2,4}[a-z]?)\b", name.lower())
    return match.group(1) if match else re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def cpu_slug(cores: int | None = None) -> str:
    """The folder name of a machine without a GPU: ``cpu-<N>cores``."""
    return f"cpu-{cores or os.cpu_count()}cores"


def gpu_name() -> str | None:
    """The first GPU's name as ``nvidia-smi`` reports it, or ``None`` without one."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30, check=True).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    return out[0].strip() if out and out[0].strip() else None


def device_slug() -> str:
    """This machine's results folder name: the GPU's model (``h200``), else ``cpu-<N>cores``."""
    name = gpu_name()
    return slug(name) if name else cpu_slug()


def has_gpu() -> bool:
    """Whether a GPU backend of gpusim works here (numba or CuPy)."""
    from gpusim.backends import GPU_BACKENDS, gpu_status

    return any(gpu_status(name)[0] for name in GPU_BACKENDS)


def commit() -> str:
    """The checkout's commit (short), with ``+`` when the tree has changes; outside git, ``GPUSIM_COMMIT`` (a copy
    of the tree sent to a GPU machine has no history) or ``unknown``."""
    if os.environ.get("GPUSIM_COMMIT"):
        return os.environ["GPUSIM_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+" if dirty else "")


def stamp(area: str, argv: list[str] | None) -> dict:
    """What every area's JSON records of its run: area, device, date, commit and the command."""
    args = sys.argv[1:] if argv is None else argv
    return {"area": area, "device": gpu_name() or cpu_slug(), "date": datetime.date.today().isoformat(),
            "commit": commit(), "command": " ".join(["python -m benchmarks", area, *args])}


def add_out(parser: argparse.ArgumentParser) -> None:
    """The options every area takes: ``--quick`` (laptop size) and ``--out DIR``."""
    parser.add_argument("--quick", action="store_true", help="laptop size: small inputs, few repeats")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write DIR/<area>.json and DIR/<area>.png (default benchmarks/results/<device>/)")


def outputs(options: argparse.Namespace, area: str) -> tuple[Path, Path]:
    """``(DIR/<area>.json, DIR/<area>.png)`` of ``--out`` (made if missing)."""
    folder = Path(options.out) if options.out else RESULTS / device_slug()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{area}.json", folder / f"{area}.png"
