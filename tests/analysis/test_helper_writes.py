"""Helpers that write through pointer parameters, and event loops built from helpers.

A summary carries the range a helper writes (`reset3(f[i])` writes f[i][0..2]), calls that
end the program (`abort`, `exit`, a failed `assert`) add no data effect, and a Monte Carlo
event loop (own random state per event, binary search in read-only tables, a small local
array) runs in parallel. Helpers that write past their row or into a global keep the loop
sequential. Differential at 1, 2 and 8 threads."""
import pytest

from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

HELPERS = """#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#define NP 4000

static double force[NP][3], vel[NP][3];
static double energy[4];

static void reset3(double *v)
{
    v[0] = 0.0;
    v[1] = 0.0;
    v[2] = 0.0;
}

static void kick(double *v, const double *f, double dt)
{
    for (int d = 0; d < 3; d++)
        v[d] += dt * f[d];
}

static void scale_row(double *row, int m, double s)
{
    assert(m > 0);
    if (s != s)
        abort();
    for (int k = 0; k < m; k++)
        row[k] *= s;
}

/* writes one element past a row of three: into the next particle */
static void smear4(double *v)
{
    for (int d = 0; d < 4; d++)
        v[d] = 0.25 * d;
}

/* also adds into a global array */
static void tally(double *v)
{
    energy[0] += v[0] * v[0];
    v[0] *= 0.5;
}

static void clear_forces(int n)
{
    for (int i = 0; i < n; i++)
        reset3(force[i]);
}

static void push(int n, double dt)
{
    for (int i = 0; i < n; i++) {
        force[i][0] = 0.001 * (i % 17);
        force[i][1] = -0.002 * (i % 5);
        force[i][2] = 0.5;
        kick(&vel[i][0], force[i], dt);
    }
}

static void rescale(int n, int m, double *a)
{
    for (int i = 0; i < n; i++) {
        if (m > 1000)
            exit(2);
        scale_row(&a[i * m], m, 0.99);
    }
}

static void overlap(int n)
{
    for (int i = 0; i < n - 1; i++)
        smear4(vel[i]);
}

static void global_tally(int n)
{
    for (int i = 0; i < n; i++)
        tally(vel[i]);
}

int main(void)
{
    int m = 16;
    double *a = malloc(sizeof(double) * NP * m);
    for (int i = 0; i < NP * m; i++)
        a[i] = (i % 23) * 0.5;
    for (int i = 0; i < NP; i++)
        for (int d = 0; d < 3; d++)
            vel[i][d] = (i * 3 + d) % 7;
    clear_forces(NP);
    push(NP, 0.1);
    rescale(NP, m, a);
    overlap(NP);
    global_tally(NP);
    double s = energy[0];
    for (int i = 0; i < NP; i++)
        s += vel[i][0] + 2 * vel[i][1] + 3 * vel[i][2] + force[i][1] + a[i * m + i % m];
    printf("%.12e\\n", s);
    free(a);
    return 0;
}
"""

# The main loop of a Monte Carlo transport code, cut down: each event seeds its own random
# state from its index, draws energies, looks them up in a sorted grid with a binary search
# (a `while` loop in a helper), accumulates into a small local array and writes out[i].
EVENTS = """#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

typedef struct { int ngrid; int nmat; } Inputs;

static double next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static int grid_search(int n, const double *grid, double e)
{
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (grid[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static void lookups(Inputs in, long nevents, const double *grid, const double *xs, double *out)
{
    for (long i = 0; i < nevents; i++) {
        uint64_t seed = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(i * 2654435761u);
        double macro[4] = {0.0, 0.0, 0.0, 0.0};
        for (int k = 0; k < 4; k++) {
            double e = next_random(&seed);
            int g = grid_search(in.ngrid, grid, e);
            int mat = (int)(next_random(&seed) * in.nmat);
            macro[k] = xs[mat * in.ngrid + g] * (1.0 + e);
        }
        double best = macro[0];
        for (int k = 1; k < 4; k++)
            if (macro[k] > best)
                best = macro[k];
        out[i] = best;
    }
}

int main(void)
{
    Inputs in = {512, 6};
    long nevents = 20000;
    double *grid = malloc(sizeof(double) * in.ngrid);
    double *xs = malloc(sizeof(double) * in.ngrid * in.nmat);
    double *out = malloc(sizeof(double) * nevents);
    for (int g = 0; g < in.ngrid; g++)
        grid[g] = (double)g / in.ngrid;
    for (int j = 0; j < in.ngrid * in.nmat; j++)
        xs[j] = 1.0 + (j % 13) * 0.125;
    lookups(in, nevents, grid, xs, out);
    unsigned long check = 0;
    for (long i = 0; i < nevents; i++)
        check = check * 31 + (unsigned long)(out[i] * 1000.0);
    printf("verification %lu\\n", check % 1000003);
    free(grid); free(xs); free(out);
    return 0;
}
"""


def _outer(text, function):
    return next(e for e in loops_by_function(text)[function] if e["depth"] == 0)


def test_helpers_that_write_their_row_leave_the_loop_parallel():
    for function in ("clear_forces", "push", "rescale"):
        entry = _outer(HELPERS, function)
        assert entry["parallelized"], (function, entry["reason"], entry["remark"])


def test_helpers_that_write_past_the_row_or_into_globals_keep_the_loop_sequential():
    overlap = _outer(HELPERS, "overlap")
    assert not overlap["parallel"] and "vel" in overlap["reason"]
    tally = _outer(HELPERS, "global_tally")
    assert not tally["parallel"] and "energy" in tally["reason"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_helper_writes_compute_the_same(tmp_path, threads):
    check_program(HELPERS, "helpers.c", tmp_path, threads)


def test_independent_events_run_in_parallel():
    entry = _outer(EVENTS, "lookups")
    assert entry["parallelized"], (entry["reason"], entry["remark"])


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_event_loop_computes_the_same(tmp_path, threads):
    check_program(EVENTS, "events.c", tmp_path, threads)
