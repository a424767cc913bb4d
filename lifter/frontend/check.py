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
import functools
import os
import re
import threading
from dataclasses import dataclass

from lifter.diagnostics import Diagnostic, LiftError
from lifter.frontend.preprocess import (PREPROCESS_TIMEOUT_S, PreprocessOptions, _name_line, _quote,
                                        _run_bounded, find_compiler, std_spelling)
from lifter.frontend.typeof import typeof_keywords

# Warnings about C that C++ reads differently; all of them are kept (see CxxNote).
_CHECK_FLAGS = ("-fsyntax-only", "-Wc++-compat", "-Wjump-misses-init", "-Wpointer-sign", "-Wstrict-prototypes",
                "-Wimplicit-function-declaration",
                "-fdiagnostics-color=never", "-ftabstop=1")
_LINE_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<kind>(?:fatal )?error|warning|note): "
                      r"(?P<msg>.*)$")
# gcc's context lines: "k.c: In function 'f':" before the first diagnostic of a function, "k.c: At
# top level:" when the next one is outside any.
_CONTEXT_RE = re.compile(r"^(?P<file>.*?): (?:In function '(?P<name>[^']+)'|At top level):$")
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
    command = [find_compiler(), "-x", "c", *_CHECK_FLAGS, *probe_compiler(options), *_typeof_as_name(options.std),
               "-iquote", directory,
               *_dialect(options).flags(), "-"]
    body = text[1:] if text.startswith("\ufeff") else text
    done = _run_bounded(command, (_name_line(path) + body).encode("utf-8", errors="surrogateescape"),
                        _CHECK_OUTPUT_BYTES, env=dict(os.environ, LC_ALL="C"))
    if done.timed_out:
        raise LiftError(path, 0, 0, f"checking the file with the C compiler took longer than "
                                    f"{PREPROCESS_TIMEOUT_S} s") from None
    named = {"<stdin>", _quote(path)[1:-1]}  # the compiler names the file as the #line does, escaped
    errors, notes = [], []
    error_notes: list[Diagnostic] = []  # the notes after the first error (its macro expansion)
    last: list | None = None  # the record the caret lines that follow belong to
    function, error_function = "", ""  # the function gcc says the diagnostics are in
    for line in done.stderr.decode("utf-8", errors="surrogateescape").splitlines():
        m = _LINE_RE.match(line)
        if not m:
            context = _CONTEXT_RE.match(line)
            if context:
                function = context["name"] or ""
            elif last is not None:
                _read_caret_line(line, last)
            continue
        file = path if m["file"] in named else m["file"]
        last = [file, int(m["line"]), int(m["col"]), m["msg"], (), "", 0]
        if m["kind"] in ("warning", "note"):
            option = _OPTION_RE.search(m["msg"])
            notes.append(CxxNote(m["kind"], file, int(m["line"]), int(m["col"]), _OPTION_RE.sub("", m["msg"]),
                                 option[1] if option else ""))
            if m["kind"] == "note" and len(errors) == 1:
                error_notes.append(last)
        else:
            errors.append(last)
            error_function = error_function if len(errors) > 1 else function
    if errors:
        file, line, column, message, ranges, fixit, _ = errors[0]
        if len(errors) > 1:
            more = len(errors) - 1
            message = f"{message} (and {more} more error{'s' * (more > 1)})"
        shown = tuple(Diagnostic(n[0], n[1], n[2], "note", n[3], n[4], n[5]) for n in error_notes)
        raise LiftError(file, line, column, message, ranges=ranges, fixit=fixit, notes=shown, function=error_function)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", errors="surrogateescape").strip().splitlines()
        raise LiftError(path, 0, 0, detail[-1] if detail else "the C compiler rejected the file")
    return notes


def probe_compiler(options: PreprocessOptions) -> tuple[str, ...]:
    """The flags the compiler needs to check `options`' dialect as lift reads it (`_typeof_unqual_shim`).
    Its probe is a compiler run of its own, once per process: `load` starts it on a thread before
    preprocessing, so that it runs beside the preprocessor and the parser, not between them and the
    check. The lock makes whichever thread asks second wait for the first's answer, not probe again."""
    with _PROBING:
        return _typeof_unqual_shim(find_compiler(), _dialect(options).std)


_PROBING = threading.Lock()


def _dialect(options: PreprocessOptions) -> PreprocessOptions:
    """The GNU dialect of the standard asked for: lift parses GNU extensions (asm statements, ...)
    that strict ISO mode rejects, and -std=c11 is also lift's default when none is given."""
    return dataclasses.replace(options, std=re.sub(r"^c(?=\d)", "gnu", options.std))


@functools.lru_cache(maxsize=None)
def _typeof_unqual_shim(compiler: str, std: str) -> tuple[str, ...]:
    """For a compiler that does not know `typeof_unqual` (gcc before 14): flags that check it as
    `__typeof__`, which keeps the operand's qualifiers (so a write to a `typeof_unqual(const int)`
    variable is refused; gcc 14 and clang 16 on check it exactly). `typeof_unqual` only where
    lift takes it for a keyword (C23): elsewhere it is a name like any other."""
    done = _run_bounded([compiler, "-x", "c", "-fsyntax-only", f"-std={std_spelling(std)}", "-"],
                        b"__typeof_unqual__(const int) lift_probe;\n", _CHECK_OUTPUT_BYTES)
    if done.returncode == 0:
        return ()
    words = [w for w in ("__typeof_unqual__", "__typeof_unqual", "typeof_unqual") if w in typeof_keywords(std)]
    return tuple(f"-D{w}=__typeof__" for w in words)


def _typeof_as_name(std: str) -> tuple[str, ...]:
    """The file is checked in the GNU dialect of its standard, where `typeof` is a keyword; in ISO
    C before C23 it is a name (`int typeof;`), which this flag keeps it for the compiler."""
    return () if "typeof" in typeof_keywords(std) else ("-Dtypeof=__lift_name_typeof",)


_SOURCE_LINE_RE = re.compile(r"^ *\d+ \| ")
_MARK_LINE_RE = re.compile(r"^ +\| (.*)$")


def _read_caret_line(line: str, record: list) -> None:
    """Read gcc's caret display below a diagnostic into its record: the columns underlined
    (`^~~~`, one column a character under -ftabstop=1) and a fix-it hint (the `;` gcc
    proposes). The source line itself is shown again by lifter/display.py."""
    if _SOURCE_LINE_RE.match(line):
        record[6] += 1
        return
    m = _MARK_LINE_RE.match(line)
    if not m or record[6] not in (1, 2):
        return  # a second source line of the display (the next token's) is not this place
    marks, record[6] = m[1], record[6] + 1
    if record[6] == 2 and set(marks.strip()) <= set("^~"):
        record[4] = tuple((r.start() + 1, r.end()) for r in re.finditer(r"[~^]+", marks) if r.end() - r.start() > 1)
    elif record[6] == 3 and marks.strip() and "|" not in marks and not record[4]:
        record[5] = marks.strip()  # the fix-it line below a lone caret
