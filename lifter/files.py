"""Writing output files so that a failure never leaves a partial one.

Every file lift writes (lifted sources, reports, dependency files, graphs, cache entries) goes
through here; a module of its own so that the command line, the batch runner and the graph
export share it without importing each other.
"""
from __future__ import annotations

import os
import tempfile

# How lift decodes and encodes file text: bytes that are not UTF-8 survive the round trip. Defined
# here, a leaf (the frontend's header cache writes through this module), and read by the frontend
# (`frontend/source.py`) from here: importing the frontend from here made a cycle that only the
# order of the package's imports kept from failing.
ENCODING_ERRORS = "surrogateescape"


def write_atomically(path: str, text: str | bytes) -> None:
    """Write next to `path` and rename, so a failure never leaves a partial file (text as UTF-8,
    bytes as they are)."""
    path = os.path.realpath(path)  # through a symbolic link: replace what it points to, keep the link
    if os.path.exists(path) and not os.path.isfile(path):
        # A device or FIFO (/dev/null, a pipe): write into it; never replace it with a file.
        with _open_for(path, text) as handle:
            handle.write(text)
        return
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".lift-", suffix=".tmp", dir=directory)
    try:
        with _open_for(fd, text) as handle:
            handle.write(text)
        # mkstemp makes the file private; give it the mode a new file gets (or the old file had).
        umask = os.umask(0)
        os.umask(umask)
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _open_for(file, data: str | bytes):
    if isinstance(data, bytes):
        return open(file, "wb")
    return open(file, "w", encoding="utf-8", errors=ENCODING_ERRORS, newline="")


def write_if_changed(path: str, text: str) -> bool:
    """Write `text` to `path` unless it already holds exactly that (so its time stamp stays); True if written."""
    data = text.encode("utf-8", errors=ENCODING_ERRORS)
    try:
        with open(path, "rb") as handle:
            if handle.read(len(data) + 1) == data:
                return False
    except OSError:
        pass
    write_atomically(path, text)
    return True
