"""A parallel loop of a few constant iterations around one long parallel loop (NPB IS's five
probes, each counting over every key) is unrolled whole and its copies jammed into one loop
(transform/outer_jam.py): one pass over the keys instead of five, each copy with its own
scalars. Where a copy would share a scalar with another (declared outside the loop), the inner
loop's bounds differ per copy, a macro hides a use of the loop variable, the loop has too many
iterations or --no-unroll is given, the nest stays as uneven.py plans it. Every lifted program
computes what the original does at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from lifter.graph.sdfg import function_sdfgs
from tests.harness import compile_c, have_gcc, outputs_match, run

JAMMED = r"""#include <stdio.h>
#include <stdlib.h>

int probes(long n, const int *keys, const long *rank)
{
    static const long probe[5] = {48427, 17148, 23627, 62548, 4431};
    int bad = 0;
    for (int t = 0; t < 5; t++) {
        long idx = probe[t] % n;
        int key = keys[idx];
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < key;
        if (key > 0 && rank[key] != below)
            bad++;
    }
    return bad;
}

/* a floating sum per copy, a first index of 1, `<=`, and an array written after the loop (under
   an `if`: without one, scalar expansion and interchange reshape this nest first) */
void weighted(long n, const double *x, double *out)
{
    for (int t = 1; t <= 4; t++) {
        double w = 0.5 * t;
        double s = 0.0;
        for (long i = 0; i < n; i++)
            s += x[i] * w;
        if (s != 0.0)
            out[t] = s;
    }
}

/* a `long` variable: each copy's constant keeps its type (2 * 1500000000 overflows an int) */
long scaled(long n, const int *keys)
{
    long total = 0;
    for (long t = 0; t < 3; t++) {
        long limit = t * 1500000000 / 100000;
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < limit;
        if (below > 0)
            total += below;
    }
    return total;
}
"""

# Each nest has an `if`, as the probes do: without one, scalar expansion and interchange reshape
# it before the jam is tried.
REFUSED = r"""#define AT(k) keys[(t) * 7 + (k)]

/* `below` is declared outside the loop: the copies would share it */
long shared(long n, const int *keys)
{
    long total = 0, below;
    for (int t = 0; t < 5; t++) {
        below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < t * 100;
        if (below > 0)
            total += below;
    }
    return total;
}

/* the inner loop's bound is a scalar of the body: each copy would run another loop */
long bounded(long n, const int *keys)
{
    long total = 0;
    for (int t = 0; t < 5; t++) {
        long m = n - t;
        long below = 0;
        for (long i = 0; i < m; i++)
            below += keys[i] < 500;
        if (below > 0)
            total += below;
    }
    return total;
}

/* a macro uses t where the text does not show it */
long hidden(long n, const int *keys)
{
    long total = 0;
    for (int t = 0; t < 5; t++) {
        int key = AT(3);
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < key;
        if (below > 0)
            total += below;
    }
    return total;
}

/* a volatile read: its accesses keep their order */
long touchy(long n, const int *keys, volatile const int *probe)
{
    long total = 0;
    for (int t = 0; t < 5; t++) {
        int key = probe[t];
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < key;
        if (below > 0)
            total += below;
    }
    return total;
}

/* twelve iterations: more copies than the jam makes */
long many(long n, const int *keys)
{
    long total = 0;
    for (int t = 0; t < 12; t++) {
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < t * 90;
        if (below > 0)
            total += below;
    }
    return total;
}
"""

MAIN = r"""
int main(void)
{
    long n = 200000;
    int *keys = malloc(sizeof(int) * (size_t)n);
    long *rank = calloc(1 << 16, sizeof(long));
    double *x = malloc(sizeof(double) * (size_t)n), out[5] = {0};
    for (long i = 0; i < n; i++) {
        keys[i] = (int)((i * 2654435761u) % 65536u);
        x[i] = (i % 13) * 0.125;
    }
    for (long i = 0; i < n; i++)
        rank[keys[i]]++;
    long before = 0;
    for (long k = 0; k < 65536; k++) {
        long c = rank[k];
        rank[k] = before;
        before += c;
    }
    weighted(n, x, out);
    int probe[5] = {4000, 100, 65000, 30000, 7};
    printf("%d %.6f %.6f %ld %ld\n", probes(n, keys, rank), out[1], out[4], scaled(n, keys),
           touchy(n, keys, probe));
    %EXTRA%
    free(keys);
    free(rank);
    free(x);
    return 0;
}
"""

PROGRAM = JAMMED + REFUSED + MAIN.replace(
    "%EXTRA%", 'printf("%ld %ld %ld %ld\\n", shared(n, keys), bounded(n, keys), hidden(n, keys), many(n, keys));')


def lifted(options: LiftOptions | None = None):
    return lift_source(PROGRAM, "p.c", options or LiftOptions(min_parallel_work=0))


def outer(result, function: str) -> dict:
    return min((e for e in result.loops if e["function"] == function), key=lambda e: e["depth"])


def body(text: str, function: str) -> str:
    start = text.index(f" {function}(")
    return text[start:text.index("\n}\n", start)]


def test_probes_count_in_one_pass():
    result = lifted()
    entry = outer(result, "probes")
    assert not entry["parallelized"] and entry["reason_code"] == "not-profitable"
    assert "jammed into one loop over 'i'" in entry["remark"] and "one pass instead of 5" in entry["remark"]
    code = body(result.output, "probes")
    directives = [line for line in code.splitlines() if "#pragma omp" in line]
    assert len(directives) == 1
    assert all(f"reduction(+: below_{d})" in directives[0] for d in range(5))
    assert "for (int t" not in code and code.count("bad++") == 5
    assert "long idx_4 = probe[4] % n;" in code


def test_weighted_copies_use_the_loop_values():
    code = body(lifted().output, "weighted")
    assert "double w_0 = 0.5 * 1;" in code and "double w_3 = 0.5 * 4;" in code
    assert "if (s_3 != 0.0)" in code and "out[4] = s_3;" in code  # where `x` and `out` are apart


def test_constants_keep_the_loop_variables_type():
    code = body(lifted().output, "scaled")
    assert "long limit_2 = ((long)2) * 1500000000 / 100000;" in code


@pytest.mark.parametrize("function", ["shared", "bounded", "hidden", "touchy", "many"])
def test_refused_nests_keep_their_loop(function):
    result = lifted()
    assert "jammed" not in outer(result, function)["remark"]
    assert "for (int t = 0; t <" in body(result.output, function)


def frame(result) -> str:
    """The code DaCe puts before the probes' SDFG (where lift's `#error` refusals go)."""
    return str(function_sdfgs(result.graphs)["probes"]["attributes"].get("global_code", ""))


def test_the_sdfg_of_a_jammed_nest_is_refused():
    """The copies' scalars (`below_0`, ...) are no containers of the SDFG: DaCe is stopped with why."""
    assert "#error" in frame(lifted()) and "unrolled into copies" in frame(lifted())
    assert "unrolled into copies" not in frame(lifted(LiftOptions(min_parallel_work=0, unroll=False)))


def test_no_unroll_keeps_the_probe_loop():
    result = lifted(LiftOptions(min_parallel_work=0, unroll=False))
    assert "jammed" not in outer(result, "probes")["remark"]
    assert "for (int t = 0; t < 5; t++)" in body(result.output, "probes")


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_jammed_program_runs_like_the_original(tmp_path):
    original, lifted_c = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROGRAM)
    lifted_c.write_text(lifted().output)
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted_c, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 1e-9)
