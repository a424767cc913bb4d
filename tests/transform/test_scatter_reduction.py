"""Scatter-add into neighbours (`f[j] += ...` for each neighbour j of i): an array reduction
where the array's extent bounds the section (each thread adds into its own copy), sequential
where it cannot be bounded or where the loop also reads the array; never a race."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#define NP 3000
#define NB 8
static double fx[NP], pot[NP];
static double x[NP];

/* pair forces over a neighbour list: each pair pushes both particles */
static void pair_forces(int n, const int *nbr)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < NB; k++) {
            int j = nbr[i * NB + k];
            if (j >= 0) {  /* -1 marks an empty slot */
                double d = x[j] - x[i];
                double f = d / (1.0 + d * d);
                fx[i] += f;
                fx[j] -= f;
            }
        }
    }
}

/* the same scatter through a pointer parameter: the array's extent is unknown */
static void deposit(int n, const int *nbr, const double *q, double *rho)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < NB; k++)
            if (nbr[i * NB + k] >= 0)
                rho[nbr[i * NB + k]] += 0.125 * q[i];
}

/* reads another element of the array it scatters into: a reduction would hide it */
static void smear(int n, const int *nbr)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < NB; k++)
            if (nbr[i * NB + k] >= 0)
                pot[nbr[i * NB + k]] += 0.5 * pot[i];
}

int main(void)
{
    int *nbr = malloc(sizeof(int) * NP * NB);
    double *q = malloc(sizeof(double) * NP), *rho = calloc(NP, sizeof(double));
    for (int i = 0; i < NP; i++) {
        x[i] = (double)((i * 7919) % 1000) / 100.0;
        q[i] = (i % 9) * 0.25;
        pot[i] = (i % 4) * 0.5;
        for (int k = 0; k < NB; k++)
            nbr[i * NB + k] = k > i % NB ? -1 : (i * 31 + k * 97 + 5) % NP;
    }
    pair_forces(NP, nbr);
    deposit(NP, nbr, q, rho);
    smear(NP, nbr);
    double s = 0.0;
    for (int i = 0; i < NP; i++)
        s += fx[i] * (1 + i % 3) + rho[i] * (1 + i % 5) + pot[i];
    printf("%.10e\\n", s);
    free(nbr); free(q); free(rho);
    return 0;
}
"""


def _outer(function):
    return next(e for e in loops_by_function(PROGRAM)[function] if e["depth"] == 0)


def test_pair_scatter_into_a_bounded_array_is_an_array_reduction():
    entry = _outer("pair_forces")
    assert entry["parallelized"], entry["reason"]
    assert [(r["variable"], r["operator"]) for r in entry["reduction"]] == [("fx", "+")]
    out = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0)).output
    assert "reduction(+: fx[0:3000])" in out


def test_scatter_that_cannot_be_bounded_or_that_reads_the_array_stays_sequential():
    deposit = _outer("deposit")
    assert not deposit["parallelized"]
    assert "reduction into array 'rho' whose written range has no bounds in C" in deposit["reason"]
    smear = _outer("smear")
    assert not smear["parallelized"] and "pot" in smear["reason"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_scatter_reductions_compute_the_same(tmp_path, threads):
    check_program(PROGRAM, "scatter.c", tmp_path, threads)


def test_cuda_scatters_with_atomics_and_computes_the_same(tmp_path):
    from tests.backend.test_cuda import same_results
    same_results(PROGRAM, tmp_path, rtol=1e-9)
