"""Compiler-style diagnostics: `path:line:col: severity: message`.

Every stage reports problems through these types so the command line can print
them the way cc does and scripts can read them from the Python API. `str()` is the
one-line form (batch summaries, scripts); `lifter/display.py` adds the source line,
the caret, the notes and colour, as gcc and clang show a diagnostic on a terminal.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One message about a place in a source file (line and column are 1-based, 0 if unknown)."""

    path: str
    line: int
    column: int
    severity: str  # "error", "warning", "remark" or "note"
    message: str
    # Columns (first, last; 1-based, inclusive) underlined with '~' around the caret, as gcc does.
    ranges: tuple[tuple[int, int], ...] = ()
    fixit: str = ""  # text to insert at the caret (gcc's fix-it hint: the missing ';')
    notes: tuple["Diagnostic", ...] = ()  # where the error comes from: "in expansion of macro 'M'"
    option: str = ""  # the flag that shows it, printed as clang does: "[-Rpass=lift]"
    # For a place in a header: the #include lines that led to it, innermost first (file, line),
    # shown above the message as gcc does ("In file included from k.c:1:").
    included_from: tuple[tuple[str, int], ...] = ()
    # The function the place is in, shown above the message as gcc does ("k.c: In function 'f':").
    function: str = ""

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message}" + (f" [{self.option}]" if self.option else "")


class LiftError(Exception):
    """A problem with the input that stops lifting this file; carries its diagnostic."""

    def __init__(self, path: str, line: int, column: int, message: str, *, ranges=(), fixit: str = "", notes=(),
                 included_from=(), function: str = ""):
        self.diagnostic = Diagnostic(path, line, column, "error", message, tuple(ranges), fixit, tuple(notes),
                                     included_from=tuple(included_from), function=function)
        super().__init__(str(self.diagnostic))
