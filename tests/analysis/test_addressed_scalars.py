"""A variable a pointer may hold the address of is no plain scalar (analysis/addressed_scalars.py).

The differential case is tests/reliability/cases/addressed_variable_through_pointer.c; here the
verdicts: refused where a pointer may reach the variable, parallel where none can."""
from __future__ import annotations

from lifter import LiftOptions, lift_source

TEXT = """
int a[100], b[100];
void bumped(int n) {
  int t = 0, *pt = &t;
  for (int i = 0; i < n; i++) { t = b[i]; *pt += 1; a[i] = t; }
}
void counter(int n) {
  int i, *pi = &i;
  for (i = 0; i < n; i++) { a[i] = b[i]; if (b[i] == 0) (*pi)++; }
}
void by_call(int n) {
  int t = 0, *pt = &t;
  for (int i = 0; i < n; i++) { t = b[i]; bump(pt); a[i] = t; }
}
void read_only(int n, int *x) {
  int t = 5, *pt = &t;
  for (int i = 0; i < n; i++) x[i] = b[i] + t + *pt;
}
int g, *gp = &g;
void global_through_param(int *p, int n) {
  for (int i = 0; i < n; i++) { g = b[i]; *p += 1; a[i] = g; }
}
void params(int *x, const int *y, int n) {
  int t = 0, *pt = &t;
  for (int i = 0; i < n; i++) { t = y[i]; x[i] = t * 2; }
  *pt = 1;
}
"""


def _loops() -> dict[str, dict]:
    text = "void bump(int *p);\n" + TEXT
    return {loop["function"]: loop for loop in lift_source(text, "a.c", LiftOptions(min_parallel_work=0)).loops}


def test_a_pointer_that_may_reach_the_variable_keeps_the_loop_in_order():
    loops = _loops()
    for function in ("bumped", "counter", "by_call", "global_through_param"):
        assert not loops[function]["parallelized"], function
        assert loops[function]["reason_code"] == "may-alias", loops[function]["remark"]
        assert "has its address taken" in loops[function]["remark"]


def test_no_write_of_the_variable_or_a_parameter_that_cannot_reach_it_stays_parallel():
    loops = _loops()
    assert loops["read_only"]["parallelized"], loops["read_only"]["remark"]
    assert loops["params"]["parallelized"], loops["params"]["remark"]
