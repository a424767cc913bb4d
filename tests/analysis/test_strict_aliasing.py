"""cc's -fno-strict-aliasing among the user's flags turns off the proof from C's aliasing rules
(analysis/type_apart.py): a `long *` output and a `double *` table read through an index array,
kept apart by type by default, then may overlap, and the loop stays sequential. The program
below writes `long`s over the `double`s it reads (defined under -fno-strict-aliasing), and the
lifted build must compute what the original does at 1, 2 and 8 threads."""
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


def _loop(options: LiftOptions) -> dict:
    result = lift_source(GATHER, "t.c", options)
    return next(e for e in result.loops if e["function"] == "long_from_double")


def test_the_type_proof_holds_only_under_strict_aliasing():
    assert _loop(LiftOptions(min_parallel_work=0))["parallelized"]
    entry = _loop(LiftOptions(min_parallel_work=0, strict_aliasing=False))
    assert not entry["parallelized"] and "overlap" in entry["reason"], entry["reason"]


def test_cc_flags_spell_the_option_and_the_last_one_wins():
    assert normalize_argv(["-fno-strict-aliasing", "k.c"]) == ["--no-strict-aliasing", "k.c"]
    assert normalize_argv(["-fno-strict-aliasing", "-fstrict-aliasing", "k.c"]) == ["k.c"]
    assert normalize_argv(["-fstrict-aliasing", "-fno-strict-aliasing"]) == ["--no-strict-aliasing"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_type_punned_overlap_computes_like_the_original(tmp_path):
    flags = ["-O2", "-fno-strict-aliasing"]
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(GATHER)
    lifted.write_text(lift_source(GATHER, "t.c", LiftOptions(min_parallel_work=0, strict_aliasing=False)).output)
    compile_c(original, tmp_path / "orig", flags)
    compile_c(lifted, tmp_path / "lifted", flags + ["-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert run(tmp_path / "lifted", threads) == want
