"""Unroll-and-jam: applied around vectorizable innermost loops, refused where illegal, exact remainders."""

from click.testing import CliRunner

from lifter import LiftOptions, lift_source
from lifter.cli import lift as lift_command
from lifter.graph.validate import validate
from tests.harness import CORPUS, kernel_function, prepare, write_program

# Parametric sizes; a `<=` bound, an unsigned loop variable declared in its header and trip
# counts below the factors reach every remainder (main loops that never run included).
PRODUCT = """#include <stdio.h>
#include <stdlib.h>
static void kernel(int ni, int nj, unsigned nk, double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
  int i, j;
  for (i = 0; i <= ni - 1; i++)
    for (unsigned k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += 1.5 * A[i][k] * B[k][j];
}
static double run(int ni, int nj, unsigned nk) {
  double (*A)[nk] = malloc(sizeof(double) * ni * nk), (*B)[nj] = malloc(sizeof(double) * nk * nj);
  double (*C)[nj] = malloc(sizeof(double) * ni * nj);
  for (int i = 0; i < ni; i++)
    for (unsigned k = 0; k < nk; k++) A[i][k] = (double)((i * 3 + k) % 7);
  for (unsigned k = 0; k < nk; k++)
    for (int j = 0; j < nj; j++) B[k][j] = (double)((k + 5 * j) % 9);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) C[i][j] = (double)(i - j);
  kernel(ni, nj, nk, C, A, B);
  double s = 0;
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) s += C[i][j] * (1 + (i * nj + j) % 5);
  free(A); free(B); free(C);
  return s;
}
int main(void) {
  static const int sizes[][3] = {{37, 45, 29}, {3, 5, 1}, {1, 2, 3}, {40, 16, 64}, {2, 3, 0}};
  for (int t = 0; t < 5; t++)
    printf("%.10e\\n", run(sizes[t][0], sizes[t][1], (unsigned)sizes[t][2]));
  return 0;
}
"""

# B[j] is the same for every i (reuse), j is parallel and unit-stride, but S(i + 1, j) reads
# A[b][i][j + 1], which S(i, j + 1) writes later in the jammed body: unroll-and-jam of i is
# illegal. (b is the parallel loop, so i is a plain sequential loop inside it.)
ILLEGAL = """#include <stdio.h>
#define N 70
static double A[4][N][N], B[N];
static void kernel(int n) {
  for (int b = 0; b < 4; b++)
    for (int i = 1; i < n; i++)
      for (int j = 0; j < n - 1; j++)
        A[b][i][j] = A[b][i - 1][j + 1] * 0.5 + B[j];
}
int main(void) {
  for (int i = 0; i < N; i++) {
    B[i] = i % 3;
    for (int j = 0; j < N; j++)
      for (int b = 0; b < 4; b++) A[b][i][j] = (i + 2 * j + b) % 5;
  }
  kernel(N - 1);
  double s = 0;
  for (int b = 0; b < 4; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) s += A[b][i][j] * (1 + (i + j + b) % 4);
  printf("%.10e\\n", s);
  return 0;
}
"""

# The same walk reading the row above at the same column: the copy for i + 1 reads what the
# copy for i has just written, in the same iteration of j. Legal.
LEGAL = ILLEGAL.replace("A[b][i - 1][j + 1]", "A[b][i - 1][j]")

# The unrolled variable hides in a macro: its copies cannot substitute it, so i stays whole.
MACRO = PRODUCT.replace("#include <stdlib.h>\n", "#include <stdlib.h>\n#define ROW(x) A[i][x]\n") \
    .replace("C[i][j] += 1.5 * A[i][k] * B[k][j];", "C[i][j] += 1.5 * ROW(k) * B[k][j];")


def test_product_is_unrolled_and_jammed_with_remainders():
    result = lift_source(PRODUCT, "p.c")
    body = kernel_function(result.output)
    assert "k += 4)" in body and "i += 4)" in body  # 16 A and 4 C elements in registers: within REGISTERS
    assert "for (; i <= (i_t + 63 <= ni - 1 ? i_t + 63 : ni - 1); i++)" in body  # i is declared outside
    assert "/ 4 * 4 : (k_t); k < (k_t + 64 < nk ? k_t + 64 : nk); k++)" in body  # k in its header
    assert "C[(i + 1)][j] += 1.5 * A_" in body and "B[(k + 3)][j]" in body
    assert "#pragma omp simd" in body
    entries = {e["var"]: e for e in result.loops if e["function"] == "kernel"}
    assert "unroll-and-jam" in entries["i"]["transformations"] and "unroll-and-jam" in entries["k"]["transformations"]
    assert "unroll-and-jam" not in entries["j"]["transformations"]  # the vectorized loop stays whole
    for g in result.graphs:
        validate(g)


def test_unrolled_programs_compute_the_same(tmp_path):
    for name, text in (("product", PRODUCT), ("legal", LEGAL), ("illegal", ILLEGAL), ("macro", MACRO)):
        diff = prepare(write_program(tmp_path, name, text), tmp_path)
        for threads in (1, 2, 8):
            diff.check(threads)


def test_illegal_unroll_and_jam_is_refused():
    result = lift_source(ILLEGAL, "c.c")
    assert "(i + 1)" not in kernel_function(result.output)
    assert all("unroll-and-jam" not in e["transformations"] for e in result.loops)
    legal = lift_source(LEGAL, "c.c")
    assert "A[b][(i + 1)][j] = A[b][(i + 1) - 1][j] * 0.5 + B[j];" in kernel_function(legal.output)


def test_a_variable_hidden_in_a_macro_is_not_unrolled():
    body = kernel_function(lift_source(MACRO, "m.c").output)
    assert "(i + 1)" not in body and "ROW((k + 1))" in body


def test_no_unroll_and_lower_levels_leave_nests_alone():
    for options in (LiftOptions(unroll=False), LiftOptions(opt_level=1)):
        assert "+= 4)" not in lift_source(PRODUCT, "p.c", options).output


def test_cli_flag(tmp_path):
    src = write_program(tmp_path, "p", PRODUCT)
    runner = CliRunner()
    assert "--no-unroll" in runner.invoke(lift_command, ["--help"]).output
    done = runner.invoke(lift_command, [str(src), "-o", str(tmp_path / "out.c"), "--no-unroll"])
    assert done.exit_code == 0 and "+= 4)" not in (tmp_path / "out.c").read_text()


def test_unrolled_corpus_kernels_compute_the_same(tmp_path):
    # Sizes that neither the tiles nor the factors divide.
    for kernel, defines in (("linalg/gemm.c", ["NI=70", "NJ=141", "NK=67"]),
                            ("linalg/two_mm.c", ["NI=21", "NJ=259", "NK=31", "NL=23"]),
                            ("linalg/doitgen.c", ["NR=5", "NQ=7", "NP=19"])):
        diff = prepare(CORPUS / kernel, tmp_path, defines=defines)
        assert "unroll-and-jam" in {t for e in diff.loops for t in e["transformations"]}
        for threads in (1, 2, 8):
            diff.check(threads)


def test_jammed_writes_stay_in_locals_for_one_iteration():
    body = kernel_function(lift_source(PRODUCT, "p.c").output)
    assert "double C_r0 = C[i][j];" in body and "double C_r3 = C[(i + 3)][j];" in body
    assert "C_r0 += 1.5 * A_0 * B[k][j];" in body and "C_r3 += 1.5 * A_15 * B[(k + 3)][j];" in body
    assert "C[i][j] = C_r0; C[(i + 1)][j] = C_r1; C[(i + 2)][j] = C_r2; C[(i + 3)][j] = C_r3;" in body


# C[b][k / 2][j]: the copies for k and k + 1 write the same element under different texts; two
# locals would lose one copy's additions. (D[b][0][j] is the same for every k: k is unrolled.)
HALVES = """#include <stdio.h>
#define N 37
static double C[3][N][N], B[N][N], D[3][N][N];
static void kernel(int n) {
  for (int b = 0; b < 3; b++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++) {
        C[b][k / 2][j] += B[k][j] * D[b][0][j];
        C[b][k / 2][j] += D[b][k][j];
      }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      B[i][j] = (i * 3 + j) % 7;
      for (int b = 0; b < 3; b++) D[b][i][j] = (i + 2 * j + b) % 5;
    }
  kernel(N);
  for (int b = 0; b < 3; b++)
    for (int i = 0; i < N; i += 2)
      printf("%.17e %.17e\\n", C[b][i][i], C[b][i][(3 * i) % N]);
  return 0;
}
"""


def test_copies_writing_one_element_under_two_texts_keep_their_stores(tmp_path):
    body = kernel_function(lift_source(HALVES, "h.c").output)
    assert "C[b][(k + 1) / 2][j] += D[b][(k + 1)][j];" in body  # unrolled and jammed
    assert "_r0" not in body
    diff = prepare(write_program(tmp_path, "halves", HALVES), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_the_outer_factor_is_the_largest_whose_registers_fit():
    """PRODUCT's body keeps 16 copies of A[i][k], 4 of C[i][j] and one streamed B[k][j] (21 of
    REGISTERS = 32): i by 4. Three elements invariant along j, two of them varying along both i
    and k, need 45 by 4 and 25 by 2: i by 2."""
    assert "i += 4)" in kernel_function(lift_source(PRODUCT, "p.c").output)
    heavy = PRODUCT.replace("C[i][j] += 1.5 * A[i][k] * B[k][j];",
                            "C[i][j] += (A[i][k] + 0.5 * A[k][i] + A[k][k] * A[i][i]) * B[k][j];")
    body = kernel_function(lift_source(heavy, "p.c").output)
    assert "i += 2)" in body and "k += 4)" in body
