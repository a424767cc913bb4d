"""Reading a C source file exactly as it is on disk.

The text is decoded as UTF-8 with `surrogateescape`, so bytes that are not UTF-8
(Latin-1 comments, say) survive the round trip: writing the text back with the
same error handler gives the original bytes.
"""
from __future__ import annotations

import os
import select
import stat
from array import array
from dataclasses import dataclass, field
from functools import cached_property

from lifter.diagnostics import LiftError
from lifter.files import ENCODING_ERRORS
from lifter.frontend.cfile import CFile
from lifter.frontend.spans import Spans


@dataclass
class SourceFile:
    """The user's file: its path as given, its exact text, where each line starts and its tokens."""

    path: str
    text: str
    _line_starts: array | None = field(default=None, init=False, repr=False)

    @property
    def line_starts(self) -> array:
        """Offsets where lines start, computed on first use (8 bytes a line: a file of ten
        million empty lines must not cost gigabytes)."""
        if self._line_starts is None:
            starts = array("q", [0])
            find, append = self.text.find, starts.append
            pos = find("\n")
            while pos >= 0:
                append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    @cached_property
    def spans(self) -> Spans:
        """The frontend's lexical layer over the exact text (tokens, bracket matches, statements),
        made once on first use for every later reader: the passes and the backends."""
        return Spans(self.text)

    @cached_property
    def cfile(self) -> CFile:
        """The file's top level (declarations, function bodies, macros, includes) over `spans`."""
        return CFile(self.text, self.spans)

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
    """Decode a file's bytes, rejecting what cannot be C source with a clear error. An empty
    file (or one of comments only) is C that cc compiles (ISO C warns only under -pedantic)."""
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        raise LiftError(path, line, 0, "file contains NUL bytes: binary data, not C source")
    return data.decode("utf-8", errors=ENCODING_ERRORS)


# Larger inputs are refused before they are read whole (the preprocessed unit has its own,
# smaller limit: comments and blank lines count here, not there).
MAX_SOURCE_BYTES = 64 * 1024 * 1024
# How long a named pipe may stay without a writer (reading it would otherwise block forever).
FIFO_WAIT_S = 30


def read_source(path: str) -> SourceFile:
    """Read `path`, turning every I/O failure into a diagnostic rather than a traceback.

    Regular files and streams (pipes, `<(...)`, named pipes) are read; a named pipe nobody opens
    for writing is an error after FIFO_WAIT_S instead of a wait forever, and an endless device
    (/dev/zero) stops at the size limit."""
    if os.path.isdir(path):
        raise LiftError(path, 0, 0, "is a directory, not a C source file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise LiftError(path, 0, 0, "no such file") from None
    except PermissionError:
        raise LiftError(path, 0, 0, "permission denied: cannot read the file") from None
    except OSError as exc:
        raise LiftError(path, 0, 0, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise LiftError(path, 0, 0, "is a directory, not a C source file")
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_SOURCE_BYTES:
                raise LiftError(path, 0, 0, _too_large(info.st_size))
            if stat.S_ISFIFO(info.st_mode) and not select.select([handle], [], [], FIFO_WAIT_S)[0]:
                raise LiftError(path, 0, 0, f"nothing to read: no process wrote to this pipe in {FIFO_WAIT_S} s")
            os.set_blocking(handle.fileno(), True)
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise LiftError(path, 0, 0, f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise LiftError(path, 0, 0, _too_large(None))
    return SourceFile(path, check_text(path, data))


def _too_large(size: int | None) -> str:
    limit = MAX_SOURCE_BYTES // (1024 * 1024)
    if size is None:
        return f"file is larger than {limit} MB (lift's limit for a C source file)"
    return f"file is {size / (1024 * 1024):.0f} MB, larger than {limit} MB (lift's limit for a C source file)"
