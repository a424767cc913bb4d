"""OpenMP's canonical loop form read from a header's tokens (frontend/loop_form.py): C's
operators of two characters are read from adjacent punctuation, bounds at their top level."""
from lifter.frontend.loop_form import canonical


def test_operators_are_read_as_tokens():
    for ok in ("for (i = 0; i < n << 1; i++)", "for (i = 0; i < a->n; i += 2)", "for (i = n; 0 <= i; i = i - 1)",
               "for (long long i = 0; i != n /* end */; --i)", "for (__typeof__(n) i = 0; i < f(n, m); i = 2 + i)",
               "for (i = 0; i < (a ? b : c); i -= -1)"):
        assert canonical(ok, "i"), ok
    for bad in ("for (i = 0; i < a ? b : c; i++)", "for (i = 0; i < n; i <<= 1)", "for (i = 0; i < n; i = i * 2)",
                "for (int i = 0, j = 0; i < n; i++)", "for (i = 0; i + 1 < n; i++)", "for (i = 0; i < n; i += i)",
                "for (int *i = 0; i < n; i++)", "for (i = 0; i < (n); i++, j++)"):
        assert not canonical(bad, "i"), bad


def test_a_comparison_is_no_initialisation():
    """`for (i == 0; ...)` is C, but its first clause assigns nothing: gcc rejects `omp for` and
    `omp simd` on it (the text once passed as `i = (= 0)`)."""
    assert not canonical("for (i == 0; i < n; i++)", "i")
    assert canonical("for (i = 0; i < n; i++)", "i")
