"""The cc flags people carry in CPPFLAGS and CFLAGS (issue 18): -isystem, -iquote, -idirafter, -x c,
-std= up to c23, '-' for standard input, -E; usage errors in the compiler's form; --help grouped,
one line per option, every option in docs/options.md. Compared with gcc where it has the flag."""
from __future__ import annotations

import os
import re
import subprocess

import click
import pytest

from lifter.cli import lift as command
from tests.cli_runner import lift

ROOT = os.path.join(os.path.dirname(__file__), "..")
USES_HEADERS = '#include <sys_only.h>\n#include "quoted.h"\nint v = SYS + QUOTED;\n'
LOOP = "void axpy(int n, double a, double *restrict x, double *restrict y)\n{\n    for (int i = 0; i < n; i++)\n" \
       "        y[i] += a * x[i];\n}\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "sys_only.h").write_text("#define SYS 1\n")
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "quoted.h").write_text("#define QUOTED 2\n")
    (tmp_path / "in.c").write_text(USES_HEADERS)
    return tmp_path


def gcc(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", *argv], capture_output=True, text=True, input=stdin, timeout=60,
                          env=dict(os.environ, LC_ALL="C"))


@pytest.mark.parametrize("flags", [
    ["-isystem", "sys", "-iquote", "q"],
    ["-isystemsys", "-iquoteq"],
    ["-idirafter", "sys", "-iquote", "q"],
    ["-idiraftersys", "-I", "q"],
])
def test_include_dir_flags_as_gcc(tree, flags):
    assert gcc("-fsyntax-only", *flags, "in.c").returncode == 0
    r = lift("in.c", *flags, "-o", "-")
    assert r.code == 0, r.stderr
    assert r.stdout.decode() == USES_HEADERS


def test_iquote_is_not_for_angle_brackets(tree):
    """`-iquote q` does not find <quoted.h>, for gcc nor for lift."""
    (tree / "angle.c").write_text("#include <quoted.h>\nint v = QUOTED;\n")
    assert gcc("-fsyntax-only", "-iquote", "q", "angle.c").returncode != 0
    r = lift("angle.c", "-iquote", "q")
    assert r.code == 1 and r.stderr.startswith("angle.c:1:10: error: quoted.h: No such file or directory")


@pytest.mark.parametrize("flags", [["-x", "c"], ["-xc"], ["-x", "none"]])
def test_language_c(tree, flags):
    (tree / "k.c").write_text(LOOP)
    assert lift(*flags, "k.c", "-o", "out.c").code == 0


def test_other_language_is_a_usage_error(tree):
    (tree / "k.c").write_text(LOOP)
    r = lift("-x", "c++", "k.c")
    assert r.code == 1 and r.stderr.startswith("lift: error: ") and "c++" in r.stderr


@pytest.mark.parametrize("std,gcc_std", [("c23", "c2x"), ("gnu23", "gnu2x"), ("c2x", "c2x"), ("c17", "c17"),
                                         ("gnu90", "gnu90")])
def test_std_up_to_c23_as_gcc_reads_it(tree, std, gcc_std):
    (tree / "v.c").write_text("long v = __STDC_VERSION__;\n")
    known = gcc(f"-std={std}", "-E", "-P", "v.c")
    expected = (known if known.returncode == 0 else gcc(f"-std={gcc_std}", "-E", "-P", "v.c")).stdout
    r = lift(f"-std={std}", "-E", "v.c")
    assert r.code == 0, r.stderr
    ours = [line for line in r.stdout.decode().splitlines() if line and not line.startswith("#")]
    assert ours == [line for line in expected.splitlines() if line]


def test_E_prints_what_cc_E_prints(tree):
    (tree / "m.c").write_text('#include "quoted.h"\n#define TWICE(x) ((x) + (x))\nint f(int a) { return TWICE(a) + '
                              'QUOTED; }\n')
    theirs = gcc("-E", "-iquote", "q", "m.c").stdout
    r = lift("-E", "-iquote", "q", "m.c")
    assert r.code == 0

    def code(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert code(r.stdout.decode()) == code(theirs)
    assert '# 1 "m.c"' in r.stdout.decode()
    assert lift("-E", "-iquote", "q", "m.c", "-o", "m.i").code == 0
    assert code(open("m.i").read()) == code(theirs)


def test_E_error_is_located(tree):
    (tree / "bad.c").write_text("#include <nowhere.h>\n")
    r = lift("-E", "bad.c")
    assert r.code == 1 and r.stderr.startswith("bad.c:1:10: error: nowhere.h: No such file or directory")


def run_lift(*argv: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(["lift", *argv], capture_output=True, text=True, input=stdin, timeout=120)


def test_standard_input(tree):
    (tree / "k.c").write_text(LOOP)
    from_file = run_lift("k.c", "-o", "-", stdin="")
    from_stdin = run_lift("-", "-o", "-", stdin=LOOP)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout and "#pragma omp" in from_stdin.stdout
    assert run_lift("-", stdin=LOOP).stdout == from_file.stdout  # stdout is the default output
    assert run_lift("-x", "c", "-", "-o", "o.c", stdin=LOOP).returncode == 0
    assert open("o.c").read() == from_file.stdout


def test_standard_input_errors_are_named_as_gcc_names_them(tree):
    bad = "int f(int x)\n{\n    return undeclared + x;\n}\n"
    theirs = gcc("-fsyntax-only", "-x", "c", "-", stdin=bad).stderr.splitlines()
    ours = run_lift("-", stdin=bad)
    assert ours.returncode == 1
    assert ours.stderr.splitlines()[:2] == theirs[:2] == ["<stdin>: In function 'f':",
                                                           next(line for line in theirs if "error:" in line)]


def test_standard_input_E(tree):
    r = run_lift("-E", "-iquote", "q", "-", stdin='#include "quoted.h"\nint v = QUOTED;\n')
    assert r.returncode == 0 and "int v = 2;" in r.stdout


def test_standard_input_is_one_input(tree):
    r = lift("-", "in.c", "-d", "out")
    assert r.code == 1 and r.stderr.startswith("lift: error: ")


def test_unknown_option_as_gcc_says_it(tree):
    theirs = gcc("--bogus-flag", "in.c").stderr.splitlines()[0]
    r = lift("--bogus-flag", "in.c")
    assert r.code == 1
    assert r.stderr.splitlines() == [theirs.replace("gcc: ", "lift: ", 1)]


@pytest.mark.parametrize("argv", [["-x"], ["in.c", "-o"], ["in.c", "-include"], ["in.c", "-isystem"], ["in.c", "-I"],
                                  ["in.c", "-D"], ["in.c", "-U"], ["in.c", "-MF"], ["in.c", "-MT"],
                                  ["in.c", "-fdiagnostics-color=bogus"]])
def test_usage_error_words_as_gccs(tree, argv):
    """A flag without its value, or with a value it does not take: gcc's first line, word for word."""
    theirs = gcc("-fsyntax-only", *argv).stderr.splitlines()[0]
    r = lift(*argv)
    assert r.code == 1
    assert r.stderr.splitlines()[0].split("; valid")[0] == theirs.replace("gcc: ", "lift: ", 1)


def test_bad_std_names_the_flag_as_typed(tree):
    """gcc: `unrecognized command-line option '-std=c44'`; lift names it as typed too (not
    click's `'--std' / '-std'`) and lists the standards it knows on the same line."""
    assert "'-std=c44'" in gcc("-std=c44", "-fsyntax-only", "in.c").stderr
    r = lift("in.c", "-std=c44")
    assert r.code == 1 and r.stderr.startswith("lift: error: unrecognized argument in option '-std=c44'; ")
    assert "c23" in r.stderr and "--std" not in r.stderr
    r = lift("in.c", "--target", "opencl")
    assert r.stderr == "lift: error: unrecognized argument 'opencl' to option '--target'; valid arguments are: " \
                       "openmp, cuda, mpi\n"


def test_click_messages_in_gccs_case(tree):
    """click's sentences ("Invalid value ... 0<=x<=2.") in a compiler's form: lower case, no full stop."""
    r = lift("in.c", "--opt-level", "5")
    assert r.code == 1 and r.stderr.startswith("lift: error: invalid value for '--opt-level'")
    assert not r.stderr.rstrip().endswith(".")


@pytest.mark.parametrize("argv", [[], ["in.c", "--tile-sizes", "1"], ["in.c", "--target", "opencl"],
                                  ["in.c", "-o"], ["in.c", "in.c"], ["in.c", "-std=c44"]])
def test_usage_errors_are_one_compiler_line(tree, argv):
    r = lift(*argv)
    assert r.code == 1 and "Usage:" not in r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("lift: error: ")


def test_help_is_grouped_one_line_per_option():
    r = lift("--help")
    assert r.code == 0
    text = r.stdout.decode()
    titles = ["Input and preprocessing:", "Optimization:", "Output and reports:", "Batch and make:"]
    assert [t for t in titles if t in text] == titles
    body = text[text.index(titles[0]):]
    for line in body.splitlines():
        assert line == "" or line.endswith(":") or re.match(r"^  \S", line), f"wrapped: {line!r}"
    options = [p for p in command.params if isinstance(p, click.Option)]
    rows = [line for line in body.splitlines() if line.startswith("  ")]
    assert len(rows) == len(options) + 2  # and INPUT.c..., --help


def test_docs_options_names_every_option():
    doc = open(os.path.join(ROOT, "docs", "options.md")).read()
    for p in command.params:
        if isinstance(p, click.Option) and p.name not in ("help", "version"):
            spellings = p.opts + p.secondary_opts
            assert any(s in doc for s in spellings) or p.name in ("rpass", "rpass_missed", "rpass_analysis",
                                                                 "opt_info", "color", "language"), p.name
    for flag in ("-Rpass=REGEX", "-fopt-info", "-fdiagnostics-color", "-x c", "-E", "-isystem", "-iquote",
                 "-idirafter", "c23"):
        assert flag in doc, flag
