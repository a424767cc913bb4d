"""Pointers that C's aliasing rules keep apart (C11 6.5p7).

A loop that writes `out[i]` (an `unsigned long *`) and reads tables through other pointers
(`double *`, `int *`, a `struct` of doubles) needs no run-time test that they are disjoint:
an object may be accessed only through an lvalue of its own type (up to signedness and
qualifiers), of an aggregate that contains that type, or of a character type. So two
pointers whose element types share no scalar type, once structs and arrays are opened down
to their members, never reach the same object in a program without undefined behaviour
(gcc -O2 makes the same assumption). This matters where a range cannot be bounded at run
time (a table read through a helper, a binary search). Anything uncertain (a character,
`void`, an enum, a pointer element, an unknown typedef or struct) proves nothing.
"""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.analysis.effects import struct_ref
from lifter.analysis.model import Kind

_IGNORED_WORDS = {"signed", "unsigned", "const", "volatile", "restrict", "__restrict", "__restrict__"}
_ARITHMETIC = {"int", "short", "long", "long long", "float", "double", "long double", "_Bool"}
_INTEGERS = {"int", "short", "long", "long long"}


def type_apart(symbols, names) -> set[frozenset]:
    """The pairs among the pointer containers `names` (`x`, `s.f`, `p->a.f`) whose element
    types cannot reach one object."""
    leaves = {}
    for name in sorted(set(names))[:32]:
        found = _pointee_leaves(symbols, name)
        if found:
            leaves[name] = found
    known = sorted(leaves)
    return {frozenset((p, q)) for i, p in enumerate(known) for q in known[i + 1:] if not leaves[p] & leaves[q]}


def _pointee_leaves(symbols, name: str) -> frozenset | None:
    """The scalar types an lvalue through the pointer `name` may access, or None if unsure."""
    pointee = pointee_type(symbols, name)
    return _leaves(symbols.table, pointee, 0) if pointee is not None else None


def integer_pointee(symbols, name: str) -> str | None:
    """The integer type the pointer `name` points to, or the element type of the array `name`,
    spelled for a cast (`int`, `unsigned long`), or None if it is not one (or unsure).
    Characters and `_Bool` are not taken."""
    pointee = pointee_type(symbols, name)
    sym = symbols.lookup(name)
    if pointee is None and sym is not None and sym.kind == Kind.ARRAY and isinstance(sym.decl, c_ast.Decl):
        array = symbols.table.typedefs.resolve(sym.decl.type)  # a one-dimensional array's element
        pointee = symbols.table.typedefs.resolve(array.type) if isinstance(array, c_ast.ArrayDecl) else None
    if not isinstance(pointee, c_ast.TypeDecl) or not isinstance(pointee.type, c_ast.IdentifierType):
        return None
    words = [w for w in pointee.type.names if w not in _IGNORED_WORDS]
    if len(words) > 1 and "int" in words:
        words.remove("int")  # `long int` is `long`
    spelled = " ".join(words) or "int"
    if spelled not in _INTEGERS:
        return None
    return f"unsigned {spelled}" if "unsigned" in pointee.type.names else spelled


def pointee_type(symbols, name: str) -> c_ast.Node | None:
    """The type (typedefs resolved) the pointer container `name` (`x`, `s.f`, `p->a.f`) points
    to, or None if unsure."""
    root = re.split(r"\W", name, maxsplit=1)[0]
    sym = symbols.lookup(root)
    if sym is None or root in symbols.ambiguous:
        return None
    if root == name:
        if sym.kind != Kind.POINTER or sym.indirect or not isinstance(sym.decl, c_ast.Decl):
            return None
        type_node = sym.decl.type
    else:
        node = struct_ref(root, name[len(root):])
        if not isinstance(node, c_ast.StructRef) or symbols.table.in_union(node, symbols.lookup):
            return None
        type_node = symbols.table.field_type(node, symbols.lookup)
    type_node = symbols.table.typedefs.resolve(type_node) if type_node is not None else None
    if not isinstance(type_node, c_ast.PtrDecl):
        return None
    return symbols.table.typedefs.resolve(type_node.type)


def _leaves(table, node, depth: int) -> frozenset | None:
    """The scalar types an object of type `node` consists of (None: unsure)."""
    node = table.typedefs.resolve(node)
    while isinstance(node, c_ast.ArrayDecl):
        node = table.typedefs.resolve(node.type)
    if depth > 8 or not isinstance(node, c_ast.TypeDecl):
        return None  # a pointer element, a function
    inner = node.type
    if isinstance(inner, c_ast.IdentifierType):
        words = [w for w in inner.names if w not in _IGNORED_WORDS]
        if len(words) > 1 and "int" in words:
            words.remove("int")  # `long int` is `long`
        spelled = " ".join(words) or "int"  # `unsigned` alone is `unsigned int`
        return frozenset({spelled}) if spelled in _ARITHMETIC else None
    if isinstance(inner, c_ast.Struct):
        decls = inner.decls if inner.decls is not None else table.structs.get((c_ast.Struct, inner.name))
        if not decls:
            return None
        found = set()
        for member in decls:
            part = _leaves(table, member.type, depth + 1)
            if part is None:
                return None
            found |= part
        return frozenset(found)
    return None  # a union, an enum
