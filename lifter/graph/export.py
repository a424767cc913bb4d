"""Writing dataflow graphs for people (DOT, SVG) and programs (JSON; DaCe's SDFG JSON in sdfg.py).

JSON format: {"format": "lift-dataflow", "version": 3, "graphs": [G...]} where
each G is {"name", "function", "nodes": [{"id", "type", ...fields}],
"edges": [{"src", "dst", "type", ...fields}]}; node types are the class names
(Root, State, LoopRegion, ConditionalRegion, MapScope, Tasklet, AccessNode),
edge types their lower-case class names (scope, memlet, contains, transition),
and the fields are those of the data classes in lifter.graph.nodes, nested data
classes as objects: a ConditionalRegion's `branches` are [{"condition",
"blocks"}], a MapScope's or Tasklet's `conditions` [{"text", "if_id"}].
Version 2 had no conditional regions and no `conditions`; version 1 had no
control layer: its root node had type State.

DOT: a cluster per region; inside it a cluster per loop region, per
conditional region (labelled with its `if`, a cluster per branch inside) and
per state (bold arrows are the transitions between them), and inside a state
the clusters of its maps with their tasklets, each labelled with the `if`s
around it there.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess

import networkx as nx

from lifter.diagnostics import LiftError
from lifter.graph.control import contained, is_loop_region, transitions
from lifter.graph.nodes import (STATE, AccessNode, ConditionalRegion, LoopRegion, MapScope, Memlet, Root, Tasklet,
                                scope_children, scope_parent)
from lifter.graph.sdfg import function_sdfgs, to_sdfg_json
from lifter.graph.symbolic import c_to_symbolic


def to_json(graphs: list[nx.MultiDiGraph]) -> dict:
    out = []
    for g in graphs:
        nodes = []
        for n, d in g.nodes(data=True):
            fields = dataclasses.asdict(d["node"])
            nodes.append({"id": n, "type": type(d["node"]).__name__, **fields})
        edges = []
        for u, v, d in g.edges(data=True):
            e = d["edge"]
            edges.append({"src": u, "dst": v, "type": type(e).__name__.lower(), **dataclasses.asdict(e)})
        out.append({"name": g.graph["name"], "function": g.graph["function"], "nodes": nodes, "edges": edges})
    return {"format": "lift-dataflow", "version": 3, "graphs": out}


def _q(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_LEGEND = [
    '  subgraph cluster_legend { label="legend"; style=dotted; fontname="monospace"; node [fontsize=10];',
    '    legend_data [shape=ellipse, label="container (array or scalar)"];',
    '    legend_map [shape=invtrapezium, label="map entry: what the map reads\\nmap label: var = first..last step s"];',
    '    legend_tasklet [shape=octagon, label="tasklet: one statement\\n(xN: N unrolled copies drawn as one)"];',
    '    legend_data -> legend_map [label="range the whole map reads"];',
    '    legend_map -> legend_tasklet [label="dashed: may access", style=dashed];',
    '    legend_tasklet -> legend_data [label="blue, bold: control passes to the next block", color=blue, style=bold];',
    '  }',
]


def _copy_key(node: Tasklet) -> tuple[int, str]:
    """Unroll-and-jam's copies of one statement (transform/unroll.py) differ only in `(v + d)` for `v`."""
    return node.line, re.sub(r"\((\w+) \+ \d+\)", r"\1", node.code)


def unrolled_copies(g: nx.MultiDiGraph) -> tuple[dict[str, int], set[str]]:
    """Tasklets standing for their unrolled copies (with the count drawn) and the copies they hide:
    siblings of one scope with the same statement up to the unrolled variables' offsets."""
    shown, hidden = {}, set()
    for scope in [n for n, d in g.nodes(data=True) if isinstance(d["node"], (MapScope, Root))]:
        groups: dict[tuple[int, str], list[str]] = {}
        for child in scope_children(g, scope):
            if isinstance(node := g.nodes[child]["node"], Tasklet):
                groups.setdefault(_copy_key(node), []).append(child)
        for first, *copies in groups.values():
            if copies:
                shown[first] = 1 + len(copies)
                hidden.update(copies)
    return shown, hidden


def map_label(node: MapScope) -> str:
    """`var = first..last step s`, the bounds in DaCe's symbolic form where it is shorter (`Min`/`Max` for
    C's conditionals), the names the user's (and the tile and wave counters lift adds)."""
    first, last = (min((t, c_to_symbolic(t) or t), key=len) for t in (node.begin, node.end))
    return f"{node.var} = {first}..{last}" + (f" step {node.step}" if node.step != 1 else "")


def to_dot(graphs: list[nx.MultiDiGraph]) -> str:
    lines = ["digraph lift {", "  compound=true; rankdir=TB; node [fontname=\"monospace\"];", *_LEGEND]
    for gi, g in enumerate(graphs):
        shown, hidden = unrolled_copies(g)
        g.graph["_copies"] = shown, hidden  # for _node_dot; removed again below
        lines.append(f"  subgraph cluster_{gi} {{ label={_q(g.graph['function'] + ' / ' + g.graph['name'])};")
        _control_dot(g, contained(g, STATE), lines, gi, "    ")
        for n, d in g.nodes(data=True):
            node = d["node"]
            if isinstance(node, AccessNode):
                lines.append(f"    {_q(f'{gi}:{n}')} [shape=ellipse, label={_q(node.name)}];")
        lines.append("  }")
        for u, v, d in g.edges(data=True):
            e = d["edge"]
            if isinstance(e, Memlet) and isinstance(g.nodes[v]["node"], MapScope) and _outermost(g, v):
                lines.append(f"  {_q(f'{gi}:{u}')} -> {_q(f'{gi}:{v}')} [label={_q(e.subset_text())}];")
            if isinstance(e, Memlet) and not isinstance(g.nodes[u]["node"], MapScope) \
                    and not isinstance(g.nodes[v]["node"], MapScope) and not {u, v} & hidden:
                label = e.text or e.subset_text()
                if e.wcr:
                    label += f" (wcr {e.wcr})"
                style = ", style=dashed" if e.dynamic else ""
                lines.append(f"  {_q(f'{gi}:{u}')} -> {_q(f'{gi}:{v}')} [label={_q(label)}{style}];")
        del g.graph["_copies"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _control_dot(g, blocks, lines, gi, indent) -> None:
    """A region's (or branch's) blocks as clusters, joined by its transitions (drawn between the
    blocks' first dataflow nodes, clipped to the clusters)."""
    for block in blocks:
        node = g.nodes[block]["node"]
        if isinstance(node, LoopRegion):
            label = f"loop region {node.var} = {node.begin}..{node.end} (sequential: its blocks run in order)"
            if g.nodes[node.map]["node"].parallel_region is not None:
                label += " (in one omp parallel region)"
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ label={_q(label)}; style=\"rounded,bold\";")
            _control_dot(g, contained(g, block), lines, gi, indent + "  ")
        elif isinstance(node, ConditionalRegion):
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ "
                         f"label={_q(f'if ({node.branches[0].condition})')}; style=\"rounded,dashed\";")
            for k, branch in enumerate(node.branches):
                label = "then" if k == 0 else f"else: {branch.condition}"
                lines.append(f"{indent}  subgraph {_cluster(gi, f'{block}/{k}')} {{ label={_q(label)}; style=dashed;")
                _control_dot(g, branch.blocks, lines, gi, indent + "    ")
                lines.append(f"{indent}  }}")
        else:
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ label={_q('state')}; style=dotted;")
            for child in contained(g, block):
                _node_dot(g, child, lines, gi, indent + "  ", top=True)
        lines.append(f"{indent}}}")
    for u, v, _ in transitions(g, blocks):
        lines.append(f"{indent}{_q(f'{gi}:{_anchor(g, u)}')} -> {_q(f'{gi}:{_anchor(g, v)}')} "
                     f"[ltail={_cluster(gi, u)}, lhead={_cluster(gi, v)}, style=bold, color=blue];")


def _cluster(gi: int, block: str) -> str:
    return _q(f"cluster_{gi}_{block}")


def _anchor(g, block: str) -> str:
    """The first dataflow node drawn inside a block."""
    while not isinstance(g.nodes[block]["node"], (MapScope, Tasklet)):
        block = contained(g, block)[0]
    return block


def _node_dot(g, node_id, lines, gi, indent, top=False) -> None:
    """A map (a cluster with its children) or a tasklet; inside a state's map, labelled with the
    `if`s around it there (a state's own map or tasklet has its `if`s as conditional regions)."""
    node = g.nodes[node_id]["node"]
    guard = "" if top else "".join(f"if ({c.text}) " for c in node.conditions)
    if isinstance(node, MapScope):
        kind = "parallel map" if node.schedule == "parallel" else "sequential map"
        if node.plan is not None:
            kind += " (omp parallel for)"
        label = f"{guard}{kind} {map_label(node)}"
        lines.append(f"{indent}subgraph {_cluster(gi, node_id)} {{ label={_q(label)}; style=rounded;")
        # the map entry; what it reads is drawn on the edges into it (outermost maps only: an inner map's
        # ranges are its parent's per iteration, which lift's memlets over-approximate to the whole)
        lines.append(f"{indent}  {_q(f'{gi}:{node_id}')} [shape=invtrapezium, label={_q('in')}];")
        for child in scope_children(g, node_id):
            _node_dot(g, child, lines, gi, indent + "  ")
        lines.append(f"{indent}}}")
    elif isinstance(node, Tasklet):
        shown, hidden = g.graph["_copies"]
        if node_id in hidden:
            return
        count = f"\n(x{shown[node_id]}: unrolled copies)" if node_id in shown else ""
        lines.append(f"{indent}{_q(f'{gi}:{node_id}')} [shape=octagon, label={_q(guard + node.code + count)}];")


def _outermost(g, map_id: str) -> bool:
    """A map no map encloses (the one a state runs, or a loop region's)."""
    parent = scope_parent(g, map_id)
    return parent is None or not isinstance(g.nodes[parent]["node"], MapScope) or is_loop_region(g, parent)


def write_graphs(graphs: list[nx.MultiDiGraph], path: str, function: str | None = None) -> str | None:
    """Write the graphs (of one function, if named) to `path`; returns a message for the user when
    the file names differ from `path` (an SDFG per function, DaCe's unit of a callable program)."""
    from lifter.cli import write_atomically

    ext = os.path.splitext(path)[1].lower()
    if function is not None:
        graphs = [g for g in graphs if g.graph["function"] == function]
        if not graphs:
            raise LiftError(path, 0, 0, f"no lifted loop nest in a function named '{function}'")
    if ext == ".sdfg" and function is None and graphs:
        stem = path[:-len(ext)]
        written = []
        for name, sdfg in function_sdfgs(graphs).items():
            write_atomically(f"{stem}.{name}.sdfg", json.dumps(sdfg, indent=1) + "\n")
            written.append(f"{stem}.{name}.sdfg")
        return f"wrote one SDFG per function (--function NAME for one): {', '.join(written)}"
    if ext == ".json":
        write_atomically(path, json.dumps(to_json(graphs), indent=1) + "\n")
    elif ext == ".sdfg":
        name = function or "lift"
        write_atomically(path, json.dumps(to_sdfg_json(graphs, name), indent=1) + "\n")
    elif ext == ".dot" or ext == ".gv":
        write_atomically(path, to_dot(graphs))
    elif ext == ".svg":
        dot = shutil.which("dot")
        if dot is None:
            raise LiftError(path, 0, 0, "writing SVG needs Graphviz's 'dot' program; install graphviz "
                                        "or ask for a .dot file")
        done = subprocess.run([dot, "-Tsvg"], input=to_dot(graphs).encode(), capture_output=True, timeout=120)
        if done.returncode != 0:
            raise LiftError(path, 0, 0, f"dot failed: {done.stderr.decode(errors='replace').strip()}")
        write_atomically(path, done.stdout.decode("utf-8", errors="replace"))
    else:
        raise LiftError(path, 0, 0, "graph file must end in .dot, .json, .sdfg or .svg")
    return None
