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
per state (bold arrows are the transitions between them, from one state's last
node to the next one's first, so that states stack rather than spread). A
state is drawn as DaCe draws its dataflow: the containers it reads at the top
and writes at the bottom, a map a cluster with an entry `in` and an exit
`out`, memlets from the containers into the outermost entry, from each entry
into what is inside it and back out through the exits, labelled with what they
move (graph/picture_ranges.py); a tasklet stands for its unrolled copies with
their count, and a legend sits above the first region. `--function NAME`
draws one function.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import textwrap


from lifter.diagnostics import LiftError
from lifter.graph.control import contained, transitions
from lifter.graph.nodes import (STATE, ConditionalRegion, LoopRegion, MapScope, Memlet, Root, Schedule, Tasklet,
                                scope_children, strips_before)
from lifter.graph.build import data_id
from lifter.graph.picture_ranges import map_ranges, simplified
from lifter.graph.sdfg import function_sdfgs, to_sdfg_json
from lifter.graph.symbolic import c_to_symbolic
from lifter.graph.attributes import DataflowGraph


def to_json(graphs: list[DataflowGraph]) -> dict:
    out = []
    for g in graphs:
        nodes = []
        for n, d in g.nodes(data=True):
            fields = dataclasses.asdict(d["node"])
            nodes.append({"id": n, "type": type(d["node"]).__name__, **fields})
        edges = []
        for u, v, d in g.edges(data=True):
            e = d["edge"]
            fields = {f.name: getattr(e, f.name) for f in dataclasses.fields(e) if f.name != "range"}  # isl: no JSON
            edges.append({"src": u, "dst": v, "type": type(e).__name__.lower(), **fields})
        out.append({"name": g.name, "function": g.function, "nodes": nodes, "edges": edges})
    return {"format": "lift-dataflow", "version": 3, "graphs": out}


def _q(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# Left-justified lines (DOT's `\\l`), written into the file as they are.
_LEGEND = "".join(line + "\\l" for line in [
    "legend",
    "ellipse: a container (array or scalar), read at the top of its state, written at the bottom",
    "rounded frame: a map, labelled var = first..last step s (floord(a, b): a / b rounded down)",
    "'in' / 'out': the map's entry and exit",
    "octagon: a tasklet (one statement; xN: N unrolled copies drawn as one)",
    "edge labels: what moves, the enclosing maps' variables fixed (into an entry,",
    "  out of an exit: over all the map's iterations; dashed: may write)",
    "blue, bold: control passes to the next block",
])


def _copy_key(node: Tasklet) -> tuple[int, str]:
    """Unroll-and-jam's copies of one statement (transform/unroll.py) differ only in `(v + d)` for `v`."""
    return node.line, re.sub(r"\((\w+) \+ \d+\)", r"\1", node.code)


def unrolled_copies(g: DataflowGraph) -> tuple[dict[str, int], set[str]]:
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


# The symbolic form's words spelt as isl spells them, so that a label reads one notation whichever form was shorter.
_ISL_SPELLING = {"int_floor": "floord", "Min": "min", "Max": "max"}
_SYMBOLIC_WORD = re.compile(rf"\b({'|'.join(_ISL_SPELLING)})\(")


def map_label(node: MapScope, after: int = 1) -> str:
    """`var = first..last step s`, each bound in C's, DaCe's symbolic or isl's simplified form, whichever is
    shortest, written in isl's words (`min`, `max`, `floord`: the legend says what they mean), the names the
    user's (and the tile and wave counters lift adds). The remainder of a map unrolled by `after` starts where
    that map's strips of `after` stop: said in words, the exact first index (graph/sdfg.py writes it) is longer
    than the rest of the picture's labels."""
    first, last = (_SYMBOLIC_WORD.sub(lambda m: _ISL_SPELLING[m[1]] + "(",
                                      min((t, simplified(t) or t, c_to_symbolic(t) or t), key=len))
                   for t in (node.begin, node.end))
    if after > 1:
        first = f"(after the strips of {after} from {first})"
    return f"{node.var} = {first}..{last}" + (f" step {node.step}" if node.step != 1 else "")


def to_dot(graphs: list[DataflowGraph]) -> str:
    lines = ["digraph lift {", "  compound=true; rankdir=TB; newrank=true;",
             '  node [fontname="monospace", fontsize=12]; edge [fontsize=9]; graph [fontsize=12];',
             ]
    for gi, g in enumerate(graphs):
        lines.append(f"  subgraph cluster_{gi} {{ label={_q(g.function + ' / ' + g.name)};")
        blocks = contained(g, STATE)
        if gi == 0 and blocks:  # the legend above the first region, inside its frame: no width added
            lines.append(f'    legend [shape=note, fontsize=10, label="{_LEGEND}"];')
            lines.append(f"    legend -> {_q(f'0:{_anchor(g, blocks[0])}')} [style=invis, minlen=2];")
        _control_dot(g, blocks, lines, gi, "    ", unrolled_copies(g))
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _control_dot(g, blocks, lines, gi, indent, copies: tuple[dict[str, int], set[str]]) -> None:
    """A region's (or branch's) blocks as clusters, joined by its transitions (drawn between the
    blocks' first dataflow nodes, clipped to the clusters); `copies`: the graph's `unrolled_copies`."""
    for block in blocks:
        node = g.nodes[block]["node"]
        if isinstance(node, LoopRegion):
            label = f"loop region {map_label(g.nodes[node.map]['node'])} (sequential: its blocks run in order)"
            if g.nodes[node.map]["node"].parallel_region is not None:
                label += " (in one omp parallel region)"
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ label={_q(label)}; style=\"rounded,bold\";")
            _control_dot(g, contained(g, block), lines, gi, indent + "  ", copies)
        elif isinstance(node, ConditionalRegion):
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ "
                         f"label={_q(f'if ({node.branches[0].condition})')}; style=\"rounded,dashed\";")
            for k, branch in enumerate(node.branches):
                label = "then" if k == 0 else f"else: {branch.condition}"
                lines.append(f"{indent}  subgraph {_cluster(gi, f'{block}/{k}')} {{ label={_q(label)}; style=dashed;")
                _control_dot(g, branch.blocks, lines, gi, indent + "    ", copies)
                lines.append(f"{indent}  }}")
        else:
            lines.append(f"{indent}subgraph {_cluster(gi, block)} {{ label={_q('state')}; style=dotted;")
            for child in contained(g, block):
                _StateDot(g, gi, block, lines, copies).draw(child, indent + "  ")
        lines.append(f"{indent}}}")
    for u, v, _ in transitions(g, blocks):  # from u's last node to v's first, room for the containers between
        lines.append(f"{indent}{_q(f'{gi}:{_anchor(g, u, last=True)}')} -> {_q(f'{gi}:{_anchor(g, v)}')} "
                     f"[ltail={_cluster(gi, u)}, lhead={_cluster(gi, v)}, style=bold, color=blue, minlen=3];")


def _cluster(gi: int, block: str) -> str:
    return _q(f"cluster_{gi}_{block}")


def _anchor(g, block: str, last: bool = False) -> str:
    """The first dataflow node drawn inside a block (a map's entry), or the last (a map's exit)."""
    while not isinstance(g.nodes[block]["node"], (MapScope, Tasklet)):
        block = contained(g, block)[-1 if last else 0]
    return block + (":out" if last and isinstance(g.nodes[block]["node"], MapScope) else "")


class _StateDot:
    """One state's dataflow as DaCe draws it: the containers it reads (top) and writes (bottom), each
    map an entry `in` and an exit `out`, memlets from a container into the outermost entry, from an
    entry into what is inside it and back out through the exits, each labelled with what moves."""

    def __init__(self, g, gi: int, state: str, lines: list[str], copies: tuple[dict[str, int], set[str]]):
        self.g, self.gi, self.state, self.lines = g, gi, state, lines
        self.shown, self.hidden = copies
        self.containers: dict[tuple[str, bool], str] = {}
        self.drawn: dict[tuple[str, bool], dict[str, list[tuple[str, str]] | None]] = {}  # (map, written?)

    def _ranges(self, map_id: str, written: bool, parent: str | None) -> dict[str, list[tuple[str, str]] | None]:
        """What the map moves per container; where that is not computed, what its parent moves (an inner
        map is never drawn wider than its parent) or, outermost, lift's own memlet of the map."""
        ranges = map_ranges(self.g, map_id, written)
        for container, subset in ranges.items():
            if subset is None and parent is not None:
                ranges[container] = self.drawn[parent, written].get(container)
            elif subset is None:
                ends = self.g.out_edges(map_id, data=True) if written else self.g.in_edges(map_id, data=True)
                ranges[container] = next((d["edge"].subset for u, v, d in ends if isinstance(d["edge"], Memlet)
                                          and d["edge"].container == container and "?" not in str(d["edge"].subset)),
                                         None)
        self.drawn[map_id, written] = ranges
        return ranges

    def _id(self, node_id: str, side: str = "") -> str:
        return _q(f"{self.gi}:{node_id}{side}")

    def _edge(self, src: str, dst: str, label: str, dashed: bool = False) -> None:
        style = ", style=dashed" if dashed else ""
        self.lines.append(f"  {src} -> {dst} [label={_q(label)}{style}];")

    def _container(self, container: str, written: bool, indent: str) -> str:
        key = (container, written)
        if key not in self.containers:
            node_id = self._id(f"{self.state}:{'w' if written else 'r'}:{container}")
            self.containers[key] = node_id
            self.lines.append(f"{indent}{node_id} [shape=ellipse, label={_q(self.g.nodes[data_id(container)]['node'].name)}];")
        return self.containers[key]

    def draw(self, top: str, indent: str) -> None:
        node = self.g.nodes[top]["node"]
        if isinstance(node, MapScope):
            for written in (False, True):
                self._ranges(top, written, None)
        self._node_dot(top, indent, top=True)
        if isinstance(node, MapScope):
            for written in (False, True):
                for container, subset in self.drawn[top, written].items():
                    data = self._container(container, written, indent)
                    label = _range_text(container, subset)
                    if written:
                        self._edge(self._id(top, ":out"), data, label)
                    else:
                        self._edge(data, self._id(top), label)
        else:
            for _, _, d in self.g.in_edges(top, data=True):
                if isinstance(e := d["edge"], Memlet):
                    self._edge(self._container(e.container, False, indent), self._id(top), e.text or e.subset_text())
            for _, _, d in self.g.out_edges(top, data=True):
                if isinstance(e := d["edge"], Memlet):
                    self._edge(self._id(top), self._container(e.container, True, indent), _write_text(e), e.dynamic)

    def _node_dot(self, node_id: str, indent: str, top: bool = False) -> None:
        """A map (a cluster with its entry, children and exit) or a tasklet; inside a state's map, labelled
        with the `if`s around it there (a state's own map or tasklet has its `if`s as conditional regions)."""
        g = self.g
        node = g.nodes[node_id]["node"]
        guard = "" if top else "".join(f"if ({c.text}) " for c in node.conditions)
        if isinstance(node, MapScope):
            kind = "parallel map" if node.schedule == Schedule.PARALLEL else "sequential map"
            if node.plan is not None:
                kind += " (omp parallel for)"
            label = f"{guard}{kind} {map_label(node, strips_before(g, node_id))}"
            lines = self.lines
            lines.append(f"{indent}subgraph {_cluster(self.gi, node_id)} {{ label={_q(label)}; style=rounded;")
            lines.append(f"{indent}  {self._id(node_id)} [shape=invtrapezium, label=\"in\"];")
            lines.append(f"{indent}  {self._id(node_id, ':out')} [shape=trapezium, label=\"out\"];")
            for child in scope_children(g, node_id):
                if child in self.hidden:
                    continue
                inner = g.nodes[child]["node"]
                if isinstance(inner, MapScope):
                    reads, writes = (self._ranges(child, w, node_id) for w in (False, True))
                self._node_dot(child, indent + "  ")
                if isinstance(inner, MapScope):
                    self._edge(self._id(node_id), self._id(child),
                               "\n".join(_range_text(c, s) for c, s in reads.items()))
                    self._edge(self._id(child, ":out"), self._id(node_id, ":out"),
                               "\n".join(_range_text(c, s) for c, s in writes.items()))
                else:
                    reads = [e for _, _, d in g.in_edges(child, data=True) if isinstance(e := d["edge"], Memlet)]
                    writes = [e for _, _, d in g.out_edges(child, data=True) if isinstance(e := d["edge"], Memlet)]
                    self._edge(self._id(node_id), self._id(child), "\n".join(e.text or e.subset_text() for e in reads))
                    self._edge(self._id(child), self._id(node_id, ":out"), "\n".join(_write_text(e) for e in writes),
                               any(e.dynamic for e in writes))
            lines.append(f"{indent}}}")
        elif isinstance(node, Tasklet):
            count = f"\n(x{self.shown[node_id]}: unrolled copies)" if node_id in self.shown else ""
            code = "\n".join(textwrap.wrap(guard + node.code, 72, break_long_words=False))
            self.lines.append(f"{indent}{self._id(node_id)} [shape=octagon, label={_q(code + count)}];")


def _range_text(container: str, subset: list[tuple[str, str]] | None) -> str:
    if subset is None:
        return f"{container} (range not affine)"
    return Memlet(container, subset, "1").subset_text()


def _write_text(e: Memlet) -> str:
    label = e.text or e.subset_text()
    return label + (f" (wcr {e.wcr})" if e.wcr else "")


_REFUSAL = re.compile(r'^#error "lift: (.*)"$', re.M)
_NOTE = re.compile(r"^// lift: (.*)$", re.M)


def _refusals(path: str, sdfg: dict) -> list[str]:
    """A warning per reason the SDFG's global code gives DaCe's compiler to stop (graph/sdfg_source.py): the
    file is written all the same (DaCe reads and validates it), but the user hears now why it will not run;
    and one per note of what its caller must do that the C function did (graph/sdfg_caller.py: the buffers it
    allocates, the statements it runs after the SDFG)."""
    code = sdfg["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
    return [f"warning: {path} will not compile in DaCe: " + re.sub(r"\\(.)", r"\1", m[1])  # C's escapes undone
            for m in _REFUSAL.finditer(code)] + [f"warning: {path}: {m[1]}" for m in _NOTE.finditer(code)]


def write_graphs(graphs: list[DataflowGraph], path: str, function: str | None = None) -> str | None:
    """Write the graphs (of one function, if named) to `path`; returns a message for the user when
    the file names differ from `path` (an SDFG per function, DaCe's unit of a callable program)."""
    from lifter.files import write_atomically

    ext = os.path.splitext(path)[1].lower()
    if function is not None:
        graphs = [g for g in graphs if g.function == function]
        if not graphs:
            raise LiftError(path, 0, 0, f"no lifted loop nest in a function named '{function}'")
    if ext == ".sdfg" and function is None and graphs:
        stem = path[:-len(ext)]
        written, refused = [], []
        for name, sdfg in function_sdfgs(graphs).items():
            write_atomically(f"{stem}.{name}.sdfg", json.dumps(sdfg, indent=1) + "\n")
            written.append(f"{stem}.{name}.sdfg")
            refused += _refusals(f"{stem}.{name}.sdfg", sdfg)
        return "\n".join([f"wrote one SDFG per function (--function NAME for one): {', '.join(written)}", *refused])
    if ext == ".json":
        write_atomically(path, json.dumps(to_json(graphs), indent=1) + "\n")
    elif ext == ".sdfg":
        sdfg = to_sdfg_json(graphs, function or "lift")
        write_atomically(path, json.dumps(sdfg, indent=1) + "\n")
        return "\n".join(_refusals(path, sdfg)) or None
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
