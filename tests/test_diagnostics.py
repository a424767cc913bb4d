"""Errors shown as gcc and clang show them (issue 18): the located message, the source line, the
caret (and range), gcc's fix-it, the macro expansion note, colour on request only, and a hint
for each unsupported GNU extension. Each test compares with what gcc 12 or clang prints for the
same input where they have an equivalent."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from lifter.diagnostics import Diagnostic
from lifter.display import SourceLines, render
from tests.cli_runner import lift

CLANG = shutil.which("clang-19") or shutil.which("clang")

UNDECLARED = "int f(int x)\n{\n    return undeclared + x;\n}\n"
MISSING_SEMI = "#include <stdio.h>\n#define N 10\n\nint main(void) {\n  int a[N];\n  a[0] = 1\n  return a[0];\n}\n"
MISSING_SEMI_COMMENT = "int g(int x)\n{\n    int y;\n    y = x * 2   /* doubled */\n    return y;\n}\n"
BAD_MACRO = "#define BAD(x) ((x) + )\nint f(int x)\n{\n    return BAD(x);\n}\n"
TYPEOF_MACRO = ("#define MAX(a,b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })\n"
                "int g(int x, int y)\n{\n    int m;\n    m = MAX(x, y);\n    return m;\n}\n")
AUTO_TYPE_MACRO = ("#define MAX(a,b) ({ __auto_type _a = (a); __auto_type _b = (b); _a > _b ? _a : _b; })\n"
                   "int g(int x, int y)\n{\n    int m;\n    m = MAX(x, y);\n    return m;\n}\n")
NESTED = "int f(int x)\n{\n    int add(int y) { return x + y; }\n    return add(1);\n}\n"
TAB_LINE = "int f(int x)\n{\n\treturn\tundeclared + x;\n}\n"


@pytest.fixture
def in_dir(tmp_path, monkeypatch):
    """Write a file in a fresh directory and work there, so both compilers name it 'in.c'."""
    monkeypatch.chdir(tmp_path)

    def make(text: str, name: str = "in.c") -> str:
        (tmp_path / name).write_text(text)
        return name
    return make


def compiler(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"), timeout=60)


def gcc_lines(path: str, *flags: str) -> list[str]:
    """gcc's diagnostics for `path`, with its 'In function' context lines (lift prints them too)."""
    done = compiler("gcc", "-fsyntax-only", "-fdiagnostics-color=never", *flags, path)
    return done.stderr.splitlines()


def test_error_from_gcc_check_is_shown_as_gcc_shows_it(in_dir):
    path = in_dir(UNDECLARED)
    r = lift(path)
    assert r.code == 1
    ours = r.stderr.splitlines()
    # message, source line, caret with the identifier's range, and gcc's note: line for line
    assert ours == gcc_lines(path)[:5]
    assert ours[0] == "in.c: In function 'f':" and ours[3].endswith("^~~~~~~~~~")


def test_missing_semicolon_points_after_the_previous_token_as_gcc(in_dir):
    path = in_dir(MISSING_SEMI)
    r = lift(path)
    assert r.code == 1
    expected = gcc_lines(path)
    assert expected[:2] == ["in.c: In function 'main':", "in.c:6:11: error: expected ';' before 'return'"]
    # gcc adds the next line (the 'return' it saw); lift shows the place and the fix-it
    assert r.stderr.splitlines() == expected[:5]


def test_missing_semicolon_before_a_comment(in_dir):
    path = in_dir(MISSING_SEMI_COMMENT)
    r = lift(path)
    assert r.stderr.splitlines()[1] == gcc_lines(path)[1] == "in.c:4:14: error: expected ';' before 'return'"


def test_syntax_error_caret_at_gccs_column(in_dir):
    path = in_dir("int f(int x)\n{\n    int y = x +;\n    return y;\n}\n")
    r = lift(path)
    theirs = gcc_lines(path)
    ours = r.stderr.splitlines()
    assert ours[1].startswith("in.c:3:16: error: ") and theirs[1].startswith("in.c:3:16: error: ")
    assert ours[2:4] == theirs[2:4]


def test_error_in_macro_expansion_has_gccs_note(in_dir):
    path = in_dir(BAD_MACRO)
    r = lift(path)
    ours, theirs = r.stderr.splitlines(), gcc_lines(path)
    assert r.code == 1
    # the error is in the definition (line 1), the note at the use, with the macro name underlined
    assert ours[0] == theirs[0] == "in.c: In function 'f':"
    assert ours[1].startswith("in.c:1:") and theirs[1].startswith("in.c:1:")
    note = theirs.index("in.c:4:12: note: in expansion of macro 'BAD'")
    assert ours[4:7] == theirs[note:note + 3]


NESTED_MACROS = ("#define INNER(x) ((x) * )\n#define OUTER(x) INNER(x + 1)\nint f(int n)\n{\n    return OUTER(n);\n}\n")


@pytest.mark.parametrize("text", [BAD_MACRO.replace("+ )", "+ * )"), NESTED_MACROS])
def test_error_in_macro_expansion_exactly_as_gcc(in_dir, text):
    """The token of the definition gcc points at, even where the definition has it several times
    (`((x) + * )`: the third `)`), and one note per macro expanded, outermost last: all as gcc."""
    path = in_dir(text)
    r = lift(path)
    assert r.code == 1 and r.stderr.splitlines() == gcc_lines(path)


def test_unsupported_extension_in_a_macro_is_named(in_dir):
    path = in_dir(AUTO_TYPE_MACRO)
    assert compiler("gcc", "-fsyntax-only", path).returncode == 0  # GNU C: gcc takes it, lift does not
    r = lift(path)
    lines = r.stderr.splitlines()
    assert r.code == 1
    assert lines[:2] == ["in.c: In function 'g':", "in.c:1:21: error: '__auto_type' (a GNU extension) is not supported"]
    assert "in.c:5:9: note: in expansion of macro 'MAX'" in lines


def test_typeof_in_a_macro_follows_the_standard(in_dir):
    """`typeof` is a keyword of the GNU dialects and C23 (gcc -std=gnu11 takes the macro, lift too);
    under ISO C11 (lift's default) gcc rejects it, and lift says why, in the definition."""
    path = in_dir(TYPEOF_MACRO)
    assert compiler("gcc", "-std=gnu11", "-fsyntax-only", path).returncode == 0
    assert lift(path, "-std=gnu11").code == 0
    assert compiler("gcc", "-std=c11", "-fsyntax-only", path).returncode != 0
    r = lift(path)
    lines = r.stderr.splitlines()
    assert r.code == 1
    assert lines[1].startswith("in.c:1:21: error: 'typeof' is not a keyword of -std=c11"), lines
    assert "in.c:5:9: note: in expansion of macro 'MAX'" in lines


GNU_LABEL = "int f(int n)\n{\n    __label__ out;\n    if (n)\n        goto out;\nout:\n    return n;\n}\n"
GNU_CASE_RANGE = "int f(int n)\n{\n    switch (n) {\n    case 1 ... 3:\n        return 1;\n    }\n    return 0;\n}\n"
GNU_LABEL_VALUE = "int f(int n)\n{\n    void *p = &&done;\n    goto *p;\ndone:\n    return n;\n}\n"


GNU_DESIGNATED_RANGE = "int f(int n)\n{\n    int a[10] = { [0 ... 9] = 1 };\n    return n + a[3];\n}\n"
GNU_ELVIS = "int f(int n)\n{\n    n = n ?: 1;\n    return n;\n}\n"
C23_ATTRIBUTE = "int f(int n)\n{\n    [[maybe_unused]] int u = 1;\n    return n;\n}\n"


@pytest.mark.parametrize("text", [GNU_LABEL, GNU_CASE_RANGE, GNU_DESIGNATED_RANGE, GNU_ELVIS, C23_ATTRIBUTE])
def test_unsupported_extension_at_gccs_place(in_dir, text):
    """gcc -pedantic names the GNU extension where it is (`ISO C forbids label declarations`,
    `range expressions in switch statements are non-standard`): lift refuses it at the same place,
    with the same caret and range, and says it is not supported."""
    path = in_dir(text)
    theirs = gcc_lines(path, "-pedantic", "-std=c11")
    assert "[-Wpedantic]" in theirs[1]
    r = lift(path)
    ours = r.stderr.splitlines()
    assert r.code == 1 and ours[0] == theirs[0] and ours[1].split(" error: ")[0] == theirs[1].split(" warning: ")[0]
    assert ours[1].endswith("are not supported") and ours[2:4] == theirs[2:4]


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_label_as_value_at_clangs_place(in_dir):
    """clang -pedantic: `use of GNU address-of-label extension` at the `&&`; lift there too. A `&&`
    between two operands is C and never taken for one."""
    path = in_dir(GNU_LABEL_VALUE)
    theirs = compiler(CLANG, "-pedantic", "-fsyntax-only", path).stderr.splitlines()
    assert theirs[0].startswith("in.c:3:15: warning: use of GNU address-of-label extension")
    ours = lift(path).stderr.splitlines()
    assert ours[1] == "in.c:3:15: error: labels as values ('&&label', 'goto *p') are not supported"
    assert ours[2:4] == [theirs[1], theirs[2] + "~~~~~"]
    path = in_dir("int f(int a, int b)\n{\n    return a && b +;\n}\n")
    first = lift(path).stderr.splitlines()[1]
    assert first.startswith("in.c:3:20: error: ") and "labels" not in first
    assert compiler(CLANG, "-fsyntax-only", path).stderr.startswith("in.c:3:20: error: ")


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_nested_function_is_named_at_clangs_column(in_dir):
    path = in_dir(NESTED)
    assert compiler("gcc", "-fsyntax-only", path).returncode == 0  # a GNU extension
    theirs = compiler(CLANG, "-fsyntax-only", path).stderr.splitlines()
    assert theirs[0] == "in.c:3:20: error: function definition is not allowed here"
    r = lift(path)
    first = r.stderr.splitlines()[1]
    assert first.startswith("in.c:3:20: error: ") and "nested function definitions (a GNU extension)" in first


@pytest.mark.parametrize("text", [
    "int f(int x)\n{\n    int y = x   +    ;\n    return y;\n}\n",  # the preprocessor makes the blanks one
    "int f(int x)\n{\n    int y = x /* plus */ + /* nothing */;\n    return y;\n}\n",  # and comments a blank
    "int f(int n)\n{\n    int \u00e9 = 3; return n +;\n}\n",  # and writes `é` as \\U000000e9
    "int f(int n)\n{\n    int \\u00e9x = 3;\n    return \\u00e9x + n +;\n}\n",
])
def test_column_in_the_users_line_as_gcc(in_dir, text):
    """The parser reads the preprocessed line; the column is the one of the same token in the
    user's line, as gcc's (and the caret under it)."""
    path = in_dir(text)
    r = lift(path)
    assert r.code == 1 and r.stderr.splitlines()[1].split(" error: ")[0] == gcc_lines(path)[1].split(" error: ")[0]
    assert r.stderr.splitlines()[0] == gcc_lines(path)[0] and r.stderr.splitlines()[2:4] == gcc_lines(path)[2:4]


@pytest.mark.parametrize("text", [
    "int f(int n)\n{\n    for (int i = 0; i < n; i++\n        n++;\n    return n;\n}\n",
    "int f(int n)\n{\n    if (n > (2\n        return 1;\n    return 0;\n}\n",
])
def test_missing_parenthesis_as_gcc(in_dir, text):
    """A line that leaves a `(` open: gcc's "expected ')'", its fix-it, and the `(` marked."""
    path = in_dir(text)
    assert lift(path).stderr.splitlines() == gcc_lines(path)[:5]


@pytest.mark.parametrize("text", [
    'int f(void)\n{\n    const char *s = "abc;\n    return 0;\n}\n',
    "int f(void)\n{\n    int c = 3 @ 4;\n    return c;\n}\n",
])
def test_lexer_errors_in_gccs_words(in_dir, text):
    path = in_dir(text)
    theirs = next(line for line in gcc_lines(path) if " error: " in line)
    assert lift(path).stderr.splitlines()[:2] == [gcc_lines(path)[0], theirs]


def test_tabs_are_expanded_as_gcc_does(in_dir):
    """The line and caret as gcc shows them (tabs to the next multiple of 8); the column counts
    characters, as everywhere in lift (gcc's -fdiagnostics-column-unit=byte -ftabstop=1)."""
    path = in_dir(TAB_LINE)
    ours = lift(path).stderr.splitlines()
    assert ours[0] == gcc_lines(path)[0] and ours[2:4] == gcc_lines(path)[2:4]
    assert ours[1] == gcc_lines(path, "-ftabstop=1", "-fdiagnostics-column-unit=byte")[1]


@pytest.mark.parametrize("flag", ["-fdiagnostics-color=always", "-fdiagnostics-color"])
def test_colour_always_matches_gcc(in_dir, flag):
    path = in_dir(MISSING_SEMI)
    theirs = compiler("gcc", "-fsyntax-only", flag, path).stderr.splitlines()
    r = lift(path, flag)
    assert "\033[01;31m\033[Kerror: \033[m\033[K" in r.stderr
    assert r.stderr.splitlines() == theirs[:5]


@pytest.mark.parametrize("flags", [[], ["-fdiagnostics-color=never"], ["-fdiagnostics-color=auto"],
                                   ["-fno-diagnostics-color"]])
def test_no_colour_off_a_terminal(in_dir, flags):
    r = lift(in_dir(UNDECLARED), *flags)
    assert r.code == 1 and "\033[" not in r.stderr


def test_bad_colour_choice_is_a_usage_error(in_dir):
    r = lift(in_dir(UNDECLARED), "-fdiagnostics-color=sometimes")
    assert r.code == 1 and r.stderr.startswith("lift: error: ")


def test_one_line_form_for_scripts():
    d = Diagnostic("a.c", 3, 5, "error", "bad", ranges=((5, 7),), fixit=";")
    assert str(d) == "a.c:3:5: error: bad"


def test_unknown_line_shows_no_snippet(tmp_path):
    d = Diagnostic(str(tmp_path / "gone.c"), 3, 5, "error", "bad")
    assert render(d, SourceLines()) == f"{d}\n"
    assert render(Diagnostic("a.c", 0, 0, "error", "no place"), SourceLines()) == "a.c: error: no place\n"


@pytest.mark.skipif(CLANG is None, reason="needs clang")
def test_remark_in_clangs_colour(in_dir):
    """gcc has no remarks; clang paints `remark:` bold blue (its escape `0;1;34`, ours in gcc's
    form `01;34`) and only when asked (`-fcolor-diagnostics`, lift's -fdiagnostics-color=always)."""
    path = in_dir("void k(int n, double *restrict a)\n{\n    for (int i = 0; i < n; i++)\n"
                  "        a[i] = 2.0 * a[i];\n}\n")
    theirs = compiler(CLANG, "-O2", "-c", "-o", os.devnull, "-Rpass=.", "-fcolor-diagnostics", path).stderr
    assert "\033[0;1;34mremark: " in theirs
    ours = lift(path, "-o", "o.c", "-Rpass=.", "-fdiagnostics-color=always").stderr
    assert "\033[01;34m\033[Kremark: \033[m\033[K" in ours
    assert "\033[" not in lift(path, "-o", "o.c", "-Rpass=.").stderr


@pytest.mark.parametrize("flags,text", [
    ([], '#include "sub/mid.h"\nint g(void) { return 0; }\n'),  # a syntax error two headers down
    ([], '#include "sub/sem.h"\nint g(void) { return h(); }\n'),  # the C compiler's error in a header
    (["-include", "sub/bad.h"], "int g(void) { return 0; }\n"),  # from <command-line>
])
def test_error_in_a_header_says_where_it_was_included_as_gcc(in_dir, tmp_path, flags, text):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.h").write_text("int f(int n)\n{\n    int y = n +;\n    return y;\n}\n")
    (tmp_path / "sub" / "mid.h").write_text('#include "bad.h"\n')
    (tmp_path / "sub" / "sem.h").write_text("static int h(void) { return undeclared_x; }\n")
    path = in_dir(text)
    theirs = compiler("gcc", "-fsyntax-only", *flags, path).stderr.splitlines()
    ours = lift(*flags, path).stderr.splitlines()
    context = [line for line in theirs if line.startswith(("In file included from ", "                 from "))]
    assert context and ours[:len(context)] == context
    first_error = next(k for k, line in enumerate(theirs) if " error: " in line)
    assert ours[len(context)] == theirs[first_error - 1] and " In function " in ours[len(context)]
    assert ours[len(context) + 1].split(" error: ")[0] == theirs[first_error].split(" error: ")[0]


def test_syntax_error_in_a_header_placed_in_the_header(in_dir, tmp_path):
    """The header's own line: its column as gcc's (blanks the preprocessor made one), and gcc's
    `;` fix-it for a missing `;` in it, as for the main file."""
    (tmp_path / "h.h").write_text("int f(int n)\n{\n    int y = n   +   ;\n    return y;\n}\n")
    path = in_dir('#include "h.h"\nint g(void) { return 0; }\n')
    ours, theirs = lift(path).stderr.splitlines(), gcc_lines(path)
    assert ours[0] == theirs[0] == "In file included from in.c:1:"
    assert ours[1:5] == theirs[1:5]
    (tmp_path / "h.h").write_text("int f(int n)\n{\n    n = n + 1\n    return n;\n}\n")
    assert lift(path).stderr.splitlines()[:6] == gcc_lines(path)[:6]


# A declaration without its `;`: gcc 12 points at the next token and says what could have come
# before it; clang 19 points after the declaration ("expected ';' at end of declaration"). lift
# places every error as gcc does, so these too (an expression statement without its `;` is placed
# after it by gcc as well: test_missing_semicolon_points_after_the_previous_token_as_gcc).
DECLARATIONS_WITHOUT_SEMICOLON = [
    "int g = 1\nint f(int x)\n{\n    return x;\n}\n",  # at file scope, with an initializer
    "int f(int x)\n{\n    int z\n    return x;\n}\n",  # no initializer: '=' could come too
    "int f(int x)\n{\n    double a[3] = {1, 2, 3}\n    return x;\n}\n",
    "int f(int x)\n{\n    int y = x\n}\n",  # before '}' token
    "typedef unsigned long size;\nint f(int x)\n{\n    size n = x\n    return n;\n}\n",  # a typedef name
]


@pytest.mark.parametrize("text", DECLARATIONS_WITHOUT_SEMICOLON)
def test_declaration_without_semicolon_as_gcc(in_dir, text):
    path = in_dir(text)
    theirs = gcc_lines(path)
    count = 4 if theirs[0].endswith("':") else 3  # the context line, then the error, its line and caret
    r = lift(path)
    assert r.code == 1 and r.stderr.splitlines() == theirs[:count]
    if CLANG:  # clang's place is another one: lift follows one compiler, gcc
        clang = compiler(CLANG, "-fsyntax-only", path).stderr.splitlines()[0]
        assert clang.split(": error: ")[0] != theirs[count - 3].split(": error: ")[0]


@pytest.mark.parametrize("text", [
    "struct s { int a; int b c; };\n",  # a struct at file scope: no function
    "int v[] = { 1, 2 3 };\n",  # an initializer
    "int f(int x, int y z) { return x; }\n",  # the parameter list, before the body on the same line
    "int f(int x) { return x +; }\n",  # the body on the same line
    "int f(int x)\n{\n    return x;\n}\nint g(int y)\n{\n    return y +;\n}\n",  # the second function
    "static double (*pick(int k))(double)\n{\n    return k ? 0 : ;\n}\n",  # a declarator around the name
])
def test_in_function_line_as_gcc(in_dir, text):
    """gcc's `in.c: In function 'f':` above an error inside a function's body, and none outside."""
    path = in_dir(text)
    theirs = gcc_lines(path)
    ours = lift(path).stderr.splitlines()
    assert ("In function" in ours[0]) == ("In function" in theirs[0])
    assert ours[0].split(" error: ")[0] == theirs[0].split(" error: ")[0]
