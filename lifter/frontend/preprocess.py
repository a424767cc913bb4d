"""Preprocessing with the system's C compiler, as `cc -E` would for the user's build.

pycparser parses ISO C only, so the GNU extensions that glibc's headers use are
kept out of the preprocessed text: `__GNUC__` is undefined (glibc then falls
back to its portable declarations) and the remaining extension keywords are
defined away. The user's original text is never changed by this: it is only
the input of the parser, and backends re-emit the original file.
"""
from __future__ import annotations

import functools
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from lifter.diagnostics import LiftError

# Extension keywords defined away or mapped to their ISO spelling for parsing.
ISO_SHIM_FLAGS = (
    "-U__GNUC__",
    "-U__GNUC_MINOR__",
    "-D__attribute__(x)=",
    "-D__extension__=",
    "-D__thread=_Thread_local",
    "-D_Float16=float",
    "-D__bf16=float",
    "-D__float128=long double",
    "-D_Float128=long double",
    "-D__inline=inline",
    "-D__inline__=inline",
    "-D__restrict=restrict",
    "-D__restrict__=restrict",
    "-D__const=const",
    "-D__volatile__=volatile",
    "-D__signed__=signed",
    "-D__alignof__=_Alignof",
    "-D_Noreturn=",
    "-D__builtin_offsetof(t,m)=((unsigned long)&((t*)0)->m)",
    # va_arg takes a type; for the parser it is an opaque call yielding a value of that type.
    "-D__builtin_va_arg(v,t)=(*(t*)__lift_va_arg(&(v)))",
)
# asm is not in this list: `asm(...)` statements and asm labels are rewritten
# just before parsing (see parse.strip_asm), where the context tells them apart.

PREPROCESS_TIMEOUT_S = 60
# The parser reads about 150 KB of preprocessed C a second: beyond this size a translation
# unit (or a macro that expands without bound) would take minutes and gigabytes, so it is
# refused up front. A real file with all of glibc's and the x86 intrinsics' headers is ~1.2 MB.
MAX_PREPROCESSED_BYTES = 4 * 1024 * 1024
_DIAG_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$")
_MARKER_RE = re.compile(r'^# \d+ "((?:[^"\\]|\\.)*)"', re.M)


@dataclass
class PreprocessOptions:
    """The preprocessing flags a user passes as to cc: -I, -D, -U, -include, -std, -isystem,
    -iquote, -idirafter."""

    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)  # "NAME" or "NAME=VALUE"
    undefines: list[str] = field(default_factory=list)
    forced_includes: list[str] = field(default_factory=list)
    std: str = "c11"
    max_output_bytes: int = MAX_PREPROCESSED_BYTES  # larger translation units are refused
    system_dirs: list[str] = field(default_factory=list)  # -isystem
    quote_dirs: list[str] = field(default_factory=list)  # -iquote
    after_dirs: list[str] = field(default_factory=list)  # -idirafter

    def flags(self) -> list[str]:
        flags = [f"-std={std_spelling(self.std)}"]
        for option, dirs in (("-iquote", self.quote_dirs), ("-isystem", self.system_dirs),
                             ("-idirafter", self.after_dirs)):
            for d in dirs:
                flags += [option, d]
        for d in self.include_dirs:
            flags += ["-I", d]
        for d in self.defines:
            flags.append(f"-D{d}")
        for u in self.undefines:
            flags.append(f"-U{u}")
        for inc in self.forced_includes:
            flags += ["-include", inc]
        return flags


@dataclass(eq=False)
class Preprocessed:
    """Preprocessed text (with line markers) and the files it included."""

    text: str
    included_files: list[str]


def find_compiler() -> str:
    for name in (os.environ.get("LIFT_CPP_CC", ""), "gcc", "cc", "clang"):
        if name and shutil.which(name):
            return name
    raise LiftError("lift", 0, 0, "no C compiler found to preprocess with (install gcc)")


# The C23 names older compilers (gcc before 14, clang before 18) know by their draft names.
_DRAFT_NAMES = {"c23": "c2x", "gnu23": "gnu2x"}


def std_spelling(std: str) -> str:
    """`-std=c23` as the compiler spells it: c2x where it does not know c23 yet."""
    return _draft_if_needed(find_compiler(), std) if std in _DRAFT_NAMES else std


@functools.lru_cache(maxsize=None)
def _draft_if_needed(compiler: str, std: str) -> str:
    try:
        done = subprocess.run([compiler, f"-std={std}", "-E", "-x", "c", os.devnull], capture_output=True,
                              timeout=PREPROCESS_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return _DRAFT_NAMES[std]
    return std if done.returncode == 0 else _DRAFT_NAMES[std]


def compiler_version(compiler: str) -> str:
    """The first line of `compiler --version` ('' if it says nothing): the cache key has it."""
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, timeout=PREPROCESS_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = done.stdout.decode("utf-8", errors="replace").splitlines()
    return lines[0].strip() if lines else ""


def preprocess(path: str, text: str, options: PreprocessOptions) -> Preprocessed:
    """Run the preprocessor on `text` as if it were the file `path`."""
    done = _cc_e(path, text, options, ISO_SHIM_FLAGS)
    if done.too_large:
        file, line = _last_position(done.stdout.decode("utf-8", errors="surrogateescape"), path)
        raise LiftError(file, line, 0, f"the preprocessed translation unit is larger than "
                                       f"{_megabytes(options.max_output_bytes)} (lift's limit)"
                                       + (": a macro here expands to too much text" if line else ""))
    stderr = done.stderr.decode("utf-8", errors="surrogateescape")
    if done.returncode != 0:
        raise _first_error(path, stderr)
    out = done.stdout.decode("utf-8", errors="surrogateescape").replace('"<stdin>"', _quote(path))
    return Preprocessed(out, _included_files(out, path))


def preprocess_only(path: str, text: str, options: PreprocessOptions) -> bytes:
    """`cc -E` on the file with the user's flags (none of lift's own): what `lift -E` prints."""
    done = _cc_e(path, text, options, ())
    if done.too_large:
        raise LiftError(path, 0, 0, f"the preprocessed translation unit is larger than "
                                    f"{_megabytes(options.max_output_bytes)} (lift's limit)")
    if done.returncode != 0:
        raise _first_error(path, done.stderr.decode("utf-8", errors="surrogateescape"))
    return done.stdout.replace(b'"<stdin>"', _quote(path).encode("utf-8", errors="surrogateescape"))


def _cc_e(path: str, text: str, options: PreprocessOptions, own_flags: tuple[str, ...]) -> _Finished:
    """`cc -E` on `text` named `path` (its directory searched for quoted includes), with lift's
    `own_flags` before the user's; a run past the time limit is an error here."""
    directory = os.path.dirname(os.path.abspath(path)) if path != "<stdin>" else os.getcwd()
    command = [find_compiler(), "-E", "-x", "c", *own_flags, "-iquote", directory, *options.flags(), "-"]
    # A UTF-8 byte-order mark is dropped as cc drops it (it must not precede the #line).
    body = text[1:] if text.startswith("\ufeff") else text
    done = _run_bounded(command, (_name_line(path) + body).encode("utf-8", errors="surrogateescape"),
                        options.max_output_bytes)
    if done.timed_out:
        raise LiftError(path, 0, 0, f"preprocessing took longer than {PREPROCESS_TIMEOUT_S} s") from None
    return done


@dataclass(eq=False)
class _Finished:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    too_large: bool = False


def _run_bounded(command: list[str], data: bytes, max_output: int, env: dict[str, str] | None = None) -> _Finished:
    """Run the preprocessor with `data` on stdin; stop it past the time limit or once its
    output exceeds `max_output` bytes (a macro that expands exponentially must cost neither
    minutes nor gigabytes). Input and error output go through files, so no pipe can block."""
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(data)
        stdin.seek(0)
        try:
            proc = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr, env=env)
        except OSError as exc:
            raise LiftError(command[0], 0, 0, f"cannot run the preprocessor: {exc.strerror or exc}") from None
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + PREPROCESS_TIMEOUT_S
        timed_out = too_large = False
        with proc, selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            fd = proc.stdout.fileno()
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                if not selector.select(remaining):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > max_output:
                    too_large = True
                    break
            if timed_out or too_large:
                proc.kill()
            try:
                returncode = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                returncode = proc.wait()
                timed_out = True
        stderr.seek(0)
        return _Finished(returncode, b"".join(chunks), stderr.read(), timed_out, too_large)


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


_LAST_MARKER_RE = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"[^\n]*\n', re.M)


def _last_position(text: str, path: str) -> tuple[str, int]:
    """The source line the preprocessor was writing when it was stopped (from its line markers)."""
    last = None
    for last in _LAST_MARKER_RE.finditer(text):
        pass
    if last is None:
        return path, 0
    name = unescape_marker(last.group(2))
    if name == "<stdin>":
        name = path
    line = int(last.group(1)) + text.count("\n", last.end())
    return name, line


def _name_line(path: str) -> str:
    """A `#line` naming the input as its file, so that `__FILE__` (and `#include __FILE__`, the
    self-inclusion idiom) means the file and not the preprocessor's `<stdin>`. Names with
    control characters keep `<stdin>`: the compiler's diagnostics could not be read back."""
    if path == "<stdin>" or any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        return ""
    return f"#line 1 {_quote(path)}\n"


def _quote(path: str) -> str:
    """`path` as a line marker's string, escaped as cpp does (undone by unescape_marker)."""
    out = []
    for ch in path:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_ESCAPE_RE = re.compile(rb'\\([0-7]{1,3}|.)', re.S)
# The simple escapes of C; cpp writes \n for a newline in a `#line` name, lift's _quote octal.
_SIMPLE_ESCAPES = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"a": b"\a", b"b": b"\b", b"f": b"\f",
                   b"v": b"\v"}


def unescape_marker(name: str) -> str:
    """A line marker's file name as a path: undo cpp's escapes (\\\\, \\", \\n, octal)."""
    if "\\" not in name:
        return name
    raw = name.encode("utf-8", errors="surrogateescape")

    def one(m: re.Match) -> bytes:
        esc = m.group(1)
        return bytes([int(esc, 8) & 0xFF]) if esc[:1].isdigit() else _SIMPLE_ESCAPES.get(esc, esc)

    return _ESCAPE_RE.sub(one, raw).decode("utf-8", errors="surrogateescape")


def _first_error(path: str, stderr: str) -> LiftError:
    for line in stderr.splitlines():
        m = _DIAG_RE.match(line)
        if m:
            file = path if m["file"] == "<stdin>" else m["file"]
            return LiftError(file, int(m["line"]), int(m["col"] or 0), m["msg"])
    detail = stderr.strip().splitlines()[-1] if stderr.strip() else "preprocessor failed"
    return LiftError(path, 0, 0, detail)


def _included_files(text: str, path: str) -> list[str]:
    seen: list[str] = []
    for name in _MARKER_RE.findall(text):
        name = unescape_marker(name)
        if name.startswith("<") or name == path or name in seen:
            continue
        seen.append(name)
    return seen
