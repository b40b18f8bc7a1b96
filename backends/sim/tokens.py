"""Replay tokens: a run's schedule in one printable string, versioned, and checked against the launches it replays.

A token is ``gs1-`` (the envelope) followed by the zlib-compressed, URL-safe base64 JSON document ::

    {"v": 2, "gpusim": "0.1.0",
     "launches": [{"kernel": "gpusim.zoo.classic_kernels.racy_count", "source": "3f0c...", "grid": 1,
                   "block": 4, "schedule": [3, 1, ...], ...}, ...]}

``v`` is the token format (:data:`TOKEN_FORMAT`).  Format 1 (gpusim before its families moved into folders) names each
launch's kernel by its module and name only; format 2 adds the gpusim version that made the token and, per
launch, the kernel's ``source`` fingerprint (:func:`kernel_fingerprint`: the function's name and code, without
decorators, docstring, comments or layout).  Replaying, a launch fits when the token names the launched kernel,
or when the fingerprints agree (the kernel moved to another module, unchanged): a token survives a move of the
code.  A token whose kernel no longer exists (and whose fingerprint, if any, matches nothing launched) is
refused in one line saying that it comes from an older version of gpusim, as is a format this gpusim does
not read.

>>> token = encode_token([{"kernel": "demo.count", "grid": 1, "block": 2, "schedule": [0, 0, 3, 1]}])
>>> read_token(token).format == TOKEN_FORMAT, read_token(token).launches[0]["schedule"]
(True, [0, 0, 3, 1])
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib
import importlib.util
import json
import sys
import textwrap
import zlib
from typing import NamedTuple

from gpusim.errors import InvalidArgument, InvalidArgumentType, ReplayMismatch
from gpusim.language.sources import getsource

__all__ = ["TOKEN_FORMAT", "Token", "check_launch", "decode_token", "encode_token", "gpusim_version",
           "kernel_exists", "kernel_fingerprint", "read_token"]

#: The format :func:`encode_token` writes; :func:`read_token` reads formats 1 to this one.
TOKEN_FORMAT = 2
_PREFIX = "gs1-"
_LAUNCH_KEYS = ("kernel", "grid", "block", "schedule")


class Token(NamedTuple):
    """A decoded replay token: its ``format``, the gpusim version that ``made`` it (``None`` before format 2),
    and its ``launches`` (one dict per launch: ``kernel``, ``grid``, ``block``, ``schedule``, modes)."""

    format: int
    made_by: str | None
    launches: list[dict]

    def origin(self) -> str:
        """Where the token comes from, in words: ``"an older version of gpusim (token format 1)"``."""
        made = f", made by gpusim {self.made_by}" if self.made_by else ""
        age = "an older" if self.format < TOKEN_FORMAT else "another"
        return f"{age} version of gpusim (token format {self.format}{made}; this is gpusim {gpusim_version()})"


def gpusim_version() -> str:
    """This gpusim's version (read from the loaded package: the simulator sits below ``gpusim/__init__.py``)."""
    return str(getattr(sys.modules.get("gpusim"), "__version__", "unknown"))


def encode_token(launches: list[dict]) -> str:
    """Compress per-launch schedules into a printable replay token of format :data:`TOKEN_FORMAT`."""
    document = {"v": TOKEN_FORMAT, "gpusim": gpusim_version(), "launches": launches}
    payload = json.dumps(document, separators=(",", ":")).encode()
    return _PREFIX + base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode().rstrip("=")


def read_token(token: str) -> Token:
    """Decode ``token``; ``InvalidArgument`` (one line) for a damaged one or a format this gpusim does not read."""
    if not isinstance(token, str):
        raise InvalidArgumentType(f"a replay token is a string, got {token!r}")
    if not token.startswith(_PREFIX):
        raise InvalidArgument(f"{token[:20]!r}... is not a gpusim replay token (they start with {_PREFIX!r})")
    body = token[len(_PREFIX):]
    try:
        document = json.loads(zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))))
        version, launches = document.get("v", 1), document["launches"]
        if not isinstance(version, int) or not isinstance(launches, list) or not all(
                isinstance(entry, dict) and all(key in entry for key in _LAUNCH_KEYS) for entry in launches):
            raise ValueError("not a list of launches")
    except Exception as exc:  # noqa: BLE001 - any decoding failure means a damaged token
        shown = repr(token) if len(token) <= 40 else repr(token[:40]) + "..."
        raise InvalidArgument(f"the replay token {shown} is damaged ({type(exc).__name__}: {exc})") from None
    if version > TOKEN_FORMAT or version < 1:
        raise InvalidArgument(f"the replay token has format {version}: it comes from a newer version of gpusim "
                              f"(this is gpusim {gpusim_version()}, which reads formats 1 to {TOKEN_FORMAT})")
    made_by = document.get("gpusim")
    return Token(version, made_by if isinstance(made_by, str) else None, launches)


def decode_token(token: str) -> list[dict]:
    """The launches of ``token`` (:func:`read_token`); raises ``InvalidArgument`` for a malformed token."""
    return read_token(token).launches


_FINGERPRINTS: dict[int, tuple[object, str | None]] = {}


def kernel_fingerprint(fn) -> str | None:
    """A short hash of the function ``fn``'s name and code (its AST without decorators, docstring, comments or
    layout), or ``None`` when its source cannot be read; the same for the same code in any module.

    >>> def bump(counter):
    ...     '''Add one.'''
    ...     counter[0] += 1  # a comment
    >>> kernel_fingerprint(bump) is None or len(kernel_fingerprint(bump)) == 16
    True
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    known = _FINGERPRINTS.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    try:
        tree = ast.parse(textwrap.dedent(getsource(code)))
    except (OSError, TypeError, SyntaxError):
        tree = None
    function = tree.body[0] if tree is not None and tree.body else None
    found = None
    if isinstance(function, ast.FunctionDef):
        function.decorator_list = []
        body = function.body
        if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            function.body = body[1:]  # the docstring
        found = hashlib.sha256(ast.dump(function).encode()).hexdigest()[:16]
    _FINGERPRINTS[id(code)] = (code, found)
    return found


def check_launch(token: Token, index: int, kernel, grid: int, block: int) -> None:
    """Refuse (``ReplayMismatch``, one line) launch ``index`` of ``kernel`` unless ``token``'s launch ``index`` fits:
    the same grid and block, and the kernel it names, or one of the same fingerprint (moved, unchanged)."""
    launches = token.launches
    if index >= len(launches):
        raise ReplayMismatch(
            f"the replay token holds {len(launches)} launch(es); launch {index + 1} ({kernel.name}) is not in it")
    entry = launches[index]
    named = entry["kernel"]
    fingerprint = entry.get("source")
    same = named == kernel.qualname or (fingerprint is not None and fingerprint == kernel_fingerprint(kernel.fn))
    if same and (entry["grid"], entry["block"]) == (grid, block):
        return
    if not same and not kernel_exists(named):
        raise ReplayMismatch(
            f"the replay token comes from {token.origin()}: its launch {index + 1} ran kernel {named}, which this "
            f"gpusim no longer has (this launch is {kernel.qualname}); find the failure again for a new token")
    raise ReplayMismatch(
        f"the replay token's launch {index + 1} is {named} with grid={entry['grid']}, block={entry['block']}; "
        f"this launch is {kernel.qualname} with grid={grid}, block={block}")


def kernel_exists(name: str) -> bool:
    """Whether gpusim still has the kernel ``name`` (``module.function``) names; names outside gpusim, and
    kernels made inside functions, are taken to exist (nothing to look them up by).

    >>> kernel_exists("gpusim.teaching.demo.racy_count"), kernel_exists("gpusim.demo.racy_count")
    (True, False)
    """
    if not isinstance(name, str) or not name.startswith("gpusim.") or "<locals>" in name:
        return True
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            found = importlib.util.find_spec(module_name) is not None
        except (ImportError, ValueError):  # a parent package is missing
            found = False
        if not found:
            continue
        target = importlib.import_module(module_name)
        for attribute in parts[cut:]:
            target = getattr(target, attribute, None)
        return getattr(target, "qualname", None) == name
    return False
