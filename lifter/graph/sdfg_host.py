"""What a function runs around its lifted regions, as SDFG control flow (graph/sdfg.py builds the regions).

A function's SDFG runs its regions in textual order. Where C wraps regions in a loop the analysis did not
lift (jacobi_conv's `while (diff > tol && it < maxit) { sweep; diff = 0.0; reduce; copy; it++; }`), the
regions alone would run once: the steps of the SDFG are read off the function's AST (`FileFacts`, what the
analysis parsed, never the C text again):

- a region: its control blocks;
- a `while` loop outside the regions whose condition and every statement of whose body (but its regions)
  are exact in DaCe: a `LoopRegion` without a variable, whose condition DaCe evaluates before each
  iteration, in Python over the scalars it reads (a computed local is a one-element array, read `diff[0]`;
  a parameter a symbol or scalar; constants), no `/` or `%` (Python's differ from C's);
- a statement between regions that assigns a scalar from scalars, constants and the C library's pure math
  (`diff = 0.0;`, `it++;`, `x += fabs(y);`, a declaration `double alpha = ...;`; a struct field `prm->tol`
  read as the export's `prm__tol`): a state with one C++ tasklet whose connectors are bound to those
  scalars' containers, each of C's type, so C++ computes what C does; a local it declares is a transient
  scalar (`HostFacts.declared`), another local the regions only read a one-element array once it writes it;
  a statement over array elements too (`b[0] = s;`, what it touches as effects.py reads it), each array bound
  whole, its elements counted in a pointer's inferred extent (`HostFacts.highs`) and checked below it;
- a call of one of the file's functions that lift exported itself (`kernel_axpy(n, alpha, p, x);`, `ke +=
  kernel_energy(n, p);`, one inside a statement's value running first into a transient): a state holding
  the callee's SDFG nested (graph/sdfg_calls.py); a lifted `for` loop whose statements are all such calls,
  a `LoopRegion` on its variable holding them.

The walk covers the function's top-level statements from the first that holds a region to the last that
holds one or calls such a function. Anything else there (a call of another function, a `for` loop the
analysis did not lift, an `if` around a region, an early `return`, a scalar a region's bound reads) leaves the
regions in textual order, and every statement between them that the SDFG then skips refuses it
(graph/sdfg_source.py's `unexported_work`, naming each). The statements before and after, at the top
of the function, are the caller's part (the locals it computes and passes, the results it reads), as they
were.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast, c_generator

from lifter.analysis.effects import MEMORY, PURE_FUNCTIONS, WORLD, collect_effects
from lifter.analysis.model import Kind
from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.sdfg_calls import Call, CallState, call_of
from lifter.graph.symbolic import c_to_symbolic
from lifter.graph.sdfg_json import DTYPES as _DTYPES, INTEGERS as _INTEGERS
from lifter.graph.sdfg_json import dataflow_edge, dataflow_node, graph_fields, scalar_memlet, state, whole_memlet

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)
_PYTHON_OPERATORS = {"&&": "and", "||": "or", "+": "+", "-": "-", "*": "*", "<": "<", ">": ">", "<=": "<=",
                     ">=": ">=", "==": "==", "!=": "!="}
_CPP_OPERATORS = set(_PYTHON_OPERATORS) | {"/", "%"}


@dataclass
class Region:
    graph: DataflowGraph


@dataclass
class Statement:
    """`target = value` (a compound assignment or `++` spelled out so), on scalars and array elements: `target`
    a scalar, or the array whose `element` it writes (`b[0] = t;`)."""

    node: c_ast.Node
    target: str
    value: c_ast.Node
    element: c_ast.ArrayRef | None = None


@dataclass
class While:
    node: c_ast.While
    body: list = field(default_factory=list)
    cond: c_ast.Node | None = None  # its condition, struct fields named as the export names them


@dataclass
class For:
    """A lifted `for` loop whose statements are all calls of the file's functions (graph/sdfg_calls.py): the
    loop runs on the SDFG's control flow, `var` from `first` while `node.cond` holds, by one."""

    node: c_ast.For
    var: str
    first: c_ast.Node
    body: list = field(default_factory=list)


@dataclass
class HostFacts:
    """What the steps around the regions know of the function: its scalars' C types (with the struct fields and
    call values they read), the values of calls inside expressions, and the constant locals the function
    sets before them from another scalar (`const int n = prm->n;`: n is prm__n wherever the SDFG runs)."""

    scalars: dict[str, str] = field(default_factory=dict)
    temporaries: set[str] = field(default_factory=set)
    copies: dict[str, str] = field(default_factory=dict)
    # the function's parameters (passed by value: no step may write one) and the locals the steps declare that
    # nothing after them reads (`double t = s * 2.0;` between two regions: transients, which the caller never sees)
    parameters: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    # the last index of each dimension of an array that a statement's element reaches (`b[n - 2]`), by (array,
    # dimension), in Python over the symbols: the array's inferred extent covers them too (graph/sdfg.py)
    highs: dict[tuple[str, int], set[str]] = field(default_factory=dict)


class Inexact(Exception):
    """Something around the regions with no exact form in the SDFG: the regions stay as they are."""


def function_steps(graphs: list[DataflowGraph], callees: set[str] = frozenset()) -> tuple[list, set[int],
                                                                                           HostFacts]:
    """The steps of one function's SDFG (module doc), the ids of the AST statements they run around the regions
    (which `unexported_work` does not refuse) and what they know of the function (`HostFacts`); `callees` are the file's
    functions whose own SDFGs a statement may call (graph/sdfg_calls.py). Where what lies around the regions
    has no exact form: the regions in order, and no loop."""
    plain = [Region(g) for g in graphs], set(), HostFacts()
    scop = graphs[0].nest.scop
    func = scop.file.functions.get(graphs[0].function)
    if func is None:
        return plain
    owner = {id(loop.node): g for g in graphs for loop in g.nest.scop.loops.values()}
    items = func.body.block_items or []
    scalars = _scalar_types(func) | _member_scalars(func, scop.file.typedefs)
    returns = {f: _returned_type(scop.file.functions[f]) for f in callees if f in scop.file.functions}
    walker = _Walker(owner, scalars, {f for f, kind in returns.items() if kind is not None}, returns,
                     scop.file.symbols.for_function(func))
    if not any(_holds(item, owner) for item in items):
        return plain
    top = [k for k, item in enumerate(items) if walker.reaches(item)]
    copies = {}
    for item in items[:top[0]]:
        if isinstance(item, c_ast.Decl) and "const" in item.quals and item.name in scalars:
            value = walker.members(item.init) if item.init is not None else None
            if isinstance(value, c_ast.ID) and value.name in scalars:
                copies[item.name] = value.name
    try:
        steps = walker.items(items[top[0]:top[-1] + 1])
    except Inexact:
        return plain
    if [id(g) for g in walker.seen] != [id(g) for g in graphs if not any(g is r for r in walker.replaced)]:
        return plain  # a region whose loops are not together, in order
    parameters = {p.name for p in func.decl.type.args.params if getattr(p, "name", None)} \
        if func.decl.type.args is not None else set()
    # a local the statements after the steps read (`return it;`) is the caller's to read: an argument
    after = {n.name for item in items[top[-1] + 1:] for n in walk(item) if isinstance(n, c_ast.ID)}
    return steps, walker.loops, HostFacts(walker.scalars, walker.temporaries, copies, parameters,
                                          walker.declared - after, walker.highs)


def _returned_type(func: c_ast.FuncDef) -> str | None:
    """The C type a function returns, "void", or None where it is no plain arithmetic type."""
    t = func.decl.type.type
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
        return " ".join(t.type.names)
    return None


def _member_scalars(func: c_ast.FuncDef, typedefs: list[c_ast.Typedef]) -> dict[str, str]:
    """The arithmetic fields of the structs that the function's pointer parameters point at, as the scalars
    the export names them (`prm->tol`: `prm__tol`, a symbol or scalar its caller passes), by C type."""
    structs = {t.name: t.type.type for t in typedefs
               if isinstance(t.type, c_ast.TypeDecl) and isinstance(t.type.type, c_ast.Struct)}
    out = {}
    for param in func.decl.type.args.params if func.decl.type.args else []:
        t = param.type
        if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl) \
                and isinstance(t.type.type, c_ast.IdentifierType) and t.type.type.names[-1] in structs:
            for field_decl in structs[t.type.type.names[-1]].decls or []:
                if isinstance(field_decl.type, c_ast.TypeDecl) and isinstance(field_decl.type.type,
                                                                              c_ast.IdentifierType):
                    out[f"{param.name}__{field_decl.name}"] = " ".join(field_decl.type.type.names)
    return out


def _rewritten(e: c_ast.Node, replace) -> c_ast.Node:
    """A copy of the expression with each node for which `replace` returns another node replaced by it."""
    def visit(n):
        new = replace(n)
        if new is not None:
            return new
        for name, child in n.children():
            r = visit(child)
            if r is not child:
                if "[" in name:
                    attribute, k = name[:-1].split("[")
                    getattr(n, attribute)[int(k)] = r
                else:
                    setattr(n, name, r)
        return n
    return visit(copy.deepcopy(e))


def _holds(node: c_ast.Node, owner: dict) -> bool:
    return any(id(n) in owner for n in walk(node))


def _scalar_types(func: c_ast.FuncDef) -> dict[str, str]:
    """The function's parameters and locals of plain arithmetic types, by name (C's type name); a name
    declared twice is left out (which of them a statement means depends on its scope: a statement around
    the regions naming it is not exact)."""
    out, declared = {}, {}
    for n in walk(func):
        if isinstance(n, c_ast.Decl) and n.name is not None:
            declared[n.name] = declared.get(n.name, 0) + 1
            if isinstance(n.type, c_ast.TypeDecl) and isinstance(n.type.type, c_ast.IdentifierType):
                out[n.name] = " ".join(w for w in n.type.type.names if w not in ("const", "volatile"))
    return {name: kind for name, kind in out.items() if declared[name] == 1}


class _Walker:
    """Reads a function's statements into steps; Inexact at the first thing with no exact form, so that a
    function is exported with everything around its regions or with nothing (and refused)."""

    def __init__(self, owner: dict, scalars: dict[str, str], callees: set[str], returns: dict[str, str], symbols):
        self.owner, self.scalars, self.callees, self.returns = owner, scalars, callees, returns
        self.symbols = symbols  # the function's (analysis/symbols.py), for effects.py's reading of a statement
        self.temporaries: set[str] = set()  # the values calls inside expressions return (`rr / dot(...)`)
        self.seen: list[DataflowGraph] = []
        self.replaced: list[DataflowGraph] = []  # regions of calls only, run as `For` steps instead
        self.loops: set[int] = set()
        self.declared: set[str] = set()  # the locals the steps declare
        self.highs: dict[tuple[str, int], set[str]] = {}  # HostFacts.highs

    def items(self, items: list[c_ast.Node]) -> list:
        """The steps of a list of statements (a block's): a region's next loops (fused) must follow its first
        in the same list, else the region would run where only some of them are."""
        steps = []
        for item in items:
            if id(item) in self.owner and (loop := self._call_loop(item)) is not None:
                self.replaced.append(self.owner[id(item)])
                steps.append(loop)
            elif id(item) in self.owner:
                g = self.owner[id(item)]
                if steps and isinstance(steps[-1], Region) and steps[-1].graph is g:
                    continue  # the next loop of a region (fused): already its blocks
                if any(s is g for s in self.seen):
                    raise Inexact
                self.seen.append(g)
                steps.append(Region(g))
            elif isinstance(item, c_ast.While) and self.reaches(item):
                cond = self.members(item.cond)
                self._expression(cond)
                body = item.stmt.block_items if isinstance(item.stmt, c_ast.Compound) else [item.stmt]
                steps.append(While(item, self.items(body or []), cond))
                self.loops.add(id(item))
            elif (call := call_of(item, self.callees, self.scalars)) is not None:
                steps.append(call)
                self.loops.add(id(item))
            elif not self.reaches(item) or not isinstance(item, _LOOPS):
                steps += self.statement(item)
                self.loops.add(id(item))
            else:
                raise Inexact
        return steps

    def reaches(self, node: c_ast.Node) -> bool:
        """Whether the statement holds a region's loop or calls one of `callees` (what the SDFG runs)."""
        return any(id(n) in self.owner or isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
                   and n.name.name in self.callees for n in walk(node))

    def _call_loop(self, node: c_ast.Node) -> For | None:
        """A lifted `for (int v = first; cond; v++)` that is its region's one loop and whose statements are all
        calls of `callees`: the region's tasklets would hide what the calls move (graph/sdfg_source.py refuses
        them), the callees' SDFGs nested in the loop's body do not."""
        g = self.owner[id(node)]
        if not isinstance(node, c_ast.For) or len(g.nest.scop.loops) != 1 or not self.callees:
            return None
        init = node.init.decls if isinstance(node.init, c_ast.DeclList) else []
        step = node.next
        if len(init) != 1 or init[0].init is None or not (
                isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++") and isinstance(step.expr, c_ast.ID)
                and step.expr.name == init[0].name):
            return None
        body = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        calls = [call_of(item, self.callees, self.scalars) for item in body or []]
        if not calls or None in calls:
            return None
        self._expression(init[0].init)
        return For(node, init[0].name, init[0].init, calls)

    def statement(self, node: c_ast.Node) -> list:
        """An assignment of a scalar (`x op= e`, `x++`, a declaration `T x = e`) as `x = value`, after the
        calls of `callees` inside `value`, each into a temporary it reads (`alpha = rr / dot(n, p, q)`: the
        call into `__ret1`, then `alpha = rr / __ret1`); Inexact for anything else."""
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            target, value = node.expr, c_ast.BinaryOp(node.op[-1], node.expr, c_ast.Constant("int", "1"))
        elif isinstance(node, c_ast.Assignment):
            target = node.lvalue
            value = node.rvalue if node.op == "=" else c_ast.BinaryOp(node.op[:-1], node.lvalue, node.rvalue)
        elif isinstance(node, c_ast.Decl) and node.init is not None and not isinstance(node.init, c_ast.InitList):
            target, value = c_ast.ID(node.name, node.coord), node.init
            self.declared.add(node.name)
        else:
            raise Inexact
        element = target if isinstance(target, c_ast.ArrayRef) else None
        if element is not None:
            self._elements(node)
            target = _base(element)
        elif not isinstance(target, c_ast.ID) or target.name not in self.scalars:
            raise Inexact
        calls = []

        def hoist(n):
            if not (isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in self.callees):
                return None
            if self.returns[n.name.name] in ("void", None):
                raise Inexact
            temporary = f"__ret{len(self.temporaries) + 1}"
            self.temporaries.add(temporary)
            self.scalars[temporary] = self.returns[n.name.name]
            calls.append(Call(node, n.name.name, list(n.args.exprs) if n.args is not None else [], temporary))
            return c_ast.ID(temporary, n.coord)

        value = _rewritten(self.members(value), hoist)
        for call in calls:
            if any(isinstance(n, c_ast.FuncCall) and n.name.name in self.callees for a in call.args for n in walk(a)):
                raise Inexact  # a call in another's arguments
        self._expression(value)
        if element is None and any(isinstance(n, c_ast.ArrayRef) for n in walk(value)):
            self._elements(node)
        return calls + [Statement(node, target.name, value, element)]

    def _elements(self, node: c_ast.Node) -> None:
        """Inexact unless every array element the statement reads or writes is one element of an array the
        function names (effects.py's reading: no pointer chased, no field, no call that moves data, every
        subscript known); a scalar it touches is one of the function's."""
        effects = collect_effects(node, self.symbols, lambda name: name, declared_key=getattr(node, "name", None))
        for ref in effects.refs:
            sym = self.symbols.lookup(ref.name)
            if ref.key in (WORLD, MEMORY) or ref.field_path or sym is None or None in ref.subscripts \
                    or (ref.subscripts and (sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.indirect)) \
                    or (not ref.subscripts and ref.name not in self.scalars):
                raise Inexact
        if effects.unknown_call is not None:
            raise Inexact
        for element in _whole_elements(node):
            base, subscripts = _parts(element)
            for k, subscript in enumerate(subscripts):  # as the regions' indices (graph/sdfg.py's `symbolic`)
                if (text := c_to_symbolic(c_generator.CGenerator().visit(subscript), members=True)) is not None:
                    self.highs.setdefault((base.name, k), set()).add(text)

    def members(self, e: c_ast.Node) -> c_ast.Node:
        """The expression with each arithmetic field of a struct parameter (`prm->tol`) named as the export
        names it (`prm__tol`)."""
        def member(n):
            if isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(n.name, c_ast.ID):
                name = f"{n.name.name}__{n.field.name}"
                return c_ast.ID(name, n.coord) if name in self.scalars else None
            return None
        return _rewritten(e, member)

    def _expression(self, e: c_ast.Node) -> None:
        """Inexact unless the expression reads scalars and constants only, through C's arithmetic,
        comparisons, casts to arithmetic types and the C library's pure math."""
        bases = {id(_base(n)) for n in walk(e) if isinstance(n, c_ast.ArrayRef)}
        for n in walk(e):
            if isinstance(n, c_ast.ID):
                ok = n.name in self.scalars or id(n) in bases
            elif isinstance(n, c_ast.ArrayRef):
                ok = isinstance(_base(n), c_ast.ID)  # an element (`_elements` checks what it is)
            elif isinstance(n, c_ast.Constant):
                ok = n.type not in ("string", "char")
            elif isinstance(n, c_ast.BinaryOp):
                ok = n.op in _CPP_OPERATORS
            elif isinstance(n, c_ast.UnaryOp):
                ok = n.op in ("-", "+", "!")
            elif isinstance(n, c_ast.FuncCall):
                ok = isinstance(n.name, c_ast.ID) and n.name.name in PURE_FUNCTIONS
                n = n.args  # the callee's name is no scalar
            elif isinstance(n, c_ast.Cast):
                ok = isinstance(n.to_type.type, c_ast.TypeDecl) \
                    and isinstance(n.to_type.type.type, c_ast.IdentifierType)
            else:
                ok = isinstance(n, (c_ast.ExprList, c_ast.TernaryOp, c_ast.Typename, c_ast.TypeDecl,
                                    c_ast.IdentifierType))
            if not ok and not (isinstance(n, c_ast.ID) and _callee(e, n)):
                raise Inexact


def _callee(e: c_ast.Node, name: c_ast.ID) -> bool:
    return any(isinstance(n, c_ast.FuncCall) and n.name is name for n in walk(e))


def _parts(element: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """The array an element belongs to and its subscripts, outermost first (`a` and [i, j] of `a[i][j]`)."""
    subscripts = []
    while isinstance(element, c_ast.ArrayRef):
        subscripts.insert(0, element.subscript)
        element = element.name
    return element, subscripts


def _base(element: c_ast.ArrayRef) -> c_ast.Node:
    return _parts(element)[0]


def _whole_elements(e: c_ast.Node) -> list[c_ast.ArrayRef]:
    """The elements an expression names whole (`a[i][j]`, not its row `a[i]`)."""
    rows = {id(n.name) for n in walk(e) if isinstance(n, c_ast.ArrayRef)}
    return [n for n in walk(e) if isinstance(n, c_ast.ArrayRef) and id(n) not in rows]


def arrays(e: c_ast.Node) -> list[str]:
    """The arrays whose elements an expression reads, in order."""
    return list(dict.fromkeys(_base(n).name for n in walk(e) if isinstance(n, c_ast.ArrayRef)
                              and isinstance(_base(n), c_ast.ID)))


def names(e: c_ast.Node) -> list[str]:
    """The scalars an expression reads, in order (not the functions it calls, nor the arrays it indexes)."""
    bases = {id(_base(n)) for n in walk(e) if isinstance(n, c_ast.ArrayRef)}
    return list(dict.fromkeys(n.name for n in walk(e) if isinstance(n, c_ast.ID) and not _callee(e, n)
                              and id(n) not in bases))


class _Code(c_generator.CGenerator):
    """C++ text of an expression, each scalar spelled as `spelling` says (a connector, or a symbol's name), each
    element of an array of `elements` (its connector, bound to all of it, and its strides) at its offset there:
    one C subscript is the offset itself (a flat index), one per dimension goes through the strides."""

    def __init__(self, spelling: dict[str, str], elements: dict[str, tuple[str, list[str]]] | None = None):
        super().__init__()
        self.spelling, self.elements = spelling, elements or {}

    def visit_ID(self, n):
        return self.spelling.get(n.name, n.name)

    def visit_ArrayRef(self, n):
        base, subscripts = _parts(n)
        subscripts = [self.visit(subscript) for subscript in subscripts]
        connector, strides = self.elements[base.name]
        if len(subscripts) not in (1, len(strides)):
            raise Inexact
        offset = subscripts[0] if len(subscripts) == 1 else \
            " + ".join(f"({i}) * ({stride})" for i, stride in zip(subscripts, strides))
        return f"{connector}[{offset}]"


def python_condition(e: c_ast.Node, spelling: dict[str, str]) -> str | None:
    """The C condition in Python for DaCe (every operand parenthesized), each scalar as `spelling` says;
    None where Python's meaning would differ (`/`, `%`, bit operators, casts, calls)."""
    if isinstance(e, c_ast.ID):
        return spelling.get(e.name, e.name)
    if isinstance(e, c_ast.Constant) and e.type in ("int", "double", "float"):
        return e.value.rstrip("uUlLfF") if not e.value.lower().startswith("0x") else e.value.rstrip("uUlL")
    if isinstance(e, c_ast.BinaryOp) and e.op in _PYTHON_OPERATORS:
        left, right = python_condition(e.left, spelling), python_condition(e.right, spelling)
        return None if left is None or right is None else f"({left} {_PYTHON_OPERATORS[e.op]} {right})"
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "!"):
        inner = python_condition(e.expr, spelling)
        return None if inner is None else f"({'not ' if e.op == '!' else '-'}{inner})"
    return None


class HostBuilder:
    """The blocks of a function's steps: graph/sdfg.py's `_Sdfg` supplies the scalars' descriptors and symbols
    (`host_scalar`, `arrays`), the counters of its blocks' ids and labels, and each region's blocks
    (`region_blocks`)."""

    def __init__(self, sdfg, region_blocks, steps: list, facts: HostFacts, callee=None):
        self.sdfg, self.region_blocks, self.facts = sdfg, region_blocks, facts
        self.scalars, self.temporaries = facts.scalars, facts.temporaries
        self.callee = callee  # a callee's name -> its sdfg_calls.Callee, None where a call of it is inexact
        self.written = set(_targets(steps))

    def blocks(self, steps: list) -> tuple[list[dict], list[tuple[int, int]]]:
        blocks, edges = [], []
        for step in steps:
            if isinstance(step, Region):
                inner, inner_edges = self.region_blocks(step.graph)
            elif isinstance(step, Call):
                callee = self.callee(step.callee) if self.callee is not None else None
                if callee is None:
                    raise Inexact
                inner, inner_edges = [CallState(self, step, callee).build(Inexact)], []
            elif isinstance(step, For):
                inner, inner_edges = [self._for(step)], []
            else:
                inner, inner_edges = [self._while(step) if isinstance(step, While) else self._statement(step)], []
            if blocks and inner:  # one after the other
                edges.append((len(blocks) - 1, len(blocks)))
            edges += [(len(blocks) + u, len(blocks) + v) for u, v in inner_edges]
            blocks += inner
        return blocks, edges

    def _while(self, step: While) -> dict:
        spelling = {name: self._spelling(name) for name in names(step.cond)}
        condition = python_condition(step.cond, spelling)
        self.sdfg.cfg_count += 1
        cfg_id = self.sdfg.cfg_count
        body, edges = self.blocks(step.body)
        line = step.node.coord.line if step.node.coord is not None else 0
        if condition is None:
            raise Inexact
        return {"type": "LoopRegion", "attributes": {"loop_condition": {"string_data": condition,
                                                                       "language": "Python"}},
                **graph_fields(body or [state(f"while_line{line}_empty", [], [])], edges, cfg_id),
                "label": f"while_line{line}"}

    def _for(self, step: For) -> dict:
        """A `LoopRegion` on the loop's variable (a symbol), its calls a state each."""
        spelling = {name: step.var if name == step.var else self._spelling(name)
                    for name in names(step.node.cond) + names(step.first)}
        condition, first = python_condition(step.node.cond, spelling), python_condition(step.first, spelling)
        if condition is None or first is None or step.var in self.sdfg.arrays:
            raise Inexact
        self.sdfg.symbols.add(step.var)
        self.sdfg.loop_variables.add(step.var)
        self.sdfg.symbol_types[step.var] = _DTYPES.get(self.scalars.get(step.var), "int64")
        self.sdfg.cfg_count += 1
        cfg_id = self.sdfg.cfg_count
        body, edges = self.blocks(step.body)
        line = step.node.coord.line if step.node.coord is not None else 0
        v = step.var
        return {"type": "LoopRegion", "attributes": {
            "loop_variable": v, "init_statement": {"string_data": f"{v} = {first}", "language": "Python"},
            "loop_condition": {"string_data": condition, "language": "Python"},
            "update_statement": {"string_data": f"{v} = ({v} + 1)", "language": "Python"}},
            **graph_fields(body, edges, cfg_id), "label": f"for_{v}_line{line}"}

    def _statement(self, step: Statement) -> dict:
        """One tasklet (`scalar_tasklet`)."""
        nodes, edges = [], []
        line = step.node.coord.line if step.node.coord is not None else 0
        self.scalar_tasklet(step.value, step.target, nodes, edges, label=f"line{line}", element=step.element)
        self.sdfg.state_count += 1
        return state(f"line{line}_s{self.sdfg.state_count}", nodes, edges)

    def scalar_tasklet(self, value: c_ast.Node, target: str, nodes: list[dict], edges: list[dict],
                       sources: dict[str, int] | None = None, label: str = "",
                       element: c_ast.ArrayRef | None = None) -> int:
        """A tasklet computing `value` into the scalar `target` (a scalar of the function, or a transient of
        the SDFG), or into the `element` of the array `target`, appended to a state's nodes and edges: an input
        connector per scalar container it reads (symbols by name), from `sources` (this state's access node
        holding it) or from a new access node; a connector per array whose elements it reads or writes, bound
        to all of it (a pointer in DaCe's C++: the output one where it writes the array, through which it reads
        it too). Returns the index of the access node it writes."""
        sources = sources or {}
        if element is None and (target not in self.sdfg.arrays or not self.sdfg.arrays[target]["attributes"][
                "transient"] or target in self.temporaries):
            self._spelling(target)
        spelling = {}
        for name in names(value) + (names(element) if element is not None else []):
            if name not in sources:
                self._spelling(name)
            if name in self.sdfg.arrays:  # a container (else a symbol, which the code reads by name)
                spelling[name] = f"__in_{name}"
        whole = {name: self._whole(name) for name in arrays(value) + ([target] if element is not None else [])}
        for n in _whole_elements(value) + ([element] if element is not None else []):
            self._inside(n, whole[_base(n).name])
        elements = {name: (f"__arr_{name}", d["attributes"]["strides"]) for name, d in whole.items()}
        code = _Code(spelling, elements)
        code = f"{code.visit(element) if element is not None else '__out'} = {code.visit(value)};"
        outputs = [target] if element is not None else []
        inputs = [f"__arr_{name}" for name in whole if name not in outputs] + list(spelling.values())
        attributes = {"label": label or f"set_{target}", "code": {"string_data": code, "language": "CPP"},
                      "in_connectors": dict.fromkeys(inputs), "out_connectors": {
                          f"__arr_{target}" if element is not None else "__out": None}}
        tasklet = len(nodes)
        nodes.append(dataflow_node("Tasklet", code[:60], attributes, tasklet))
        for name, connector in spelling.items():
            if name not in sources:
                nodes.append(dataflow_node("AccessNode", name, {"data": name}, len(nodes)))
            edges.append(dataflow_edge(sources.get(name, len(nodes) - 1), None, tasklet, connector,
                                       scalar_memlet(name)))
        for name in whole:
            if name not in outputs:
                nodes.append(dataflow_node("AccessNode", name, {"data": name}, len(nodes)))
                edges.append(dataflow_edge(len(nodes) - 1, None, tasklet, f"__arr_{name}", whole_memlet(name,
                                                                                                      whole[name])))
        nodes.append(dataflow_node("AccessNode", target, {"data": target}, len(nodes)))
        edges.append(dataflow_edge(tasklet, outputs and f"__arr_{target}" or "__out", len(nodes) - 1, None,
                                   whole_memlet(target, whole[target]) if outputs else scalar_memlet(target)))
        return len(nodes) - 1

    def _inside(self, element: c_ast.ArrayRef, descriptor: dict) -> None:
        """Inexact unless the element lies below the extents no declaration gives (`_Sdfg.open`: a pointer's, from
        the accesses, `HostFacts.highs` among them, or a size symbol) wherever the SDFG runs (isl: its subscripts
        over the symbols; one subscript, a flat index, below the total size). A declared extent is C's own bound,
        which C's indexing keeps to as much as the SDFG's does."""
        base, subscripts = _parts(element)
        shape = descriptor["attributes"]["shape"]
        flat = len(subscripts) != len(shape)
        extents = ["*".join(f"({d})" for d in shape)] if flat else shape
        if len(subscripts) != len(extents):
            raise Inexact
        for k, (subscript, extent) in enumerate(zip(subscripts, extents)):
            opened = any((base.name, j) in self.sdfg.open for j in range(len(shape))) if flat \
                else (base.name, k) in self.sdfg.open
            if opened and not _below_everywhere(self.symbolic(subscript, Inexact), extent):
                raise Inexact

    def _whole(self, name: str) -> dict:
        """The descriptor of an array whose elements a statement touches; Inexact where no region has it (the
        SDFG knows no extent of it) or it is a region's own."""
        descriptor = self.sdfg.arrays.get(name)
        if descriptor is None or descriptor["type"] != "Array" or descriptor["attributes"]["transient"]:
            raise Inexact
        return descriptor

    def same_extents(self, ours: list[str], theirs: list[str]) -> bool:
        """Whether two shapes are the same wherever the SDFG runs: equal for every value of their symbols
        as isl reads them, once the constant copies (`HostFacts.copies`) are replaced by what they copy
        (extents isl cannot read, not affine, count as different: the call is then refused)."""
        if len(ours) != len(theirs):
            return False
        copies = self.facts.copies
        def read(text: str) -> str:  # noqa: E306
            return re.sub(r"[A-Za-z_]\w*", lambda m: copies.get(m.group(0), m.group(0)), text)
        return all(_equal_everywhere(read(a), read(b)) for a, b in zip(ours, theirs))

    def symbolic(self, e: c_ast.Node, inexact: Exception) -> str:
        """The expression over the SDFG's symbols, in Python (graph/sdfg_calls.py maps a callee's symbol to it);
        `inexact` where it reads a scalar the SDFG holds as data, or is no plain arithmetic."""
        for name in names(e):
            if self.scalars.get(name) not in _INTEGERS or self._spelling(name) != name or name in self.sdfg.arrays:
                raise inexact
        text = python_condition(e, {})
        if text is None:
            raise inexact
        return text

    def _spelling(self, name: str) -> str:
        """How DaCe code names the scalar: `name[0]` for a one-element array (a local the function computes),
        the name itself for a symbol or scalar argument; declared on first use (module doc). A call's value
        read in an expression (`temporaries`) is a transient one-element array."""
        if name in self.temporaries:
            if self.scalars[name] not in _DTYPES:
                raise Inexact
            self.sdfg.arrays.setdefault(name, {"type": "Array", "attributes": {
                "dtype": _DTYPES[self.scalars[name]], "shape": ["1"], "strides": ["1"], "offset": ["0"],
                "total_size": "1", "transient": True}})
            return f"{name}[0]"
        return self.sdfg.host_scalar(name, self.scalars[name], name in self.written,
                                     local=name not in self.facts.parameters, declared=name in self.facts.declared)


def _targets(steps: list):
    for step in steps:
        if isinstance(step, Statement) and step.element is None:
            yield step.target
        elif isinstance(step, Call) and step.target is not None:
            yield step.target
        elif isinstance(step, (While, For)):
            yield from _targets(step.body)


def region_graphs(steps: list) -> list[DataflowGraph]:
    """The graphs of the regions the steps run (not those of calls only, which run as `For` steps)."""
    out = []
    for step in steps:
        if isinstance(step, Region):
            out.append(step.graph)
        elif isinstance(step, While):
            out += region_graphs(step.body)
    return out


def _below_everywhere(index: str, extent: str) -> bool:
    """Whether the integer expression `index` is below `extent` (DaCe's text: a `Max` of several, an inferred
    extent) for all values of their symbols (isl: never at least each of the `Max`'s)."""
    bounds, depth, start = [], 0, 4
    if extent.startswith("Max(") and extent.endswith(")"):
        for k, char in enumerate(extent[4:-1], 4):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                bounds.append(extent[start:k])
                start = k + 1
        bounds.append(extent[start:-1])
    else:
        bounds = [extent]
    params = ", ".join(sorted(set(re.findall(r"[A-Za-z_]\w*", f"{index} {extent}")) - {"Max"}))
    try:
        return isl.Set(f"[{params}] -> {{ : {' and '.join(f'{index} >= {b}' for b in bounds)} }}").is_empty()
    except isl.Error:
        return False


def _equal_everywhere(a: str, b: str) -> bool:
    """Whether the integer expressions `a` and `b` (over symbols) are equal for all their values."""
    if a.replace(" ", "") == b.replace(" ", ""):
        return True
    a, b = (re.sub(r"\b(Max|Min)\(", lambda m: m.group(1).lower() + "(", x) for x in (a, b))  # sympy's spelling
    params = ", ".join(sorted(set(re.findall(r"[A-Za-z_]\w*", f"{a} {b}")) - {"max", "min"}))
    try:
        differ = isl.Set(f"[{params}] -> {{ : {a} != {b} }}")
    except isl.Error:
        return False
    return differ.is_empty()
