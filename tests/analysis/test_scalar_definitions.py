"""`int j = i + d;` in a loop body: later subscripts and bounds read j as i + d
(forward substitution), only where that is exact."""
from lifter import LiftOptions, lift_source


def _loops(text):
    return {(e["line"], e["var"]): e for e in lift_source(text, "s.c", LiftOptions(min_parallel_work=0)).loops}


# Nussinov's diagonal: the i loop of one diagonal reads only earlier diagonals.
DIAGONAL = """
void f(int n, double t[n][n]) {
  for (int d = 1; d < n; d++)
    for (int i = 0; i < n - d; i++) {
      int j = i + d;
      double best = t[i + 1][j];
      for (int k = i + 1; k < j; k++)
        best = best > t[i][k] + t[k + 1][j] ? best : t[i][k] + t[k + 1][j];
      t[i][j] = best;
    }
}
"""

# j is assigned again after its declaration: it is not i + d everywhere.
REASSIGNED = """
void f(int n, double t[n][n]) {
  for (int d = 1; d < n; d++)
    for (int i = 0; i < n - d; i++) {
      int j = i + d;
      double best = t[i + 1][j];
      j = 0;
      t[i][j] = best;
    }
}
"""

# A char wraps i + d around: not the same number.
NARROW = """
void f(int n, double t[n][n]) {
  for (int d = 1; d < n; d++)
    for (int i = 0; i < n - d; i++) {
      unsigned char j = i + d;
      double best = t[i + 1][j];
      t[i][j] = best;
    }
}
"""

# A break leaves the affine-looking j loop early: it is not a map.
BREAK = """
void f(int n, const double *restrict a, double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      if (a[j] > 0) break;
      b[i * n + j] = a[j];
    }
}
"""


def test_affine_scalar_is_substituted():
    loops = _loops(DIAGONAL)
    assert not loops[(3, "d")]["parallel"]
    assert loops[(4, "i")]["parallel"]
    k = loops[(7, "k")]
    assert k["parallel"] and [(r["variable"], r["operator"]) for r in k["reduction"]] == [("best", "max")]


def test_reassigned_scalar_is_not_substituted():
    assert not _loops(REASSIGNED)[(4, "i")]["parallel"]


def test_narrow_scalar_is_not_substituted():
    assert not _loops(NARROW)[(4, "i")]["parallel"]


def test_loop_with_break_is_not_a_map():
    loops = _loops(BREAK)
    assert (3, "j") not in loops or not loops[(3, "j")]["parallel"]
    assert "simd" not in lift_source(BREAK, "s.c", LiftOptions(min_parallel_work=0)).output


# After its block, `j` is the function's own variable again, not i + 1.
OUT_OF_SCOPE = """
void f(int n, double *restrict a, double *restrict b) {
  int j = 0;
  for (int i = 0; i < n; i++) {
    {
      int j = i + 1;
      a[j] = 0.0;
    }
    b[j] = i;
  }
}
"""


def test_definition_ends_with_its_block():
    assert not _loops(OUT_OF_SCOPE)[(4, "i")]["parallel"]
