"""Reading a C source file exactly as it is on disk.

The text is decoded as UTF-8 with `surrogateescape`, so bytes that are not UTF-8
(Latin-1 comments, say) survive the round trip: writing the text back with the
same error handler gives the original bytes.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from lifter.diagnostics import LiftError

ENCODING_ERRORS = "surrogateescape"


@dataclass
class SourceFile:
    """The user's file: its path as given, its exact text and where each line starts."""

    path: str
    text: str
    line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        for i, ch in enumerate(self.text):
            if ch == "\n":
                starts.append(i + 1)
        self.line_starts = starts

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline ('' past the end)."""
        if not 1 <= line <= len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def offset(self, line: int, column: int) -> int:
        """Character offset of a 1-based (line, column) position."""
        return self.line_starts[line - 1] + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        import bisect

        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1


def check_text(path: str, data: bytes) -> str:
    """Decode a file's bytes, rejecting what cannot be C source with a clear error."""
    if not data.strip():
        raise LiftError(path, 0, 0, "file is empty: a C translation unit needs at least one declaration")
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        raise LiftError(path, line, 0, "file contains NUL bytes: binary data, not C source")
    return data.decode("utf-8", errors=ENCODING_ERRORS)


def read_source(path: str) -> SourceFile:
    """Read `path`, turning every I/O failure into a diagnostic rather than a traceback."""
    if os.path.isdir(path):
        raise LiftError(path, 0, 0, "is a directory, not a C source file")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise LiftError(path, 0, 0, "no such file") from None
    except PermissionError:
        raise LiftError(path, 0, 0, "permission denied: cannot read the file") from None
    except OSError as exc:
        raise LiftError(path, 0, 0, f"cannot read the file: {exc.strerror or exc}") from None
    return SourceFile(path, check_text(path, data))
