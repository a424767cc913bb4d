"""The dataflow graph: validator on every corpus program, memlet ranges, the control layer, and the exports."""
import json
import shutil
import subprocess
import sys

import pytest

from lifter import LiftOptions, lift_file, lift_source
from lifter.graph.control import build_control, contained, transitions
from lifter.graph.export import to_dot, to_json
from lifter.graph.nodes import (STATE, Contains, LoopRegion, MapScope, Memlet, State, Tasklet, Transition,
                                scope_children)
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
             if g.graph["function"] == "kernel_jacobi2d")
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
    g = next(g for g in lift_file(gemm).graphs if g.graph["function"] == "kernel_gemm")
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
    """transform() rebuilds the control layer after each pass that reshapes the scope tree
    (distribution, interchange, expansion, fusion, tiling): the graph must be valid there, and at
    the end under every option set."""
    import lifter.transform

    rebuilt = []

    def build_and_check(g):
        build_control(g)
        validate(g)
        rebuilt.append(g.graph["name"])

    monkeypatch.setattr(lifter.transform, "build_control", build_and_check)
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
    g.nodes[g.nodes[loop]["node"].map]["node"].schedule = "parallel"  # no longer a loop over states
    with pytest.raises(InvalidGraph, match="stands for"):
        validate(g)


def test_json_and_dot_exports(tmp_path):
    graphs = lift_source(JACOBI, "jacobi.c").graphs
    data = json.loads(json.dumps(to_json(graphs)))
    assert (data["format"], data["version"]) == ("lift-dataflow", 2)
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
