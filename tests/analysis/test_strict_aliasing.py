"""cc's -fno-strict-aliasing among the user's flags turns off the proofs from C's aliasing rules:
a `long *` output and a `double *` table read through an index array, kept apart by type by
default (analysis/type_apart.py), then may overlap, and the loop is parallel only where a pass over
the index array finds them apart at run time (analysis/affine_gathers.py); and a bound read
from a struct (`b->n`) is no longer a constant of the loop when the loop stores `double`s through a
pointer (analysis/invariants.py). The programs below write over what they read through another
type (defined under -fno-strict-aliasing), and the lifted builds must compute what the originals
do at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from lifter.cli import normalize_argv
from tests.harness import compile_c, have_gcc, run

GATHER = r"""#include <stdio.h>
#include <stdlib.h>

void long_from_double(long n, const int *idx, const double *a, long *out)
{
    for (long i = 0; i < n; i++)
        out[i] = (long)a[idx[i]];
}

int main(void)
{
    long n = 100000;
    int *idx = malloc(sizeof(int) * (size_t)n);
    double *buf = malloc(sizeof(double) * (size_t)(n + 1));
    for (long i = 0; i < n; i++)
        idx[i] = (int)(i + 1);
    for (long i = 0; i <= n; i++)
        buf[i] = (double)(i % 1000);
    /* the output is the table itself: each iteration reads the element the next one writes */
    long_from_double(n, idx, buf, (long *)buf);
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += ((long *)buf)[i] * (i % 7);
    printf("%ld\n", sum);
    free(idx);
    free(buf);
    return 0;
}
"""


# The first store rewrites the loop's bound: its bits, a `double` of 3 x the smallest denormal,
# read as the `long` n are 3, so the original writes 3 elements, not 10.
BOUND = r"""#include <stdio.h>
#include <stdlib.h>

struct box {
    long n;
    double pad[15];
};

static void fill(struct box *b, double *out)
{
    for (long i = 0; i < b->n; i++)
        out[i] = (double)(3 + i) * 4.9406564584124654e-324;
}

int main(void)
{
    struct box *b = malloc(sizeof *b);
    b->n = 10;
    for (int k = 0; k < 15; k++)
        b->pad[k] = -1.0;
    fill(b, (double *)b);
    printf("n %ld\n", b->n);
    for (int k = 0; k < 15; k++)
        printf("%d %g\n", k, b->pad[k]);
    free(b);
    return 0;
}
"""


def _loop(options: LiftOptions, text: str = GATHER, function: str = "long_from_double") -> dict:
    result = lift_source(text, "t.c", options)
    return next(e for e in result.loops if e["function"] == function)


def test_the_type_proof_holds_only_under_strict_aliasing():
    entry = _loop(LiftOptions(min_parallel_work=0))
    assert entry["parallelized"] and "lift_gather_apart" not in entry["condition"], entry
    # without it, only a pass over `idx` bounding what is read of `a` (affine_gathers.py)
    entry = _loop(LiftOptions(min_parallel_work=0, strict_aliasing=False))
    assert entry["parallelized"] and "lift_gather_apart" in entry["condition"], entry


def test_a_bound_read_from_a_struct_is_constant_only_under_strict_aliasing():
    assert _loop(LiftOptions(min_parallel_work=0), BOUND, "fill")["parallelized"]
    entry = _loop(LiftOptions(min_parallel_work=0, strict_aliasing=False), BOUND, "fill")
    assert not entry["parallelized"], entry


def test_cc_flags_spell_the_option_and_the_last_one_wins():
    assert normalize_argv(["-fno-strict-aliasing", "k.c"]) == ["--no-strict-aliasing", "k.c"]
    assert normalize_argv(["-fno-strict-aliasing", "-fstrict-aliasing", "k.c"]) == ["k.c"]
    assert normalize_argv(["-fstrict-aliasing", "-fno-strict-aliasing"]) == ["--no-strict-aliasing"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("text", [GATHER, BOUND], ids=["gather", "bound"])
def test_type_punned_overlap_computes_like_the_original(tmp_path, text):
    flags = ["-O2", "-fno-strict-aliasing"]
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(text)
    lifted.write_text(lift_source(text, "t.c", LiftOptions(min_parallel_work=0, strict_aliasing=False)).output)
    compile_c(original, tmp_path / "orig", flags)
    compile_c(lifted, tmp_path / "lifted", flags + ["-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert run(tmp_path / "lifted", threads) == want
