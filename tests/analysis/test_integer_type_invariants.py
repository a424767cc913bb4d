"""A store of one integer type cannot change a struct field of another (C's aliasing rules,
invariants.py `_integers_apart`): `i < s->nkeys` (a `long`) bounds a loop that stores `int`s
(isort's bucket scatter) and is a loop parameter. A store of the field's own type, or of its
unsigned variant, may change it (the loop stays sequential), and so may any store under
-fno-strict-aliasing. The lifted program computes what the original does at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, outputs_match, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { long n; int m; int *in, *out; } Work;

void widen(Work *s)
{
    int *in = s->in, *out = s->out;
    for (long i = 0; i < s->n; i++)
        out[i] = in[i] * 3 + 1;
}

void same(Work *s)
{
    int *in = s->in, *out = s->out;
    for (int i = 0; i < s->m; i++)
        out[i] = in[i] + 2;
}

void unsigned_store(Work *s, unsigned *out)
{
    for (int i = 0; i < s->m; i++)
        out[i] = (unsigned)i;
}

int main(void)
{
    long n = 200000;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    unsigned *u = malloc(sizeof(unsigned) * (size_t)n);
    for (long i = 0; i < n; i++)
        in[i] = (int)(i % 1000);
    Work s = {n, (int)n, in, out};
    widen(&s);
    long h = 0;
    for (long i = 0; i < n; i++)
        h += out[i] * (i % 7);
    same(&s);
    unsigned_store(&s, u);
    for (long i = 0; i < n; i++)
        h += out[i] + (long)u[i] % 3;
    printf("%ld\n", h);
    free(in); free(out); free(u);
    return 0;
}
"""


def _loops(strict: bool = True) -> dict[str, dict]:
    options = LiftOptions(min_parallel_work=0, strict_aliasing=strict)
    return {e["function"]: e for e in lift_source(PROGRAM, "w.c", options).loops}


def test_an_int_store_keeps_a_long_bound_invariant():
    loops = _loops()
    assert "not provably invariant" not in loops["widen"]["remark"] and loops["widen"]["parallelized"]
    for function in ("same", "unsigned_store"):
        assert "not provably invariant" in loops[function]["remark"], loops[function]["remark"]
    assert "not provably invariant" in _loops(strict=False)["widen"]["remark"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_widened_loop_runs_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROGRAM)
    lifted.write_text(lift_source(PROGRAM, "w.c", LiftOptions(min_parallel_work=0)).output)
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 0.0)
