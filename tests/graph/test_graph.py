"""The dataflow graph: validator on every corpus program, memlet ranges, and the exports."""
import json
import shutil
import subprocess
import sys

import pytest

from lifter import lift_file, lift_source
from lifter.graph.export import to_dot, to_json
from lifter.graph.nodes import MapScope, Memlet, Tasklet
from lifter.graph.validate import InvalidGraph, validate
from tests.harness import corpus_programs

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


def test_json_and_dot_exports(tmp_path):
    graphs = lift_source(JACOBI, "jacobi.c").graphs
    data = json.loads(json.dumps(to_json(graphs)))
    assert data["format"] == "lift-dataflow"
    types = {n["type"] for n in data["graphs"][0]["nodes"]}
    assert {"State", "MapScope", "Tasklet", "AccessNode"} <= types
    dot = to_dot(graphs)
    assert dot.startswith("digraph") and "parallel map" in dot and "b[i]" in dot


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
