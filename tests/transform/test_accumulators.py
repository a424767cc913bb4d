"""Register accumulators: unroll-and-jam around a reduction loop with the sums in locals, or the
locals around the loop alone (factor 1) where its parent cannot be unrolled or it has siblings;
exact remainders and empty loops, refused where the locals or the jam would change a result."""
import textwrap

from lifter import LiftOptions, lift_source
from lifter.graph.validate import validate
from tests.harness import kernel_function, prepare, write_program

# syrk, whose update lift interchanges to j-k (k innermost, unit stride, summing into the
# C[i][j] it does not move along). Triangular j, sizes not divisible by 4, an empty k loop (m = 0)
# and rows shorter than the factor reach every remainder.
SYRK = """#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double alpha, double C[n][n], double A[n][m]) {
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= 1.25;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
static void run(int n, int m) {
  double *A = malloc(sizeof(double) * (n * m + 1)), (*C)[n] = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++) A[i * m + k] = (double)((i * 7 + k * 3) % 11) / 11.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) C[i][j] = (double)((i + 2 * j) % 5) / 5.0;
  kernel(n, m, 1.5, C, (double (*)[m])A);
  for (int i = 0; i < n; i++)  /* elements, not a checksum: a sum's order may change (a reduction) */
    printf("%.17e %.17e %.17e\\n", C[i][0], C[i][i / 2], C[i][i]);
  free(A); free(C);
}
int main(void) {
  static const int sizes[][2] = {{37, 45}, {3, 5}, {1, 2}, {13, 0}, {64, 17}};
  for (int t = 0; t < 5; t++)
    run(sizes[t][0], sizes[t][1]);
  return 0;
}
"""

# The sum of a row's elements into s[i], k innermost: the elements of one j-strip would be added
# in another order (a jam of j reorders additions into the same s[i]): refused.
REORDERED = """#include <stdio.h>
#define N 50
static double A[N][N][N], s[N];
static void kernel(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        s[i] += A[i][j][k] * 0.5;
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) A[i][j][k] = 1.0 / (1 + (i * 3 + j * 5 + k) % 13);
  kernel(N);
  for (int i = 0; i < N; i++) printf("%.17e\\n", s[i]);
  return 0;
}
"""

# gesummv's nest: the reduction loop j has siblings (the inits before it, the combination after
# it) under the parallel i, which cannot be unrolled: the sums go into locals around j alone
# (factor 1). n = 0 runs no row; m = 0 leaves every j loop empty (nothing read or written back).
GESUMMV = """#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double alpha, double beta, double A[n][m], double B[n][m],
                   double tmp[n], double x[m], double y[n]) {
  int i, j;
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < m; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
static void run(int n, int m) {
  double *A = malloc(sizeof(double) * (n * m + 1)), *B = malloc(sizeof(double) * (n * m + 1));
  double *tmp = malloc(sizeof(double) * (n + 1)), *y = malloc(sizeof(double) * (n + 1));
  double *x = malloc(sizeof(double) * (m + 1));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      A[i * m + j] = (double)((i * 7 + j * 3) % 11) / 11.0;
      B[i * m + j] = (double)((i * 5 + j) % 13) / 7.0;
    }
  for (int j = 0; j < m; j++) x[j] = (double)(j % 9) / 9.0 + 0.1;
  kernel(n, m, 1.5, 1.2, (double (*)[m])A, (double (*)[m])B, tmp, x, y);
  for (int i = 0; i < n; i++)
    printf("%.17e %.17e\\n", tmp[i], y[i]);
  printf("--\\n");
  free(A); free(B); free(tmp); free(x); free(y);
}
int main(void) {
  static const int sizes[][2] = {{37, 45}, {0, 5}, {13, 0}, {1, 1}, {64, 17}};
  for (int t = 0; t < 5; t++)
    run(sizes[t][0], sizes[t][1]);
  return 0;
}
"""

# A statement of j names the written array at another element (tmp[0]): a local for tmp[i]
# would hide from it what j added so far. Refused: the nest stays as written.
GESUMMV_OTHER = GESUMMV.replace("tmp[i] = A[i][j] * x[j] + tmp[i];", "tmp[i] = A[i][j] * x[j] + tmp[i] + tmp[0];")

# The body reads the written container at another element (the diagonal): a local for C[i][j]
# would have to be seen by that read too. Refused.
SELF_READ = SYRK.replace("C[i][j] += alpha * A[i][k] * A[j][k];", "C[i][j] += alpha * A[i][k] * A[j][k] * C[i][0];")


# bicg's nest: the reduction loop j sums into q[i], which it does not move along, and also
# updates s[j], which it does: q[i] goes into a local around j, s[j] stays in memory. Under the
# parallel i (an array reduction into s) gcc vectorized j serially but not in OpenMP's outlined
# copy while q[i] was stored and reloaded every iteration (issue 21: 2.4 times the instructions).
BICG = """#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double A[n][m], double s[m], double q[n], double p[m], double r[n]) {
  int i, j;
  for (i = 0; i < m; i++)
    s[i] = 0.0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}
static void run(int n, int m) {
  double *A = malloc(sizeof(double) * (n * m + 1)), *s = malloc(sizeof(double) * (m + 1));
  double *q = malloc(sizeof(double) * (n + 1)), *p = malloc(sizeof(double) * (m + 1));
  double *r = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) A[i * m + j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  for (int j = 0; j < m; j++) p[j] = (double)(j % 9) / 9.0 + 0.1;
  for (int i = 0; i < n; i++) r[i] = (double)(i % 5) / 5.0 + 0.3;
  kernel(n, m, (double (*)[m])A, s, q, p, r);
  for (int i = 0; i < n; i++) printf("q %.17e\\n", q[i]);
  for (int j = 0; j < m; j++) printf("s %.17e\\n", s[j]);
  printf("--\\n");
  free(A); free(s); free(q); free(p); free(r);
}
int main(void) {
  static const int sizes[][2] = {{37, 45}, {0, 5}, {13, 0}, {1, 1}, {64, 17}};
  for (int t = 0; t < 5; t++)
    run(sizes[t][0], sizes[t][1]);
  return 0;
}
"""

# The element moving along j is of the same array as the sum (q[j] beside q[i]): they may be one
# element, so no local for q[i]. Refused.
BICG_SAME = BICG.replace("s[j] = s[j] + r[i] * A[i][j];", "q[j + n] = r[i] * A[i][j];").replace(
    "*q = malloc(sizeof(double) * (n + 1))", "*q = malloc(sizeof(double) * (n + m + 1))")


def test_reduction_gets_register_accumulators():
    # Untiled, to read the accumulators plainly (tiled, the triangular band gets them in its blocks).
    result = lift_source(SYRK, "s.c", LiftOptions(tile=False))
    body = kernel_function(result.output)
    assert "for (j = 0; j + 3 <= i; j += 4) {" in body
    assert "double C_acc0 = 0 < m ? C[i][j] : 0;" in body and "double C_acc3 = 0 < m ? C[i][(j + 3)] : 0;" in body
    assert "C_acc1 += alpha * A[i][k] * A[(j + 1)][k];" in body
    assert "if (0 < m) { C[i][j] = C_acc0; C[i][(j + 1)] = C_acc1;" in body
    assert "for (; j <= i; j++) {" in body  # the remainder, as written
    entries = {e["var"]: e for e in result.loops if e["function"] == "kernel"}
    assert "register accumulators" in entries["k"]["transformations"]
    assert "unroll" in entries["k"]["passes"]
    for g in result.graphs:
        validate(g)


def test_refused_where_additions_would_be_reordered_or_the_element_is_read_elsewhere():
    body = kernel_function(lift_source(REORDERED, "r.c").output)
    assert "j += " not in body  # no jam of j: it would reorder the additions into s[i]
    # ... but s[i] is still kept in a local around k alone (factor 1): the same additions in order
    assert "double s_acc0 = 0 < n ? s[i] : 0;" in body and "s_acc0 += A[i][j][k] * 0.5;" in body
    assert "if (0 < n) { s[i] = s_acc0; }" in body
    assert "_acc" not in kernel_function(lift_source(SELF_READ, "s.c").output)


def test_reduction_with_siblings_under_a_parallel_loop_gets_locals_around_it():
    result = lift_source(GESUMMV, "g.c")
    body = kernel_function(result.output)
    assert "#pragma omp parallel for" in body and "i += " not in body  # i stays parallel, not unrolled
    block = """      tmp[i] = 0.0;
      y[i] = 0.0;
      {
          double tmp_acc0 = 0 < m ? tmp[i] : 0;
          double y_acc1 = 0 < m ? y[i] : 0;
          for (j = 0; j < m; j++) {
              tmp_acc0 = A[i][j] * x[j] + tmp_acc0;
              y_acc1 = B[i][j] * x[j] + y_acc1;
          }
          if (0 < m) { tmp[i] = tmp_acc0; y[i] = y_acc1; }
      }
      y[i] = alpha * tmp[i] + beta * y[i];"""
    # in both branches of the work test: the parallel loop and the sequential copy of the nest
    assert body.count(textwrap.indent(block, "    ")) == 2
    entries = {e["var"]: e for e in result.loops if e["function"] == "kernel"}
    assert "register accumulators" in entries["j"]["transformations"]
    for g in result.graphs:
        validate(g)


def test_invariant_sum_beside_a_moving_update_gets_a_local():
    result = lift_source(BICG, "b.c")
    body = kernel_function(result.output)
    assert "#pragma omp parallel for" in body and "reduction(+: s[" in body
    block = """      {
          double q_acc0 = 0 < m ? q[i] : 0;
          for (j = 0; j < m; j++) {
              s[j] = s[j] + r[i] * A[i][j];
              q_acc0 = q_acc0 + A[i][j] * p[j];
          }
          if (0 < m) { q[i] = q_acc0; }
      }"""
    assert body.count(textwrap.indent(block, "    ")) == 2, body  # the parallel loop and its sequential copy
    entries = {e["var"]: e for e in result.loops if e["function"] == "kernel"}
    assert "register accumulators" in entries["j"]["transformations"]
    for g in result.graphs:
        validate(g)
    assert "_acc" not in kernel_function(lift_source(BICG_SAME, "b.c").output)


def test_element_named_otherwise_in_the_reduction_leaves_the_nest_as_written():
    lifted = lift_source(GESUMMV_OTHER, "g.c").output
    assert "_acc" not in lifted
    assert lifted == lift_source(GESUMMV_OTHER, "g.c", LiftOptions(unroll=False)).output  # no pass changed it


def test_no_unroll_leaves_reductions_alone():
    assert "_acc" not in lift_source(SYRK, "s.c", LiftOptions(unroll=False)).output


def test_accumulated_programs_compute_the_same_to_the_last_bit(tmp_path):
    for name, text in (("syrk", SYRK), ("reordered", REORDERED), ("self_read", SELF_READ), ("gesummv", GESUMMV),
                       ("gesummv_other", GESUMMV_OTHER)):
        diff = prepare(write_program(tmp_path, name, text), tmp_path)
        for threads in (1, 2, 8):
            assert diff.check(threads) == diff.reference  # the same additions in the same order
    for name, text in (("bicg", BICG), ("bicg_same", BICG_SAME)):
        diff = prepare(write_program(tmp_path, name, text), tmp_path)
        assert diff.check(1) == diff.reference  # in order on one thread; s is an OpenMP reduction on more
        for threads in (2, 8):
            diff.check(threads)
