"""C bounds as DaCe symbolic text (graph/symbolic.py): the same integer for every value of the names,
with only the parentheses precedence needs and the constants of a sum added up (map labels)."""
from __future__ import annotations

import itertools

import pytest

from lifter.graph.symbolic import c_to_symbolic

CASES = {
    "a - (b - c)": "a - b + c",
    "a - (b + c)": "a - b - c",
    "(a + b) * c": "(a + b) * c",
    "a * (b % c)": "a * (b % c)",
    "(a % b) * c": "a % b * c",
    "((((n - 2) - 1) + t) + 31)": "n + t + 28",
    "n - 1 - (m - 1)": "n - m",
    "a > b ? a : b": "Max(a, b)",
    "1 + 32 * (a - b / 32) - ((c + b - 1) + c)": "32 * (a - int_floor(b, 32)) - c - b - c + 2",
    "2 - 2": "0",
    "-(a * b) + 1": "-(a * b) + 1",
    "floord(a - c, b) - 1": "int_floor(a - c, b) - 1",  # isl's division, rounding down (negative too)
}


def _c(text: str, values: dict[str, int]) -> int:
    """C's value of an expression over non-negative operands (where `/` truncates as floor does)."""
    python = text.replace("/", "//").replace("floord(a - c, b)", "((a - c) // b)")
    python = python.replace("a > b ? a : b", "(a if a > b else b)")
    return eval(python, {}, values)


def _symbolic(text: str, values: dict[str, int]) -> int:
    return eval(text, {"Max": max, "Min": min, "int_floor": lambda x, y: x // y}, values)


@pytest.mark.parametrize("c_text", CASES)
def test_translation_is_exact_and_plain(c_text):
    text = c_to_symbolic(c_text)
    assert text == CASES[c_text]
    for a, b, c, n, m, t in itertools.product([1, 5, 40], [2, 7, 64], [1, 3], [9], [4], [0, 33]):
        values = dict(a=a, b=b, c=c, n=n, m=m, t=t)
        assert _symbolic(text, values) == _c(c_text, values), values


def test_struct_members_are_symbols_of_their_containers_names():
    """A member read in a bound is the symbol the SDFG's caller passes its value as (`g->nx`: `g__nx`, `p.n`:
    `p_n`, nested members too); without `members` (a picture's label) it has no translation."""
    assert c_to_symbolic("g->nx - 1", members=True) == "g__nx - 1"
    assert c_to_symbolic("(p.n + 1) / 2", members=True) == "int_floor(p_n + 1, 2)"
    assert c_to_symbolic("w->grid.nx * 2", members=True) == "w__grid_nx * 2"
    assert c_to_symbolic("a[i].x", members=True) is None
    assert c_to_symbolic("g->nx - 1") is None
