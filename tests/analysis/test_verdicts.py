"""The analysis' loop verdicts against hand-derived facts on the corpus kernels.

Every corpus loop with a hand verdict must get exactly that verdict (parallel or not, and
the same reductions). A loop lift calls parallel that the hand verdict calls sequential
would be a miscompile; one it keeps sequential that the hand verdict calls parallel is a
missed opportunity. Some verdicts hold under a run-time condition (Floyd-Warshall's
`path[k][k] >= 0`), which the report gives with them.
"""
import pytest

from lifter import lift_file
from tests.analysis.expected_verdicts import EXPECTED
from tests.harness import CORPUS

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
