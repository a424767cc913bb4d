"""Rotated row solves (transform/rotation.py): LU-shaped nests at odd sizes, lifted and run
against the original at 1, 2 and 8 threads, and the nests whose dependences or strides forbid
the rotation left as written."""
from pathlib import Path

import pytest
from hypothesis import assume, given, settings, strategies as st

from tests.harness import have_gcc, kernel_function, loops_by_function, prepare, write_program

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

MAIN = """
int main(void) {
  static double A[N][N], B[N][N], x[N], d[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) + 1.0; d[i] = 0.0;
    for (int j = 0; j < N; j++) {
      A[i][j] = i == j ? (double)N : (double)((i + 2 * j) % 7 + 1) / 8.0;
      B[i][j] = (double)((3 * i + j) % 5 + 1) / 4.0;
    }
  }
  kernel(N, A, B, x, d);
  double s = 0.0;
  for (int i = 0; i < N; i++) {
    s += x[i] * (i + 1) + d[i];
    for (int j = 0; j < N; j++) s += (A[i][j] + B[i][j]) * (1 + (i * N + j) % 7);
  }
  printf("%.12e\\n", s);
  return 0;
}
"""


def _program(kernel: str, n: int) -> str:
    return (f"#include <math.h>\n#include <stdio.h>\n#define N {n}\n"
            f"static void kernel(int n, double A[N][N], double B[N][N], double x[N], double d[N])\n"
            f"{{\n{kernel}\n}}\n{MAIN}")


LU = """    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (j = i; j < n; j++)
            for (k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }"""

# Lower bounds other than 0, `<=`, declared loop variables and two statements after the inner loop.
LU_FROM_ONE = """    for (int i = 1; i < n; i++) {
        for (int j = 1; j <= i - 1; j++) {
            for (int k = 1; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
            d[j] += A[i][j];
        }
        for (int j = i; j < n; j++)
            for (int k = 1; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }"""

# Forward substitution of every row against one upper triangle: the rows are independent (the
# outer loop stays parallel), each row's solve is rotated inside it.
ROWS = """    for (int r = 0; r < n; r++)
        for (int j = 0; j < n; j++) {
            for (int k = 0; k < j; k++)
                B[r][j] -= B[r][k] * A[k][j];
            B[r][j] = B[r][j] / A[j][j];
        }"""

# S2 writes d[j], which S1 reads for every later j at every k: the rotation would run
# S1(j + 1, k) for k < j before S2(j).
FORBIDDEN = """    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j] + d[j - 1];
            d[j] = A[i][j] * 0.5;
        }"""

# Cholesky, row by row: the rows' loop is rotated (each column's diagonal first, then the column
# below it, a parallel loop); its row solve, which reads rows along k, is not.
CHOLESKY = """    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (int k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }"""

# Rotated one level up, then distributed and tiled; the sums into d[m] run in a loop over o that
# starts at m + 1, which unroll-and-jam of m must not take for a rectangular one (its copies for
# m + 1 .. m + 3 would add A[m + 1][m + 1] ...): found by the generated nests below.
SUMS_BELOW = """    for (int o = 0; o < n; o++) {
        for (int m = 0; m < o; m++) {
            for (int c = 0; c < m; c++)
                A[o][m] -= A[o][c] * A[m][c];
            d[m] = A[o][m] * 0.5 + d[m];
        }
        A[o][o] = A[o][o] * 0.5 + 1.0;
        x[o] = x[o] * 0.5 + A[o][0];
    }"""

# Cholesky's row solve alone: rotated, its inner loop would walk a column (A[j][k] along j).
ALONG_ROWS = """    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }"""


def _rotated(text: str) -> bool:
    return any("rotation" in loop.get("transformations", []) for loop in loops_by_function(text)["kernel"])


@pytest.mark.parametrize("kernel,n,moved,inner", [
    (LU, 37, "A[i][k] /= A[k][k];", "j = k + 1"),
    (LU, 5, "A[i][k] /= A[k][k];", "j = k + 1"),
    (LU_FROM_ONE, 23, "d[k] += A[i][k];", "j = k + 1"),
    (ROWS, 29, "B[r][k] = B[r][k] / A[k][k];", "j = k + 1"),
    (CHOLESKY, 33, "A[j][j] = sqrt(A[j][j]);", "i = j + 1"),
    (CHOLESKY, 6, "A[j][j] -= A[j][k] * A[j][k];", "i = j + 1"),
    (SUMS_BELOW, 9, "A[m][m] = A[m][m] * 0.5 + 1.0;", "(m + 1)"),
])
def test_rotated_solves_compute_the_same(tmp_path: Path, kernel: str, n: int, moved: str, inner: str):
    text = _program(kernel, n)
    diff = prepare(write_program(tmp_path, "solve", text), tmp_path)
    lifted = kernel_function(diff.lifted.read_text())
    assert moved in lifted and inner in lifted, lifted
    assert _rotated(text)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_rows_stay_parallel_around_their_rotated_solves():
    loops = loops_by_function(_program(ROWS, 29))["kernel"]
    outer = next(loop for loop in loops if loop["var"] == "r")
    assert outer["parallelized"], outer


def test_rotated_cholesky_runs_each_column_in_parallel():
    """The column below each diagonal element (the user's row loop, now inside) is parallel; the
    rotated loop and the diagonal's sum inside it stay sequential."""
    loops = {loop["line"]: loop for loop in loops_by_function(_program(CHOLESKY, 33))["kernel"]}
    rows, columns, diagonal = loops[6], loops[7], loops[12]
    assert rows["parallelized"] and "rotation" in rows["transformations"], rows
    assert not columns["parallelized"] and not diagonal["parallelized"]


@pytest.mark.parametrize("kernel", [FORBIDDEN, ALONG_ROWS])
def test_rotation_refused(tmp_path: Path, kernel: str):
    """A dependence (FORBIDDEN) or the strides (ALONG_ROWS) forbid it: the nest is lifted as it was,
    and still computes the same."""
    text = _program(kernel, 31)
    assert not _rotated(text)
    diff = prepare(write_program(tmp_path, "solve", text), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)



# -- generated solves ---------------------------------------------------------------------------
# Statements in the deepest loop (over c), after it in the middle loop (over m), and after the
# middle loop in the outer one (over o): LU's and Cholesky's, and others that read what the
# statements after a loop write, which makes some shapes illegal to rotate.
_DEEP = ["A[o][m] -= A[o][c] * A[c][m];", "A[o][m] -= A[o][c] * A[m][c];", "A[o][m] += A[c][m] * d[c];"]
_TAIL = ["A[o][m] /= A[m][m];", "d[m] = A[o][m] * 0.5 + d[m];", "A[o][m] = A[o][m] * 0.25 + x[m];"]
_AFTER = ["A[o][o] = A[o][o] * 0.5 + 1.0;", "x[o] = x[o] * 0.5 + A[o][{lo}];", "A[o][{lo}] /= A[o][o];",
          "for (int c = {lo}; c < o; c++) A[o][o] -= A[o][c] * A[o][c] * 0.001;"]


@st.composite
def solves(draw) -> tuple[str, int]:
    """A triangular nest `for (o = lo; o < n) { for (m = lo; m < o) { for (c = lo; c < m) D; T } U }`
    with statements drawn from the lists above (T, U possibly none), and an odd size."""
    lo = draw(st.sampled_from(["0", "1"]))
    op, top = draw(st.sampled_from([("<", "n"), ("<=", "n - 1"), ("<", "n - 1")]))
    deep = draw(st.sampled_from(_DEEP))
    tail = draw(st.lists(st.sampled_from(_TAIL), max_size=1))
    after = [u.format(lo=lo) for u in draw(st.lists(st.sampled_from(_AFTER), max_size=2))]
    lines = [f"    for (int o = {lo}; o {op} {top}; o++) {{",
             f"        for (int m = {lo}; m < o; m++) {{",
             f"            for (int c = {lo}; c < m; c++)",
             f"                {deep}"] + [f"            {t}" for t in tail] + ["        }"] \
        + [f"        {u}" for u in after] + ["    }"]
    return "\n".join(lines), draw(st.sampled_from([7, 9, 13]))


@settings(max_examples=12, deadline=None)
@given(solve=solves())
def test_generated_solves_compute_the_same(tmp_path_factory, solve: tuple[str, int]):
    """Rotated or not (legality and profitability decide), the lifted nest computes what the
    original does, at 1, 2 and 8 threads; most drawn nests are rotated somewhere."""
    kernel, n = solve
    text = _program(kernel, n)
    assume(_rotated(text))
    workdir = tmp_path_factory.mktemp("solve")
    diff = prepare(write_program(workdir, "solve", text), workdir)
    for threads in (1, 2, 8):
        diff.check(threads)
