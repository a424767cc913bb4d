"""The parsed headers kept between runs (lifter/frontend/header_cache.py) never change a parse.

Each test parses with the cache in a folder of its own: the AST must be the one a parse of the
whole text gives, with the entry missing, present, damaged, written by two processes at once,
or impossible to write, and a changed header or changed macros must never reuse an entry.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pycparser import c_ast

from lifter.frontend import PreprocessOptions, SourceFile, header_cache, load
from lifter.frontend.preprocess import preprocess

parse_module = importlib.import_module("lifter.frontend.parse")
ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(p for p in (ROOT / "corpus").rglob("*.c") if "apps" not in p.parts)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "headers"
    monkeypatch.setenv(header_cache.CACHE_ENV, str(folder))
    return folder


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.bin"))


def dump(node: c_ast.Node) -> list:
    """Every node of the AST with its attributes and position, in order."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append((type(n).__name__, [(a, repr(getattr(n, a))) for a in n.attr_names], str(n.coord)))
        stack.extend(child for _, child in reversed(n.children()))
    return out


def parsed_whole(text: str, path: str, monkeypatch) -> list:
    with monkeypatch.context() as m:
        m.setattr(parse_module, "_parse_with_kept_headers", lambda text, path: None)
        return dump(parse_module.parse(text, path))


@pytest.mark.parametrize("path", CORPUS[::7], ids=lambda p: str(p.relative_to(ROOT / "corpus")))
def test_the_ast_is_the_whole_parse_before_and_after_the_entry_is_written(path, cache, monkeypatch):
    text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
    expected = parsed_whole(text, str(path), monkeypatch)
    assert dump(parse_module.parse(text, str(path))) == expected  # written
    assert entries(cache)
    assert dump(parse_module.parse(text, str(path))) == expected  # read


def test_files_with_the_same_includes_share_one_entry(cache):
    for name in ("gemm.c", "lu.c", "atax.c"):
        path = ROOT / "corpus" / "suite" / name
        load(SourceFile(str(path), path.read_text()), PreprocessOptions())
    assert len(entries(cache)) == 1


def typedef_of(unit, name: str) -> str:
    decl = next(e for e in unit.ast.ext if isinstance(e, c_ast.Typedef) and e.name == name)
    return " ".join(decl.type.type.names)


def program(tmp_path: Path, header: str) -> SourceFile:
    (tmp_path / "h.h").write_text(header)
    text = '#include <stdio.h>\n#include "h.h"\nint main(void) { T x = 1; printf("%d\\n", (int)x); return 0; }\n'
    (tmp_path / "k.c").write_text(text)
    return SourceFile(str(tmp_path / "k.c"), text)


def test_a_changed_header_is_parsed_again(tmp_path, cache):
    source = program(tmp_path, "typedef int T;\n")
    assert typedef_of(load(source, PreprocessOptions()), "T") == "int"
    program(tmp_path, "typedef long T;\n")
    assert typedef_of(load(source, PreprocessOptions()), "T") == "long"
    assert len(entries(cache)) == 2


def test_changed_macros_are_parsed_again(tmp_path, cache):
    source = program(tmp_path, "#ifdef WIDE\ntypedef long T;\n#else\ntypedef short T;\n#endif\n")
    assert typedef_of(load(source, PreprocessOptions(defines=["WIDE"])), "T") == "long"
    assert typedef_of(load(source, PreprocessOptions()), "T") == "short"
    assert typedef_of(load(source, PreprocessOptions(defines=["WIDE"])), "T") == "long"


def test_a_header_name_reused_as_a_variable_is_refused_as_before(tmp_path, cache, monkeypatch):
    """The rest is parsed knowing the headers' names: a typedef name of a header declared again as
    a variable is pycparser's error, with or without the entry."""
    (tmp_path / "h.h").write_text("typedef int T;\n")
    text = '#include "h.h"\nint f(void) { return 0; }\nint T;\n'
    path = str(tmp_path / "k.c")
    pre = preprocess(path, text, PreprocessOptions()).text
    for _ in range(2):
        with pytest.raises(Exception) as error:
            parse_module.parse(pre, path)
        assert "previously declared as typedef" in str(error.value)


@pytest.mark.parametrize("damage", [b"", b"garbage", None])
def test_a_damaged_entry_is_a_miss_and_written_again(damage, cache, monkeypatch):
    path = ROOT / "corpus" / "suite" / "gemm.c"
    text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
    expected = parsed_whole(text, str(path), monkeypatch)
    parse_module.parse(text, str(path))
    [entry] = entries(cache)
    data = entry.read_bytes()
    entry.write_bytes(data[:len(data) // 2] if damage is None else damage)
    assert dump(parse_module.parse(text, str(path))) == expected
    assert entry.read_bytes() == data


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(header_cache.CACHE_ENV, str(tmp_path / "file" / "headers"))
    path = ROOT / "corpus" / "suite" / "gemm.c"
    text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
    assert dump(parse_module.parse(text, str(path))) == parsed_whole(text, str(path), monkeypatch)


def test_an_empty_setting_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv(header_cache.CACHE_ENV, "")
    assert header_cache.directory() is None


def test_processes_writing_at_once_all_parse_right(cache, monkeypatch):
    """Two processes lift files with the same headers, each many times, starting with no entry:
    every result is the whole parse's, and the entry left is whole."""
    files = [ROOT / "corpus" / "suite" / n for n in ("gemm.c", "lu.c")]
    expected = {}
    for path in files:
        text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
        expected[str(path)] = len(parsed_whole(text, str(path), monkeypatch))
    script = (
        "import importlib, sys\n"
        "from lifter.frontend import PreprocessOptions, header_cache\n"
        "from lifter.frontend.preprocess import preprocess\n"
        "P = importlib.import_module('lifter.frontend.parse')\n"
        "path, want = sys.argv[1], int(sys.argv[2])\n"
        "text = preprocess(path, open(path).read(), PreprocessOptions()).text\n"
        "for _ in range(8):\n"
        "    folder = header_cache.directory()\n"
        "    for e in __import__('glob').glob(folder + '/*/*.bin') if _ % 3 == 0 else ():\n"
        "        try:\n"
        "            __import__('os').unlink(e)\n"
        "        except FileNotFoundError:\n"
        "            pass  # the other process of the same file removed it first\n"
        "    stack, count = [P.parse(text, path)], 0\n"
        "    while stack:\n"
        "        n = stack.pop(); count += 1; stack.extend(c for _, c in n.children())\n"
        "    assert count == want, (count, want)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(p), str(expected[str(p)])], cwd=ROOT,
                              env=dict(os.environ), stderr=subprocess.PIPE, text=True) for p in files * 2]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    for path in files:
        text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
        assert header_cache.load(header_cache.key(header_cache.split(parse_module.PRELUDE + text)[0])) is not None


def test_an_entry_in_a_folder_only_to_read_from_is_used(cache, monkeypatch):
    path = ROOT / "corpus" / "suite" / "gemm.c"
    text = preprocess(str(path), path.read_text(), PreprocessOptions()).text
    parse_module.parse(text, str(path))

    def refused(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(os, "utime", refused)
    assert header_cache.load(header_cache.key(header_cache.split(parse_module.PRELUDE + text)[0])) is not None


def test_no_cache_keeps_no_parsed_headers(cache, tmp_path):
    path = ROOT / "corpus" / "suite" / "gemm.c"
    for flags, kept in ((["--no-cache"], False), ([], True)):
        done = subprocess.run([sys.executable, "-m", "lifter", *flags, str(path), "-o", str(tmp_path / "out.c")],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert bool(entries(cache)) == kept


def test_lines_are_cut_at_newlines_only(tmp_path, cache, monkeypatch):
    """A form feed or a line separator in a header's string is no line break: text after it that
    looks like a line marker is not one."""
    (tmp_path / "h.h").write_text('static const char *s = "a\f# 1 \\"k.c\\" 2\u2028# 2 \\"k.c\\"";\ntypedef int T;\n')
    text = '#include "h.h"\nT f(void) { return s[0]; }\n'
    path = str(tmp_path / "k.c")
    pre = preprocess(path, text, PreprocessOptions()).text
    head, rest = header_cache.split(parse_module.PRELUDE + pre)
    assert "typedef int T;" in head and "T f(void)" in rest
    expected = parsed_whole(pre, path, monkeypatch)
    assert dump(parse_module.parse(pre, path)) == expected
    assert dump(parse_module.parse(pre, path)) == expected
