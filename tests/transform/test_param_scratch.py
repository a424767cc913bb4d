"""Scratch rows that outlive the loop as the caller's or the file's (issue 21, doitgen): `sum` is a
parameter (`double sum[np]`) or a global pointer, written whole before it is read in every
iteration of a loop over rows. Each thread fills its own copy; the sequentially last iteration
works on the buffer itself, so the caller reads what the sequential loop leaves there.

The verdict is for the loop as written; -O2 then reshapes the inside (the p and s loops of the
product are distributed and interchanged). Where the loop stays where the user wrote it, with the
same statements inside, the verdict still holds (`rewrite.placed_as_written`), so the outer loop
stays parallel. Differential at 1, 2 and 8 threads, the row's final contents printed; the row apart
from the other arrays proved from the call site (a static function) or tested at run time (the
run with the row inside A, then inside C4, must run as written)."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, loops_by_function, prepare, write_program

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>

double *grow;
double gfix[17];

/* doitgen: sum is the caller's row, written whole before it is read in every (r, q) */
static void kernel_param(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np])
{
    int r, q, p, s;
    for (r = 0; r < nr; r++)
        for (q = 0; q < nq; q++) {
            for (p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < np; p++)
                A[r][q][p] = sum[p];
        }
}

/* the same, callable from elsewhere: sum may overlap A or C4, so it is tested at run time */
void kernel_extern(int nr, int nq, int np, double *A, const double *C4, double *sum)
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            for (int p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (int s = 0; s < np; s++)
                    sum[p] += A[(r * nq + q) * np + s] * C4[s * np + p];
            }
            for (int p = 0; p < np; p++)
                A[(r * nq + q) * np + p] = sum[p] * 0.5;
        }
}

/* the row is a global pointer */
void kernel_global(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np])
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            for (int p = 0; p < np; p++) {
                grow[p] = 0.0;
                for (int s = 0; s < np; s++)
                    grow[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < np; p++)
                A[r][q][p] = grow[p] - 1.0;
        }
}

/* the row is a local variable-length array, dead after the loop */
double kernel_vla(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np])
{
    double sum[np];
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            for (int p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (int s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < np; p++)
                A[r][q][p] = sum[p] + 0.25;
        }
    return A[nr - 1][nq - 1][np - 1];
}

/* the row is a global array: kept with lastprivate where every iteration writes all of it (np >= 17) */
void kernel_global_array(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np])
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            for (int p = 0; p < np; p++) {
                gfix[p] = 0.0;
                for (int s = 0; s < np; s++)
                    gfix[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < np; p++)
                A[r][q][p] = 2.0 * gfix[p];
        }
}

/* the row is a local variable-length array read after the loop: kept with lastprivate */
double kernel_vla_after(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np])
{
    double sum[np];
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            for (int p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (int s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < np; p++)
                A[r][q][p] = sum[p] + 0.5;
        }
    double t = 0.0;
    for (int p = 0; p < np; p++)
        t += sum[p] * (p + 1);
    return t;
}

static double total(int n, const double *a)
{
    double t = 0.0;
    for (int k = 0; k < n; k++)
        t += a[k] * (1 + k % 7);
    return t;
}

static void init(int n, double *a, int seed)
{
    for (int k = 0; k < n; k++)
        a[k] = (double)((k * seed + 3) % 23) / 23.0 - 0.4;
}

int main(void)
{
    int nr = 13, nq = 11, np = 17;
    int n = nr * nq * np;
    double *A = malloc(sizeof(double) * n), *C4 = malloc(sizeof(double) * np * np);
    double *sum = malloc(sizeof(double) * (np + 2));
    if (!A || !C4 || !sum)
        return 1;
    init(np * np, C4, 5);
    for (int k = 0; k < np + 2; k++)
        sum[k] = -7.0;  /* sum[np], sum[np + 1]: never written, must stay */
    init(n, A, 7);
    kernel_param(nr, nq, np, (double (*)[nq][np])A, (double (*)[np])C4, sum);
    printf("param: A %.12e sum %.12e\\n", total(n, A), total(np + 2, sum));
    init(n, A, 11);
    kernel_extern(nr, nq, np, A, C4, sum);
    printf("extern: A %.12e sum %.12e\\n", total(n, A), total(np + 2, sum));
    /* the row inside A (the last rows), then inside C4: the loop must run as written */
    init(n, A, 13);
    kernel_extern(nr, nq, np, A, C4, A + n - 3 * np);
    printf("in A: A %.12e\\n", total(n, A));
    init(n, A, 17);
    kernel_extern(nr, nq, np, A, C4, C4 + np);
    printf("in C4: A %.12e C4 %.12e\\n", total(n, A), total(np * np, C4));
    init(np * np, C4, 5);
    grow = sum + 1;
    init(n, A, 19);
    kernel_global(nr, nq, np, (double (*)[nq][np])A, (double (*)[np])C4);
    printf("global: A %.12e row %.12e\\n", total(n, A), total(np + 2, sum));
    init(n, A, 23);
    double last = kernel_vla(nr, nq, np, (double (*)[nq][np])A, (double (*)[np])C4);
    printf("vla: A %.12e last %.12e\\n", total(n, A), last);
    init(n, A, 29);
    kernel_global_array(nr, nq, np, (double (*)[nq][np])A, (double (*)[np])C4);
    printf("global array: A %.12e row %.12e\\n", total(n, A), total(17, gfix));
    /* a shorter row leaves gfix[13..16] as they were: the loop runs as written */
    init(n, A, 31);
    kernel_global_array(nr, nq, 13, (double (*)[nq][13])A, (double (*)[13])C4);
    printf("global array, short: A %.12e row %.12e\\n", total(nr * nq * 13, A), total(17, gfix));
    init(n, A, 37);
    last = kernel_vla_after(nr, nq, np, (double (*)[nq][np])A, (double (*)[np])C4);
    printf("vla after: A %.12e row %.12e\\n", total(n, A), last);
    free(A);
    free(C4);
    free(sum);
    return 0;
}
"""

UNSAFE = """#include <stdlib.h>

double *grow;
void note(int r);

/* each iteration writes fewer elements of the row: the earlier ones' writes would be lost */
void partial(int nr, int np, double A[nr][np], const double C4[np][np], double sum[np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = r; p < np; p++) {
            sum[p] = 0.0;
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        }
        for (int p = r; p < np; p++)
            A[r][p] = sum[p];
    }
}

/* no reset: each iteration adds to what the one before left */
void accumulated(int nr, int np, double A[nr][np], const double C4[np][np], double sum[np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++)
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        for (int p = 0; p < np; p++)
            A[r][p] = sum[p];
    }
}

/* the row is read before it is filled again: a later iteration reads the earlier one's values */
void carried(int nr, int np, double A[nr][np], const double C4[np][np], double sum[np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++)
            A[r][p] += sum[p];
        for (int p = 0; p < np; p++) {
            sum[p] = 0.0;
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        }
    }
}

/* a read one past what every iteration writes: the caller's value, or nobody's */
void past_the_end(int nr, int np, double A[nr][np], const double C4[np][np], double sum[np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++) {
            sum[p] = 0.0;
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        }
        for (int p = 0; p < np; p++)
            A[r][p] = sum[p] + sum[p + 1];
    }
}

/* a global row, and a call that may name it itself */
void global_with_call(int nr, int np, double A[nr][np], const double C4[np][np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++) {
            grow[p] = 0.0;
            for (int s = 0; s < np; s++)
                grow[p] += A[r][s] * C4[s][p];
        }
        note(r);
        for (int p = 0; p < np; p++)
            A[r][p] = grow[p];
    }
}

static double scaled(int p)
{
    return 2.0 * grow[p];
}

/* a global row read by a function of the file: the thread's copy would not reach it */
void global_read_by_callee(int nr, int np, double A[nr][np], const double C4[np][np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++) {
            grow[p] = 0.0;
            for (int s = 0; s < np; s++)
                grow[p] += A[r][s] * C4[s][p];
        }
        for (int p = 0; p < np; p++)
            A[r][p] = scaled(p);
    }
}

static void put(int p, double v)
{
    grow[p] = v;
}

/* a global row written by a function of the file: the thread's copy would not see it */
void global_written_by_callee(int nr, int np, double A[nr][np], const double C4[np][np])
{
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++)
            put(p, A[r][p] * C4[p][p]);
        for (int p = 0; p < np; p++)
            A[r][p] = grow[p] * grow[p];
    }
}

/* a local row read after the loop, one element longer than any iteration writes */
double longer_than_written(int nr, int np, double A[nr][np], const double C4[np][np])
{
    double sum[np + 1];
    sum[np] = 1.0;
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++) {
            sum[p] = 0.0;
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        }
        for (int p = 0; p < np; p++)
            A[r][p] = sum[p];
    }
    return sum[0] + sum[np];
}

/* the extent's name changes after the declaration: `np` no longer says how long the row is */
double resized(int nr, int np, double A[nr][np], const double C4[np][np])
{
    double sum[np];
    np = np - 1;
    for (int r = 0; r < nr; r++) {
        for (int p = 0; p < np; p++) {
            sum[p] = 0.0;
            for (int s = 0; s < np; s++)
                sum[p] += A[r][s] * C4[s][p];
        }
        for (int p = 0; p < np; p++)
            A[r][p] = sum[p];
    }
    return sum[0];
}
"""


def _outer(loops, function):
    return next(e for e in loops[function] if e["depth"] == 0)


@pytest.mark.parametrize("function", ["kernel_param", "kernel_extern", "kernel_global", "kernel_vla",
                                      "kernel_global_array", "kernel_vla_after"])
def test_the_row_loop_is_parallel_after_its_inside_is_reshaped(function):
    loops = loops_by_function(PROGRAM)
    entry = _outer(loops, function)
    assert entry["parallelized"], entry
    # the product's loops inside were interchanged (-O2), and the verdict of the loop over rows held
    assert any("interchange" in e["transformations"] for e in loops[function] if e["var"] == "s"), loops[function]
    q = next(e for e in loops[function] if e["var"] == "q")
    assert q["remark"].endswith("is parallel but not parallelized: an enclosing loop is already parallel"), q


def test_the_last_iteration_works_on_the_callers_row():
    out = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0)).output
    text = out[out.index("static void kernel_param"):out.index("void kernel_extern")]
    assert "lift: loop nest restructured for locality" in text
    assert "#pragma omp parallel firstprivate(sum) /* lift */" in text
    assert "{ sum = (r == (nr - 1)) ? lift_shared_sum : lift_own_sum; {" in text
    glob = out[out.index("void kernel_global"):out.index("double kernel_vla")]
    assert "{ grow = (r == (nr - 1)) ? lift_shared_grow : lift_own_grow; {" in glob


def test_an_array_read_after_the_loop_is_kept_with_lastprivate():
    """A global array or a local VLA cannot point elsewhere: OpenMP's lastprivate copies the
    thread's copy back after the loop, exact where the last iteration writes all of it (the
    global one of 17 elements: where np >= 17, tested before the loop; the run with np = 13
    keeps its last four elements as they were)."""
    out = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0)).output
    glob = out[out.index("void kernel_global_array"):out.index("double kernel_vla_after")]
    assert "#pragma omp parallel for schedule(static) lastprivate(gfix) /* lift */" in glob
    assert "(long)np - 17L >= 0L" in glob and "&gfix[" in glob  # whole, and apart from A and C4
    vla = out[out.index("double kernel_vla_after"):out.index("static double total")]
    assert "lastprivate(sum)" in vla and "-1L*(long)np + 65536L >= 0L" in vla  # at most 64 Ki elements per thread


def test_the_row_is_kept_apart_from_the_other_arrays():
    """A static function called once with three allocations: apart (points_to.py), no test. A
    function the file exports, or a global row: the row's span is tested against A's and C4's."""
    loops = loops_by_function(PROGRAM)
    assert "&sum[" not in _outer(loops, "kernel_param")["remark"]
    remark = _outer(loops, "kernel_extern")["remark"]
    assert "&sum[np - 1] + 1 <= &A[0]" in remark and "&sum[np - 1] + 1 <= &C4[0]" in remark
    remark = _outer(loops, "kernel_global")["remark"]
    assert "&grow[np - 1] + 1 <= &A[0][0][0]" in remark and "&grow[np - 1] + 1 <= &C4[0][0]" in remark


def test_the_headers_for_the_copies_come_after_a_feature_test_macro():
    """`#define _POSIX_C_SOURCE` must precede every system header (else gcc warns of its
    redefinition, an error under -Werror, and the file sees other declarations)."""
    out = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0)).output
    assert out.index("#define _POSIX_C_SOURCE") < out.index("#include <stdlib.h> /* lift: malloc")


def test_a_body_without_braces_gets_a_block_for_the_switch():
    """-O1 keeps the text as written: the loop over rows has the loop over q as its body."""
    out = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0, opt_level=1)).output
    text = out[out.index("static void kernel_param"):out.index("void kernel_extern")]
    assert "{ sum = (r == (nr - 1)) ? lift_shared_sum : lift_own_sum; { for (q = 0; q < nq; q++) {" in text
    assert "} } } free(lift_own_sum); }" in text


@pytest.mark.parametrize("opt_level", [1, 2])
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_doitgen_rows_compute_the_same_and_leave_the_row_as_written(tmp_path, threads, opt_level):
    """-O2 reshapes the inside of each loop over rows; -O1 keeps the text (braces added)."""
    prepare(write_program(tmp_path, "param_rows", PROGRAM), tmp_path, opt_level=opt_level).check(threads)


@pytest.mark.parametrize("function", ["partial", "accumulated", "carried", "past_the_end", "global_with_call",
                                      "global_read_by_callee", "global_written_by_callee", "longer_than_written",
                                      "resized"])
def test_rows_not_written_whole_before_read_stay_sequential(function):
    entry = _outer(loops_by_function(UNSAFE), function)
    assert not entry["parallelized"], entry
