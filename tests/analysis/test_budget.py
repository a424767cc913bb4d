"""The analysis budget (isl operation limit, nest depth limit) and the shortcuts that keep
hostile inputs polynomial: dependence levels found once per map, shared access tuples."""
import islpy as isl
import pytest
from pycparser import c_ast

from lifter import LiftOptions, lift_source
from lifter.analysis import analyze, budget
from lifter.analysis.budget import BudgetExceeded, isl_budget, nest_deeper_than
from lifter.analysis.verdicts import DependenceIndex, carried_by, original_nest
from lifter.frontend import load
from lifter.frontend.source import SourceFile, read_source
from tests.harness import CORPUS


def _work():
    s = isl.Set("[n] -> { [i, j, k] : 0 <= i, j, k < n }")
    return isl.Map.lex_lt(s.get_space()).intersect_domain(s).intersect_range(s).lexmax()


def test_a_spent_budget_raises_and_the_limit_is_lifted_afterwards():
    with pytest.raises(BudgetExceeded, match="analysis budget exceeded"):
        with isl_budget(50):
            _work()
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0
    _work()  # unbounded again


def test_nested_budgets_share_the_outermost():
    with pytest.raises(BudgetExceeded):
        with isl_budget(50):
            with isl_budget(10**9):  # does not reset or raise the outer limit
                _work()


def test_a_budget_that_suffices_changes_nothing():
    with isl_budget(10**8):
        inside = _work()
    assert inside.is_equal(_work())


def _for(depth: int) -> c_ast.Node:
    node = c_ast.Compound([])
    for _ in range(depth):
        node = c_ast.For(None, None, None, node)
    return node


def test_nest_depth():
    assert not nest_deeper_than(_for(3), 3)
    assert nest_deeper_than(_for(4), 3)
    assert not nest_deeper_than(_for(3000), 3000)  # no recursion: deep trees are fine


def test_a_loop_past_the_budget_stays_sequential(monkeypatch):
    monkeypatch.setattr(budget.isl_budget.__init__, "__defaults__", (1000,))
    src = "void f(int n, double *restrict a) { for (int i = 0; i < n; i++) a[i] = 2 * a[i]; }\n"
    result = lift_source(src, "k.c", LiftOptions())
    assert "#pragma omp" not in result.output
    assert any("analysis budget exceeded" in e["remark"] for e in result.loops)


@pytest.mark.parametrize("name", ["linalg/lu.c", "stencils/heat3d.c", "dynprog/nussinov.c", "miniapps/particles.c"])
def test_dependence_levels_agree_with_carried_by(name):
    model = analyze(load(read_source(str(CORPUS / name)), LiftOptions().preprocess))
    checked = 0
    for region in model.regions:
        index = DependenceIndex(region)
        for loop_id in region.loops:
            nest = original_nest(region, loop_id)
            for kind in ("flow", "anti", "output"):
                for i, dep in enumerate(index.maps[kind]):
                    src = dep.get_tuple_name(isl.dim_type.in_).rsplit("_a", 1)[0]
                    dst = dep.get_tuple_name(isl.dim_type.out).rsplit("_a", 1)[0]
                    if src in nest.inside and dst in nest.inside:
                        assert index.carries(nest, kind, i) == (not carried_by(region, nest, dep).is_empty())
                        checked += 1
    assert checked


def test_identical_accesses_of_a_statement_share_one_tuple():
    from lifter.analysis.dependences import representatives

    src = ("void f(int n, int *restrict a)\n{\n  for (int i = 0; i < n; i++) {\n"
           + "".join(f"    {'else ' if k else ''}if (a[i] == {k}) a[i] = {k + 1};\n" for k in range(12))
           + "  }\n}\n")
    result = lift_source(src, "k.c", LiftOptions(min_parallel_work=0))
    region = analyze(load(SourceFile("k.c", src), LiftOptions().preprocess)).regions[0]
    accesses = sum(len(s.accesses) for s in region.statements.values())
    assert len(representatives(region)) == 2 * len(region.statements) < accesses  # a[i] read, a[i] written
    assert "#pragma omp parallel for" in result.output
