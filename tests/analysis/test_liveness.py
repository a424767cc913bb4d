"""Privatizing a loop variable is only safe when nothing reads its value after the loop."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, have_gcc

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

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


# Each function privatizes `acc` in its `for (k ...)` loop only if its value there is dead
# afterwards; main prints what every function returns.
PATHS = r"""
#include <stdio.h>
static double a[64];

/* the assignment after the loop may not run: acc stays live */
static double conditional_kill(int n, int flag)
{
    double acc = -1.0;
    for (int k = 0; k < 3; k++) {
        acc = 0.0;
        for (int i = 0; i < n; i++)
            acc += a[i] * (k + 1);
    }
    if (flag)
        acc = 1.0;
    return acc;
}

/* the next round of the while kills acc, but the while may end first: live */
static double kill_on_the_next_round(int n, int rounds)
{
    double acc = -1.0;
    int r = 0;
    while (r < rounds) {
        r++;
        acc = 5.0;
        for (int k = 0; k < 3; k++) {
            acc = 0.0;
            for (int i = 0; i < n; i++)
                acc += a[i] * (k + 1);
        }
    }
    return acc;
}

/* read at the top of the inner while's next round; the outer round's kill does not run then */
static double read_on_the_inner_round(int n)
{
    double total = 0.0, acc = 0.0;
    int t = 0;
    while (t < 2) {
        t++;
        acc = 0.0;
        int r = 0;
        while (r < 3) {
            total += acc;
            r++;
            for (int k = 0; k < 3; k++) {
                acc = 0.0;
                for (int i = 0; i < n; i++)
                    acc += a[i] * (k + r);
            }
        }
    }
    return total;
}

/* a break may skip the assignment after the loop */
static double break_skips_the_kill(int n)
{
    double acc = -1.0;
    int r = 0;
    while (r < 5) {
        r++;
        for (int k = 0; k < 3; k++) {
            acc = 0.0;
            for (int i = 0; i < n; i++)
                acc += a[i] * (k + r);
        }
        if (r == 2)
            break;
        acc = 0.0;
    }
    return acc;
}

/* the assignment after the loop always runs: acc is dead, the loop may privatize it */
static double certain_kill(int n)
{
    double acc = 0.0, out = 0.0;
    for (int k = 0; k < 3; k++) {
        acc = 0.0;
        for (int i = 0; i < n; i++)
            acc += a[i] * (k + 1);
        out += 0.0;
    }
    acc = 2.0;
    return acc + out;
}

int main(void)
{
    for (int i = 0; i < 64; i++)
        a[i] = i % 7;
    printf("%g %g %g %g %g\n", conditional_kill(64, 0), kill_on_the_next_round(64, 2),
           read_on_the_inner_round(64), break_skips_the_kill(64), certain_kill(64));
    return 0;
}
"""


def _k_loops(text):
    return {e["function"]: e for e in lift_source(text, "paths.c", LiftOptions(min_parallel_work=0)).loops
            if e["var"] == "k"}


def test_value_read_on_some_path_after_the_loop_keeps_it_live():
    loops = _k_loops(PATHS)
    for name in ("conditional_kill", "kill_on_the_next_round", "read_on_the_inner_round", "break_skips_the_kill"):
        assert not loops[name]["parallelized"], (name, loops[name]["reason"])
    assert loops["certain_kill"]["parallelized"], loops["certain_kill"]["reason"]


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_paths_after_the_loop_give_identical_results(tmp_path, threads):
    check_program(PATHS, "paths.c", tmp_path, threads)
