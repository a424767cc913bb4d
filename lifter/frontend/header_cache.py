"""The parsed headers of a file, kept between runs.

Most of what pycparser reads in a typical file is the declarations its `#include`s bring (glibc's
stdio.h, stdlib.h and time.h: 1,000 lines before the file's first line of its own, three quarters
of the parsing time), and that text is the same for every file that includes the same headers
with the same macros. So the preprocessed text is cut where the main file's own code begins
(`split`): the part before, the headers, is parsed once and kept here (its declarations, and the
names the parser knew at its end, typedef or not); a later run that produces the same header
text takes them from here and parses only the rest, with those names declared first
(`parse.parse`).

An entry is used only for exactly the text it was made from: the key is a hash of that text (after
everything lift does to the text before parsing, with the lines that only name the main file
taken out, so files that include the same headers share it), of pycparser's version, of the lift
module that drives it and of Python's version. An entry carries a hash of its contents; one that
is unreadable, damaged or from another format is ignored (and written again), and a directory
that cannot be written only costs the time. Entries are written to a temporary file and renamed,
so processes lifting at the same time (`lift -j`) never read a partial one. The directory
(`LIFT_HEADER_CACHE`, default `$XDG_CACHE_HOME/lift/headers`, `~/.cache/lift/headers`; empty:
off) keeps the MAX_ENTRIES entries used last.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import sys
import zlib

import pycparser

from lifter.files import write_atomically

CACHE_ENV = "LIFT_HEADER_CACHE"
FORMAT = 1
MAX_ENTRIES = 256
_MAGIC = b"lift-headers\0"
_MARKER = re.compile(r'# \d+ "([^"\\]*)"')  # a line marker of cpp's output (`# 12 "file" 2`)


def split(text: str) -> tuple[str, str] | None:
    """(the headers, the rest) of preprocessed text, cut at the line marker before the first line
    of code of the main file (the file of the first marker that is not lift's own), so that the
    headers part holds whole included files. Markers that no line of code follows are left out of
    the headers part: they name the main file or the compiler's built-in places, and no token's
    position depends on them (the next marker sets file and line again). None where no header
    comes before the main file's code, or a marker is not as cpp writes them."""
    parts = text.split("\n")  # lines as C counts them (str.splitlines also breaks at \f, \x1c, ...)
    lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    main = file = None
    head: list[str] = []
    start, has_code, headers = 0, False, False  # the segment: a marker and the lines up to the next
    for index, line in enumerate(lines):
        if line.startswith("#") and line[1:2] in (" ", "l"):
            m = _MARKER.match(line)
            if m is None:
                if line.startswith("# ") or line.startswith("#line"):
                    return None  # a marker with escapes in its name: not worth the trouble
            else:
                if has_code:
                    head += lines[start:index]
                    headers |= not (file or "").startswith("<lift-")
                start, has_code, file = index, False, m[1]
                if main is None and not file.startswith("<lift-"):
                    main = file
                continue
        if not has_code and line.strip():
            if file == main and main is not None:
                return ("".join(head), "".join(lines[start:])) if headers else None
            has_code = True
    return None


def key(head: str) -> str:
    """The entry's name: a hash of the headers' text and of everything else that decides its
    parse."""
    h = hashlib.sha256(f"{FORMAT}\0{sys.version}\0{pycparser.__version__}\0{_parser_digest()}\0".encode())
    h.update(head.encode("utf-8", errors="surrogateescape"))
    return h.hexdigest()


@functools.lru_cache(maxsize=None)
def _parser_digest() -> str:
    """The parser lift drives (its subclasses of pycparser's lexer and parser) is in parse.py."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "parse.py"), "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def directory() -> str | None:
    """Where entries are kept (None: nowhere)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return chosen or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lift", "headers")


def _entry(folder: str, name: str) -> str:
    return os.path.join(folder, f"v{FORMAT}", name + ".bin")


def load(name: str) -> tuple[list, dict[str, bool]] | None:
    """The declarations and the parser's names kept under `name`, or None."""
    folder = directory()
    if folder is None:
        return None
    path = _entry(folder, name)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        digest, body = data[len(_MAGIC):len(_MAGIC) + 32], data[len(_MAGIC) + 32:]
        if not data.startswith(_MAGIC) or hashlib.sha256(body).digest() != digest:
            return None
        ext, names = pickle.loads(zlib.decompress(body))
    except Exception:  # noqa: BLE001  any damage (a truncated or foreign file) is a miss
        return None
    try:
        os.utime(path)  # used now: among the last to be dropped
    except OSError:
        pass  # a folder only to read from
    if not isinstance(ext, list) or not isinstance(names, dict):
        return None
    return ext, names


def store(name: str, ext: list, names: dict[str, bool]) -> None:
    """Keep the declarations and names under `name`; drop the entries used longest ago beyond
    MAX_ENTRIES. Failing to write is not an error."""
    folder = directory()
    if folder is None:
        return
    path = _entry(folder, name)
    try:
        body = zlib.compress(pickle.dumps((ext, names), protocol=pickle.HIGHEST_PROTOCOL), 1)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        write_atomically(path, _MAGIC + hashlib.sha256(body).digest() + body)
        _prune(os.path.dirname(path))
    except (OSError, RecursionError, pickle.PicklingError):
        pass


def _prune(folder: str) -> None:
    entries = []
    with os.scandir(folder) as found:
        for e in found:
            if e.name.endswith(".bin"):
                try:
                    entries.append((e.stat().st_mtime_ns, e.path))
                except OSError:
                    pass
    for _, path in sorted(entries)[:max(0, len(entries) - MAX_ENTRIES)]:
        try:
            os.unlink(path)
        except OSError:
            pass
