"""Pointers declared inside an opaque statement (a loop whose header reads memory).

Such a statement's own variables are private to it, but not the memory a pointer among them
points to: `double *q = f; q[atoms[k]] = 0;` writes f. Both programs below were found by a
review of reduction updates in opaque loops: the first was parallelized with a race, the
second crashed lift (a pointer parameter read in a local pointer's initializer).
"""
from __future__ import annotations

import pytest

from tests.harness import have_gcc, loops_by_function, prepare, write_program

MAIN = r"""
#include <stdio.h>
int main(void)
{
    enum { N = 4000 };
    static int start[N + 1], atoms[4 * N];
    static double x[4 * N], f[N];
    for (int i = 0; i <= N; i++)
        start[i] = 4 * i;
    for (int k = 0; k < 4 * N; k++) {
        atoms[k] = (k * 7919) % N;
        x[k] = (k % 13) * 0.5;
    }
    KERNEL_CALL;
    f[0] += x[1] + start[1];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += f[i] * (1 + i % 5);
    printf("%.6f\n", s);
    return 0;
}
"""

LOCAL_COPY = r"""
static void kernel_copy(int n, const int *restrict start, const int *restrict atoms, const double *restrict x,
                        double *restrict f)
{
    for (int i = 0; i < n; i++)
        for (int k = start[i]; k < start[i + 1]; k++) {
            double *q = f;
            f[i] += x[k];
            q[atoms[k]] = 0;
        }
}
""" + MAIN.replace("KERNEL_CALL", "kernel_copy(N, start, atoms, x, f)")

ADDRESS = r"""
static void kernel_address(int n, const int *atoms, double *f)
{
    for (int k = 0; k < n; k++) {
        double *p = &f[atoms[k]];
        *p -= 1.0;
    }
}
""" + MAIN.replace("KERNEL_CALL", "kernel_address(4 * N, atoms, f)")


# mgrid's smooth: the sweep's buffers are pointers declared in the time loop from a struct's row
# table, so a write through them is a write no name bounds; the bound `size[l]` is an int.
SWEEPS = r"""
typedef struct { int *size; double **u, **r; } Grids;
static void sweep(Grids *g, int l, int sweeps)
{
    int *size = g->size;
    int n = size[l];
    for (int s = 0; s < sweeps; s++) {
        ELEMENT *u = g->u[l], *out = g->r[l];
        for (int i = 1; i <= size[l] - 2; i++)
            for (int j = 1; j < n - 1; j++)
                out[i * n + j] = 0.5 * u[i * n + j] + 0.25 * (u[i * n + j - 1] + u[i * n + j + 1]);
        g->r[l] = u;
        g->u[l] = out;
    }
}
"""


def test_a_floating_point_write_through_a_local_pointer_leaves_an_integer_bound_invariant():
    loops = {e["var"]: e for e in loops_by_function(SWEEPS.replace("ELEMENT", "double"))["sweep"]}
    assert loops["i"]["parallelized"], loops["i"]
    # through int pointers the same writes may change size[l]: the bound is not invariant
    loops = {e["var"]: e for e in loops_by_function(SWEEPS.replace("ELEMENT", "int"))["sweep"]}
    assert not loops["i"]["parallelized"] and "not provably invariant" in loops["i"]["reason"], loops["i"]


def test_a_write_through_a_local_copy_of_a_pointer_keeps_the_loop_sequential():
    loops = {e["var"]: e for e in loops_by_function(LOCAL_COPY)["kernel_copy"]}
    assert not loops["i"]["parallelized"], loops["i"]
    assert "q[atoms[k]]" in loops["i"]["reason"]


def test_a_pointer_initialized_from_a_gathered_element_is_analysed():
    loops = loops_by_function(ADDRESS)["kernel_address"]
    assert not loops[0]["parallelized"]  # atoms may repeat: the decrements depend on each other


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("text", [LOCAL_COPY, ADDRESS], ids=["local-copy", "address"])
def test_the_lifted_programs_compute_what_the_originals_do(tmp_path, text):
    differential = prepare(write_program(tmp_path, "prog", text), tmp_path)
    for threads in (1, 2, 8):
        differential.check(threads)
