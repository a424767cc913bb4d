"""C that is not C++, lifted to CUDA: nvcc compiles the .cu (it compiles C++), the emulated run
prints what the C original prints, and what cannot be made C++ is a located error naming it
(frontend/cxx_names.py, frontend/cxx_text.py, the `extern "C"` blocks of cuda_cxx.py)."""

import pytest

from lifter.diagnostics import LiftError
from tests.backend.test_cuda import host_part, lift_cuda, same_results
from tests.harness import needs_nvcc, nvcc_compiles

VLA_MALLOC = """#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 300;
    double (*A)[n] = malloc(sizeof(double[n][n]));
    double (*B)[n];
    B = malloc(sizeof(double[n][n]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = i * 0.5 + j;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            B[i][j] = A[j][i] * 2.0;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += B[i][(i * 7) % n];
    printf("%.6f\\n", s);
    free(A);
    free(B);
    return 0;
}
"""

BOOL_ENUM = """#include <stdio.h>
typedef enum { false, true } logical;
#define N 5000
static double a[N], b[N];
static logical positive(double x) { return x > 0; }
int main(void)
{
    logical ok = true;
    for (int i = 0; i < N; i++)
        b[i] = i - 10;
    for (int i = 0; i < N; i++)
        a[i] = b[i] * 2;
    for (int i = 0; i < N; i++)
        if (!positive(a[i]) && i > 10)
            ok = false;
    logical big = a[N - 1] > 100;
    printf("%d %d %f\\n", ok == true, big, a[N - 1]);
    return 0;
}
"""

KEYWORD_NAMES = """#include <stdio.h>
#define N 5000
static double x[N], y[N];
static void f(int or, int and, double *new, const double *class, double this, int template)
{
    for (int i = 0; i < or; i++)
        new[i] = class[i] * this + and + template;
}
static int xor_of(int not, int xor) { return not ^ xor; }
int main(void)
{
    int not = 3, xor = 2, typename = 1, bool = 4, private = 5;
    for (int i = 0; i < N; i++)
        y[i] = i;
    f(N, not, x, y, 1.5, xor + typename);
    double operator = 0;
    for (int i = 0; i < N; i++)
        operator += x[i];
    printf("%f %f %f %d\\n", x[1], x[N - 1], operator, xor_of(bool, private));
    return 0;
}
"""

EXTERN_C = """#include <stdio.h>
#define N 5000
static double x[N], y[N];
#ifdef __cplusplus
extern "C" {
#endif
void scale(int n, double *a, const double *b)
{
    for (int i = 0; i < n; i++)
        a[i] = 2 * b[i];
}
#ifdef __cplusplus
}
#endif
int main(void)
{
    for (int i = 0; i < N; i++)
        y[i] = i;
    scale(N, x, y);
    printf("%f\\n", x[N - 1]);
    return 0;
}
"""

NO_PROTOTYPE = """#include <stdio.h>
#include <stdlib.h>
#define N 5000
static double x[N], y[N];
int twice();
void *get(size_t n) { return calloc(n, sizeof(double)); }
int main(void)
{
    double *z = get(N);
    for (int i = 0; i < N; i++)
        y[i] = i;
    for (int i = 0; i < N; i++)
        x[i] = 2 * y[i] + z[i];
    printf("%f %d %d\\n", x[N - 1], twice(3), thrice(4));
    free(z);
    return 0;
}
int twice(int k) { return 2 * k; }
int thrice(int k) { return 3 * k; }
"""

CONST_VOID = """#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define N 5000
static int cmp(const void *a, const void *b) { const int *x = a, *y = b; return (*x > *y) - (*x < *y); }
static int v[N];
static int *none = (void *)0;
static int64_t *wide;
int main(void)
{
    for (int i = 0; i < N; i++)
        v[i] = (i * 7919) % N;
    if (none == (void*)0)
        none = v;
    wide = malloc(sizeof *wide);
    *wide = 1;
    void *raw = wide;
    int64_t *back = raw;
    qsort(v, N, sizeof v[0], cmp);
    long s = 0;
    for (int i = 0; i < N; i++)
        s += (long)v[i] * (i % 13);
    printf("%ld %d %d %d\\n", s, v[N - 1], *none, (int)*back);
    free(wide);
    return 0;
}
"""

CASES = ["VLA_MALLOC", "BOOL_ENUM", "KEYWORD_NAMES", "EXTERN_C", "NO_PROTOTYPE", "CONST_VOID"]


@pytest.mark.parametrize("name", CASES)
def test_emulated_run_prints_what_the_original_prints(name, tmp_path):
    same_results(globals()[name], tmp_path, rtol=1e-9)


@needs_nvcc
@pytest.mark.parametrize("name", CASES)
def test_nvcc_compiles_it(name, tmp_path):
    nvcc_compiles(tmp_path / f"{name.lower()}.cu", lift_cuda(globals()[name]).output, warnings=False)


def test_what_each_case_became():
    vla = host_part(lift_cuda(VLA_MALLOC).output)
    assert "double (*A)[n] = (double (*)[n])(void *)(malloc(sizeof(double[n][n])));" in vla
    assert "B = (double (*)[n])(void *)(malloc(sizeof(double[n][n])));" in vla
    enum = host_part(lift_cuda(BOOL_ENUM).output)
    assert "typedef enum { lift_cxx_false, lift_cxx_true } logical;" in enum
    assert "return (logical)(x > 0);" in enum and "logical big = (logical)(a[N - 1] > 100);" in enum
    words = lift_cuda(KEYWORD_NAMES)
    assert "kernel_f_i_L6" in words.outcomes[0].offload.kernels
    assert "lift_cxx_template" in words.output and "lift_cxx_or" in words.output
    assert "template <typename LIFT_T0" in words.output, "lift's own template line is kept"
    externc = lift_cuda(EXTERN_C)
    assert externc.outcomes[0].offload.offloaded, "the function inside extern \"C\" is found"
    assert '} /* extern "C" */\n/* lift: loop over \'i\'' in externc.output
    proto = host_part(lift_cuda(NO_PROTOTYPE).output)
    assert "int twice(int k);" in proto and "\nint thrice(int k); " in proto
    assert "double *z = (double *)(void *)(get(N));" in proto
    null = host_part(lift_cuda(CONST_VOID).output)
    assert "static int *none = nullptr;" in null and "if (none == nullptr)" in null
    assert "int64_t *back = (int64_t *)(void *)(raw);" in null, "the type as written, not its {aka ...}"
    signs = host_part(lift_cuda("unsigned g;\nvoid h(int *p) { (void)p; }\n"
                                "int *f(void) { unsigned *q = &g; int *a = q; h(a); a = q; h(q); return q; }\n").output)
    assert "int *a = (int *)(q); h(a); a = (int *)(q); h((int *)(q)); return (int *)(q); }" in signs


# text, line, words of the message
REFUSED = {
    "enum_increment": ("enum e { A, B };\nint f(void)\n{\n    enum e v = A;\n    v++;\n    return v;\n}\n", 5,
                       "increment of enumeration value"),
    "const_discarded": ("double f(const double *p)\n{\n    double *q = p;\n    return *q;\n}\n", 3,
                        "discards 'const'"),
    "unnamed_type": ("#include <stdlib.h>\nstruct { int a; } *s;\nvoid f(void)\n{\n    s = malloc(8);\n}\n", 5,
                     "has no name"),
    "external_without_prototype": ("int ext();\nint f(void)\n{\n    return ext(1, 2);\n}\n", 1,
                                   "'ext' is declared without a prototype"),
    "implicit_external": ("int f(void)\n{\n    return ext(1, 2);\n}\n", 3, "implicit declaration of function 'ext'"),
    "atomic": ("_Atomic int counter;\nint f(void)\n{\n    return counter += 1;\n}\n", 1, "'_Atomic'"),
    "array_designator": ("int f(void)\n{\n    int a[5] = { [3] = 4 };\n    return a[3];\n}\n", 3, "array designators"),
    "jump_over_initialization": ("int f(int k)\n{\n    if (k) goto out;\n    int y = 3;\n    k += y;\nout:\n"
                                 "    return k;\n}\n", 3, "jump skips variable initialization"),
    "duplicate_declaration": ("int x;\nint x;\nint f(void)\n{\n    return x;\n}\n", 2, "duplicate declaration"),
    "distinct_pointer_comparison": ("int f(int *p, unsigned *q)\n{\n    return p == q;\n}\n", 3,
                                    "comparison of distinct pointer types"),
    "volatile_struct_copy": ("struct s { int a; };\nvolatile struct s g;\nint f(void)\n{\n    struct s l = { 1 };\n"
                             "    g.a = 2;\n    g = l;\n    return g.a;\n}\n", 7, "whole volatile struct"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_cannot_be_cxx_is_a_located_error(name):
    text, line, words = REFUSED[name]
    with pytest.raises(LiftError) as info:
        lift_cuda(text)
    d = info.value.diagnostic
    assert (d.path, d.line) == ("k.c", line) and d.column > 0
    assert words in d.message and "C++" in d.message
    lift_source_openmp = pytest.importorskip("lifter").lift_source
    assert lift_source_openmp(text, "k.c").output == text, "the OpenMP target accepts it as it is"


def test_a_header_is_not_edited_so_what_it_needs_is_an_error_there(tmp_path):
    (tmp_path / "h.h").write_text("#include <stdlib.h>\nstatic inline double *mk(int n) { return malloc(n * 8); }\n"
                                  "static inline void *raw(int n) { return malloc(n); }\n")
    src = tmp_path / "k.c"
    src.write_text('#include "h.h"\nint main(void) { double *p = mk(3); free(p); return (int)(long)raw(0); }\n')
    assert "{ return malloc(n * 8); }" in lift_cuda(src.read_text(), str(src)).output, "malloc: the wrapper converts"
    (tmp_path / "h.h").write_text((tmp_path / "h.h").read_text() + "static double *mk2(void) { return raw(8); }\n")
    with pytest.raises(LiftError) as info:
        lift_cuda(src.read_text(), str(src))
    d = info.value.diagnostic
    assert (d.path, d.line) == (str(tmp_path / "h.h"), 4) and "header" in d.message
