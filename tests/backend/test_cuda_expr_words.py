"""The C texts a CUDA data scope evaluates before its nests (row bounds, the planner's condition,
the launch test) carry the words they use from where they are made (`CExpr`: isl's bounds,
interval rows, extents, `OmpPlan.condition_expr`, `launch_work`), and the backend composes them
without lexing: the words must be exactly those the frontend reads in the composed text, which the
backend read itself until session 16. Corpus programs that make each kind (over the whole corpus,
none differs): interval rows (particles), rows host code writes (smooth1d), whole-row writes
(heat), launch tests in host loops and strided buffers (mgrid, trisolv, nussinov), conditions."""
from __future__ import annotations

import pytest

import lifter.backend.cuda as cuda
from lifter import LiftOptions
from lifter.driver import lift_file
from lifter.frontend.preprocess import PreprocessOptions
from lifter.frontend.spans import value_words, word_tokens

PROGRAMS = {"miniapps/particles.c": "interval", "stencils/smooth1d.c": "host writes", "apps/heat/grid.c": "covers",
            "apps/mgrid/ops.c": "strided", "linalg/trisolv.c": "launch test", "dynprog/nussinov.c": "launch test",
            "apps/cellmd/integrate.c": "condition"}


@pytest.mark.parametrize("program", PROGRAMS)
def test_head_texts_carry_their_words(program, monkeypatch):
    nests = []
    group = cuda.group_nests

    def recording(spans, text, found, *rest):
        nests.extend(found)
        return group(spans, text, found, *rest)

    monkeypatch.setattr(cuda, "group_nests", recording)
    include = ["corpus/apps"] if program.startswith("apps/") else []
    lift_file(f"corpus/{program}", LiftOptions(target="cuda", preprocess=PreprocessOptions(include_dirs=include)))
    assert nests, "the program offloads a nest"
    texts = [n.condition for n in nests] + [n.launch_test for n in nests] + \
        [x for n in nests for a in n.arrays for x in (a.lo, a.hi, a.wlo, a.whi, a.covers) if x is not None] + \
        [x for n in nests for w in n.host_writes for x in (w.first, w.last)]
    for x in texts:
        assert x.names == word_tokens(x), x
        assert x.values == value_words(x), x
    # the program has what it stands for here
    kinds = {"interval": any("lift_imax(0L" in x for n in nests for a in n.arrays for x in (a.lo, a.hi)),
             "host writes": any(n.host_writes for n in nests), "covers": any(a.covers for n in nests for a in n.arrays),
             "strided": any(a.node.strides for n in nests for a in n.arrays),
             "launch test": any(n.launch_test for n in nests), "condition": any(n.condition for n in nests)}
    assert kinds[PROGRAMS[program]], kinds
