"""Compiler-style diagnostics: `path:line:col: severity: message`.

Every stage reports problems through these types so the command line can print
them the way cc does and scripts can read them from the Python API.
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

    def __str__(self) -> str:
        where = self.path
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message}"


class LiftError(Exception):
    """A problem with the input that stops lifting this file; carries its diagnostic."""

    def __init__(self, path: str, line: int, column: int, message: str):
        self.diagnostic = Diagnostic(path, line, column, "error", message)
        super().__init__(str(self.diagnostic))
