"""A campaign's result file: JSON lines, appended and flushed chunk by chunk, read back to resume.

The first line says what the campaign explores (``"record": "campaign"``: scenario, policy, seed and the
options that decide its schedules); then one ``"chunk"`` line per chunk of schedules that finished (its
positions, verdicts, every failure with the replay token of its schedule, the fingerprints of its
interleavings); a ``"failure"`` line for the first failure, shrunk, with its replay token; a
``"summary"`` line when a run of the campaign ends.  A killed campaign loses at most the chunks that
were running; a line cut short by the kill is dropped when the file is read back.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "c.jsonl")
>>> with Journal(path, {"scenario": "lost_update", "policy": "random"}) as journal:
...     journal.write({"record": "chunk", "level": 0, "first": 0, "stop": 4})
>>> header, records = read_journal(path)
>>> header["scenario"], [record["stop"] for record in records]
('lost_update', [4])
"""

from __future__ import annotations

import json
import os
from typing import Any

from gpusim.errors import InvalidArgument, OutputNotWritten

__all__ = ["FORMAT", "Journal", "read_journal"]

#: The result file's format; a file of another format is refused by ``--resume``.
FORMAT = 1


class Journal:
    """Append records to ``path`` (one JSON object a line), each flushed to disk before ``write`` returns.

    A new file starts with ``header`` as its ``"campaign"`` line; an existing one (a resumed campaign) is
    appended to, after a last line cut short by a kill is dropped.
    """

    def __init__(self, path: str, header: dict[str, Any]):
        self.path = str(path)
        fresh = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        if not fresh:
            _drop_cut_line(self.path)
        try:
            self.file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        except OSError as error:
            raise InvalidArgument(f"cannot write the campaign file {self.path!r}: {error.strerror}") from None
        if fresh:
            self.write({"record": "campaign", "format": FORMAT, **header})

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line, on disk before returning; a full disk raises
        :class:`~gpusim.errors.OutputNotWritten` naming the file (a line cut short is dropped on ``--resume``)."""
        try:
            self.file.write(json.dumps(record, default=str) + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as error:
            raise OutputNotWritten(self.path, error.strerror or str(error)) from None

    def close(self) -> None:
        try:
            self.file.close()
        except OSError as error:  # what a full disk left in the buffer: the same failure, named once
            raise OutputNotWritten(self.path, error.strerror or str(error)) from None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _drop_cut_line(path: str) -> None:
    """Truncate a last line that a kill cut short (no newline at the end), so appending stays line by line."""
    with open(path, "rb+") as file:
        data = file.read()
        if data.endswith(b"\n"):
            return
        file.truncate(data.rfind(b"\n") + 1)


def read_journal(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the records of a campaign file (a last line cut short by a kill is left out)."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().split("\n")
    except FileNotFoundError:
        raise InvalidArgument(f"--resume {path!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f"--resume {path!r}: cannot read it ({error})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number == len(lines):  # the last line, cut short by a kill
                break
            raise InvalidArgument(f"--resume {path!r}: line {number} is not JSON") from None
    if not records or records[0].get("record") != "campaign":
        raise InvalidArgument(f"--resume {path!r}: not a gpusim campaign file (no 'campaign' line first)")
    header = records[0]
    if header.get("format") != FORMAT:
        raise InvalidArgument(f"--resume {path!r}: campaign file format {header.get('format')!r}, "
                              f"this gpusim reads format {FORMAT}")
    return header, records[1:]
