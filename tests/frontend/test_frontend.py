"""The frontend on real C: system headers, C99/C11 and the GNU extensions people use."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lifter.diagnostics import LiftError
from lifter.driver import LiftOptions, lift_file, lift_source
from lifter.frontend import PreprocessOptions, SourceFile, load
from lifter.frontend.parse import strip_asm
from lifter.frontend.preprocess import _quote, unescape_marker
from tests.harness import check_program

DATA = Path(__file__).parent / "data"
GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="needs gcc")


def gcc_compiles(path: Path, tmp_path: Path, std="gnu11", run=False) -> str:
    exe = tmp_path / "a.out"
    done = subprocess.run([GCC, f"-std={std}", "-fopenmp", "-Wall", "-Werror=implicit-function-declaration",
                           str(path), "-o", str(exe), "-lm"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    if run:
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr
        return ran.stdout
    return ""


@needs_gcc
def test_realworld_file_lifts_and_compiles_to_same_result(tmp_path):
    src = DATA / "realworld.c"
    result = lift_file(str(src), LiftOptions(opt_level=1))
    out = tmp_path / "realworld_omp.c"
    out.write_text(result.output, errors="surrogateescape")
    # -O1 only adds lines (directives, versioned copies of loops, which are indented one
    # level deeper): the input's lines stay, in order
    remaining = iter(line.strip() for line in result.output.splitlines())
    assert all(any(line.strip() == got for got in remaining) for line in src.read_text().splitlines())
    got = gcc_compiles(out, tmp_path, run=True)
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    assert got == gcc_compiles(src, ref_dir, run=True)


# Constructs that must parse; the output must still compile with gcc.
SUPPORTED = {
    "static_assert": "_Static_assert(sizeof(int) == 4, \"int\");\nint x;\n",
    "builtin_expect": "int f(int x){ if (__builtin_expect(x > 0, 1)) return 1; return 0; }\n",
    "stmt_expr": "int f(int x){ int y = ({ int t = x; t + 1; }); return y; }\n",
    "int128": "__int128 f(__int128 x){ return x * 2; }\nunsigned __int128 g;\n",
    "alignas": "_Alignas(16) int a[4];\nint f(void){ return _Alignof(double) + __alignof__(int); }\n",
    "thread_local": "_Thread_local int tl;\nstatic __thread int t2;\nint f(void){ return tl + t2; }\n",
    "complex": "#include <complex.h>\ndouble complex z;\ndouble f(void){ return creal(z); }\n",
    "knr": "int f(a, b) int a; double b; { return a + (int)b; }\n",
    "pragmas": "#pragma once\n#pragma GCC diagnostic ignored \"-Wunused\"\n#pragma pack(push, 1)\n"
               "struct p { char c; int i; };\n#pragma pack(pop)\nint f(void){ return 0; }\n",
    "variadic_macros": "#include <stdio.h>\n#define LOG(fmt, ...) fprintf(stderr, fmt, __VA_ARGS__)\n"
                       "#define LOG2(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)\n"
                       "void f(int x){ LOG(\"%d\\n\", x); LOG2(\"hi\\n\"); printf(\"%s\\n\", __func__); }\n",
    "noreturn": "#include <stdnoreturn.h>\n#include <stdlib.h>\n_Noreturn void die(void){ exit(1); }\n"
                "noreturn void die2(void){ abort(); }\n",
    "inline_asm": "int f(int x){ __asm__ __volatile__(\"\" ::: \"memory\");\n  __asm__(\"\" : \"+r\"(x) : \"r\"(x), \"r\"(1));\n"
                  "  asm volatile(\"nop\");\n  return x; }\nextern int g(void) __asm__(\"h\");\n",
    "attributes": "void f(void) __attribute__((noreturn));\nint __attribute__((unused)) h;\n"
                  "static void __attribute__((constructor)) init(void){}\nvoid f(void){ for(;;); }\n",
    "vla_flexible_bitfield": "struct s { unsigned a:3, b:5; int :0; };\nstruct t { int n; double d[]; };\n"
                             "void f(int n){ double a[n]; for (int i=0;i<n;i++) a[i]=i; }\n",
    "varargs": "#include <stdarg.h>\nint f(const char *fmt, ...){ va_list ap; va_start(ap, fmt);\n"
               "int r = va_arg(ap, int); double d = va_arg(ap, double); va_end(ap); return r + (int)d; }\n",
    "more_headers": "".join(f"#include <{h}.h>\n" for h in [
        "signal", "unistd", "pthread", "errno", "limits", "float", "ctype", "setjmp", "fenv", "inttypes",
        "sys/types", "sys/stat", "fcntl", "sys/mman", "wchar", "uchar", "stdatomic", "locale", "stdalign",
    ]) + "int f(void){ return INT_MAX > 0; }\n",
    "intrinsics": "#include <immintrin.h>\nint f(void){ return 0; }\n",
    "float128": "__float128 q;\n_Float128 q2;\n",
}


@needs_gcc
@pytest.mark.parametrize("name", sorted(SUPPORTED))
def test_supported_construct(tmp_path, name):
    src = tmp_path / f"{name}.c"
    src.write_text(SUPPORTED[name])
    result = lift_file(str(src))
    out = tmp_path / "out.c"
    out.write_text(result.output)
    subprocess.run([GCC, "-std=gnu11", "-fopenmp", "-c", str(out), "-o", str(tmp_path / "o.o")],
                   check=True, capture_output=True, timeout=120)


@needs_gcc
@pytest.mark.parametrize("pragma", ["#pragma omp parallel for", "#pragma GCC ivdep", "#pragma GCC unroll 4"])
def test_loop_with_its_own_pragma_still_compiles(tmp_path, pragma):
    src = tmp_path / "p.c"
    src.write_text(f"void f(int n, double *restrict a)\n{{\n{pragma}\n  for (int i = 0; i < n; i++)\n"
                   "    a[i] = 0;\n}\n")
    out = tmp_path / "out.c"
    result = lift_file(str(src))
    assert "/* lift */" not in result.output
    assert any("its own '#pragma" in e["reason"] for e in result.loops)
    out.write_text(result.output)
    subprocess.run([GCC, "-fopenmp", "-c", str(out), "-o", str(tmp_path / "o.o")], check=True,
                   capture_output=True, timeout=120)


def test_loop_with_inline_asm_is_not_parallelized():
    """An asm statement is an unknown effect for the analysis, never dropped."""
    text = ("void f(int n, double *restrict a)\n{\n  for (int i = 0; i < n; i++) {\n"
            "    a[i] = 0;\n    __asm__ __volatile__(\"\" ::: \"memory\");\n  }\n}\n")
    assert "#pragma omp" not in lift_source(text, "k.c").output


# Constructs that cannot be supported: a clean error at the right line, saying why.
UNSUPPORTED = {
    "typeof": ("int f(int x){\n  typeof(x) y = x;\n  return y; }\n", 2, "typeof"),
    "auto_type": ("int f(int x){\n  __auto_type y = x;\n  return y; }\n", 2, "__auto_type"),
    "labels_as_values": ("int f(int x){\n  void *p = &&l;\n  goto *p;\n l: return x; }\n", 2, "labels as values"),
    "case_range": ("int f(int x){\n switch(x){\n case 1 ... 5: return 1; }\n return 0; }\n", 3, "case ranges"),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_construct_is_clean_error(tmp_path, name):
    text, line, why = UNSUPPORTED[name]
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    with pytest.raises(LiftError) as info:
        lift_file(str(src))
    d = info.value.diagnostic
    assert (d.path, d.line, d.severity) == (str(src), line, "error")
    assert why in d.message


GENERIC_PROGRAM = """#include <stdio.h>
#define TWICE(x) _Generic((x), float: 2.0f * (x), default: 2 * (x))
double a[1000], b[1000];
int main(void)
{
  for (int i = 0; i < 1000; i++)
    b[i] = i;
  for (int i = 1; i < 1000; i++)
    a[i] = TWICE(b[i]) + _Generic(a[i], double: a[i - 1], default: 0);
  printf("%g %g\\n", a[999], _Generic(b[0], int: 0.0, double: b[999]));
  return 0;
}
"""


@needs_gcc
def test_generic_selection_passes_through_and_keeps_its_loop_sequential(tmp_path):
    """`_Generic` (parsed from pycparser 3.11 on) is kept as written; the analysis does not see
    which association is chosen, so a loop with one stays sequential and the remark says why.
    The chosen association here carries a dependence: a parallel loop would print another sum."""
    check_program(GENERIC_PROGRAM, "generic.c", tmp_path, threads=4)
    result = lift_file(str(tmp_path / "generic.c"))
    assert "_Generic(a[i], double: a[i - 1], default: 0)" in result.output
    assert "#pragma omp" not in result.output.split("a[i] = TWICE")[0].split("b[i] = i;")[1]
    alone = lift_source("void f(int n, double *restrict a, double *restrict b)\n{\n  for (int i = 0; i < n; i++)\n"
                        "    a[i] = _Generic(b[i], float: 1.0f, default: b[i]);\n}\n", "k.c")
    assert "#pragma omp" not in alone.output
    assert "_Generic selection (line 4)" in alone.loops[0]["reason"], alone.loops


# Units ---------------------------------------------------------------------------

def test_strip_asm_keeps_lines_and_strings():
    text = ('int f(int x){ __asm__ volatile("" ::: "memory"); if (x) asm("a" : "=r"(x)); return x; }\n'
            'int g(void) __asm__("h");\nchar *s = "asm(x)";\n'
            '{ __asm__ \n# 3 "f.h"\n volatile ("x"\n# 4 "f.h"\n);}\n')
    out = strip_asm(text)
    assert out.count("\n") == text.count("\n")
    assert out.splitlines()[0].startswith("int f(int x){ __lift_asm()")
    assert "asm" not in out.splitlines()[1]
    assert 'char *s = "asm(x)";' in out
    assert '# 3 "f.h"' in out and '# 4 "f.h"' in out
    assert strip_asm("# 1 \"/usr/include/asm/errno.h\"\nint x;\n") == "# 1 \"/usr/include/asm/errno.h\"\nint x;\n"


@pytest.mark.parametrize("path", ['a"b.c', "back\\slash.c", "new\nline.c", "caf\udce9.c", "plain.c"])
def test_marker_quoting_round_trips(path):
    assert unescape_marker(_quote(path)[1:-1]) == path


def test_coordinates_name_the_file_exactly(tmp_path):
    src = tmp_path / 'q"uote\\d.c'
    src.write_text("int main(void) { return 0; }\n")
    unit = load(SourceFile(str(src), src.read_text()), PreprocessOptions())
    assert unit.ast.ext[-1].coord.file == str(src)


def test_coordinates_undo_every_escape_of_the_line_markers():
    """gcc -E writes \\\\, \\" and \\n in a line marker's name (a tab or a byte that is not UTF-8
    as it is); pycparser keeps the escapes (and drops a trailing escaped quote)."""
    names = ['ends in "', "new\nline.h", "tab\tand\\back", "caf\udce9.h", 'q"\\"\\\\.h']
    text = "".join(f"#line 1 {_quote(name)}\nint v{k};\n" for k, name in enumerate(names))
    unit = load(SourceFile("k.c", text), PreprocessOptions())
    assert [d.coord.file for d in unit.ast.ext[-len(names):]] == names
    with pytest.raises(LiftError) as info:
        load(SourceFile("k.c", text + '#line 7 "x\\"y\\n"\nint int;\n'), PreprocessOptions())
    assert (info.value.diagnostic.path, info.value.diagnostic.line) == ('x"y\n', 7)


def test_lift_source_uses_options_defines():
    text = "#ifndef N\n#error need N\n#endif\nint a[N];\n"
    opts = LiftOptions(preprocess=PreprocessOptions(defines=["N=4"]))
    assert lift_source(text, "k.c", opts).output == text
    with pytest.raises(LiftError) as info:
        lift_source(text, "k.c")
    assert info.value.diagnostic.line == 2
