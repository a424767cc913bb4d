"""A call of one of the file's functions around a function's regions, as a DaCe nested SDFG.

A statement around the regions (graph/sdfg_host.py) may call a function of the same file that lift exported
itself (`kernel_forces(n, p);`, `ke += kernel_energy(n, p);`): its SDFG runs inside the caller's as a
`NestedSDFG` node, bound to the call's arguments by the names the export gives every container:

- a callee container named by a pointer parameter `p`, or by one of its fields (`p_x` for `p[i].x`, `p__u`
  for `p->u`), is the caller's container of the argument's name with the same suffix: the argument must name
  the caller's pointer itself (`p`, not `p + 1` or `&a[k]`, which would shift every subset), and the callee's
  extents, read over its parameters, are the caller's over the arguments;
- a scalar parameter the callee reads as a symbol is a symbol of the call (`symbol_mapping`): its argument
  must be one too (a symbol of the caller, a constant, plain arithmetic of those); a symbol named after a
  pointer parameter (its size, `p_size0`) is the argument's;
- a scalar parameter the callee reads as data (`double dt`) is a transient of the call, which a tasklet sets
  to the argument's value first (`0.001`, `-alpha`), in C's types;
- a local the callee computes (`double ke = 0.0;` ... `return ke;`) is a transient of the call that starts
  at its constant initializer; the one it returns goes to the caller's statement (`ke += ...`).

Everything else is not exact and the caller stays refused (graph/sdfg_host.py's `Inexact`): a callee whose
own SDFG is refused (an `#error` in its global code), a callee that does anything but declare such locals
before its regions or return one after them (the SDFG would not do it), an argument of another form, a
call inside an expression (`rr / kernel_dot(n, p, q)`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.sdfg_json import dataflow_edge, dataflow_node, range_json, state
from lifter.graph.symbolic import identifier

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


@dataclass
class Call:
    """`callee(args);`, or `target op= callee(args);` with the returned value."""

    node: c_ast.Node
    callee: str
    args: list[c_ast.Node]
    target: str | None = None
    op: str = "="


def call_of(node: c_ast.Node, callees: set[str], scalars: dict[str, str]) -> Call | None:
    """The call a statement makes of one of `callees`, in the forms `Call` lists; None for any other statement."""
    target, op, value = None, "=", node
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID) and node.lvalue.name in scalars:
        target, op, value = node.lvalue.name, node.op, node.rvalue
    if not (isinstance(value, c_ast.FuncCall) and isinstance(value.name, c_ast.ID) and value.name.name in callees):
        return None
    return Call(node, value.name.name, list(value.args.exprs) if value.args is not None else [], target, op)


@dataclass
class Callee:
    """What a caller binds of a callee: its SDFG, its parameters, the constant initial values of the locals its
    SDFG holds, and the local it returns (None: it returns nothing the caller reads)."""

    sdfg: dict
    params: list[str]
    initial: dict[str, c_ast.Constant]
    returned: str | None
    pointers: set[str]  # the parameters that are pointers or arrays (the others C passes by value)
    locals: set[str]  # the names its body declares (`p_sum` is no field of a parameter `p`)


def callee_of(func: c_ast.FuncDef, graphs: list[DataflowGraph], sdfg: dict) -> Callee | None:
    """The callee's record, None where a call of it has no exact form (module doc)."""
    code = sdfg["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
    if "#error" in code:
        return None
    declared = [p for p in (func.decl.type.args.params if func.decl.type.args else []) if p.name]
    params = [p.name for p in declared]
    pointers = {p.name for p in declared if isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))}
    lifted = {id(loop.node) for g in graphs for loop in g.nest.scop.loops.values()}
    items = func.body.block_items or []
    holds = [k for k, item in enumerate(items) if any(id(n) in lifted for n in walk(item))]
    if not holds:
        return None
    arrays = sdfg["attributes"]["_arrays"]
    initial, returned = {}, None
    for item in items[:holds[0]]:  # declarations of locals: those the SDFG holds start at a constant
        if not isinstance(item, c_ast.Decl) or any(isinstance(n, c_ast.FuncCall) for n in walk(item)):
            return None
        if item.name in arrays:
            if not isinstance(item.init, c_ast.Constant):
                return None
            initial[item.name] = item.init
    for item in items[holds[-1] + 1:]:  # one `return local;` at most
        if not isinstance(item, c_ast.Return) or returned is not None:
            return None
        if item.expr is not None:
            if not (isinstance(item.expr, c_ast.ID) and item.expr.name in initial):
                return None
            returned = item.expr.name
    return Callee(sdfg, params, initial, returned, pointers,
                  {n.name for n in walk(func.body) if isinstance(n, c_ast.Decl)})


class CallState:
    """The state of one call: the tasklets setting the callee's scalar arguments and locals, the nested SDFG,
    and the tasklet taking its returned value. `host` is graph/sdfg_host.py's HostBuilder (the caller's
    descriptors and symbols, and its scalar tasklets)."""

    def __init__(self, host, call: Call, callee: Callee):
        self.host, self.sdfg, self.call, self.callee = host, host.sdfg, call, callee
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.sdfg.state_count += 1
        self.prefix = f"__call{self.sdfg.state_count}_"

    def build(self, inexact) -> dict:
        call, callee = self.call, self.callee
        if len(call.args) != len(callee.params):
            raise inexact
        args = dict(zip(callee.params, call.args))
        mapping = self._symbols(args, inexact)
        written = _written(callee.sdfg)
        inputs, outputs = {}, {}  # callee container -> the caller's (an access node's index, its name)
        bound: dict[str, list[str]] = {}  # the caller's array -> the callee's bound to it
        for name, desc in callee.sdfg["attributes"]["_arrays"].items():
            if desc["attributes"]["transient"]:
                continue
            param = None if name in callee.locals else \
                max((p for p in callee.params if name == p or name.startswith(p + "_")), key=len, default=None)
            if param is None:  # a local of the callee: a transient of the call, from its initial value
                if name not in callee.initial:
                    raise inexact
                mine = self._transient(name, desc)
                inputs[name] = self.host.scalar_tasklet(callee.initial[name], mine, self.nodes, self.edges)
                outputs[name] = mine
            elif desc["type"] == "Scalar" and name == param not in callee.pointers:  # data: a transient set to it
                mine = self._transient(name, desc)
                inputs[name] = self.host.scalar_tasklet(args[param], mine, self.nodes, self.edges)
            elif isinstance(args[param], c_ast.ID) and desc["type"] == "Array" and param in callee.pointers:
                mine = self._array(identifier(args[param].name) + name[len(param):], desc, mapping, inexact)
                inputs[name] = self._access(mine)
                if name in written:
                    outputs[name] = mine
                bound.setdefault(mine, []).append(name)
            else:
                raise inexact
        if any(len(names) > 1 and set(names) & written for names in bound.values()):
            raise inexact  # one buffer behind two pointers the callee writes through (its SDFG assumed two)
        nested = len(self.nodes)
        # a name of its own in the whole program: DaCe names the function it generates for a nested SDFG after
        # the SDFG's name and the ids of its state and node, which repeat across control regions and SDFGs
        own = f"{self.sdfg.name}_{self.prefix.strip('_')}_{call.callee}"
        sdfg = {**callee.sdfg, "attributes": {**callee.sdfg["attributes"], "name": own}, "label": own}
        attributes = {"sdfg": sdfg, "symbol_mapping": mapping, "label": call.callee,
                      "in_connectors": {c: None for c in inputs}, "out_connectors": {c: None for c in outputs}}
        self.nodes.append(dataflow_node("NestedSDFG", call.callee, attributes, nested))
        for connector, source in inputs.items():
            data = self.nodes[source]["attributes"]["data"]
            self.edges.append(dataflow_edge(source, None, nested, connector, self._whole(data)))
        results = {}
        for connector, data in outputs.items():
            results[connector] = self._access(data)
            self.edges.append(dataflow_edge(nested, connector, results[connector], None, self._whole(data)))
        if call.target is not None:
            if callee.returned is None:
                raise inexact
            value = c_ast.ID(outputs[callee.returned])
            if call.op != "=":
                value = c_ast.BinaryOp(call.op[:-1], c_ast.ID(call.target), value)
            self.host.scalar_tasklet(value, call.target, self.nodes, self.edges,
                                     sources={outputs[callee.returned]: results[callee.returned]})
        line = call.node.coord.line if call.node.coord is not None else 0
        return state(f"line{line}_{call.callee}_s{self.sdfg.state_count}", self.nodes, self.edges)

    def _symbols(self, args: dict[str, c_ast.Node], inexact) -> dict[str, str]:
        """The callee's free symbols over the caller's: a scalar parameter's argument (a symbol, constant or
        plain arithmetic of those), a pointer parameter's size the argument's."""
        mapping = {}
        own = _loop_variables(self.callee.sdfg)  # assigned by its loop regions, inside it
        for symbol in self.callee.sdfg["attributes"].get("symbols", {}):
            if symbol in own:
                continue
            param = max((p for p in self.callee.params if symbol == p or symbol.startswith(p + "_")), key=len,
                        default=None)
            if param is None:
                raise inexact
            arg = args.get(param)
            if symbol == param:
                text = self.host.symbolic(arg, inexact)
            elif isinstance(arg, c_ast.ID):
                text = identifier(arg.name) + symbol[len(param):]
                self.sdfg.symbols.add(text)
            else:
                text = None
            if text is None:
                raise inexact
            mapping[symbol] = text
        return mapping

    def _transient(self, name: str, desc: dict) -> str:
        mine = self.prefix + name
        self.sdfg.arrays[mine] = {"type": desc["type"], "attributes": {**desc["attributes"], "transient": True}}
        return mine

    def _array(self, mine: str, desc: dict, mapping: dict[str, str], inexact) -> str:
        """The caller's array bound to a callee's: its own where it has one (of the same element type), else
        the callee's descriptor over the caller's symbols."""
        attributes = dict(desc["attributes"])
        for key in ("shape", "strides", "offset"):
            attributes[key] = [_substitute(text, mapping) for text in attributes[key]]
        attributes["total_size"] = _substitute(attributes["total_size"], mapping)
        if mine in self.sdfg.arrays:  # the same buffer, seen the same (else the callee could reach past it)
            have = self.sdfg.arrays[mine]
            if have["type"] != "Array" or have["attributes"]["dtype"] != attributes["dtype"] \
                    or not self.host.same_extents(have["attributes"]["shape"], attributes["shape"]):
                raise inexact
            return mine
        for text in attributes["shape"]:
            self.sdfg.expr(text, symbol=True)
        self.sdfg.arrays[mine] = {"type": "Array", "attributes": attributes}
        return mine

    def _access(self, data: str) -> int:
        self.nodes.append(dataflow_node("AccessNode", data, {"data": data}, len(self.nodes)))
        return len(self.nodes) - 1

    def _whole(self, data: str) -> dict:
        """A memlet of the whole container."""
        shape = self.sdfg.arrays[data]["attributes"]["shape"]
        subset = [("0", f"{d} - 1") for d in shape]
        volume = " * ".join(f"({d})" for d in shape)
        return {"type": "Memlet", "attributes": {"data": data, "subset": range_json(subset), "volume": volume,
                                                 "dynamic": False}}


def _blocks(sdfg: dict):
    """Every control block of an SDFG, at any depth (not inside nested SDFGs)."""
    todo = [sdfg]
    while todo:
        block = todo.pop()
        yield block
        if block.get("type") != "SDFGState":
            todo += block.get("nodes", []) + [region for _, region in block.get("branches", [])]


def _loop_variables(sdfg: dict) -> set[str]:
    return {b["attributes"]["loop_variable"] for b in _blocks(sdfg)
            if b.get("type") == "LoopRegion" and b["attributes"].get("loop_variable")}


def _written(sdfg: dict) -> set[str]:
    """The containers an SDFG's states write (an edge into an access node), in all its control regions."""
    out = set()
    for block in _blocks(sdfg):
        if block.get("type") == "SDFGState":
            nodes = block["nodes"]
            out |= {nodes[int(e["dst"])]["attributes"]["data"] for e in block["edges"]
                    if nodes[int(e["dst"])]["type"] == "AccessNode"}
    return out


def _substitute(text: str, mapping: dict[str, str]) -> str:
    """A callee's symbolic text over the caller's symbols."""
    return _IDENT.sub(lambda m: f"({mapping[m[0]]})" if m[0] in mapping else m[0], str(text))
