"""Scratch arrays reused by every iteration: privatized when isl proves each read in an
iteration reads a write of the same iteration and the function names the buffer nowhere
after the loop; refused (with the reason) otherwise. Differential at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

# A row smoother the way applications write it: the buffer declared once, before the loop
# over rows, filled and then read with a three-point window in each row.
SAFE = """#include <stdio.h>
#include <stdlib.h>
#define NX 96
#define NY 80
static double grid[NY][NX], out[NY][NX];

static void smooth_fixed(int ny, int nx)
{
    double row[NX];
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = 0.5 * grid[i][j] + 0.25 * (i > 0 ? grid[i - 1][j] : 0.0);
        for (int j = 1; j < nx - 1; j++)
            out[i][j] = row[j - 1] + 2.0 * row[j] + row[j + 1];
    }
}

static void smooth_vla(int ny, int nx, const double a[ny][nx], double b[ny][nx])
{
    double row[nx];
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = a[i][j] * a[i][j];
        for (int j = 1; j < nx - 1; j++)
            b[i][j] += row[j - 1] - row[j + 1];
    }
}

static void smooth_heap(int ny, int nx, const double *a, double *b)
{
    double *row = malloc(sizeof(double) * nx);
    double *acc = (double *)malloc(sizeof(double) * 2 * nx);
    if (!row || !acc)
        exit(1);
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++) {
            row[j] = a[i * nx + j] + 1.0;
            acc[2 * j] = row[j] * 3.0;
            acc[2 * j + 1] = row[j] - 3.0;
        }
        for (int j = 1; j < nx - 1; j++)
            b[i * nx + j] = row[j - 1] * acc[2 * j] + row[j + 1] * acc[2 * j + 1];
    }
    free(row);
    free(acc);
}

int main(void)
{
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            grid[i][j] = (double)((i * 31 + j * 17) % 23) / 23.0;
    smooth_fixed(NY, NX);
    static double b[NY][NX];
    smooth_vla(NY, NX, out, b);
    double *c = calloc(NY * NX, sizeof(double));
    smooth_heap(NY, NX, &b[0][0], c);
    double s = 0.0;
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            s += out[i][j] * (1 + j % 3) + b[i][j] + c[i * NX + j] * (1 + i % 5);
    printf("%.12e\\n", s);
    free(c);
    return 0;
}
"""

# Variants that must stay sequential: an element of the row read before this row wrote
# it (the last column comes from the previous row), the buffer read after the loop, a
# global buffer another function reads, and a buffer whose address a helper keeps; and a
# buffer that is really another array (a pointer into `b`), which is parallel only where a
# run-time test keeps it apart from the rest of `b` the loop touches.
UNSAFE = """#include <stdio.h>
#include <stdlib.h>
#define NX 64
#define NY 48
static double grid[NY][NX], out[NY][NX];
static double shared_row[NX];
static double *kept;

static void keep(double *p) { kept = p; }

static void stale_column(int ny, int nx)
{
    double row[NX];
    row[nx - 1] = 0.0;
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx - 1; j++)
            row[j] = grid[i][j] * 2.0;
        for (int j = 1; j < nx - 1; j++)
            out[i][j] = row[j - 1] + row[j + 1];
    }
}

static double read_after(int ny, int nx)
{
    double row[NX];
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = grid[i][j] + 1.0;
        for (int j = 1; j < nx - 1; j++)
            out[i][j] += row[j - 1] * row[j + 1];
    }
    return row[3];
}

static void into_output(int ny, int nx, double *b)
{
    double *row = b + (long)(ny - 1) * nx;
    for (int i = 0; i < ny - 1; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = grid[i][j] * 3.0;
        for (int j = 1; j < nx - 1; j++)
            b[i * nx + j] = row[j - 1] - row[j + 1];
    }
}

static void global_row(int ny, int nx)
{
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++)
            shared_row[j] = grid[i][j] - 1.0;
        for (int j = 1; j < nx - 1; j++)
            out[i][j] -= shared_row[j - 1];
    }
}

static void escaping(int ny, int nx)
{
    double row[NX];
    keep(row);
    for (int i = 0; i < ny; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = grid[i][j] * 0.5;
        for (int j = 1; j < nx - 1; j++)
            out[i][j] += row[j + 1];
    }
}

int main(void)
{
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            grid[i][j] = (double)((i * 13 + j * 7) % 19) / 19.0;
    stale_column(NY, NX);
    double s = read_after(NY, NX);
    double *b = calloc(NY * NX, sizeof(double));
    into_output(NY, NX, b);
    global_row(NY, NX);
    escaping(NY, NX);
    s += shared_row[5] + kept[7];
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            s += out[i][j] * (1 + j % 3) + b[i * NX + j] * (1 + i % 4);
    printf("%.12e\\n", s);
    free(b);
    return 0;
}
"""


def _row_loop(loops, function):
    return next(e for e in loops[function] if e["var"] == "i" and e["depth"] == 0)


def test_scratch_rows_are_private_to_each_iteration():
    loops = loops_by_function(SAFE)
    for function in ("smooth_fixed", "smooth_vla", "smooth_heap"):
        entry = _row_loop(loops, function)
        assert entry["parallelized"], (function, entry["reason"])


def test_each_thread_gets_its_own_buffer():
    out = lift_source(SAFE, "s.c", LiftOptions(min_parallel_work=0)).output
    # arrays (fixed size and VLA): OpenMP's private copy
    assert out.count("#pragma omp parallel for schedule(static) private(row) /* lift */") == 2
    # malloc'd buffers: a private pointer per thread, pointed at its own allocation of the
    # elements the loop touches, and freed after its share of the loop
    heap = out[out.index("smooth_heap"):out.index("int main")]
    assert "#pragma omp parallel private(acc, row) /* lift */" in heap
    assert "acc = malloc(sizeof *acc * (size_t)(((2L*(long)nx - 1L)*(1)) + 1)); if (!acc) abort();" in heap
    assert "#pragma omp for schedule(static) /* lift */" in heap
    assert "} free(acc); free(row); }" in heap


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_privatized_scratch_rows_compute_the_same(tmp_path, threads):
    check_program(SAFE, "scratch_rows.c", tmp_path, threads)


def test_unsafe_scratch_buffers_stay_sequential():
    loops = loops_by_function(UNSAFE)
    stale = _row_loop(loops, "stale_column")
    assert not stale["parallel"] and "row" in stale["reason"]
    # Read after the loop: each thread's own copy, kept with lastprivate where the last iteration
    # writes all of it (nx >= NX, tested before the loop; tests/transform/test_param_scratch.py;
    # before: sequential).
    after = _row_loop(loops, "read_after")
    assert after["parallelized"] and "nx - 64 >= 0" in after["remark"], after
    # A pointer into `b` that outlives the loop: each thread's own copy, the last iteration on
    # `b` itself, only where a run-time test finds the row apart from what the loop writes of
    # `b` (tests/transform/test_shared_scratch.py; before: sequential).
    into = _row_loop(loops, "into_output")
    assert into["parallelized"] and "&row[" in into["remark"] and "&b[" in into["remark"], into
    # A global row: kept with lastprivate too, where nx >= NX (before: sequential); one whose
    # address the function hands out (`escaping`) stays sequential.
    glob = _row_loop(loops, "global_row")
    assert glob["parallelized"] and "nx - 64 >= 0" in glob["remark"], glob
    esc = _row_loop(loops, "escaping")
    assert not esc["parallelized"] and "scratch array 'row'" in esc["reason"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_unsafe_scratch_buffers_compute_the_same(tmp_path, threads):
    check_program(UNSAFE, "scratch_unsafe.c", tmp_path, threads)


def test_cuda_gives_each_thread_a_local_row_or_keeps_the_loop_on_the_host(tmp_path):
    """A fixed-size row becomes a local array of each GPU thread; a VLA or malloc'd row has no
    constant size for one, so that loop stays on the host, saying why."""
    from tests.backend.test_cuda import same_results
    out = same_results(SAFE, tmp_path)
    loops = loops_by_function(SAFE, target="cuda")
    assert _row_loop(loops, "smooth_fixed")["parallelized"]
    for function, name in (("smooth_vla", "row"), ("smooth_heap", "acc")):
        entry = _row_loop(loops, function)
        assert not entry["parallelized"]
        assert entry["remark"].endswith(f"not offloaded to the GPU: private array '{name}' has no constant size")
    assert "kernel_smooth_fixed_i_L" in out


# The read after the loop hides in a macro: the rule is checked on the syntax tree, where the
# macro is expanded. The token rule saw only `FIRST_ROW`, privatized `row`, and the function
# returned row[0] as it was before the loop.
MACRO_READ = """#include <stdio.h>
#define N 300
#define FIRST_ROW (row[0])

static double kernel(int n, double a[N][N], double *restrict out)
{
    double row[N];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            row[j] = a[i][j] * 2.0 + i;
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += row[j] * (j % 3);
        out[i] = s;
    }
    return FIRST_ROW;
}

int main(void)
{
    static double a[N][N], out[N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (i * 7 + j) % 11;
    double s = kernel(N, a, out);
    for (int i = 0; i < N; i++)
        s += out[i] * (i % 5);
    printf("%.6f\\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_a_read_through_a_macro_after_the_loop_keeps_the_buffer(tmp_path, threads):
    """The read after the loop is seen through the macro: the row is kept with lastprivate (where
    the last iteration writes all of it: n >= N), not merely private (before: sequential)."""
    outer = next(e for e in loops_by_function(MACRO_READ)["kernel"] if e["line"] == 8)
    assert outer["parallelized"] and "n - 300 >= 0" in outer["remark"], outer
    out = lift_source(MACRO_READ, "m.c", LiftOptions(min_parallel_work=0)).output
    assert "lastprivate(row)" in out
    check_program(MACRO_READ, "macro_read.c", tmp_path, threads)
