"""Names whose type lift does not know: types written with `typeof` (frontend/typeof.py).

The parser reads `typeof(...)` as a placeholder type name and nothing works out what it stands
for. A name declared with one (directly, through a typedef, or as a struct with such a member)
may be a scalar, an array, a pointer into any other object or a struct of pointers: no model of
it is sound. So a loop nest that names one, or writes such a type itself, stays as written
(`unknown_use`, reason code `unknown-type`), and a function that does either anywhere has no
effect summary, is not pure and not read-only: a call of it has unknown effects
(`typeof_functions`). Names are matched without their scopes, which can only refuse more.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.frontend.typeof import is_placeholder
from lifter.frontend.walk import walk

CODE = "unknown-type"


class UnknownTypes:
    """Which types of one file involve a placeholder: typedefs of every scope and tagged structs
    and unions are followed by name (a cycle through a pointer member stops).

    Its walk over the whole file (the headers' thousands of declarations too) also keeps the
    member declarations of each tag's first definition, `definitions`: the symbol table's
    struct layouts (`SymbolTable.structs`), found in the same pass instead of a second one."""

    def __init__(self, ast: c_ast.FileAST):
        self.typedefs: dict[str, list[c_ast.Node]] = {}
        self.tags: dict[tuple[type, str], list] = {}
        self.definitions: dict[tuple[type, str], list] = {}  # {(Struct or Union, tag): members}
        self.placeholders = False
        for node in walk(ast):
            if isinstance(node, c_ast.Typedef):
                self.typedefs.setdefault(node.name, []).append(node.type)
            elif isinstance(node, (c_ast.Struct, c_ast.Union)) and node.name and node.decls is not None:
                self.tags.setdefault((type(node), node.name), []).extend(node.decls)
                self.definitions.setdefault((type(node), node.name), node.decls)
            elif isinstance(node, c_ast.IdentifierType) and any(is_placeholder(n) for n in node.names):
                self.placeholders = True
        self._known: dict[int, bool] = {}

    def unknown(self, type_node: c_ast.Node | None) -> bool:
        """Whether the type `type_node` is, or contains, a type written with typeof."""
        if not self.placeholders or type_node is None:
            return False
        stack, seen = [type_node], set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, c_ast.IdentifierType):
                for name in node.names:
                    if is_placeholder(name):
                        return True
                    stack.extend(self.typedefs.get(name, ()))
            elif isinstance(node, (c_ast.Struct, c_ast.Union)) and node.name and node.decls is None:
                stack.extend(self.tags.get((type(node), node.name), ()))
            stack.extend(child for _, child in node.children())
        return False

    def declared(self, root: c_ast.Node) -> set[str]:
        """The names declared under `root` (parameters included) with a type written with typeof."""
        if not self.placeholders:
            return set()
        return {n.name for n in walk(root) if isinstance(n, c_ast.Decl) and n.name and self.unknown(n.type)}


def typeof_functions(ast: c_ast.FileAST, types: UnknownTypes, unknown_globals: set[str]) -> set[str]:
    """The file's functions that write a type with typeof or name a global declared with one."""
    if not types.placeholders:
        return set()
    return {ext.decl.name for ext in ast.ext if isinstance(ext, c_ast.FuncDef)
            and unknown_use(ext, types, unknown_globals) is not None}


def unknown_use(root: c_ast.Node, types: UnknownTypes, names: set[str]) -> tuple[str, c_ast.Node] | None:
    """Why the code under `root` cannot be modelled, and where: the first name of `names` (those
    declared with typeof) it uses, or a type it writes with typeof; None if neither."""
    if not types.placeholders:
        return None
    for node in walk(root):
        if isinstance(node, c_ast.ID) and node.name in names:
            return f"'{node.name}' has a type written with typeof, which lift does not work out", node
        if isinstance(node, (c_ast.Decl, c_ast.Typename)) and types.unknown(node.type):
            line = f" (line {node.coord.line})" if node.coord is not None else ""
            return f"it spells a type with typeof{line}, which lift does not work out", node
    return None
