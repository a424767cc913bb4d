"""The analysis' loop verdicts against hand-derived facts on the corpus kernels.

`KNOWN_CONSERVATIVE` lists the loops where lift is, knowingly, more cautious than
the hand verdict (it keeps a parallel loop sequential); each has the reason. A loop
lift calls parallel that the hand verdict calls sequential would be a miscompile,
and no such exception exists.
"""
import pytest

from lifter import lift_file
from tests.analysis.expected_verdicts import EXPECTED
from tests.harness import CORPUS

KNOWN_CONSERVATIVE = {
    ("dynprog/floyd_warshall.c", 32): "parallel only because path[k][k] >= 0 (non-negative weights), a value fact: "
                                      "in the polyhedral model iteration k may rewrite row k and column k, which "
                                      "other iterations of i read",
    ("dynprog/floyd_warshall.c", 33): "as line 32: iteration j == k may write path[i][k], which every other j "
                                      "reads; it does not only because path[k][k] >= 0",
    ("sparse/spmv_csr.c", 70): "data-dependent bounds rowptr[i] .. rowptr[i+1]: the loop is part of an opaque leaf "
                               "with no verdict of its own (the row loop around it, line 68, is a parallel map)",
}

CASES = [(f, loop) for f, loops in EXPECTED.items() for loop in loops]


@pytest.fixture(scope="module")
def reports():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = {(e["line"], e["var"]): e for e in lift_file(str(CORPUS / name)).loops}
        return cache[name]

    return get


@pytest.mark.parametrize("name,loop", CASES, ids=[f"{f}:{l['line']}:{l['var']}" for f, l in CASES])
def test_loop_verdict(name, loop, reports):
    got = reports(name).get((loop["line"], loop["var"]))
    if (name, loop["line"]) in KNOWN_CONSERVATIVE:
        assert not loop["parallel"] or got is None or not got["parallel"], "now proved: drop the exception"
        return
    assert got is not None, f"no report entry for the loop over {loop['var']} at line {loop['line']}"
    assert got["parallel"] == loop["parallel"], got["reason"]
    if loop["parallel"]:
        reductions = sorted((r["variable"], r["operator"]) for r in got["reduction"])
        assert reductions == sorted(tuple(r) for r in loop["reduction"])


def test_never_parallel_where_hand_verdict_is_sequential(reports):
    wrong = []
    for name, loop in CASES:
        got = reports(name).get((loop["line"], loop["var"]))
        if got is not None and got["parallel"] and not loop["parallel"]:
            wrong.append(f"{name}:{loop['line']}")
    assert not wrong


def test_reasons_name_the_dependence(reports):
    seidel = reports("stencils/seidel2d.c")
    reasons = [e["reason"] for e in seidel.values() if not e["parallel"]]
    assert reasons and all("dependence on" in r and "line" in r for r in reasons)
