"""No subprocess of lift or of its scripts goes through a shell.

File names are user input (`lift 'a;$(rm -rf x).c'` must lift a file with that name), so
every command is an argument list handed to exec. This scans the sources of lifter/ and
scripts/ (their syntax trees, so comments and strings do not count) for the ways a shell
gets in: shell=True, os.system, os.popen, subprocess.getoutput / getstatusoutput,
asyncio.create_subprocess_shell, os.exec*/os.spawn* of a shell, and a command given as
one string.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.harness import REPO

SOURCES = sorted(p for d in ("lifter", "scripts") for p in (REPO / d).rglob("*.py"))
SHELL_FUNCTIONS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput"),
                   ("subprocess", "getstatusoutput"), ("asyncio", "create_subprocess_shell"),
                   ("pty", "spawn")}
COMMAND_FUNCTIONS = {"run", "Popen", "call", "check_call", "check_output"}
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "dash", "zsh", "cmd", "cmd.exe"}


def _dotted(node: ast.AST) -> tuple[str, ...]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.insert(0, node.id)
    return tuple(parts)


def _is_string(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_string(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join"):
        return isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
    return False


def shell_uses(source: str, filename: str = "<source>") -> list[str]:
    """Every place in `source` where a subprocess could be run through a shell."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        where = f"{filename}:{node.lineno}"
        name = _dotted(node.func)
        if name[-2:] in SHELL_FUNCTIONS:
            found.append(f"{where}: {'.'.join(name)}")
        for kw in node.keywords:
            if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                found.append(f"{where}: shell={ast.unparse(kw.value)}")
        if name and name[-1] in COMMAND_FUNCTIONS and (len(name) == 1 or name[-2] == "subprocess") and node.args:
            first = node.args[0]
            if _is_string(first):
                found.append(f"{where}: command given as one string")
            if isinstance(first, (ast.List, ast.Tuple)) and first.elts and isinstance(first.elts[0], ast.Constant) \
                    and first.elts[0].value in SHELLS:
                found.append(f"{where}: runs a shell ({first.elts[0].value})")
        if name[:1] == ("os",) and name[-1].startswith(("exec", "spawn")) and len(node.args) >= 2:
            if isinstance(node.args[0], ast.Constant) and node.args[0].value in SHELLS:
                found.append(f"{where}: {'.'.join(name)} of a shell")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_subprocess_uses_a_shell(path):
    assert shell_uses(path.read_text(encoding="utf-8"), str(path.relative_to(REPO))) == []


def test_sources_are_scanned():
    names = {str(p.relative_to(REPO)) for p in SOURCES}
    assert {"lifter/frontend/preprocess.py", "scripts/fuzz.py", "lifter/cli.py"} <= names


@pytest.mark.parametrize("code", [
    "import subprocess\nsubprocess.run('gcc x.c', shell=True)\n",
    "import subprocess\nsubprocess.run(['gcc', 'x.c'], shell=flag)\n",
    "import os\nos.system('gcc x.c')\n",
    "import os\nos.popen('ls')\n",
    "import subprocess\nsubprocess.getoutput('ls')\n",
    "import subprocess\nsubprocess.check_output(f'gcc {name}')\n",
    "import subprocess\nsubprocess.Popen('gcc ' + name)\n",
    "from subprocess import run\nrun(['sh', '-c', cmd])\n",
    "import os\nos.execvp('bash', ['bash', '-c', cmd])\n",
    "import asyncio\nasyncio.create_subprocess_shell(cmd)\n",
])
def test_scanner_finds_shells(code):
    assert shell_uses(code)


@pytest.mark.parametrize("code", [
    "import subprocess\nsubprocess.run(['gcc', name], shell=False)\n",
    "import subprocess\nsubprocess.Popen(argv, stdout=subprocess.PIPE)\n",
    "x = 'shell=True and os.system() in a string'\n",
])
def test_scanner_accepts_argument_lists(code):
    assert shell_uses(code) == []
