"""--assume-no-alias keeps a bound read through one pointer parameter (`s->n`) constant over a
loop that stores integers through another (`o->bin[i] = ...`): by the user's word, memory reached
through two pointer parameters never overlaps (analysis/invariants.py `_apart_by_promise`), the
reading `Region.from_params` gives the alias tests. Without the flag the `int` store could be
`s->n`, and the loop stays sequential; with it, a store through the same parameter as the bound
(`b->bin[i]` beside `b->n`), or through a field the function set itself (`o->bin = spare;`),
still could, and those loops stay sequential too. cellmd's binning loop
(`for (i < s->natoms) cl->cell_of[i] = ...`) is this shape. The lifted program computes what the
original does at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, outputs_match, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double *x; } In;
typedef struct { int *bin; } Out;
typedef struct { int n; int *bin; double *x; } Both;

void bin(const In *s, Out *o)
{
    for (int i = 0; i < s->n; i++)
        o->bin[i] = (int)(s->x[i] * 4.0);
}

/* the function sets the field it stores through: not what the caller handed in */
void bin_set(const In *s, Out *o, int *spare)
{
    o->bin = spare;
    for (int i = 0; i < s->n; i++)
        o->bin[i] = (int)(s->x[i] * 2.0);
}

void bin_same(Both *b)
{
    for (int i = 0; i < b->n; i++)
        b->bin[i] = (int)(b->x[i] * 4.0);
}

int main(void)
{
    int n = 300000;
    In s = {n, malloc(sizeof(double) * (size_t)n)};
    Out o = {malloc(sizeof(int) * (size_t)n)};
    Both b = {n, malloc(sizeof(int) * (size_t)n), s.x};
    for (int i = 0; i < n; i++)
        s.x[i] = (i % 97) * 0.75;
    bin(&s, &o);
    bin_same(&b);
    long sum = 0;
    int *spare = malloc(sizeof(int) * (size_t)n), *kept = o.bin;
    bin_set(&s, &o, spare);
    for (int i = 0; i < n; i += 7)
        sum += spare[i];
    o.bin = kept;
    free(spare);
    for (int i = 0; i < n; i++)
        sum += (long)o.bin[i] * (i % 5) + b.bin[i];
    printf("%ld\n", sum);
    free(s.x);
    free(o.bin);
    free(b.bin);
    return 0;
}
"""


def _loops(assume_no_alias: bool) -> dict[str, dict]:
    result = lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0, assume_no_alias=assume_no_alias))
    return {e["function"]: e for e in result.loops if e["function"] in ("bin", "bin_same", "bin_set")}


def test_the_bound_is_constant_only_by_the_promise():
    loops = _loops(False)
    assert not loops["bin"]["parallelized"] and "struct field" in loops["bin"]["remark"]
    assert _loops(True)["bin"]["parallelized"]


@pytest.mark.parametrize("function", ["bin_same", "bin_set"])
def test_a_store_the_promise_does_not_cover_keeps_the_loop_sequential(function):
    """Through the bound's own parameter, or through a field the function set itself."""
    entry = _loops(True)[function]
    assert not entry["parallelized"] and "struct field" in entry["remark"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_binning_runs_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROGRAM)
    lifted.write_text(lift_source(PROGRAM, "p.c", LiftOptions(min_parallel_work=0, assume_no_alias=True)).output)
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 0.0)
