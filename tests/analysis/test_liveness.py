"""Privatizing a loop variable is only safe when nothing reads its value after the loop."""
from lifter import LiftOptions, lift_source

REUSED = """
void f(int n, double *restrict a, double *restrict b) {
  int i;
  for (i = 0; i < n; i++)
    a[i] = 1.0;
  for (i = 0; i < n; i++)
    b[i] = 2.0;
}
"""

READ_AFTER = """
int f(int n, double *restrict a) {
  int i;
  for (i = 0; i < n; i++)
    a[i] = 1.0;
  return i;
}
"""


def _loops(text):
    return {(e["line"], e["var"]): e for e in lift_source(text, "l.c", LiftOptions(min_parallel_work=0)).loops}


def test_variable_reassigned_by_the_next_loop_is_dead():
    assert _loops(REUSED)[(4, "i")]["parallelized"]


def test_variable_read_after_the_loop_blocks_parallelization():
    loop = _loops(READ_AFTER)[(4, "i")]
    assert not loop["parallelized"] and "used after the loop" in loop["reason"]
