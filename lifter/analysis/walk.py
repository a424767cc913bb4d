"""The file's direct calls and a body's local declarations, read from a pycparser AST by the
frontend's walker (`frontend/walk.py`: no recursion, deep nests must not overflow)."""
from __future__ import annotations

from pycparser import c_ast

from lifter.frontend.walk import walk


def called_names(node: c_ast.Node | None) -> set[str]:
    """Names of the functions called by name anywhere under `node`."""
    return {n.name.name for n in walk(node) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)}


def functions_where(ast: c_ast.FileAST, holds) -> set[str]:
    """Names of the file's functions whose body `holds(body)` is true of, or that call such a
    function (directly or through others): what a call of them brings into a loop."""
    bodies = {ext.decl.name: ext.body for ext in ast.ext if isinstance(ext, c_ast.FuncDef)}
    calls = {name: called_names(body) for name, body in bodies.items()}
    found = {name for name, body in bodies.items() if holds(body)}
    while True:
        more = {name for name in bodies if name not in found and calls[name] & found}
        if not more:
            return found
        found |= more


def local_decls(node: c_ast.Node | None):
    """The declarations of objects under `node` (a function body: its locals), not of functions;
    backwards, so that a table filled from them keeps, of a name declared twice, the first."""
    return (n for n in walk(node, backwards=True)
            if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl))


def written_names(node: c_ast.Node) -> set[str]:
    """Names assigned, incremented or whose address is taken anywhere under `node`."""
    names: set[str] = set()
    for n in walk(node):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&"):
            target = n.expr
        elif isinstance(n, c_ast.Decl) and n.name:
            names.add(n.name)
        if isinstance(target, c_ast.ID):
            names.add(target.name)
    return names


def plain_value(value: c_ast.Node) -> bool:
    """No side effect, call or memory read (struct fields aside) in `value`."""
    for n in walk(value):
        if isinstance(n, (c_ast.FuncCall, c_ast.Assignment, c_ast.ArrayRef, c_ast.Compound)):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&", "++", "--", "p++", "p--", "sizeof"):
            return False
    return True


def replace_nodes(node: c_ast.Node, replacement) -> c_ast.Node:
    """A copy of `node` where each node `replacement(n)` gives a node for is replaced by it."""
    found = replacement(node)
    if found is not None:
        return found
    if isinstance(node, c_ast.ID):
        return node
    copy = shallow_copy(node)
    if isinstance(node, c_ast.StructRef):  # `s.f`: the field is a name, not a variable
        copy.name = replace_nodes(node.name, replacement)
        return copy
    for name, child in node.children():
        replace_child(copy, name, replace_nodes(child, replacement))
    return copy


def shallow_copy(node: c_ast.Node) -> c_ast.Node:
    copy = object.__new__(type(node))
    for attr in node.__slots__:
        if attr != "__weakref__":
            setattr(copy, attr, getattr(node, attr))
    return copy


def replace_child(node: c_ast.Node, name: str, new: c_ast.Node) -> None:
    """Set the child that `children()` names `name` (`args`, `exprs[1]`)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        items = list(getattr(node, attr))
        items[int(index)] = new
        setattr(node, attr, items)
    else:
        setattr(node, name, new)


def variable_ids(node: c_ast.Node):
    """The IDs under `node` that name variables: not the field names of `s.f`, nor called functions."""
    if isinstance(node, c_ast.ID):
        yield node
        return
    if isinstance(node, c_ast.StructRef):
        yield from variable_ids(node.name)
        return
    if isinstance(node, c_ast.FuncCall):
        if node.args is not None:
            yield from variable_ids(node.args)
        return
    for _, child in node.children():
        yield from variable_ids(child)
