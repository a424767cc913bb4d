"""Make dependency files, as `cc -MD` / `-MMD` write them.

`dependency_rule` is a Make rule naming the input and the headers it included (`dependencies`
chooses and names them; -MMD leaves out the compiler's system headers); `make_quote` is cc's
-MQ quoting. Used by the single-file command line and by the batch runner alike.
"""
from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass, field

from lifter.diagnostics import LiftError


@dataclass
class DepOptions:
    """cc's -MD (all headers), -MMD (user headers only), -MF, -MT/-MQ and -MP."""

    system: bool = True          # -MD lists system headers too; -MMD does not
    phony: bool = False          # -MP: an empty rule per header, so a removed header does not break make
    file: str | None = None      # -MF: where the rule goes (default: the output with suffix .d)
    targets: list[str] = field(default_factory=list)  # -MT (as written) and -MQ (quoted for make)


def make_quote(name: str) -> str:
    """A file name as make reads it in a rule (what cc's -MQ does): `$` doubled, blanks and `#` escaped."""
    out = []
    for i, ch in enumerate(name):
        if ch in " \t":
            j = i - 1  # backslashes before a blank are doubled
            while j >= 0 and name[j] == "\\":
                out.append("\\")
                j -= 1
            out.append("\\" + ch)
        elif ch == "$":
            out.append("$$")
        elif ch == "#":
            out.append("\\#")
        else:
            out.append(ch)
    return "".join(out)


@functools.lru_cache(maxsize=None)
def system_include_dirs(compiler: str | None = None) -> tuple[str, ...]:
    """The compiler's built-in `#include <...>` directories (real paths), as `cc -E -v` lists them."""
    from lifter.frontend.preprocess import find_compiler

    try:
        done = subprocess.run([compiler or find_compiler(), "-E", "-x", "c", "-v", "-"], input=b"",
                              capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired, LiftError):
        return ("/usr/include", "/usr/local/include")
    dirs, inside = [], False
    for line in done.stderr.decode("utf-8", errors="replace").splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            d = line.strip().removesuffix(" (framework directory)")
            dirs.append(os.path.realpath(d))
    return tuple(dirs) or ("/usr/include", "/usr/local/include")


def is_system_header(path: str) -> bool:
    real = os.path.realpath(path)
    return any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in system_include_dirs())


def dependencies(included_files: list[str], system: bool = True) -> list[str]:
    """The headers a lifted file depends on, as make should name them.

    With system=False (-MMD), headers in the compiler's system directories are left
    out. Headers below the current directory are named relative to it (as cc names
    a header next to the file it compiles); others keep the path cc reported.
    """
    cwd = os.getcwd()
    out: list[str] = []
    for name in included_files:
        if not system and is_system_header(name):
            continue
        if os.path.isabs(name):
            rel = os.path.relpath(name, cwd)
            if not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
                name = rel
        if name not in out:
            out.append(name)
    return out


def dependency_rule(targets: list[str], source: str, headers: list[str], phony: bool = False) -> str:
    """`targets: source headers...` wrapped like cc's, plus `header:` lines with phony=True (-MP).

    `targets` are written as given (quote them with make_quote for -MQ); the
    prerequisites are quoted here.
    """
    words = [make_quote(source)] + [make_quote(h) for h in headers]
    lines, line = [], " ".join(targets) + ":"
    for w in words:
        if len(line) + 1 + len(w) > 78 and not line.endswith(":"):
            lines.append(line + " \\")
            line = " " + w
        else:
            line += " " + w
    lines.append(line)
    text = "\n".join(lines) + "\n"
    if phony:
        text += "".join(f"\n{make_quote(h)}:\n" for h in headers)
    return text


def default_depfile(output: str) -> str:
    """cc's rule for -MD without -MF: the output's name with its suffix replaced by `.d`."""
    return os.path.splitext(output)[0] + ".d"
