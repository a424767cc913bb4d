"""Reductions the verdicts recognise, each with a near miss that must stay sequential."""
from lifter import LiftOptions, lift_source


def _loops(text):
    return {(e["line"], e["var"]): e for e in lift_source(text, "r.c", LiftOptions(min_parallel_work=0)).loops}


def _reductions(entry):
    return [(r["variable"], r["operator"]) for r in entry["reduction"]]


# The k loop reduces into A[i][j] and reads A[i][k], A[k][j] with k < j < i:
# never the reduced element.
LU_ROW = """
void lu(int n, double A[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
}
"""

# k runs up to i, and A[k][j] with k == i is the reduced element A[i][j].
LU_OVERLAP = """
void lu(int n, double A[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      for (int k = 0; k <= i; k++)
        A[i][j] -= A[i][k] * A[k][j];
}
"""

# The same inside a sequential loop, where the planner considers the k loop.
IN_TIME_LOOP = """
void f(int n, double A[n][n], const double *restrict x) {
  for (int t = 0; t < n; t++) {
    A[0][0] = A[0][0] * 0.5 + 1.0;
    for (int k = 1; k < n; k++)
      A[0][0] += A[k][0] * x[k];
  }
}
"""

# The right-hand side spells the reduced element itself.
SELF_READ = """
void f(int n, double A[n][n], const double *restrict x) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      A[i][0] += A[i][0] * x[k];
}
"""

# A second statement in the loop writes the element the first reduces into.
OTHER_STATEMENT = """
void f(int n, double A[n][n], const double *restrict x) {
  for (int i = 1; i < n; i++)
    for (int k = 1; k < n; k++) {
      A[i][0] += A[i][k] * x[k];
      A[k][0] = x[k];
    }
}
"""

# Reads through the array's name as a pointer: any element.
POINTER_READ = """
void f(int n, double A[n][n], const double *restrict x) {
  for (int i = 1; i < n; i++)
    for (int k = 1; k < n; k++)
      A[i][0] += *(A[k] + 1) * x[k];
}
"""


def test_array_element_reduction_reading_other_elements():
    k = _loops(LU_ROW)[(5, "k")]
    assert k["parallel"] and _reductions(k) == [("A", "+")]


def test_array_element_reduction_is_not_planned_for_openmp():
    # OpenMP's private copy of A[i][j] would hide A[i][k] and A[k][j] from the loop.
    loops = _loops(IN_TIME_LOOP)
    assert not loops[(3, "t")]["parallel"]
    k = loops[(5, "k")]
    assert k["parallel"] and _reductions(k) == [("A", "+")]
    assert not k["parallelized"] and "other elements" in k["reason"]


def test_reduced_element_read_by_the_right_hand_side_is_sequential():
    assert not _loops(LU_OVERLAP)[(5, "k")]["parallel"]


def test_right_hand_side_spelling_the_target_is_sequential():
    assert not _loops(SELF_READ)[(4, "k")]["parallel"]


def test_reduced_element_written_by_another_statement_is_sequential():
    assert not _loops(OTHER_STATEMENT)[(4, "k")]["parallel"]


def test_reduced_array_read_through_a_pointer_is_sequential():
    assert not _loops(POINTER_READ)[(4, "k")]["parallel"]


# A count under a data-dependent condition: a skipped update adds nothing.
CONDITIONAL = """
long count(int n, const int *restrict a, int *restrict b) {
  long changed = 0;
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) {
      b[i] = a[i];
      changed++;
    }
  return changed;
}
"""

# The condition reads the reduced variable: the order of updates matters.
CONDITION_READS_TARGET = """
long capped(int n, const int *restrict a) {
  long s = 0;
  for (int i = 0; i < n; i++)
    if (s < 100)
      s += a[i];
  return s;
}
"""


def test_reduction_under_a_data_dependent_condition():
    i = _loops(CONDITIONAL)[(4, "i")]
    assert i["parallel"] and _reductions(i) == [("changed", "+")]


def test_condition_reading_the_reduced_variable_is_sequential():
    assert not _loops(CONDITION_READS_TARGET)[(4, "i")]["parallel"]
