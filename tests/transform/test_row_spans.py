"""Run-time ranges of row loops (analysis/row_ranges.py, transform/row_spans.py): a CSR product
with the matrix in a struct and unannotated `double *` vectors is parallel under a test of the
row offsets and the column indices, which every overlap of the output with what the rows read
fails, so those calls run as written."""
import re
import subprocess

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, compile_c, have_gcc, loops_by_function, run

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int nrows;
    int *rowptr;
    int *col;
    double *val;
} Csr;

#ifdef PROBE
int probe(const Csr *a, const double *x, double *y);
#define REPORT(a, x, y) printf("test %d\\n", probe(a, x, y))
#else
#define REPORT(a, x, y) ((void)0)
#endif

/* external linkage: the callers, and so the overlaps, are unknown */
void spmv(const Csr *a, const double *x, double *y)
{
    for (int i = 0; i < a->nrows; i++) {
        double sum = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            sum += a->val[k] * x[a->col[k]];
        y[i] = sum;
    }
}

static double checksum(int n, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * (1 + i % 13);
    return s;
}

/* a tridiagonal matrix of n rows in `val` (which may be part of a larger buffer) */
static void tridiagonal(Csr *a, int n, double *val)
{
    int k = 0;
    a->nrows = n;
    a->val = val;
    a->rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0) { a->col[k] = i - 1; a->val[k++] = -1.0 + (i % 3) * 0.125; }
        a->col[k] = i; a->val[k++] = 4.0;
        if (i < n - 1) { a->col[k] = i + 1; a->val[k++] = -1.0 - (i % 5) * 0.0625; }
        a->rowptr[i + 1] = k;
    }
}

static void fill(int n, double *v, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = 1.0 + ((i * 7 + seed) % 19) * 0.25;
}

#define CALL(a, x, y, n, label) do { REPORT(a, x, y); spmv(a, x, y); printf("%s %.12e\\n", label, checksum(n, y)); } while (0)

int main(void)
{
    int n = 120000, nnz = 3 * n;  /* n and nnz above PARALLEL_SCAN: both passes are shared */
    Csr a;
    a.rowptr = malloc(sizeof(int) * (n + 1));
    a.col = malloc(sizeof(int) * nnz);
    double *val = malloc(sizeof(double) * nnz);
    double *buf = malloc(sizeof(double) * (2 * n + 8));
    double *y = malloc(sizeof(double) * n);
    tridiagonal(&a, n, val);

    fill(n, buf, 1);
    CALL(&a, buf, y, n, "distinct");                 /* apart: the parallel loop */
    CALL(&a, buf, buf + n, n, "adjacent");           /* x and y one after the other in one buffer */
    CALL(&a, buf, buf, n, "in-place");               /* y is x */
    fill(n + 8, buf, 2);
    CALL(&a, buf, buf + 7, n, "shifted");            /* y overlaps x shifted by 7 */

    /* y inside the matrix values: each row's result changes values later rows read */
    double *big = malloc(sizeof(double) * (nnz + n));
    tridiagonal(&a, n, big);
    fill(n, buf, 3);
    CALL(&a, buf, big + nnz - n / 2, n, "over-values");

    /* one decrease near the end, in the last thread's share of the pass over the offsets */
    tridiagonal(&a, n, val);
    a.rowptr[n - 2] = a.rowptr[n - 1] + 1;
    CALL(&a, buf, y, n, "decreasing-late");
    tridiagonal(&a, n, val);

    /* offsets that decrease: row 1 is empty ([5, 0)), row 2 reads val[0..3), below rowptr[0] = 4:
       rowptr[0] .. rowptr[4] does not bound what the rows read */
    int *saved = a.rowptr;
    int odd[5] = {4, 5, 0, 3, 9};
    double small[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int cols[9] = {0, 1, 2, 3, 0, 1, 2, 3, 0};
    double xs[4] = {0.5, 0.25, 2.0, 1.5};
    a.rowptr = odd;
    a.col = cols;
    a.val = small;
    a.nrows = 4;
    CALL(&a, xs, small, 4, "decreasing");            /* y over val[0..3], read by row 2 */
    printf("%g %g %g\\n", small[0], small[2], small[4]);
    a.rowptr = saved;
    free(val); free(buf); free(y); free(big); free(saved);
    return 0;
}
"""


def _spmv():
    return next(e for e in loops_by_function(PROGRAM)["spmv"] if e["depth"] == 0)


def test_the_row_loop_is_parallel_under_tests_of_the_offsets_and_indices():
    entry = _spmv()
    assert entry["parallelized"], entry["remark"]
    assert "lift_nondecreasing_int" in entry["condition"] and "lift_gather_apart_int" in entry["condition"]
    # the cheap tests first, the pass over the column indices last
    assert entry["condition"].index("lift_nondecreasing_int") < entry["condition"].index("lift_gather_apart_int")


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_every_call_computes_what_the_original_does(tmp_path, threads):
    check_program(PROGRAM, "csr_struct.c", tmp_path, threads)


def _probed(program: str, signature: str, tmp_path) -> dict[str, str]:
    """{label: 1 or 0}: the lifted condition of the program's one versioned loop, evaluated by
    `probe` (of `signature`) before each call the program labels (`test <value>` then `<label> ...`)."""
    out = lift_source(program, "probe.c", LiftOptions(min_parallel_work=0)).output
    condition = re.search(r"\n\s*if \((.*)\) \{ /\* lift \*/\n\s*#pragma omp parallel for", out).group(1)
    source = tmp_path / "probe.c"
    source.write_text(f"{out}\nint probe({signature})\n{{\n    return {condition};\n}}\n")
    exe = tmp_path / "probe"
    compile_c(source, exe, ["-O2", "-std=gnu11", "-fopenmp", "-DPROBE", "-Wall", "-Wextra", "-Werror"])
    lines = run(exe, 2).splitlines()
    return {after.split()[0]: line.split()[1] for line, after in zip(lines, lines[1:]) if line.startswith("test ")}


def test_the_test_passes_only_where_the_output_overlaps_nothing_read(tmp_path):
    """The lifted condition, evaluated before each call: true for disjoint vectors (also when
    adjacent), false for each overlap (and for offsets that decrease)."""
    tests = _probed(PROGRAM, "const Csr *a, const double *x, double *y", tmp_path)
    assert tests == {"distinct": "1", "adjacent": "1", "in-place": "0", "shifted": "0", "over-values": "0",
                     "decreasing-late": "0", "decreasing": "0"}


# A smoother reads x[i] besides x[col[k]]: both ranges are tested against y.
SMOOTH = """#include <stdio.h>
#include <stdlib.h>

#ifdef PROBE
int probe(int n, const int *rowptr, const int *col, const double *x, double *y);
#define REPORT(n, x, y) printf("test %d\\n", probe(n, rowptr, col, x, y))
#else
#define REPORT(n, x, y) ((void)0)
#endif

void smooth(int n, const int *rowptr, const int *col, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            s += x[col[k]];
        y[i] = 0.5 * x[i] + 0.25 * s;
    }
}

int main(void)
{
    int n = 5000;
    int *rowptr = malloc(sizeof(int) * (n + 1)), *col = malloc(sizeof(int) * 2 * n);
    double *buf = malloc(sizeof(double) * 4 * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < 4 * n; i++)
        buf[i] = 1.0 + i % 11;
    for (int shift = 0; shift <= n; shift += n) {    /* columns in [0, n), then in [n, 2n) */
        rowptr[0] = 0;
        for (int i = 0; i < n; i++) {
            col[2 * i] = shift + (i * 7) % n;
            col[2 * i + 1] = shift + (i * 3 + 1) % n;
            rowptr[i + 1] = 2 * i + 2;
        }
        const char *label[2][3] = {{"apart", "over-x-i", "after-columns"}, {"apart2", "over-x-i2", "over-columns"}};
        double *outs[3] = {y, buf + n / 2, buf + n};
        for (int t = 0; t < 3; t++) {
            REPORT(n, buf, outs[t]);
            smooth(n, rowptr, col, buf, outs[t]);
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += outs[t][i] * (1 + i % 5);
            printf("%s %.12e\\n", label[shift != 0][t], s);
        }
    }
    free(rowptr); free(col); free(buf); free(y);
    return 0;
}
"""


def test_a_container_read_both_directly_and_through_indices_is_tested_both_ways(tmp_path):
    tests = _probed(SMOOTH, "int n, const int *rowptr, const int *col, const double *x, double *y", tmp_path)
    # y = x + n/2 overlaps x[i] always; y = x + n overlaps x[col[k]] only when the columns are in [n, 2n)
    assert tests == {"apart": "1", "over-x-i": "0", "after-columns": "1",
                     "apart2": "1", "over-x-i2": "0", "over-columns": "0"}


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_the_smoother_computes_what_the_original_does(tmp_path, threads):
    check_program(SMOOTH, "smooth.c", tmp_path, threads)


def test_the_helpers_are_strict_c89(tmp_path):
    out = lift_source(PROGRAM, "csr_struct.c", LiftOptions(min_parallel_work=0)).output
    helpers = out[:out.index("#include")]
    source = tmp_path / "helpers.c"
    source.write_text(helpers)
    done = subprocess.run(["gcc", "-std=c89", "-pedantic", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
                           "-c", str(source), "-o", str(tmp_path / "helpers.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_cuda_target_keeps_the_row_loop_sequential():
    entry = next(e for e in loops_by_function(PROGRAM, target="cuda")["spmv"] if e["depth"] == 0)
    assert not entry["parallelized"]
    assert "cannot be bounded at run time" in entry["remark"]


VARIANTS = """
typedef struct { int nrows; int *rowptr; int *col; double *val; } Csr;

/* the column read only under a mask: no pass over col before the loop */
void masked(const Csr *a, const char *mask, const double *x, double *y)
{
    for (int i = 0; i < a->nrows; i++) {
        double s = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (mask[k])
                s += a->val[k] * x[a->col[k]];
        y[i] = s;
    }
}

/* every other row: the offsets between them bound nothing the loop reads */
void stride2(const Csr *a, const double *x, double *y)
{
    for (int i = 0; i < a->nrows; i += 2) {
        double s = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            s += a->val[k] * x[a->col[k]];
        y[i] = s;
    }
}

/* the row loop writes next to its offsets */
void writes_offsets(int n, int *off, const int *idx, double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = off[i]; k < off[i + 1]; k++)
            s += x[idx[k]];
        y[i] = s;
        off[n + 1 + i] = 0;
    }
}
"""

# Offsets shifted by one row, two neighbours per entry, `long` offsets and `unsigned` indices.
SHIFTED = """#include <stdio.h>
#include <stdlib.h>

void shifted(int n, const long *off, const unsigned *idx, const double *v, const double *x, double *y)
{
    for (int i = 1; i <= n; i++) {
        double s = 0.0;
        for (long k = off[i - 1]; k < off[i]; k++)
            s += v[k + 1] * (x[idx[k]] + x[idx[k] + 1]);
        y[i - 1] = s;
    }
}

int main(void)
{
    int n = 20000;
    long *off = malloc(sizeof(long) * (n + 1));
    unsigned *idx = malloc(sizeof(unsigned) * 2 * n);
    double *v = malloc(sizeof(double) * (2 * n + 1)), *x = malloc(sizeof(double) * (n + 2));
    double *y = malloc(sizeof(double) * n);
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        off[i + 1] = off[i] + 1 + i % 2;
        for (long k = off[i]; k < off[i + 1]; k++)
            idx[k] = (unsigned)((i + 3 * k) % n);
    }
    for (long k = 0; k <= off[n]; k++)
        v[k] = 0.5 + k % 5;
    for (int i = 0; i < n + 2; i++)
        x[i] = 1.0 + i % 7;
    shifted(n, off, idx, v, x, y);       /* apart */
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += y[i] * (1 + i % 3);
    shifted(n, off, idx, v, x, x + 1);   /* the output over the input, one further */
    for (int i = 0; i < n + 2; i++)
        s += x[i] * (1 + i % 5);
    shifted(n, off, idx, v + 1, x, v);   /* the output over the values, one earlier */
    for (int i = 0; i < 2 * n; i++)
        s += v[i];
    printf("%.12e\\n", s);
    free(off); free(idx); free(v); free(x); free(y);
    return 0;
}
"""


def test_row_loops_the_test_cannot_cover_stay_sequential():
    loops = loops_by_function(VARIANTS)
    for function in ("masked", "stride2", "writes_offsets"):
        entry = next(e for e in loops[function] if e["depth"] == 0)
        assert not entry["parallelized"], function
        assert "cannot be bounded at run time" in entry["remark"], entry["remark"]


def test_shifted_offsets_wide_types_and_neighbours():
    entry = next(e for e in loops_by_function(SHIFTED)["shifted"] if e["depth"] == 0)
    assert entry["parallelized"], entry["remark"]
    assert "lift_nondecreasing_long" in entry["condition"]
    assert "lift_gather_apart_unsigned_int" in entry["condition"] and "0L, 1L" in entry["condition"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_shifted_offsets_compute_what_the_original_does(tmp_path, threads):
    check_program(SHIFTED, "shifted.c", tmp_path, threads)


# Offsets and indices in global arrays (their element types from the declarations), `k` declared
# before the loop, `++k` and `k += 1` steps.
ARRAYS = """#define N 50000
static int rowptr[N + 1];
static int col[3 * N];
double val[3 * N];

void spmv_global(const double *x, double *y)
{
    for (int i = 0; i < N; i++) {
        double s = 0.0;
        int k;
        for (k = rowptr[i]; k < rowptr[i + 1]; ++k)
            s += val[k] * x[col[k]];
        y[i] = s;
    }
}

void spmv_step(int n, const int *rp, const int *c, const double *v, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = rp[i]; k < rp[i + 1]; k += 1)
            s += v[k] * x[c[k]];
        y[i] = s;
    }
}
"""


def test_offsets_in_arrays_and_other_increments():
    loops = loops_by_function(ARRAYS)
    for function in ("spmv_global", "spmv_step"):
        entry = next(e for e in loops[function] if e["depth"] == 0)
        assert entry["parallelized"] and "lift_gather_apart_int" in entry["condition"], entry["remark"]
