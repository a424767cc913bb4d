"""The dataflow graph: validator on every corpus program, memlet ranges, the control layer, and the exports."""
import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from lifter import LiftOptions, lift_file, lift_source
from lifter.graph.attributes import DataflowGraph
from lifter.graph.control import contained, transitions
from lifter.graph.export import to_dot, to_json
from lifter.graph.nodes import (STATE, Branch, ConditionalRegion, Contains, LoopRegion, MapScope, Memlet, Schedule,
                                State, Tasklet, Transition, scope_children)
from lifter.graph.validate import InvalidGraph, validate
from tests.harness import CORPUS, corpus_programs

JACOBI = """
void jacobi(int n, int tsteps, double a[restrict n], double b[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.33 * (a[i-1] + a[i] + a[i+1]);
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i];
  }
}
"""


@pytest.mark.parametrize("program", corpus_programs(), ids=lambda p: p.name)
def test_every_corpus_graph_is_valid(program):
    for g in lift_file(str(program)).graphs:
        validate(g)


def test_a_graph_keeps_its_typed_attributes_through_copies():
    """networkx's copies and views build a graph of the same class and carry `g.graph`: the nest's
    record and the attributes read off it survive them; no module but graph/attributes.py names a key of `g.graph`."""
    (g,) = lift_source(JACOBI, "jacobi.c").graphs
    assert isinstance(g, DataflowGraph)
    for other in (g.copy(), g.subgraph(list(g))):
        assert isinstance(other, DataflowGraph)
        assert (other.name, other.function, other.path) == (g.name, "jacobi", "jacobi.c") == (g.nest.scop.id, "jacobi", "jacobi.c")
    lifter = pathlib.Path(__file__).resolve().parents[2] / "lifter"
    readers = {p.relative_to(lifter).as_posix() for p in lifter.rglob("*.py") if re.search(r"graph\[[\"']", p.read_text())}
    assert readers == {"graph/attributes.py"}


def test_maps_and_memlets_of_a_stencil():
    (g,) = lift_source(JACOBI, "jacobi.c").graphs
    maps = {d["node"].line: d["node"] for _, d in g.nodes(data=True) if isinstance(d["node"], MapScope)}
    assert maps[3].schedule == "sequential" and maps[4].schedule == "parallel" and maps[6].schedule == "parallel"
    assert (maps[4].begin, maps[4].end) == ("1", "n - 2")
    reads = {e.container: e.subset for u, v, d in g.edges(data=True)
             if isinstance(e := d["edge"], Memlet) and v == maps[4].id}
    assert reads["a"] == [("0", "n - 1")]
    writes = {e.container: e.subset for u, v, d in g.edges(data=True)
              if isinstance(e := d["edge"], Memlet) and u == maps[4].id}
    assert writes["b"] == [("1", "n - 2")]


TYPES = """
void f(unsigned long n, double A[restrict n][n], double B[restrict n][n], double C[restrict n][n]) {
  long j;
  for (unsigned   long i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


def test_a_header_declared_variable_keeps_its_type_from_the_declaration():
    """The CUDA backend declares a loop variable again in each thread: its type is the declaration's
    (from the AST, however it is spelled), '' for one declared before the loop, and a tile loop's
    counter has the type tiling gave it."""
    def types(tile):
        (g,) = lift_source(TYPES, "types.c", LiftOptions(tile=tile)).graphs
        return {(m.var, m.var_type) for _, d in g.nodes(data=True) if isinstance(m := d["node"], MapScope)}
    assert types(False) == {("i", "unsigned long"), ("j", ""), ("k", "int")}
    assert {("i", "unsigned long"), ("j_t", "__typeof__(j + 0L)"), ("k_t", "long")} <= types(True)


def test_validator_rejects_a_broken_graph():
    (g,) = lift_source(JACOBI, "jacobi.c").graphs
    tasklet = next(n for n, d in g.nodes(data=True) if isinstance(d["node"], Tasklet))
    g.add_edge("state", tasklet, edge=g.get_edge_data(*next(iter(g.in_edges(tasklet))))[0]["edge"])
    with pytest.raises(InvalidGraph):
        validate(g)


def _runs(g, block):
    """The map or tasklet a state runs."""
    (node,) = contained(g, block)
    return g.nodes[node]["node"]


def test_time_loop_is_a_loop_region_with_one_state_per_sweep():
    # At -O1: -O2 fuses and skews jacobi2d's sweeps into wavefronts of tiles.
    g = next(g for g in lift_file(str(CORPUS / "stencils" / "jacobi2d.c"), LiftOptions(opt_level=1)).graphs
             if g.function == "kernel_jacobi2d")
    (loop,) = contained(g, STATE)
    region = g.nodes[loop]["node"]
    assert isinstance(region, LoopRegion) and (region.var, region.begin, region.end) == ("t", "0", "tsteps - 1")
    assert g.nodes[region.map]["node"].schedule == "sequential"
    sweeps = contained(g, loop)
    assert all(isinstance(g.nodes[s]["node"], State) for s in sweeps)
    assert [(_runs(g, s).line, _runs(g, s).schedule) for s in sweeps] == [(30, "parallel"), (34, "parallel")]
    assert [(u, v) for u, v, _ in transitions(g, sweeps)] == [(sweeps[0], sweeps[1])]
    assert not any(isinstance(d["edge"], Transition) for _, _, d in g.out_edges(loop, data=True))


def test_plain_nest_is_one_state_until_distribution_splits_it():
    gemm = str(CORPUS / "linalg" / "gemm.c")
    for g in lift_file(gemm, LiftOptions(opt_level=1)).graphs:
        (state,) = contained(g, STATE)
        assert isinstance(g.nodes[state]["node"], State) and _runs(g, state).depth == 0
        assert not any(isinstance(d["node"], LoopRegion) for _, d in g.nodes(data=True))
    # -O2 distributes `C *= beta` away from the band, then tiles the band: two top-level maps,
    # so two states in order, the control layer rebuilt after the passes.
    g = next(g for g in lift_file(gemm).graphs if g.function == "kernel_gemm")
    first, second = contained(g, STATE)
    assert "distribution" in _runs(g, first).transformations and _runs(g, second).tile
    assert [(u, v) for u, v, _ in transitions(g, [first, second])] == [(first, second)]


PRODUCER_CONSUMER = """
void steps(int n, int tsteps, double a[restrict n], double b[restrict n], double c[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      b[i] = a[i] * 2.0 + c[i];
    for (int i = 0; i < n; i++)
      c[i] = b[i] + 1.0;
  }
}
"""


@pytest.mark.parametrize("fuse", [True, False])
def test_control_layer_follows_fusion(fuse):
    (g,) = lift_source(PRODUCER_CONSUMER, "steps.c", LiftOptions(fuse=fuse)).graphs
    validate(g)
    (loop,) = contained(g, STATE)
    sweeps = contained(g, loop)
    assert len(sweeps) == (1 if fuse else 2)
    assert [_runs(g, s).id for s in sweeps] == scope_children(g, g.nodes[loop]["node"].map)
    assert bool(_runs(g, sweeps[0]).fused) == fuse


@pytest.mark.parametrize("program", ["stencils/jacobi2d.c", "stencils/fdtd2d.c", "linalg/lu.c", "linalg/gemm.c",
                                     "linalg/two_mm.c", "datamining/correlation.c"])
def test_control_layer_is_valid_after_every_pass(program, monkeypatch):
    """The pass manager rebuilds the control layer after each pass that reshapes the scope tree
    (distribution, interchange, expansion, fusion, tiling) and, with checking on, validates the
    graph after every pass: the graph must be valid there, and at the end under every option set."""
    import lifter.transform.manager

    rebuilt = []

    def check(g):
        validate(g)
        rebuilt.append(g.name)

    monkeypatch.setenv(lifter.transform.manager.CHECK_ENV, "1")
    monkeypatch.setattr(lifter.transform.manager, "validate", check)
    for options in (LiftOptions(), LiftOptions(opt_level=0), LiftOptions(opt_level=1),
                    LiftOptions(fuse=False, tile=False), LiftOptions(target="cuda")):
        for g in lift_file(str(CORPUS / program), options).graphs:
            validate(g)
    assert rebuilt


def test_validator_rejects_a_broken_control_layer():
    (g,) = lift_source(JACOBI, "jacobi.c").graphs
    (loop,) = contained(g, STATE)
    first, second = contained(g, loop)
    broken = g.copy()
    broken.remove_edge(first, second)  # the transition between the sweeps
    with pytest.raises(InvalidGraph, match="transitions"):
        validate(broken)
    broken = g.copy()
    broken.add_edge(second, first, edge=Transition())  # a second transition, backwards
    with pytest.raises(InvalidGraph, match="transitions"):
        validate(broken)
    broken = g.copy()
    broken.add_edge(first, contained(g, second)[0], edge=Contains(1))  # one state runs both sweeps
    with pytest.raises(InvalidGraph, match="runs"):
        validate(broken)
    g.nodes[g.nodes[loop]["node"].map]["node"].schedule = Schedule.PARALLEL  # no longer a loop over states
    with pytest.raises(InvalidGraph, match="stands for"):
        validate(g)


def test_json_and_dot_exports(tmp_path):
    graphs = lift_source(JACOBI, "jacobi.c").graphs
    data = json.loads(json.dumps(to_json(graphs)))
    assert (data["format"], data["version"]) == ("lift-dataflow", 3)
    nodes = data["graphs"][0]["nodes"]
    assert {"Root", "LoopRegion", "State", "MapScope", "Tasklet", "AccessNode"} <= {n["type"] for n in nodes}
    loop = next(n for n in nodes if n["type"] == "LoopRegion")
    assert (loop["var"], loop["begin"], loop["end"], loop["step"]) == ("t", "0", "tsteps - 1", 1)
    edges = data["graphs"][0]["edges"]
    assert {"scope", "memlet", "contains", "transition"} == {e["type"] for e in edges}
    states = [e["dst"] for e in sorted((e for e in edges if e["type"] == "contains" and e["src"] == loop["id"]),
                                       key=lambda e: e["order"])]
    assert [(e["src"], e["dst"]) for e in edges if e["type"] == "transition"] == [tuple(states)]
    dot = to_dot(graphs)
    assert dot.startswith("digraph") and "parallel map" in dot and "b[i]" in dot
    assert "loop region t = 0..tsteps - 1" in dot and dot.count('label="state"') == 2
    assert f'lhead="cluster_0_{states[1]}"' in dot  # the transition between the two sweeps


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_export(tmp_path):
    src = tmp_path / "j.c"
    src.write_text(JACOBI)
    out = tmp_path / "g.svg"
    subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"), "--emit-graph", str(out)],
                   check=True)
    assert "<svg" in out.read_text()


def test_cli_writes_dot_and_json(tmp_path):
    src = tmp_path / "j.c"
    src.write_text(JACOBI)
    for ext in ("dot", "json"):
        out = tmp_path / f"g.{ext}"
        subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"),
                        "--emit-graph", str(out)], check=True)
        assert out.stat().st_size > 100


# -- conditions as control ------------------------------------------------------------------------

ALTERNATING = """
void alternate(int n, int tsteps, double a[restrict n], double b[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    if (t % 2 == 0) {
      for (int i = 1; i < n - 1; i++)
        b[i] = 0.5 * (a[i-1] + a[i+1]);
    } else {
      for (int i = 1; i < n - 1; i++)
        a[i] = 0.5 * (b[i-1] + b[i+1]);
    }
  }
}
"""

DATA_DEPENDENT = """
void relax(int n, int tsteps, double tol, double a[restrict n], double b[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      b[i] = 0.5 * a[i];
    if (b[0] > tol) {
      for (int i = 0; i < n; i++)
        a[i] = b[i] + 1.0;
    }
  }
}
"""

NESTED = """
void nested(int n, int tsteps, double a[restrict n], double b[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    if (t > 0) {
      if (t % 2 == 0) {
        for (int i = 0; i < n; i++)
          b[i] = a[i] + 1.0;
      } else {
        for (int i = 0; i < n; i++)
          a[i] = b[i] * 0.5;
      }
      for (int i = 0; i < n; i++)
        a[i] = a[i] + b[i];
    }
    for (int i = 0; i < n; i++)
      b[i] = b[i] * 2.0;
  }
}
"""

SKIPPING = """
void skipping(int n, int tsteps, double a[restrict n], double b[restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      b[i] = a[i] * 0.5;
    if (t == 3) continue;
    for (int i = 0; i < n; i++)
      a[i] = b[i] + 1.0;
  }
}
"""


def _node(g, block):
    return g.nodes[block]["node"]


def _branches(g, block):
    """A conditional region's branches as (condition, [(kind of block, line of what a state runs)])."""
    out = []
    for branch in _node(g, block).branches:
        out.append((branch.condition, [(type(_node(g, b)).__name__, _runs(g, b).line if isinstance(_node(g, b), State)
                                        else None) for b in branch.blocks]))
    return out


def test_alternating_time_loop_is_a_loop_region_around_one_conditional_region():
    (g,) = lift_source(ALTERNATING, "alternate.c").graphs
    validate(g)
    region = g.nest.scop
    inner = sorted((l for l in region.loops.values() if l.depth == 1), key=lambda l: l.line)
    assert [[c.text for c in l.conditions] for l in inner] == [["(t % 2) == 0"], ["!((t % 2) == 0)"]]
    assert inner[0].conditions[0].if_id == inner[1].conditions[0].if_id
    assert all(not l.conditions for l in region.loops.values() if l.depth == 0)
    (loop,) = contained(g, STATE)
    assert isinstance(_node(g, loop), LoopRegion) and _node(g, loop).var == "t"
    (cond,) = contained(g, loop)
    assert isinstance(_node(g, cond), ConditionalRegion)
    assert _branches(g, cond) == [("(t % 2) == 0", [("State", 5)]), ("!((t % 2) == 0)", [("State", 8)])]
    assert all(_runs(g, b.blocks[0]).schedule == "parallel" for b in _node(g, cond).branches)
    assert not any(isinstance(d["edge"], Transition) for _, _, d in g.edges(data=True))  # one block per branch
    # the conditions are the graph's, not the domains': the maps' ranges stay the loops' own
    assert [(_runs(g, b.blocks[0]).begin, _runs(g, b.blocks[0]).end) for b in _node(g, cond).branches] \
        == [("1", "n - 2")] * 2


def test_data_dependent_if_around_a_loop_in_a_loop_region():
    (g,) = lift_source(DATA_DEPENDENT, "relax.c").graphs
    validate(g)
    (loop,) = contained(g, STATE)
    first, cond = contained(g, loop)
    assert isinstance(_node(g, first), State) and _runs(g, first).schedule == "parallel"
    assert _branches(g, cond) == [("b[0] > tol", [("State", 7)])]
    guarded = _runs(g, _node(g, cond).branches[0].blocks[0])
    assert guarded.schedule == "parallel" and [c.text for c in guarded.conditions] == ["b[0] > tol"]
    (tasklet,) = scope_children(g, guarded.id)
    assert not _node(g, tasklet).conditions  # relative to its map: no `if` between them
    assert [(u, v) for u, v, _ in transitions(g, [first, cond])] == [(first, cond)]


def test_nested_ifs_nest_conditional_regions():
    (g,) = lift_source(NESTED, "nested.c").graphs
    validate(g)
    (loop,) = contained(g, STATE)
    outer, last = contained(g, loop)
    assert isinstance(_node(g, last), State) and _runs(g, last).line == 15
    (branch,) = _node(g, outer).branches
    assert branch.condition == "t > 0"
    inner, after = branch.blocks
    assert _branches(g, inner) == [("(t % 2) == 0", [("State", 6)]), ("!((t % 2) == 0)", [("State", 9)])]
    assert isinstance(_node(g, after), State) and _runs(g, after).line == 12
    assert [c.text for c in _runs(g, _node(g, inner).branches[1].blocks[0]).conditions] == ["t > 0",
                                                                                           "!((t % 2) == 0)"]
    # transitions: around the outer if in the loop, around the inner one in the outer branch
    assert {(u, v) for u, v, d in g.edges(data=True) if isinstance(d["edge"], Transition)} == {(outer, last),
                                                                                              (inner, after)}
    assert contained(g, outer) == [inner, after]


def test_continue_guard_puts_the_rest_of_the_body_in_a_conditional_region():
    (g,) = lift_source(SKIPPING, "skipping.c").graphs
    validate(g)
    (loop,) = contained(g, STATE)
    first, cond = contained(g, loop)
    assert isinstance(_node(g, first), State) and _branches(g, cond) == [("!(t == 3)", [("State", 7)])]


def test_validator_rejects_a_broken_conditional_region():
    (g,) = lift_source(ALTERNATING, "alternate.c").graphs
    (loop,) = contained(g, STATE)
    (cond,) = contained(g, loop)
    then, other = (b.blocks[0] for b in _node(g, cond).branches)
    broken = g.copy()
    broken.add_edge(then, other, edge=Transition())  # control passing from one branch into the other
    with pytest.raises(InvalidGraph, match="transitions of"):
        validate(broken)
    broken = g.copy()
    broken.nodes[cond]["node"] = ConditionalRegion(cond, [Branch("t % 2 == 1", [then]), Branch("1", [other])])
    with pytest.raises(InvalidGraph, match="branches"):
        validate(broken)
    broken = g.copy()
    broken.nodes[cond]["node"] = ConditionalRegion(cond, [Branch(b.condition, b.blocks[:1] + [other])
                                                          for b in _node(g, cond).branches[:1]])
    with pytest.raises(InvalidGraph):
        validate(broken)
    # a map under the `if` whose state is not in the conditional region
    _runs(g, other).conditions = []
    with pytest.raises(InvalidGraph):
        validate(g)


def test_conditional_regions_in_json_and_dot():
    graphs = lift_source(NESTED, "nested.c").graphs
    data = json.loads(json.dumps(to_json(graphs)))
    assert data["version"] == 3
    nodes = {n["id"]: n for n in data["graphs"][0]["nodes"]}
    regions = [n for n in nodes.values() if n["type"] == "ConditionalRegion"]
    assert sorted(len(n["branches"]) for n in regions) == [1, 2]
    inner = next(n for n in regions if len(n["branches"]) == 2)
    assert [b["condition"] for b in inner["branches"]] == ["(t % 2) == 0", "!((t % 2) == 0)"]
    (state,) = inner["branches"][1]["blocks"]
    assert nodes[state]["type"] == "State"
    maps = [n for n in nodes.values() if n["type"] == "MapScope" and len(n["conditions"]) == 2]
    assert sorted([c["text"] for c in m["conditions"]] for m in maps) == [["t > 0", "!((t % 2) == 0)"],
                                                                          ["t > 0", "(t % 2) == 0"]]
    assert len({c["if_id"] for m in maps for c in m["conditions"]}) == 2
    dot = to_dot(graphs)
    assert 'label="if (t > 0)"' in dot and 'label="if ((t % 2) == 0)"' in dot
    assert 'label="else: !((t % 2) == 0)"' in dot and dot.count('label="then"') == 2
    # an `if` inside a state's map labels what it guards there
    (g,) = lift_source("void f(int n, double *restrict a, double *restrict b) {\n"
                       " for (int i = 0; i < n; i++)\n  if (a[i] > 0) b[i] = 1.0;\n}\n", "f.c").graphs
    assert 'label="if (a[i] > 0) b[i] = 1.0' in to_dot([g])
