"""Variables a pointer may reach: after `int *p = &t;`, `*p += 1` is a write of `t`.

The model keeps a scalar (or a pointer variable) apart from memory: it privatizes `t` and
reduces into `p[0]`, each without the other, which is a wrong sum even on one thread (found by
hand while writing scripts/trapgen.py, session 17). A nest that writes such a variable by name
and goes through a pointer that may hold its address, or that writes through such a pointer
while reading the variable, is left as written.

The variables: the function's own whose address it takes, and the globals whose address the
file takes (`int *gp = &g;`; a global's address taken in another file is not seen). A pointer
parameter the function never reassigns holds no local's address: the variable did not exist
when the caller passed it (a `static` local or a global did, so anything may reach those), and
arrays of their own are no pointers.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.model import Kind
from lifter.analysis.symbols import FunctionSymbols
from lifter.analysis.walk import written_names
from lifter.frontend.walk import walk

REASON_CODE = "may-alias"


def pointer_may_reach(nest: c_ast.Node, symbols: FunctionSymbols) -> tuple[str, c_ast.Node] | None:
    """(the remark, the access) where a pointer in `nest` may reach an addressed variable the
    nest names; None where none can."""
    if not symbols.addressed and not symbols.table.addressed:  # (most functions: no walk of the nest)
        return None
    values, written, stores = _uses(nest)
    kinds = {name: kind for name in values for kind in [_reachable(name, symbols)] if kind}
    if not kinds:
        return None
    reachable = sorted(kinds)
    anything = any(kind != "local" for kind in kinds.values())  # a parameter may point to it too
    reassigned = written_names(symbols.body)
    changed = [name for name in reachable if name in written]
    for node, base in _through_pointers(nest, symbols):
        if not (changed or id(node) in stores):
            continue
        while isinstance(base, c_ast.ArrayRef):  # `A[i][j]`: the array A, or the rows of `double **A`
            base = base.name
        sym = symbols.lookup(base.name) if isinstance(base, c_ast.ID) else None
        if sym is not None and (sym.owns_storage or (sym.storage == "param" and not anything and not sym.indirect
                                                      and base.name not in reassigned)):
            continue
        name = (changed or reachable)[0]
        return (f"'{name}' has its address taken, and '{c_text(node)}' may reach it through a pointer", node)
    return None


def _uses(nest: c_ast.Node) -> tuple[set[str], set[str], set[int]]:
    """In one walk of `nest`: the variables it uses as values (`t`, `st.c`); those of them it
    assigns or increments; and the ids of the accesses it writes (an assignment's target, a
    `++`/`--` operand) and of its calls (a callee may write through any pointer handed to it).
    Not a use: `&t` (handed to a call, the callee's summary sees it) and a struct's pointer
    member as the base of an access (`a.u[k]`, whose target is memory of its own)."""
    bases: set[int] = set()
    ids: list[c_ast.ID] = []
    targets: list[c_ast.Node] = []
    stores: set[int] = set()
    for n in walk(nest):
        if isinstance(n, c_ast.ID):
            ids.append(n)
        elif isinstance(n, c_ast.Assignment):
            targets.append(n.lvalue)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            targets.append(n.expr)
        elif isinstance(n, c_ast.FuncCall):
            stores.add(id(n))
        base = {c_ast.ArrayRef: "name", c_ast.UnaryOp: "expr"}.get(type(n))
        if base is None or (isinstance(n, c_ast.UnaryOp) and n.op not in ("*", "&")):
            base = "name" if isinstance(n, c_ast.StructRef) and n.type == "->" else None
        if base is not None:
            bases.add(id(_root(getattr(n, base))))
    values = {n.name for n in ids if id(n) not in bases}
    stores.update(id(t) for t in targets)
    written = {root.name for t in targets for root in [_root(t)] if isinstance(root, c_ast.ID)} & values
    return values, written, stores


def _root(node: c_ast.Node) -> c_ast.Node:
    """The variable under `.` members: `st` of `st.c.d`."""
    while isinstance(node, c_ast.StructRef) and node.type == ".":
        node = node.name
    return node


def _reachable(name: str, symbols: FunctionSymbols) -> str:
    """'local' for a scalar (or pointer) variable of the function whose address it takes,
    'static' for such a `static` one and 'global' for a global whose address the file takes; ''
    for the others: arrays are memory already, which the dependence tests see, and struct
    variables are left out (not shown wrong: their members reached through a pointer)."""
    if name in symbols.locals:
        sym = symbols.locals[name]
        if name not in symbols.addressed or sym.kind not in (Kind.SCALAR, Kind.POINTER):
            return ""
        return "static" if "static" in (getattr(sym.decl, "storage", None) or []) else "local"
    sym = symbols.table.globals.get(name)
    if sym is None or name not in symbols.table.addressed or sym.kind not in (Kind.SCALAR, Kind.POINTER):
        return ""
    return "global"


def _through_pointers(nest: c_ast.Node, symbols: FunctionSymbols):
    """(access, its base) for each access through a pointer: `*p`, `p[i]`, `p->f`, and a
    pointer variable handed to a call (the callee may write through it)."""
    for n in walk(nest):
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            yield n, n.expr
        elif isinstance(n, c_ast.ArrayRef):
            yield n, n.name
        elif isinstance(n, c_ast.StructRef) and n.type == "->":
            yield n, n.name
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            for arg in n.args.exprs:
                sym = symbols.lookup(arg.name) if isinstance(arg, c_ast.ID) else None
                if sym is not None and sym.kind == Kind.POINTER:
                    yield n, arg
