"""Scratch rows that outlive the loop (issue 16, item 3; mgrid's restriction): a buffer the
function gets from elsewhere (`double *row = scratch_row(h);`), filled and then read by every
iteration of a loop over rows. Each thread fills its own copy; the sequentially last iteration
works on the buffer itself, so it ends as the sequential loop leaves it. Parallel only where
isl proves each read reads a write of the same iteration (for the sizes where that holds: a run-time
test of the parameters) and every iteration writes the same elements; the buffer is tested
at run time against the loop's other data. Differential at 1, 2 and 8 threads, in each case
the buffer's contents after the loop included."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int size[2];
    double *row;
} Levels;

static double *scratch_row(const Levels *h)
{
    return h->row;
}

/* full weighting: fine rows 2ic-1 .. 2ic+1 into the scratch row, then along it */
static void restrict_rows(Levels *h, const double *r, double *fc)
{
    int *size = h->size;
    int nf = size[0], nc = size[1];
    double *row = scratch_row(h);
    for (int ic = 1; ic <= size[1] - 2; ic++) {
        int i = 2 * ic;
        for (int j = 0; j < nf; j++)
            row[j] = 0.25 * r[(i - 1) * nf + j] + 0.5 * r[i * nf + j] + 0.25 * r[(i + 1) * nf + j];
        for (int jc = 1; jc < nc - 1; jc++)
            fc[ic * nc + jc] = 0.25 * row[2 * jc - 1] + 0.5 * row[2 * jc] + 0.25 * row[2 * jc + 1];
    }
}

/* bilinear interpolation: coarse rows i/2 and (i+1)/2 into the scratch row, then along it */
static void prolong_rows(Levels *h, const double *uc, double *u)
{
    int *size = h->size;
    int nf = size[0], nc = size[1];
    double *row = scratch_row(h);
    for (int i = 1; i <= size[0] - 2; i++) {
        int below = i / 2, above = (i + 1) / 2;
        for (int jc = 0; jc < nc; jc++)
            row[jc] = 0.5 * (uc[below * nc + jc] + uc[above * nc + jc]);
        for (int j = 1; j < nf - 1; j++)
            u[i * nf + j] += 0.5 * (row[j / 2] + row[(j + 1) / 2]);
    }
}

static double total(int n, const double *a)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k] * (1 + k % 7);
    return s;
}

/* one restriction and one prolongation with the given sizes and scratch row; prints the
   coarse grid, the fine grid and the row */
static void run(const char *what, int nf, int nc, double *r, double *fc, double *row)
{
    Levels h = {{nf, nc}, row};
    restrict_rows(&h, r, fc);
    printf("%s: fc %.12e row %.12e\\n", what, total(nc * nc, fc), total(nf, row));
    prolong_rows(&h, fc, r);
    printf("%s: u %.12e row %.12e\\n", what, total(nf * nf, r), total(nf, row));
}

int main(void)
{
    int nf = 129, nc = 65;
    double *r = malloc(sizeof(double) * nf * nf), *fc = calloc(nc * nc, sizeof(double));
    double *row = malloc(sizeof(double) * 2 * nf);
    if (!r || !fc || !row)
        return 1;
    for (int k = 0; k < nf * nf; k++)
        r[k] = (double)((k * 37) % 101) / 101.0;
    for (int k = 0; k < 2 * nf; k++)
        row[k] = -1.0 - k;
    run("matched", nf, nc, r, fc, row);
    /* rows too short for the coarse grid (restriction), or too long (prolongation): reads past
       what each iteration wrote see what earlier iterations (or nobody) wrote there, so the
       loops must run as written */
    run("short", 90, nc, r, fc, row);
    run("long", nf, 40, r, fc, row);
    /* the scratch row inside the fine grid it reads, and inside the coarse grid it writes */
    run("in_input", nf, nc, r, fc, r + 5 * nf);
    run("in_output", 60, 31, r, fc, fc + 40 * 31);
    free(r);
    free(fc);
    free(row);
    return 0;
}
"""

# Variants: a loop counting down (its last iteration is its lower bound), two shared rows in
# one loop, and the row read after the loop (it holds the last iteration's values, as written).
SHAPES = """#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int n;
    double *row, *acc;
} Work;

static double *row_of(const Work *w) { return w->row; }
static double *acc_of(const Work *w) { return w->acc; }

static double downwards(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = row_of(w);
    for (int i = n - 1; i >= 0; i--) {
        for (int j = 0; j < n; j++)
            row[j] = a[i * n + j] * (1.0 + i);
        for (int j = 1; j < n - 1; j++)
            b[i * n + j] = row[j - 1] - 2.0 * row[j] + row[j + 1];
    }
    return row[1] + row[n - 2];
}

static void two_rows(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = row_of(w), *acc = acc_of(w);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            row[j] = a[i * n + j] + 1.0;
            acc[2 * j] = row[j] * row[j];
            acc[2 * j + 1] = -row[j];
        }
        for (int j = 1; j < n - 1; j++)
            b[i * n + j] += acc[2 * j - 2] + acc[2 * j + 3] * row[j];
    }
}

static double sum(int n, const double *a)
{
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[k] * (1 + k % 5);
    return s;
}

int main(void)
{
    int n = 150;
    double *a = malloc(sizeof(double) * n * n), *b = calloc(n * n, sizeof(double));
    double *row = calloc(n, sizeof(double)), *acc = calloc(2 * n, sizeof(double));
    if (!a || !b || !row || !acc)
        return 1;
    for (int k = 0; k < n * n; k++)
        a[k] = (double)((k * 29) % 97) / 97.0;
    Work w = {n, row, acc};
    double r = downwards(&w, a, b);
    printf("down: %.12e %.12e %.12e\\n", r, sum(n * n, b), sum(n, row));
    two_rows(&w, a, b);
    printf("two: %.12e %.12e %.12e\\n", sum(n * n, b), sum(n, row), sum(2 * n, acc));
    free(a);
    free(b);
    free(row);
    free(acc);
    return 0;
}
"""

UNSAFE = """#include <stdlib.h>

typedef struct {
    int n;
    double *row;
} Work;

static double *scratch_row(const Work *w)
{
    return w->row;
}

/* each iteration writes fewer elements: the earlier ones' writes would be lost */
void shrinking(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        for (int j = i; j < n; j++)
            row[j] = a[i * n + j] * 2.0;
        for (int j = i; j < n; j++)
            b[i * n + j] = row[j] + 1.0;
    }
}

/* written only where the data says */
void conditional(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (a[i * n + j] > 0.5)
                row[j] = a[i * n + j];
        for (int j = 0; j < n; j++)
            b[i * n + j] = row[j];
    }
}

/* the pointer moves in the loop */
void moving(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        row = scratch_row(w) + i % 2;
        for (int j = 0; j < n; j++)
            row[j] = a[i * n + j];
        for (int j = 0; j < n; j++)
            b[i * n + j] = row[j];
    }
}

/* a pointer that cannot change: no thread could point it at its copy */
void fixed_pointer(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *const row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            row[j] = a[i * n + j];
        for (int j = 1; j < n; j++)
            b[i * n + j] = row[j - 1] * row[j];
    }
}

/* a row before the start of the buffer: a copy from index 0 would not hold it */
void below_zero(Work *w, const double *a, double *b)
{
    int n = w->n;
    double *row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        for (int j = -1; j < n; j++)
            row[j] = a[i * n + j + 1];
        for (int j = 0; j < n; j++)
            b[i * n + j] = row[j - 1] + row[j];
    }
}
"""


def _outer(loops, function):
    return next(e for e in loops[function] if e["depth"] == 0)


def test_a_scratch_row_that_outlives_the_loop_is_copied_per_thread():
    entry = _outer(loops_by_function(PROGRAM), "restrict_rows")
    assert entry["parallelized"], entry["reason"]
    out = lift_source(PROGRAM, "s.c", LiftOptions(min_parallel_work=0)).output
    text = out[out.index("static void restrict_rows"):out.index("static double total")]
    assert "#pragma omp parallel firstprivate(row) /* lift */" in text
    assert "void *const lift_shared_row = row, *const lift_own_row = malloc(" in text
    # the last iteration works on the shared buffer, every other on the thread's own copy
    assert "{ row = (ic == ((size[1]) - 2)) ? lift_shared_row : lift_own_row;" in text
    assert "} free(lift_own_row); }" in text
    # rows long enough for the coarse grid (tested before the loop), and the row apart from r and fc
    assert "2L*(long)nc" in text and "&row[" in text and "&r[" in text and "&fc[" in text
    # after the file's own opening directives, where a feature-test macro would be
    assert out.startswith("#include <stdio.h>\n#include <stdlib.h>\n\n#include <stdlib.h> /* lift: malloc")


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_shared_scratch_rows_compute_the_same_and_leave_the_row_as_written(tmp_path, threads):
    check_program(PROGRAM, "shared_rows.c", tmp_path, threads)


def test_a_loop_counting_down_and_two_rows_in_one_loop():
    loops = loops_by_function(SHAPES)
    for function in ("downwards", "two_rows"):
        assert _outer(loops, function)["parallelized"], _outer(loops, function)
    out = lift_source(SHAPES, "s.c", LiftOptions(min_parallel_work=0)).output
    assert "{ row = (i == (0)) ? lift_shared_row : lift_own_row;" in out
    assert "#pragma omp parallel firstprivate(acc, row) /* lift */" in out
    # w->n is invariant: the loop stores only doubles (through row and acc), which C's aliasing
    # rules keep from changing the int field (invariants.py `_float_store`)
    assert "acc = (i == ((w->n) - 1)) ? lift_shared_acc : lift_own_acc;" in out


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_the_variants_compute_the_same(tmp_path, threads):
    check_program(SHAPES, "shared_shapes.c", tmp_path, threads)


def test_the_prolongation_reads_coarse_rows_bounded_with_a_division():
    """uc's rows i / 2 .. (i + 1) / 2 end at ((size[0] + 1) / 2 - 1) in the alias test: C's
    division of a non-negative value is the floor isl's bound takes."""
    entry = _outer(loops_by_function(PROGRAM), "prolong_rows")
    assert entry["parallelized"], entry["reason"]
    assert "&uc[((size[0] + 1) / 2 - 1) * nc + nc - 1] + 1" in entry["remark"]


@pytest.mark.parametrize("function", ["shrinking", "conditional", "moving", "below_zero"])
def test_unsafe_shared_scratch_rows_stay_sequential(function):
    entry = _outer(loops_by_function(UNSAFE), function)
    assert not entry["parallel"] and "row" in entry["reason"], entry


def test_a_const_pointer_stays_sequential():
    """(Its inner loops run in parallel, in one region around it.)"""
    entry = _outer(loops_by_function(UNSAFE), "fixed_pointer")
    assert entry["parallel"] and not entry["parallelized"], entry
    # the remark says why the plan was refused, not only what the analysis proved
    assert "not declared as a plain pointer" in entry["remark"] and entry["reason_code"] == "scratch-array", entry
    out = lift_source(UNSAFE, "u.c", LiftOptions(min_parallel_work=0)).output
    assert "lift_own_row" not in out[out.index("void fixed_pointer"):out.index("void below_zero")]


def test_a_const_pointer_behind_a_typedef_stays_sequential():
    """The pointer's own `const` comes from its declaration in the AST, typedefs followed: the
    emitted body must not assign it (an earlier function's `double *row` is another variable)."""
    text = UNSAFE + """
typedef double *const fixed_row;
void fixed_typedef(Work *w, const double *a, double *b)
{
    int n = w->n;
    fixed_row row = scratch_row(w);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            row[j] = a[i * n + j];
        for (int j = 1; j < n; j++)
            b[i * n + j] = row[j - 1] * row[j];
    }
}
"""
    entry = _outer(loops_by_function(text), "fixed_typedef")
    assert entry["parallel"] and not entry["parallelized"], entry
    out = lift_source(text, "u.c", LiftOptions(min_parallel_work=0)).output
    assert "lift_own_row" not in out[out.index("void fixed_typedef"):]


def test_targets_without_the_copies_keep_the_loop_sequential():
    entry = _outer(loops_by_function(PROGRAM, target="cuda"), "restrict_rows")
    assert not entry["parallelized"] and entry["reason_code"] == "scratch-array"
    assert "last iteration on the buffer itself, which this backend does not emit" in entry["remark"]


def test_the_sdfg_keeps_the_loop_as_written():
    """DaCe has no form for a last iteration on the shared row: the map is sequential there and
    the row one container (a transient per iteration would leave the buffer as it was)."""
    import json

    from lifter.graph.sdfg import to_sdfg_json

    graphs = [g for g in lift_source(PROGRAM, "s.c", LiftOptions(min_parallel_work=0)).graphs
              if g.function == "restrict_rows"]
    text = json.dumps(to_sdfg_json(graphs, "restrict_rows"))
    entry = text[text.index('"params": ["ic"]'):]
    assert entry.index('"schedule": "Sequential"') < entry.index('"params"', 1)
    assert '"row_' not in text  # no private transient of the row
