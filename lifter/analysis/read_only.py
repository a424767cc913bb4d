"""File-local functions that change no memory their caller can see.

`count_of(g)` (`return g->n;`) or a binary search over a table (`find(e, n, x)`) reads
through its pointer parameters but writes only its own automatic variables. A call to one
cannot change a struct field or array element that a loop bound reads (`invariants.py`),
even where the call has no effect summary (summaries, call_summaries.py, are not field-sensitive,
and give up on `p->f`). Such a function:
- assigns (`=`, `op=`, `++`, `--`) only its non-static locals and its scalar and struct
  parameters (copies), or elements and fields of its local arrays (not of pointers) and
  structs (`tmp[k]`, `s.x`), never through a pointer (`*p`, `p[k]`, `p->f`, `s.p[k]`), and
  never takes an address (which could let one escape);
- calls only the math functions of `PURE_FUNCTIONS` and other such functions of the file.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.frontend.walk import walk


def read_only_functions(ast: c_ast.FileAST, typedefs, pure: set[str], classify) -> set[str]:
    """The names of the file's functions that write no memory outside their own automatic
    variables (fixed point over calls between them; recursion stays out). `classify` is
    symbols.classify, passed in by symbols.py, which imports this module."""
    from lifter.analysis.effects import PURE_FUNCTIONS

    candidates = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            own = _own_variables(ext, typedefs, classify)
            if own is not None:
                candidates[ext.decl.name] = (ext, own)
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, (func, own) in candidates.items():
            if name not in found and _writes_only(func.body, own, PURE_FUNCTIONS | pure | found):
                found.add(name)
                changed = True
    return found


def _own_variables(func: c_ast.FuncDef, typedefs, classify) -> set[str] | None:
    """Scalar parameters and non-static locals that are not pointers: assigning them (or their
    elements and fields) changes nothing outside the call. None if a local is static."""
    own = set()
    params = func.decl.type.args.params if func.decl.type.args else []
    for p in params:
        if isinstance(p, c_ast.Decl) and p.name \
                and classify(p.name, p.type, typedefs, "param").kind in (Kind.SCALAR, Kind.STRUCT):
            own.add(p.name)  # a copy
    for n in walk(func.body):
        if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl):
            if "static" in (n.storage or []) or "extern" in (n.storage or []):
                return None
            kind = classify(n.name, n.type, typedefs, "local").kind
            if kind in (Kind.SCALAR, Kind.STRUCT) or kind == Kind.ARRAY and not _holds_pointers(n.type):
                own.add(n.name)
    return own


def _holds_pointers(type_node: c_ast.Node) -> bool:
    """An array of pointers: writing `rows[k][j]` writes through one."""
    return any(isinstance(n, c_ast.PtrDecl) for n in walk(type_node))


def _writes_only(body: c_ast.Node, own: set[str], callable_names: set[str]) -> bool:
    for n in walk(body):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            target = n.expr
        elif isinstance(n, c_ast.UnaryOp) and n.op == "&":
            return False
        elif isinstance(n, c_ast.FuncCall):
            if not isinstance(n.name, c_ast.ID) or n.name.name not in callable_names:
                return False
        if target is not None and _root_variable(target) not in own:
            return False
    return True


def _root_variable(lvalue: c_ast.Node) -> str | None:
    """`x` of `x`, `x[k]`, `x.f`, `x[k].f`; None through a pointer (`*p`, `p->f`) or where a field
    is indexed (`s.p[k]`: the field may be a pointer)."""
    while isinstance(lvalue, c_ast.ArrayRef) or isinstance(lvalue, c_ast.StructRef) and lvalue.type == ".":
        if isinstance(lvalue, c_ast.ArrayRef) and isinstance(lvalue.name, c_ast.StructRef):
            return None
        lvalue = lvalue.name
    return lvalue.name if isinstance(lvalue, c_ast.ID) else None
