"""Diagnostics shown as gcc shows them on a terminal: the located message, then the source line
with a caret under the column (and '~' under the rest of the range), a fix-it line, the notes
(a macro's expansion), and colour only where it helps.

The one-line form (`str(diagnostic)`) is what scripts read; this adds, below it, what a person
needs to see the problem without opening the file. Lines and columns count characters (tabs as
one, as the frontend and `gcc -ftabstop=1` count them); tabs are shown as spaces up to the next
multiple of 8, the caret line likewise, so both stay aligned whatever the terminal does.
"""
from __future__ import annotations

import os
import re

from lifter.diagnostics import Diagnostic
from lifter.frontend.source import ENCODING_ERRORS, MAX_SOURCE_BYTES

COLOR_CHOICES = ("auto", "always", "never")
# gcc's default GCC_COLORS: error=01;31:warning=01;35:note=01;36:caret=01;32:locus=01:quote=01;
# gcc has no remarks: theirs is clang's colour (bold blue).
_SEVERITY_COLOR = {"error": "01;31", "fatal error": "01;31", "warning": "01;35", "note": "01;36",
                   "remark": "01;34", "optimized": "01;32", "missed": "01;31"}
_FIXIT_COLOR = "32"
_LOCUS_COLOR = "01"
_TAB = 8
_QUOTE = re.compile(r"'([^'\n]+)'")
# Longer source lines are not shown (a minified file would flood the terminal).
_MAX_SHOWN_LINE = 1000


def use_color(choice: str, stream) -> bool:
    """`-fdiagnostics-color=auto|always|never`: auto means a terminal that is not 'dumb'."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return terminal and os.environ.get("TERM", "") != "dumb"


class SourceLines:
    """The lines of the files diagnostics point into, each file read once (a file that cannot be
    read shows no source line: the located message alone is still right). Only the text is kept,
    not a list of its lines: a file of ten million empty lines must not cost gigabytes."""

    def __init__(self, known: dict[str, str] | None = None):
        self._texts: dict[str, str | None] = dict(known or {})

    def line(self, path: str, line: int) -> str | None:
        if path not in self._texts:
            try:
                with open(path, "rb") as handle:
                    data = handle.read(MAX_SOURCE_BYTES)
                self._texts[path] = data.decode("utf-8", errors=ENCODING_ERRORS)
            except OSError:
                self._texts[path] = None
        text = self._texts[path]
        if text is None or line < 1:
            return None
        start = 0
        for _ in range(line - 1):
            start = text.find("\n", start) + 1
            if start == 0:
                return None
        end = text.find("\n", start)
        return text[start:end if end >= 0 else len(text)].rstrip("\r")


def render(d: Diagnostic, sources: SourceLines, color: bool = False) -> str:
    """The diagnostic and its notes, each with its source line and caret, as text ending in a newline."""
    out = _included_from(d, color) + _in_function(d, color) + [_header(d, color)]
    out += _snippet(d, sources, color)
    previous = d
    for note in d.notes:
        out.append(_header(note, color))
        if (note.path, note.line, note.column) != (previous.path, previous.line, previous.column):
            out += _snippet(note, sources, color)  # gcc shows a place once
        previous = note
    return "".join(line + "\n" for line in out)


def _included_from(d: Diagnostic, color: bool) -> list[str]:
    """gcc's `In file included from a.h:2,` / `                 from k.c:1:` lines (a place
    without a line, `<command-line>` for -include FILE, is named alone, as gcc names it)."""
    out = []
    for k, (path, line) in enumerate(d.included_from):
        lead = "In file included from " if k == 0 else " " * len("In file included ") + "from "
        end = ":" if k == len(d.included_from) - 1 else ","
        out.append(lead + _paint(f"{path}:{line}" if line else path, _LOCUS_COLOR, color) + end)
    return out


def _in_function(d: Diagnostic, color: bool) -> list[str]:
    """gcc's `k.c: In function 'f':` line above an error inside a function's body."""
    if not d.function:
        return []
    return [f"{_paint(d.path + ':', _LOCUS_COLOR, color)} In function '{_paint(d.function, _LOCUS_COLOR, color)}':"]


def _paint(text: str, code: str, color: bool) -> str:
    return f"\033[{code}m\033[K{text}\033[m\033[K" if color and text else text


def _header(d: Diagnostic, color: bool) -> str:
    where = d.path + (f":{d.line}" if d.line else "") + (f":{d.column}" if d.line and d.column else "")
    tag = f" [{d.option}]" if d.option else ""
    return (f"{_paint(where + ':', _LOCUS_COLOR, color)} "
            f"{_paint(d.severity + ': ', _severity_color(d), color)}{_quoted(d.message, color)}{tag}")


def _quoted(message: str, color: bool) -> str:
    """gcc's quote colour: what a message quotes ('x') in bold."""
    return _QUOTE.sub(lambda m: f"'{_paint(m[1], _LOCUS_COLOR, True)}'", message) if color else message


def _severity_color(d: Diagnostic) -> str:
    return _SEVERITY_COLOR.get(d.severity, _LOCUS_COLOR)


def _snippet(d: Diagnostic, sources: SourceLines, color: bool) -> list[str]:
    """gcc's `  N | text` and `    | ^~~` lines, or nothing when the line is unknown. In colour,
    as gcc: the marks, and the characters above them, in the severity's colour."""
    if not d.line or not d.column:
        return []
    text = sources.line(d.path, d.line)
    if text is None or len(text) > _MAX_SHOWN_LINE:
        return []
    shown, starts = _expand_tabs(text)
    marks = [" "] * (len(shown) + 2)

    def place(column: int, mark: str) -> int:
        index = column - 1
        at = starts[index] if index < len(starts) else len(shown) + index - len(starts)
        while len(marks) <= at:
            marks.append(" ")
        marks[at] = mark
        return at

    for first, last in d.ranges:
        for column in range(first, last + 1):
            place(column, "~")
    caret = place(d.column, "^")
    underline = "".join(marks).rstrip()
    gutter = f" {d.line:>4} | "
    blank = " " * (len(gutter) - 2) + "| "
    paint = _severity_color(d)
    lines = [gutter + _painted(shown, underline, paint, color), blank + _painted(underline, underline, paint, color)]
    if d.fixit:
        lines.append(blank + " " * caret + _paint(d.fixit, _FIXIT_COLOR, color))
    return lines


def _painted(text: str, underline: str, code: str, color: bool) -> str:
    """`text` with the stretches that are marked in `underline` painted (as is without colour)."""
    if not color:
        return text
    out, k = [], 0
    for run in _runs(underline):
        piece = text[k:k + len(run)]
        out.append(_paint(piece, code, True) if run[0] != " " else piece)
        k += len(run)
    return "".join(out) + text[k:]


def _runs(text: str) -> list[str]:
    """`text` cut into runs of blanks and of marks (each run of marks is painted once)."""
    out: list[str] = []
    for ch in text:
        if out and (out[-1][-1] == " ") == (ch == " "):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _expand_tabs(text: str) -> tuple[str, list[int]]:
    """The line with tabs as spaces, and where each character of the original starts in it."""
    shown: list[str] = []
    starts = []
    width = 0
    for ch in text:
        starts.append(width)
        if ch == "\t":
            pad = _TAB - width % _TAB
            shown.append(" " * pad)
            width += pad
        else:
            shown.append(ch)
            width += 1
    return "".join(shown), starts
