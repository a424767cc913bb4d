"""The input checked as a C compiler checks it, before anything is lifted.

pycparser accepts any text that parses: an undeclared identifier, a call with the wrong number
of arguments or an assignment between incompatible types would be lifted as if it were a
program (and, say, an alias check built around a name that does not exist). So the compiler
that preprocesses also compiles the file with `-fsyntax-only` and the user's flags; its first
error stops lifting with its place, as the compiler printed it. Its warnings are not errors and
are not printed, except that `-Wc++-compat` is on: those warnings are the places where the C
file is not valid C++ (implicit conversions from `void *` or to an enum, C++ keywords used as
names, ...), which the CUDA backend, whose output nvcc compiles as C++, needs (`CxxNote`).
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

from lifter.diagnostics import LiftError
from lifter.frontend.preprocess import (PREPROCESS_TIMEOUT_S, PreprocessOptions, _name_line, _quote,
                                        _run_bounded, find_compiler)

# Warnings about C that C++ reads differently; all of them are kept (see CxxNote).
_CHECK_FLAGS = ("-fsyntax-only", "-Wc++-compat", "-Wjump-misses-init", "-Wpointer-sign", "-Wstrict-prototypes",
                "-Wimplicit-function-declaration",
                "-fno-diagnostics-show-caret", "-fdiagnostics-color=never", "-ftabstop=1")
_LINE_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<kind>(?:fatal )?error|warning|note): "
                      r"(?P<msg>.*)$")
_OPTION_RE = re.compile(r" \[(-W[\w+=-]+)\]$")
_CHECK_OUTPUT_BYTES = 1 << 20  # -fsyntax-only writes nothing to stdout


@dataclass(frozen=True)
class CxxNote:
    """A compiler warning, or a note on the warning before it (the parameter's type of a bad
    argument), at a place in a file: `column` counts characters (tabs as one)."""

    kind: str  # "warning" or "note"
    path: str
    line: int
    column: int
    message: str  # without the trailing [-Wflag]
    option: str = ""  # that flag: "-Wc++-compat", ...


def check(path: str, text: str, options: PreprocessOptions) -> list[CxxNote]:
    """Compile `text` (the file `path`) with -fsyntax-only: raise the first error as a LiftError,
    else return the warnings (the C++ compatibility notes among them)."""
    directory = os.path.dirname(os.path.abspath(path)) if path != "<stdin>" else os.getcwd()
    # The GNU dialect of the standard asked for: lift parses GNU extensions (asm statements, ...)
    # that strict ISO mode rejects, and -std=c11 is also lift's default when none is given.
    dialect = dataclasses.replace(options, std=re.sub(r"^c(?=\d)", "gnu", options.std))
    command = [find_compiler(), "-x", "c", *_CHECK_FLAGS, "-iquote", directory, *dialect.flags(), "-"]
    body = text[1:] if text.startswith("\ufeff") else text
    done = _run_bounded(command, (_name_line(path) + body).encode("utf-8", errors="surrogateescape"),
                        _CHECK_OUTPUT_BYTES, env=dict(os.environ, LC_ALL="C"))
    if done.timed_out:
        raise LiftError(path, 0, 0, f"checking the file with the C compiler took longer than "
                                    f"{PREPROCESS_TIMEOUT_S} s") from None
    named = {"<stdin>", _quote(path)[1:-1]}  # the compiler names the file as the #line does, escaped
    errors, notes = [], []
    for line in done.stderr.decode("utf-8", errors="surrogateescape").splitlines():
        m = _LINE_RE.match(line)
        if not m:
            continue
        file = path if m["file"] in named else m["file"]
        if m["kind"] in ("warning", "note"):
            option = _OPTION_RE.search(m["msg"])
            notes.append(CxxNote(m["kind"], file, int(m["line"]), int(m["col"]), _OPTION_RE.sub("", m["msg"]),
                                 option[1] if option else ""))
        else:
            errors.append(LiftError(file, int(m["line"]), int(m["col"]), m["msg"]))
    if errors:
        first = errors[0]
        if len(errors) > 1:
            d = first.diagnostic
            more = len(errors) - 1
            first = LiftError(d.path, d.line, d.column, f"{d.message} (and {more} more error{'s' * (more > 1)})")
        raise first
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", errors="surrogateescape").strip().splitlines()
        raise LiftError(path, 0, 0, detail[-1] if detail else "the C compiler rejected the file")
    return notes
