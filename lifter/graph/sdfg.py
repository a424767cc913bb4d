"""Export lift's graphs as a DaCe SDFG (`--emit-graph G.sdfg`), for DaCe's viewers and tools.

The file is the JSON that DaCe's `SDFG.from_json` reads (checked against DaCe 1.0.2 by
tests/graph/test_sdfg.py when DaCe is installed). The mapping, all read off lift's graph:

- a function is one SDFG (`function_sdfgs`); the control blocks of each of its lifted regions
  (graph/control.py), in textual order, are its blocks, joined by unconditional interstate edges, inside
  the while loops and with the scalar assignments around them that graph/sdfg_host.py reads off the
  function's AST;
- lift's control layer maps one to one: a `LoopRegion` becomes DaCe's `LoopRegion` (init,
  condition and update on its variable) holding its blocks, a `ConditionalRegion` DaCe's
  `ConditionalBlock` with one `ControlFlowRegion` per branch (the then-branch's condition in
  Python, `&&`, `||`, `!` spelled `and`, `or`, `not`, where the C text is plain arithmetic,
  comparisons and subscripts, else the C text as a C++ code block; an else-branch after it has
  no condition, DaCe's `else`), a `State` an `SDFGState` holding the dataflow of the map or
  tasklet it runs, a `Transition` an `InterstateEdge`;
- inside a state, a map is a `MapEntry`/`MapExit` pair (schedule `Sequential` when lift keeps it
  sequential, and when its scratch rows outlive it, `MapScope.shared_scratch`: DaCe has no form for
  a last iteration that works on the shared row, so the rows stay shared and the map sequential,
  the loop as written), a statement a C++ `Tasklet`, a container an `AccessNode` (one for reads before
  the scope, one for writes after it);
- every tasklet memlet becomes a memlet path from the read access node through the entries of
  its enclosing maps (each carrying that map's range of the container) to the tasklet, and back
  out through the exits to the write access node; `wcr` becomes DaCe's reduction lambda;
- a container private to a map (declared in its body, or in the map's `private`) is a transient
  of its own whose access nodes sit inside that map's scope, the paths starting and ending there:
  DaCe allocates it per iteration, where one shared container would be a race between the
  parallel iterations;
- two children of one map iteration (tasklets or inner maps) that touch a container one of them writes
  (not a private one) are ordered by an empty memlet from the earlier to the later, out of an inner
  map through an access node (`_order`).

The file's functions that tasklets call are the SDFG's global code, and what the function does outside
its regions that the SDFG would not do refuses it there (graph/sdfg_source.py); what its caller does in its
place (the buffers it allocates and hands out, statements between its regions) is noted there
(graph/sdfg_caller.py).

DaCe parses ranges with sympy, so C bounds that are not plain arithmetic (division, modulo,
conditionals) are replaced by the container's whole extent, which is what lift's memlets
over-approximate to anyway; unknown extents become symbols `<name>_size<k>`. A pointer that the
function indexes flat but that lift delinearizes differently in different regions is one flat
descriptor (graph/sdfg_extents.py's `flat_views`), each region's subsets reaching it through its own strides; a
local one region computes and another only reads is one descriptor (`one_element`).
"""
from __future__ import annotations

import ast
import dataclasses
import re

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import data_id
from lifter.graph.sdfg_extents import flat_extents, flat_views, inferred_extents, one_element, symbolic
from lifter.graph.sdfg_caller import allocated_shape, between, caller_after, caller_allocations, handed_out
from lifter.graph.sdfg_source import global_code, jammed_loops, unexported_work, unexpressed_bounds, unknown_elements
from lifter.graph.sdfg_calls import Callee, callee_of
from lifter.graph.sdfg_host import HostBuilder, HostFacts, Inexact, Region, function_steps, region_graphs
from lifter.graph.sdfg_json import DTYPES as _DTYPES, INTEGERS as _INTEGERS, dataflow_edge, dataflow_node
from lifter.graph.sdfg_json import graph_fields as _graph_fields, range_json as _range, state as _state
from lifter.graph.sdfg_statements import StatementBuilder
from lifter.graph.symbolic import identifier
from lifter.graph.control import contained, transitions
from lifter.graph.nodes import (STATE, AccessNode, ConditionalRegion, LoopRegion, MapScope, Memlet, Tasklet,
                                scope_children, scope_parent, strips_before)

DACE_VERSION = "1.0.2"
_PLAIN = re.compile(r"^[\w\s+\-*(),]*$")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
# A condition DaCe can read as Python: names, integers, arithmetic, comparisons, `&&`, `||`, `!` and
# subscripts, no call or cast (a name or `)` before `(`), no `/` (C truncates), no bitwise operator.
_PYTHON_CONDITION = re.compile(r"^(?:[\w\s+\-*%()<>=!\[\]]|&&|\|\|)*$")
_CALL = re.compile(r"[\w)]\s*\(")
_PYTHON_WORDS = {"and", "or", "not"}
_FUNCTIONS = {"min", "max", "Min", "Max", "int_floor"}
_WCR = {"+": "a + b", "-": "a + b", "*": "a * b", "min": "min(a, b)", "max": "max(a, b)",
        "&": "a & b", "|": "a | b", "^": "a ^ b", "&&": "a and b", "||": "a or b"}


def _element(node: AccessNode) -> str:
    return " ".join(node.element.replace("const", "").replace("volatile", "").split())


def plain(text: str) -> str | None:
    """The C expression if sympy reads it the same way, else None: no cast (`(size_t) (n - 1)`
    would read as a call) and no call but `min` and `max`."""
    if not text or text == "?" or not _PLAIN.match(text):
        return None
    callees = re.findall(r"(\w+|\))\s*\(", text)
    return text if all(c in _FUNCTIONS for c in callees) else None


def function_sdfgs(graphs: list[DataflowGraph]) -> dict[str, dict]:
    """One SDFG per function with lifted regions, by function name, in the order they come."""
    by_function = functions_graphs(graphs)
    return {f: to_sdfg_json(mine, f, by_function) for f, mine in by_function.items()}


def functions_graphs(graphs: list[DataflowGraph]) -> dict[str, list[DataflowGraph]]:
    """The graphs of each function, in the order they come: the functions whose SDFGs a call may nest."""
    out: dict[str, list[DataflowGraph]] = {}
    for g in graphs:
        out.setdefault(g.function, []).append(g)
    return out


def to_sdfg_json(graphs: list[DataflowGraph], name: str, functions: dict[str, list] | None = None,
                 calling: frozenset[str] = frozenset()) -> dict:
    """The SDFG of the given regions (those of one function, for an SDFG DaCe can call), run in order, in the
    loops and with the statements around them that graph/sdfg_host.py reads off the function; `functions`
    (`functions_graphs`) are the file's functions whose SDFGs those statements' calls nest (graph/sdfg_calls.py),
    but those being built (`calling`: a call cycle nests none)."""
    functions = {f: mine for f, mine in (functions or {}).items() if f not in calling | {name}}
    callees = {}

    def callee(f: str) -> Callee | None:
        if f not in callees:
            func = functions[f][0].nest.scop.file.functions.get(f)
            sdfg = to_sdfg_json(functions[f], f, functions, calling | {name})
            callees[f] = callee_of(func, functions[f], sdfg) if func is not None else None
        return callees[f]

    steps, loops, facts = function_steps(graphs, set(functions)) if graphs else ([], set(), HostFacts())
    try:
        sdfg, blocks, edges = _blocks(graphs, steps, facts, callee, name)
    except Inexact:  # a scalar the statements around the regions would write is a symbol there
        steps, loops = [Region(g) for g in graphs], set()
        sdfg, blocks, edges = _blocks(graphs, steps, facts, callee, name)
    if not blocks:
        blocks = [_state("empty", [], [])]
    # a map variable is defined by its map, but a loop region's variable is assigned like an interstate
    # symbol, and DaCe declares it only if it is one (else each loop it heads declares it anew: `auto j`)
    free = sdfg.symbols - set(sdfg.arrays) - _FUNCTIONS - (sdfg.bound - sdfg.loop_variables)
    symbols = {s: sdfg.symbol_types.get(s, "int64") for s in sorted(free)}
    attributes = {"name": identifier(name), "_arrays": sdfg.arrays, "symbols": symbols}
    exported = region_graphs(steps)  # not the regions of calls only, which their callees' SDFGs run
    definitions = unknown_elements(sorted(sdfg.unknown)) + unexpressed_bounds(sdfg.unexpressed) + jammed_loops(graphs)
    definitions += unexported_work(graphs, loops) + global_code(exported) if graphs else ""
    definitions += caller_allocations(name, [b for c, b in sdfg.allocated.items() if c in sdfg.allocated_extents],
                                      sdfg.allocated_extents)
    definitions += caller_after(name, [node for node, deferrable in between(graphs, loops) if deferrable])
    if definitions:  # the file's functions its tasklets call (graph/sdfg_source.py)
        attributes["global_code"] = {"frame": {"string_data": definitions, "language": "CPP"}}
    return {
        "type": "SDFG",
        "attributes": attributes,
        **_graph_fields(blocks, edges, 0),
        "label": identifier(name),
        "id": None,
        "dace_version": DACE_VERSION,
    }


def _blocks(graphs: list[DataflowGraph], steps: list, facts: HostFacts, callee, name: str):
    """The SDFG's descriptors (every region's first: the statements around them use the same), its blocks
    and their transitions."""
    exported = region_graphs(steps)
    sdfg = _Sdfg(exported, identifier(name), facts.highs)
    for g in exported:
        sdfg.add_containers(g)
    blocks, edges = HostBuilder(sdfg, lambda g: sdfg.control_blocks(g, contained(g, STATE)), steps,
                                facts, callee).blocks(steps)
    return sdfg, blocks, edges


class _Sdfg:
    """Accumulates data descriptors and symbols while the blocks are built."""

    def __init__(self, graphs: list[DataflowGraph], name: str, highs: dict[tuple[str, int], set[str]]):
        self.name = name  # the SDFG's (its function's)
        self.arrays: dict[str, dict] = {}
        self.symbols: set[str] = set()
        self.bound: set[str] = set()  # map variables: defined by their scope, no SDFG symbols
        self.loop_variables: set[str] = set()  # loop regions' variables: SDFG symbols
        self.written = {(g.name, d["edge"].container) for g in graphs for u, _, d in g.edges(data=True)
                        if isinstance(d["edge"], Memlet) and isinstance(g.nodes[u]["node"], Tasklet)}
        self.symbol_types: dict[str, str] = {}
        self.region_params = {p for g in graphs for p in g.nodes[STATE]["node"].params}  # symbols in their bounds
        self.loop_names = {d["node"].var for g in graphs for _, d in g.nodes(data=True)
                           if isinstance(d["node"], MapScope)}
        self.inferred = inferred_extents(graphs, highs)
        self.open: set[tuple[str, int]] = set()  # (container, dimension) of the extents no declaration gives
        self.unknown: set[str] = set()  # containers of unknown element types (the SDFG is refused)
        self.unexpressed: list[str] = []  # loop bounds DaCe cannot read (the SDFG is refused)
        self.flat = flat_views(graphs)
        self.flat_extents = flat_extents(graphs, self.flat)
        self.allocated = handed_out(graphs)  # buffers the caller allocates (graph/sdfg_caller.py), by container
        self.allocated_extents: dict[str, list[str]] = {}  # their descriptors' shapes
        self.cfg_count = 0
        self.state_count = 0
        self.extents: dict[tuple[str, str], list[str]] = {}  # (region, container) -> shape
        self.names: dict[tuple[str, str], str] = {}  # (region, container) -> descriptor name

    def add_containers(self, g: DataflowGraph) -> None:
        """Descriptors are global to an SDFG: a name seen with another shape gets the region's suffix."""
        region = g.name
        for _, d in g.nodes(data=True):
            node = d["node"]
            if isinstance(node, AccessNode):
                member = g.nest.scop.containers.get(node.container)
                if node.element == "?" and getattr(member, "member_element", ""):  # g->u, p[i].x: the field's type
                    node = dataclasses.replace(node, element=member.member_element)
                name = identifier(node.container)
                if self.is_symbol(region, node):
                    self.symbol_types[name] = _DTYPES.get(_element(node), "int64")
                    self.names[region, node.container] = name
                    continue
                flat = (region, node.container) in self.flat
                allocated = allocated_shape(self.allocated.get(node.container), node, flat)
                shape = [self.expr(d, symbol=True) for d in allocated] if allocated else (
                    [self.expr(self.flat_extents[node.container], symbol=True)] if flat else self._shape(node, name))
                if flat and not allocated:
                    self.open.add((node.container, 0))
                if node.container in self.allocated:
                    self.allocated_extents.setdefault(node.container, shape)
                descriptor = self._descriptor(node, shape, (region, node.container) in self.written)
                if _element(node) not in _DTYPES:
                    self.unknown.add(node.container)
                if (unified := one_element(self.arrays.get(name), descriptor)) is not None:
                    descriptor = self.arrays[name] = unified
                if self.arrays.get(name, descriptor) != descriptor:
                    name = f"{name}_{identifier(region)}"
                self.arrays[name] = descriptor
                self.extents[region, node.container] = shape
                self.names[region, node.container] = name

    def host_scalar(self, name: str, kind: str, written: bool, local: bool = False, declared: bool = False) -> str:
        """A scalar that a statement around the regions reads or writes (graph/sdfg_host.py), as its code
        names it: a one-element array `name[0]` (what the function computes, as the regions hold it), a
        scalar argument or a symbol by name; declared where no region has it. A local a step declares is a
        transient scalar (`double t = s * 2.0;` between two regions: computed inside the SDFG, never an
        argument; a scalar of the SDFG's lifetime: DaCe 1.0.2 cannot free a one-element array first touched
        inside a loop region, and declares a scalar of a state's scope where no loop's condition sees it); another
        local the regions only read (a scalar argument there) that a statement writes becomes a one-element
        array. Inexact where it would write a symbol or a parameter (passed by value)."""
        if name in self.loop_names or kind not in _DTYPES:
            raise Inexact  # a map's variable has no value outside its map
        a = self.arrays.get(name)
        if a is not None and a["attributes"]["transient"] and not declared:
            raise Inexact  # a region's own variable of that name
        if a is not None and a["type"] == "Array" and a["attributes"]["shape"] == ["1"]:
            return f"{name}[0]"
        if a is not None and (a["type"] != "Scalar" or written and not local):
            raise Inexact
        if a is not None and (not written or declared):
            if declared:
                a["attributes"] |= {"transient": True, "lifetime": "SDFG"}
            return name
        if written and (name in self.symbols or name in self.symbol_types or name in self.region_params):
            raise Inexact  # a region reads it as a symbol, which no tasklet can write
        if name in self.symbols or not written and kind in _INTEGERS:
            self.symbols.add(name)
            self.symbol_types.setdefault(name, _DTYPES[kind])
            return name
        node = AccessNode(name, name, 0, kind, Kind.SCALAR, False, "", declared, False)
        self.arrays[name] = self._descriptor(node, [], written)  # a one-element array where written, not declared
        if declared:
            self.arrays[name]["attributes"]["lifetime"] = "SDFG"
        return f"{name}[0]" if written and not declared else name

    def _shape(self, node: AccessNode, name: str) -> list[str]:
        ndim = len(node.strides) or node.ndim  # a delinearized flat buffer is seen with its recovered dims
        if node.kind == "scalar" or node.kind == "memory" or ndim == 0:
            return []
        dims = list(node.dims) + [""] * (ndim - len(node.dims))
        self.open |= {(node.container, k) for k, d in enumerate(dims[:ndim]) if not self.expr(d)}
        return [self.expr(d) or self.expr(self.inferred.get((node.container, k), f"{name}_size{k}"), symbol=True)
                for k, d in enumerate(dims[:ndim])]

    def is_symbol(self, region: str, node: AccessNode) -> bool:
        """An integer scalar the region only reads: a DaCe symbol (bounds and tasklets read it by name)."""
        return node.kind == "scalar" and not node.transient and not node.field \
            and _element(node) in _INTEGERS and (region, node.container) not in self.written

    def _descriptor(self, node: AccessNode, shape: list[str], written: bool) -> dict:
        dtype = _DTYPES.get(_element(node), "int8")  # an unknown type: refused (`unknown`)
        if not shape and (node.transient or not written):
            return {"type": "Scalar", "attributes": {"dtype": dtype, "shape": ["1"], "transient": node.transient}}
        shape = shape or ["1"]  # a scalar the function computes (a result): an array DaCe writes back
        strides = ["*".join(f"({d})" for d in shape[k + 1:]) or "1" for k in range(len(shape))]
        return {"type": "Array", "attributes": {
            "dtype": dtype, "shape": shape, "strides": strides, "offset": ["0"] * len(shape),
            "total_size": "*".join(f"({d})" for d in shape), "transient": node.transient}}

    def loop_bound(self, text: str, map_id: str, var: str, which: str) -> str:
        """A map's or loop's first or last index; where DaCe cannot read it, a symbol of its own that
        nothing sets, and the SDFG is refused (`unexpressed`) rather than run with a caller's guess."""
        expr = self.expr(text)
        if expr is None:
            self.unexpressed.append(f"the {which} index of the loop over '{var}' ({text})")
            expr = self.expr(f"{identifier(map_id)}_{'begin' if which == 'first' else 'end'}", symbol=True)
        return expr

    def expr(self, text: str, symbol: bool = False) -> str | None:
        """A plain expression, recording its free names as symbols; None if sympy would misread it."""
        text = symbolic(text) if not symbol else text
        if text is not None:
            self.symbols.update(_IDENT.findall(text))
        return text

    def subset(self, region: str, container: str, subset: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """A memlet subset DaCe can parse: unreadable bounds widen to the whole extent."""
        extent = self.extents[region, container]
        if not extent:
            return [("0", "0")]  # a scalar: its one element
        strides = self.flat.get((region, container))
        if strides is not None:  # one flat buffer: the box's first and last elements through the view's strides
            strides = [self.expr(t) for t in strides]
            bounds = [(symbolic(lo), symbolic(hi)) for lo, hi in subset]
            if len(bounds) != len(strides) or None in strides or any(None in b for b in bounds):
                return [("0", f"{extent[0]} - 1")]
            return [tuple(" + ".join(f"({b[side]}) * ({t})" for b, t in zip(bounds, strides)) for side in (0, 1))]
        if len(subset) != len(extent):  # e.g. a flat access to a buffer seen delinearized elsewhere
            subset = [("?", "?")] * len(extent)
        out = []
        for k, size in enumerate(extent):
            lo, hi = subset[k]
            lo, hi = symbolic(lo), symbolic(hi)
            out.append((lo, hi) if lo is not None and hi is not None else ("0", f"{size} - 1"))
        return out

    # Control flow ---------------------------------------------------------------------------------

    def control_blocks(self, g: DataflowGraph, ids: list[str]) -> tuple[list[dict], list[tuple[int, int]]]:
        """A control region's (or branch's) blocks in order, and its transitions as pairs of block indices."""
        blocks = []
        for block in ids:
            node = g.nodes[block]["node"]
            if isinstance(node, LoopRegion):
                blocks.append(self._loop_region(g, block, node))
            elif isinstance(node, ConditionalRegion):
                blocks.append(self._conditional(g, block, node))
            else:
                (runs,) = contained(g, block)
                self.state_count += 1
                label = f"{g.function}_line{g.nodes[runs]['node'].line}_s{self.state_count}"
                blocks.append(_StateBuilder(self, g).build(runs, label))
        index = {b: i for i, b in enumerate(ids)}
        return blocks, [(index[u], index[v]) for u, v, _ in transitions(g, ids)]

    def _loop_region(self, g: DataflowGraph, block: str, m: LoopRegion) -> dict:
        self.cfg_count += 1
        cfg_id = self.cfg_count
        v = m.var
        self.symbols.add(v)  # DaCe's loop regions assign their variable like an interstate edge: a symbol
        self.loop_variables.add(v)
        loop = g.nodes[m.map]["node"]
        begin = self.loop_bound(m.begin, m.map, v, "first")
        end = self.loop_bound(m.end, m.map, v, "last")
        compare, sign = (">=", "-") if m.decreasing else ("<=", "+")
        if m.decreasing:  # begin and end are the low and high bounds: it starts at the high one
            begin, end = end, begin
        body, edges = self.control_blocks(g, contained(g, block))
        return {
            "type": "LoopRegion",
            "attributes": {
                "loop_variable": v,
                "init_statement": {"string_data": f"{v} = {begin}", "language": "Python"},
                "loop_condition": {"string_data": f"({v} {compare} {end})", "language": "Python"},
                "update_statement": {"string_data": f"{v} = ({v} {sign} {m.step})", "language": "Python"},
            },
            **_graph_fields(body, edges, cfg_id),
            "label": f"{loop.function}_{v}_line{loop.line}",
        }

    def _conditional(self, g: DataflowGraph, block: str, node: ConditionalRegion) -> dict:
        branches = []
        for k, branch in enumerate(node.branches):
            self.cfg_count += 1
            cfg_id = self.cfg_count
            body, edges = self.control_blocks(g, branch.blocks)
            region = {"type": "ControlFlowRegion", "attributes": {}, **_graph_fields(body, edges, cfg_id),
                      "label": identifier(f"{g.name}_{block}_{k}")}
            branches.append([None if k else self._condition(branch.condition), region])
        return {"type": "ConditionalBlock", "attributes": {}, "collapsed": False,
                "label": identifier(f"{g.name}_{block}"), "branches": branches}

    def _condition(self, text: str) -> dict:
        """A branch condition as DaCe's code block: Python where the C text reads the same there
        (c_text parenthesizes every operand that is not a name, constant, subscript or call, so C's
        and Python's precedences cannot differ), else the C text itself as C++."""
        python = re.sub(r"!(?!=)", " not ", text.replace("&&", " and ").replace("||", " or "))
        if _PYTHON_CONDITION.match(text) and not _CALL.search(text):
            try:
                ast.parse(python, mode="eval")
            except SyntaxError:
                pass
            else:
                self.symbols.update(set(_IDENT.findall(python)) - _PYTHON_WORDS)
                return {"string_data": python.strip(), "language": "Python"}
        return {"string_data": text, "language": "CPP"}


class _StateBuilder(StatementBuilder):
    """The dataflow of one state: a map (with everything inside it) or a single tasklet."""

    def __init__(self, sdfg: _Sdfg, g: DataflowGraph):
        self.sdfg, self.g = sdfg, g
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.access: dict[tuple[str, bool], int] = {}
        self.map_ids: dict[str, tuple[int, int]] = {}  # map -> (entry, exit) node index
        self.connected: set[tuple[int, str]] = set()  # (map entry or exit, container) already fed
        # Containers private to a map (declared in its body, or OpenMP-private): per map, container ->
        # the transient that holds them there, whose access nodes sit inside the map's scope, so DaCe
        # allocates one per iteration; `versions` is the access node holding each one's current
        # value, `pending` the one its children being built write into.
        self.private: dict[str, dict[str, str]] = {}
        self.versions: dict[tuple[str, str], int] = {}
        self.pending: dict[tuple[str, str], int] = {}
        self.first_last: dict[str, tuple[int, int]] = {}  # child -> its first and last node (ordering)
        self.gates: dict[str, int] = {}  # map -> the access node its next child starts after
        self.readers: dict[str, list[int]] = {}  # map -> its tasklets since the last gate (_after_child)
        self.barriers: dict[str, int] = {}  # inner map -> the access node after its exit (`_after`)
        self.strip_shift: dict[str, tuple[str, str]] = {}  # transient -> (strip variable, strip's first index)
        self.retested = self._retested_ifs()
        self.tests: dict[tuple[str | None, int], tuple[str, int]] = {}  # (map, if) -> its text, its value's node

    def build(self, root: str, label: str) -> dict:
        self._scope(root, None)
        return _state(label, self.nodes, self.edges)

    def _add(self, kind: str, label: str, attributes: dict, scope: tuple[int, int] | None) -> int:
        self.nodes.append(dataflow_node(kind, label, attributes, len(self.nodes), scope))
        return len(self.nodes) - 1

    def _scope(self, node_id: str, enclosing: list[str] | None) -> None:
        enclosing = enclosing or []
        node = self.g.nodes[node_id]["node"]
        parent = self.map_ids[enclosing[-1]] if enclosing else None
        if isinstance(node, MapScope):
            begin, end, step = self._map_range(node_id, node)
            self.sdfg.bound.add(node.var)
            param, down = node.var, None
            if node.decreasing:  # DaCe 1.0.2 writes `for (j = begin; j < end + 1; j += step)`: count upwards
                param, down = f"{node.var}_down", f"({begin}) - {step[1:]} * {node.var}_down"
                begin, end, step = "0", f"int_floor(({begin}) - ({end}), {step[1:]})", "1"
                self.sdfg.bound.add(param)
            attributes = {"label": identifier(node.id), "params": [param],
                          "range": _range([(begin, end, step)]), "in_connectors": {}, "out_connectors": {},
                          "schedule": "Default" if node.schedule == "parallel" and not node.shared_scratch
                          else "Sequential"}
            label = f"{node.var}={begin}:{end}" + (f":{step}" if step != "1" else "")
            entry = self._add("MapEntry", label, attributes, parent)
            exit_ = self._add("MapExit", label, {"in_connectors": {}, "out_connectors": {}}, None)
            self.nodes[entry]["scope_exit"] = str(exit_)
            self.nodes[exit_]["scope_entry"], self.nodes[exit_]["scope_exit"] = str(entry), str(exit_)
            self.map_ids[node_id] = (entry, exit_)
            self.first_last[node_id] = (entry, exit_)
            self.private[node_id] = self._private(node_id, node)
            children = scope_children(self.g, node_id)
            first_edge = len(self.edges)
            for child in children:
                gate = self.gates.get(node_id)
                self._scope(child, enclosing + [node_id])
                if self.private[node_id]:
                    self._after_child(node_id, gate, child)
            self._order(node_id, children)
            if down is not None:
                self._substitute(exit_ + 1, first_edge, node.var, down)
            for key, node_index in self.versions.items():  # a last value nobody reads: into the exit
                if key[0] == node_id and not any(e["src"] == str(node_index) for e in self.edges):
                    self._edge(node_index, None, exit_, None, None)
            if not children:
                self._edge(entry, None, exit_, None, None)
            if parent is not None:
                if not any(e["dst"] == str(entry) for e in self.edges):
                    self._edge(parent[0], None, entry, None, None)
                if not any(e["src"] == str(exit_) for e in self.edges):
                    self._edge(exit_, None, parent[1], None, None)
        elif isinstance(node, Tasklet):
            self._tasklet(node_id, node, enclosing, parent)

    def _substitute(self, first_node: int, first_edge: int, var: str, value: str) -> None:
        """`var` is `value` in the ranges, memlets and code of the nodes and edges from these on (a
        decreasing map's scope, whose parameter counts upwards)."""
        name = re.compile(rf"(?<![\w.])(?<!->){re.escape(var)}\b")

        def ranges(r: dict) -> None:
            for dim in r["ranges"]:
                for k in ("start", "end", "step"):
                    dim[k] = name.sub(f"({value})", dim[k])

        for n in self.nodes[first_node:]:
            a = n["attributes"]
            if n["type"] == "MapEntry":
                ranges(a["range"])
            elif n["type"] == "Tasklet":
                a["code"]["string_data"] = name.sub(f"({value})", a["code"]["string_data"])
        for e in self.edges[first_edge:]:
            a = e["attributes"]["data"]["attributes"]
            if "subset" in a:
                ranges(a["subset"])
                a["volume"] = name.sub(f"({value})", a["volume"])

    def _private(self, node_id: str, node: MapScope) -> dict[str, str]:
        """The containers private to a map, each with the name of its own transient there."""
        private = {}
        for key, c in self.g.nest.scop.containers.items():
            if (self.g.name, key) not in self.sdfg.names:
                continue  # not in the graph (a container of an inner region)
            declaring = self._declaring_map(c) if c.declared_in is not None else None
            declared = declaring == node_id if declaring is not None else c.declared_in in (node_id, node.origin)
            if (declared or c.name in node.private) and c.name not in node.lastprivate \
                    and c.name not in node.shared_scratch and self._name(key) in self.sdfg.arrays:
                name = f"{self._name(key)}_{identifier(node_id)}"
                self.sdfg.arrays[name] = {**self.sdfg.arrays[self._name(key)]}
                self.sdfg.arrays[name]["attributes"] = {**self.sdfg.arrays[name]["attributes"], "transient": True}
                private[key] = name
                if declared and node.tile:
                    self.strip_shift[name] = (node.var, node.begin)
        return private

    def _declaring_map(self, c) -> str | None:
        """The map whose body holds a container's declaration in the C lift writes, None where that is
        not one map. Not every map of the loop that declared it (`declared_in`, also the `origin` of the
        maps distribution copied from it): a scalar expanded over a strip (transform/expansion.py) is
        declared by the strip map (its `declarations`) and lives across the point maps inside it, each
        of which would otherwise start from a transient of its own; a variable declared by a statement
        belongs to the map around that statement (`double d = ...;` in the inner loop after interchange,
        not in the loop it was written in)."""
        g, region = self.g, self.g.nest.scop
        declaring = re.compile(rf"\b{re.escape(c.name)}\s*\[")
        for n, d in g.nodes(data=True):
            if isinstance(d["node"], MapScope) and any(declaring.search(text) for text in d["node"].declarations):
                return n
        parents = {scope_parent(g, t) for t, d in g.nodes(data=True) if isinstance(d["node"], Tasklet)
                   and isinstance(getattr(region.statements.get(t.split(".")[0]), "node", None), c_ast.Decl)
                   and region.statements[t.split(".")[0]].node.name == c.name}
        return parents.pop() if len(parents) == 1 and STATE not in parents else None

    def _after_child(self, map_id: str, gate: int | None, child: str) -> None:
        """A map with private containers runs its children in textual order (they share those
        containers through access nodes, not through the map's connectors, so nothing else orders
        them): each child starts after the gate, an access node of the first private container
        the previous child led into (DaCe lets a scope's node reach a sibling only through data);
        what a child wrote is the value the next ones read. A tasklet that writes none of them
        cannot lead into a gate (DaCe's code generator copies no empty memlet out of a tasklet):
        the next child writing one is ordered after it by such an edge all the same, so that DaCe
        refuses to compile it rather than run the write first."""
        first, last = self.first_last[child]
        if gate is not None and not any(e["src"] == str(gate) and e["dst"] == str(first) for e in self.edges):
            self._edge(gate, None, first, None, None)
        written = [k for k in self.pending if k[0] == map_id]
        for key in written:
            for reader in self.readers.pop(map_id, []):
                self._edge(reader, None, self.pending[key], None, None)
            self.versions[key] = self.pending.pop(key)
        if written:  # the child's data already leads into it
            self.gates[map_id] = self.versions[written[0]]
        elif first == last:  # a tasklet
            self.readers.setdefault(map_id, []).append(first)
        else:
            key = (map_id, next(iter(self.private[map_id])))
            self.versions[key] = self._add("AccessNode", self.private[map_id][key[1]],
                                           {"data": self.private[map_id][key[1]]}, self.map_ids[map_id])
            self._edge(last, None, self.versions[key], None, None)
            self.gates[map_id] = self.versions[key]

    def _order(self, map_id: str, children: list[str]) -> None:
        """A child of a map iteration (a tasklet or an inner map) that touches a container an earlier child
        there writes, or writes one it reads, runs after it. Through the map's connectors both reach the
        container outside the scope, where nothing orders them within the iteration: an empty memlet from
        the earlier to the later, out of an inner map through an access node (`_after`: DaCe 1.0.2 takes
        no empty edge out of a map exit to anything else). Every such pair is joined, so any order DaCe's
        code generator visits the children in is one C allows; a container private to the map orders
        them through its access nodes already (`_after_child`)."""
        private = set(self.private[map_id])
        touched = [(self._touched(c, False) - private, self._touched(c, True) - private) for c in children]
        for j, (reads, writes) in enumerate(touched):
            for i, (earlier_reads, earlier_writes) in enumerate(touched[:j]):
                if earlier_writes & (reads | writes) or earlier_reads & writes:
                    last, first = self._after(map_id, children[i]), self.first_last[children[j]][0]
                    if not any(e["src"] == str(last) and e["dst"] == str(first) for e in self.edges):
                        self._edge(last, None, first, None, None)

    def _after(self, map_id: str, child: str) -> int:
        """The node a successor of the child waits on: a tasklet itself, after an inner map an access node
        its exit leads into by an empty memlet, of a transient flag that holds no data (one per inner
        map, made on first need)."""
        last = self.first_last[child][1]
        if self.nodes[last]["type"] != "MapExit":
            return last
        if child not in self.barriers:
            name = f"order_{identifier(self.g.name)}"
            self.sdfg.arrays[name] = {"type": "Scalar", "attributes": {"dtype": "bool", "shape": ["1"],
                                                                       "transient": True}}
            self.barriers[child] = self._add("AccessNode", name, {"data": name}, self.map_ids[map_id])
            self._edge(last, None, self.barriers[child], None, None)
        return self.barriers[child]

    def _touched(self, node_id: str, written: bool) -> set[str]:
        """The containers a tasklet or map of lift's graph writes (or reads)."""
        edges = self.g.out_edges(node_id, data=True) if written else self.g.in_edges(node_id, data=True)
        return {d["edge"].container for _, _, d in edges if isinstance(d["edge"], Memlet)}

    def _private_names(self, code: str, enclosing: list[str]) -> str:
        """C text that names containers directly (DaCe declares each descriptor under its name): a
        container private to an enclosing map by the name of its transient there."""
        containers = self.g.nest.scop.containers
        for map_id in reversed(enclosing):  # innermost first: its own copy wins (`s_R0_L1` is no `s` any more)
            for key, name in self.private.get(map_id, {}).items():
                code = re.sub(rf"\b{re.escape(containers[key].name)}\b", name, code)
        return code

    def _private_node(self, enclosing: list[str], container: str, is_write: bool) -> tuple[int, int] | None:
        """For a container private to one of the enclosing maps: (index in `enclosing` of the innermost
        such map, the access node inside its scope to read from or write to), else None."""
        for p in range(len(enclosing) - 1, -1, -1):
            name = self.private.get(enclosing[p], {}).get(container)
            if name is None:
                continue
            key, scope = (enclosing[p], container), self.map_ids[enclosing[p]]
            table = self.pending if is_write else self.versions
            if key not in table:
                table[key] = self._add("AccessNode", name, {"data": name}, scope)
                if not is_write:  # read before any write in the map: fed from the entry, for the scope's shape
                    self._edge(scope[0], None, table[key], None, None)
            return p, table[key]
        return None

    def _map_range(self, node_id: str, node: MapScope) -> tuple[str, str, str]:
        """First, last and step of a map as DaCe reads them (the last inclusive, DaCe's too).

        A tile map steps by its tile size up to the last index. A map that unroll-and-jam made step
        by u (transform/unroll.py) runs whole strips only: its last start is `end - (u - 1)`. Its
        remainder (the copy `<main>.<var>_rest`) starts where the strips stop,
        `begin + floor((end - begin + 1) / u) * u`, not at the main map's begin that it was copied with.
        """
        begin = self.sdfg.loop_bound(node.begin, node_id, node.var, "first")
        end = self.sdfg.loop_bound(node.end, node_id, node.var, "last")
        step = node.step
        if node.decreasing:  # unroll-and-jam only rewrites increasing loops; from the high bound down
            return end, begin, f"-{step}"
        if node.step > 1 and not node.tile:
            end = f"({end}) - {node.step - 1}"
        u = strips_before(self.g, node_id)
        if u > 1:
            begin = f"({begin}) + int_floor(({end}) - ({begin}) + 1, {u}) * {u}"
        return begin, end, str(step)

    def _path(self, tasklet: int, connector: str, memlet: Memlet, is_write: bool, wcr: str | None,
              enclosing: list[str]) -> None:
        """Access node -> map entries (outermost first) -> tasklet, or the mirror image for a write."""
        container = memlet.container
        private = self._private_node(enclosing, container, is_write)
        top = None
        if private is not None:  # the path starts (or ends) at the access node inside the private scope
            p, top = private
            name = self.nodes[top]["label"]
            enclosing = enclosing[p + 1:]
        else:
            name = self._name(container)
        inner = self._memlet(container, memlet, wcr, name)
        if not enclosing:
            outer = top if top is not None else self._access(container, is_write)
            self._connect(outer, tasklet, connector, inner, is_write)
            return
        side = 1 if is_write else 0
        innermost = self.map_ids[enclosing[-1]][side]
        self._connect(innermost, tasklet, connector, inner, is_write, f"{'IN' if is_write else 'OUT'}_{name}")
        for outer_map, map_id in zip([None] + enclosing[:-1], enclosing):
            node = self.map_ids[map_id][side]
            if (node, container) in self.connected:
                continue
            self.connected.add((node, container))
            if outer_map is not None:
                outer = self.map_ids[outer_map][side]
            else:
                outer = top if top is not None else self._access(container, is_write)
            scope_memlet = self._map_memlet(map_id, container, is_write, wcr, name)
            self._add_connector(node, f"IN_{name}", "in_connectors")
            self._add_connector(node, f"OUT_{name}", "out_connectors")
            if is_write:
                self._edge(node, f"OUT_{name}", outer, None if outer_map is None else f"IN_{name}", scope_memlet)
            else:
                self._edge(outer, None if outer_map is None else f"OUT_{name}", node, f"IN_{name}", scope_memlet)

    def _connect(self, scope_node: int, tasklet: int, connector: str, memlet: dict, is_write: bool,
                 scope_connector: str | None = None) -> None:
        if is_write:
            self._edge(tasklet, connector, scope_node, scope_connector, memlet)
        else:
            self._edge(scope_node, scope_connector, tasklet, connector, memlet)

    def _access(self, container: str, is_write: bool) -> int:
        key = (container, is_write)
        if key not in self.access:
            name = self._name(container)
            self.access[key] = self._add("AccessNode", name, {"data": name}, None)
        return self.access[key]

    def _name(self, container: str) -> str:
        return self.sdfg.names[self.g.name, container]

    def _add_connector(self, node: int, connector: str, kind: str) -> None:
        self.nodes[node]["attributes"][kind][connector] = None

    def _map_memlet(self, map_id: str, container: str, is_write: bool, wcr: str | None, name: str) -> dict:
        """The range all iterations of a map move; the whole extent where lift has none."""
        ends = self.g.out_edges(map_id, data=True) if is_write else self.g.in_edges(map_id, data=True)
        for u, v, d in ends:
            e = d["edge"]
            if isinstance(e, Memlet) and (v if is_write else u) == data_id(container):
                return self._memlet(container, e, wcr, name)
        return self._memlet(container, Memlet(container, [], "?", dynamic=True), wcr, name)

    def _memlet(self, container: str, memlet: Memlet, wcr: str | None, name: str) -> dict:
        """The memlet of `name` (the container's descriptor or its private transient). A scalar expanded
        over a strip is indexed from the loop's first index in lift's model (`j - lb`, exact there
        because each strip has a buffer of its own), from the strip's in the C and here (`j - j_t`):
        the buffer holds one strip."""
        volume = self.sdfg.expr(memlet.volume)
        subset = memlet.subset
        if name in self.strip_shift:
            var, begin = self.strip_shift[name]
            subset = [tuple(f"({b}) - {var} + ({begin})" for b in bounds) for bounds in subset]
        subset = self.sdfg.subset(self.g.name, container, subset)
        attributes = {"data": name, "subset": _range(subset),
                      "volume": volume or "1", "dynamic": memlet.dynamic or volume is None}
        if wcr in _WCR:
            attributes["wcr"] = f"lambda a, b: {_WCR[wcr]}"
        return {"type": "Memlet", "attributes": attributes}

    def _edge(self, src: int, src_conn: str | None, dst: int, dst_conn: str | None, memlet: dict | None) -> None:
        self.edges.append(dataflow_edge(src, src_conn, dst, dst_conn, memlet))
