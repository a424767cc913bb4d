"""Unroll-and-jam of a loop named in the innermost loop's bounds (correlation's `j = i + 1`): its
jammed copies run the innermost loop over different ranges, split into a common run and each
copy's head and tail (`unroll._split_runs`). Generated bands, triangular and rectangular, tiled
or not, with sizes no factor divides, run against the original at 1, 2 and 8 threads; a
dependence between the copies refuses the jam."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from lifter import lift_source
from tests.harness import CORPUS, have_gcc, kernel_function, prepare, write_program

# The innermost loop's bounds over `i`, the loop two levels out (lower, upper); None: rectangular.
_BOUNDS = [("i + 1", "n"), ("i", "n"), ("0", "i + 1"), ("i + 2", "n - 1"), ("0", "n - i"), ("i / 2", "n"),
           ("0", "n")]
_STATEMENTS = ["C[i][j] += A[k][i] * A[k][j];", "C[i][j] += A[i][k] * B[k][j];",
               "C[i][j] = C[i][j] + 0.5 * A[k][i] * B[k][j];"]


@st.composite
def jammed_programs(draw) -> str:
    lower, upper = draw(st.sampled_from(_BOUNDS))
    statement = draw(st.sampled_from(_STATEMENTS))
    size = draw(st.sampled_from([23, 30, 37]))
    return f"""#include <stdio.h>
#define N {size}
static double A[N + 2][N + 2], B[N + 2][N + 2], C[N + 2][N + 2];
static void kernel(int n) {{
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n - 3; k++)
      for (int j = {lower}; j < {upper}; j++)
        {statement}
}}
int main(void) {{
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++) {{ A[i][j] = (i + 2 * j) % 9 - 4; B[i][j] = (3 * i + j) % 5; C[i][j] = (i * j) % 3; }}
  kernel(N);
  double s = 0;
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}}
"""


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=jammed_programs(), sizes=st.sampled_from([(), (8, 12, 20), (12, 8, 24)]))
def test_jammed_bands_compute_the_same(tmp_path: Path, text: str, sizes: tuple[int, ...]):
    diff = prepare(write_program(tmp_path, "jam", text), tmp_path, tile_sizes=sizes)
    lifted = diff.lifted.read_text()
    assume("i += 4)" in lifted)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_correlation_jams_i_over_split_runs(tmp_path: Path):
    """correlation's i is unrolled by 4 around the k loop; the copies' common j run holds 16
    statements, each copy's head and tail its own four (k's copies)."""
    diff = prepare(CORPUS / "suite/correlation.c", tmp_path, defines=["M=41", "N=23"])
    body = kernel_function(diff.lifted.read_text())
    assert "i += 4)" in body and "k += 4)" in body
    assert "j_lo = j_lo < (j_t > ((i + 3) + 1) ? j_t : ((i + 3) + 1))" in body
    assert "for (j = j_lo; j < j_hi; j++)" in body and "for (j = j_hi; j < (j_t + 256 < m ? j_t + 256 : m); j++)" in body
    assert "corr_r3 += data_15 * data[(k + 3)][j];" in body
    for threads in (1, 2, 8):
        diff.check(threads)


# Copy i reads the row copy i - 1 writes, at the same column (the lanes of j stay independent):
# jammed around k's strips, copy i would read that row before copy i - 1 had added the later
# strips' terms. The copies of i are not independent, so i stays whole; k, whose are, is unrolled
# (b is the parallel loop, so i, k and j are a plain sequential chain inside it).
DEPENDENT = """#include <stdio.h>
#define N 41
static double A[3][N][N], B[N][N];
static void kernel(int n) {
  for (int b = 0; b < 3; b++)
    for (int i = 1; i < n; i++)
      for (int k = 0; k < n; k++)
        for (int j = i; j < n - 1; j++)
          A[b][i][j] += A[b][i - 1][j] * B[k][j];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      B[i][j] = ((3 * i + j) % 7) * 0.125;
      for (int b = 0; b < 3; b++) A[b][i][j] = (i + 2 * j + b) % 5 - 2;
    }
  kernel(N);
  double s = 0;
  for (int b = 0; b < 3; b++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) s += A[b][i][j] * (1 + (i * N + j + b) % 7);
  printf("%.10e\\n", s);
  return 0;
}
"""


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_dependent_copies_refuse_the_split_jam(tmp_path: Path):
    body = kernel_function(lift_source(DEPENDENT, "d.c").output)
    assert "k += 4)" in body and "i += " not in body and "_lo" not in body
    diff = prepare(write_program(tmp_path, "dependent", DEPENDENT), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("lower", ["i + 1", "i"])
def test_trmm_keeps_its_row_in_a_local_where_no_other_read_meets_it(tmp_path: Path, lower: str):
    """trmm's `B[i][j] += A[k][i] * B[k][j]` for k from i + 1: B[k][j] is never B[i][j], so B[i][j]
    stays in a local across the four copies of k. From k = i the first copy reads it: stores kept."""
    text = (CORPUS / "suite/trmm.c").read_text().replace("k = i + 1;", f"k = {lower};")
    diff = prepare(write_program(tmp_path, "trmm", text), tmp_path, defines=["M=37", "N=29"])
    body = diff.lifted.read_text()
    body = body[body.index("static void kernel_trmm"):]
    assert "k += 4)" in body
    assert ("B_r0 += A_3 * B[(k + 3)][j];" in body) == (lower == "i + 1")
    for threads in (1, 2, 8):
        diff.check(threads)
