"""Register accumulators: unroll-and-jam around a reduction loop with the sums in locals, exact
remainders and empty loops, refused where the locals or the jam would change a result."""

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

# The body reads the written container at another element (the diagonal): a local for C[i][j]
# would have to be seen by that read too. Refused.
SELF_READ = SYRK.replace("C[i][j] += alpha * A[i][k] * A[j][k];", "C[i][j] += alpha * A[i][k] * A[j][k] * C[i][0];")


def test_reduction_gets_register_accumulators():
    result = lift_source(SYRK, "s.c")
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
    assert "_acc" not in kernel_function(lift_source(REORDERED, "r.c").output)
    assert "_acc" not in kernel_function(lift_source(SELF_READ, "s.c").output)


def test_no_unroll_leaves_reductions_alone():
    assert "_acc" not in lift_source(SYRK, "s.c", LiftOptions(unroll=False)).output


def test_accumulated_programs_compute_the_same_to_the_last_bit(tmp_path):
    for name, text in (("syrk", SYRK), ("reordered", REORDERED), ("self_read", SELF_READ)):
        diff = prepare(write_program(tmp_path, name, text), tmp_path)
        for threads in (1, 2, 8):
            assert diff.check(threads) == diff.reference  # the same additions in the same order
