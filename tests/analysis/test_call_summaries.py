"""Call-effect summaries computed on demand (analysis/call_summaries.py): each is computed the
first time it is asked for, with what the whole-file fixed point gave; call cycles (a function
calling itself, two or three calling each other) stay unsummarized, with their callers, whatever
order the functions are asked for in."""
from __future__ import annotations

import itertools
import random

from pycparser import c_parser

from lifter.analysis import call_summaries
from lifter.analysis.symbols import SymbolTable, Typedefs

CYCLES = """
double G[100];
int gs;
static void leaf(double *p, int n) { for (int i = 0; i < n; i++) p[i] = 0; }
static void chain2(double *p, int n) { leaf(p, n); G[0] = p[1]; }
static void chain1(double *q, int n) { chain2(q + 1, n); }
static void self_rec(double *p, int n) { if (n > 0) { p[n] = 1; self_rec(p, n - 1); } }
static void even(double *p, int n);
static void odd(double *p, int n) { if (n > 0) even(p, n - 1); p[0] = 2; }
static void even(double *p, int n) { if (n > 0) odd(p, n - 1); p[1] = 3; }
static void calls_cycle(double *p, int n) { leaf(p, n); odd(p, n); }
static void sizeof_self(double *p, int n) { p[0] = sizeof(sizeof_self(p, n), 1); leaf(p, n); }
static void a3(double *p, int n);
static void c3(double *p, int n) { leaf(p, n); a3(p, n); }
static void b3(double *p, int n) { c3(p, n); }
static void a3(double *p, int n) { b3(p, n); }
static void reads_global_scalar(double *p) { p[0] = gs; }
static void after_failure(double *p, int n) { reads_global_scalar(p); leaf(p, n); }
static void defined_later(double *p, int n);
static void early(double *p, int n) { defined_later(p, n); }
static void defined_later(double *p, int n) { leaf(p + 2, n); }
static void diamond(double *p, double *q, int n) { chain1(p, n); chain2(q, n); leaf(q, n); }
"""

SUMMARIZED = {"leaf", "chain2", "chain1", "sizeof_self", "defined_later", "early", "diamond"}


def _table():
    ast = c_parser.CParser().parse(CYCLES)
    return SymbolTable(ast, Typedefs(ast)).call_effects


def _names():
    return [ext.decl.name for ext in c_parser.CParser().parse(CYCLES).ext if hasattr(ext, "body")]


def test_cycles_and_their_callers_have_no_summary():
    """A call of itself under `sizeof` is not a call: sizeof_self keeps its summary."""
    s = _table()
    assert set(s) == SUMMARIZED
    assert (s["diamond"].writes, s["diamond"].global_writes) == ({0, 1}, {"G"})
    assert s["early"].writes == {0}


def test_any_order_of_asking_gives_the_summaries_of_all_at_once():
    whole = dict(_table())
    names = _names()
    orders = [names[::-1], *(random.Random(seed).sample(names, len(names)) for seed in range(20)),
              *itertools.islice(itertools.permutations(["a3", "b3", "c3", "calls_cycle", "odd", "even"]), 0, None, 37)]
    for order in orders:
        s = _table()
        asked = {name: s.get(name) for name in order}
        assert {k: v for k, v in asked.items() if v is not None} == {k: v for k, v in whole.items() if k in asked}, order


def test_only_what_is_asked_for_and_its_callees_is_summarized(monkeypatch):
    walked = []
    real = call_summaries._Summarizer.run

    def run(self):
        walked.append(self.func.decl.name)
        return real(self)

    monkeypatch.setattr(call_summaries._Summarizer, "run", run)
    s = _table()
    assert s.get("chain1") is not None
    assert set(walked) == {"chain1", "chain2", "leaf"}
    walked.clear()
    assert s.get("diamond") is not None and s.get("chain2") is not None
    assert walked == ["diamond"]  # its callees were decided when chain1 was asked for
    walked.clear()
    assert s.get("after_failure") is None  # its first callee has none: leaf is not walked again
    assert walked == ["after_failure", "reads_global_scalar", "after_failure"]
