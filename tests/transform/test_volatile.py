"""A nest that accesses a volatile object keeps its order: each access is an observable event
(C11 5.1.2.3) that the dependences do not record, so no pass may interchange, tile, skew into
wavefronts, fuse, distribute or unroll it, and no loop of it runs in parallel."""
from lifter import LiftOptions, lift_source

COLUMN_ORDER = """void k(int n, volatile double A[n][n], double B[n][n])
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      A[i][j] = B[i][j] + 1.0;
}
"""

WITHOUT_VOLATILE = COLUMN_ORDER.replace("volatile ", "")


def test_a_nest_over_a_volatile_array_is_left_as_written():
    result = lift_source(COLUMN_ORDER, "vol.c", LiftOptions())
    assert "#pragma omp" not in result.output and "wave" not in result.output
    assert COLUMN_ORDER in result.output
    assert all("volatile 'A'" in e["remark"] for e in result.loops), [e["remark"] for e in result.loops]


def test_the_same_nest_without_volatile_is_reshaped():
    """The test above can fail: without the qualifier lift does reorder this nest."""
    result = lift_source(WITHOUT_VOLATILE, "vol.c", LiftOptions())
    assert "#pragma omp" in result.output and WITHOUT_VOLATILE not in result.output


def test_a_volatile_scalar_read_in_a_tiling_candidate_keeps_the_nest():
    source = """volatile double scale;
void mm(int n, double C[n][n], double A[n][n], double B[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j] * scale;
}
"""
    result = lift_source(source, "mm.c", LiftOptions())
    assert source in result.output and "#pragma omp" not in result.output
