"""A loop that reads through a pointer held in a struct (`sum += sim->u[c]`) gets no `omp simd`
(transform/vectorize.py `_loaded_base`): GCC 12 then reloads the pointer for every lane and
gathers (stencil3d's total_heat: 3.4x the time of the loop without the directive). The same loop
over a pointer parameter keeps `parallel for simd`. Both run like the original at 1, 2 and 8
threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, outputs_match, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { long n; double *u; } Grid;

double heat(const Grid *g)
{
    double sum = 0.0;
    for (long c = 0; c < g->n; c++)
        sum += g->u[c];
    return sum;
}

double total(long n, const double *u)
{
    double sum = 0.0;
    for (long c = 0; c < n; c++)
        sum += u[c];
    return sum;
}

int main(void)
{
    Grid g = {300000, 0};
    g.u = malloc(sizeof(double) * (size_t)g.n);
    for (long c = 0; c < g.n; c++)
        g.u[c] = (double)(c % 17) * 0.125;
    printf("%.6f %.6f\n", heat(&g), total(g.n, g.u));
    free(g.u);
    return 0;
}
"""


def lift(text: str) -> str:
    return lift_source(text, "h.c", LiftOptions(min_parallel_work=0)).output


def directive_of(out: str, function: str) -> str:
    body = out[out.index(f" {function}("):]
    return next(line.strip() for line in body.splitlines() if "#pragma omp parallel for" in line)


def test_a_pointer_held_in_a_struct_gets_no_simd():
    out = lift(PROGRAM)
    assert "simd" not in directive_of(out, "heat") and "reduction(+: sum)" in directive_of(out, "heat")
    assert "parallel for simd" in directive_of(out, "total")


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_both_sums_run_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROGRAM)
    lifted.write_text(lift(PROGRAM))
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):  # parallel sums: rounding may differ
        assert outputs_match(want, run(tmp_path / "lifted", threads), 1e-12)
