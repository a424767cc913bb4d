"""The qualifiers a declared type carries, typedefs followed: what `symbols.classify` records.

Two questions with different reaches. `shared_qualifiers`: is `volatile` or `_Atomic` anywhere in
the type (any access of such data is observable, so its loop keeps its order). `const_object`:
is the declared object itself const (only its outermost declarator counts: `double *const p`
cannot point elsewhere, `const double *p` can). `table` is the file's typedefs (name -> type).
"""
from __future__ import annotations

from pycparser import c_ast

# Qualifiers that make the order and indivisibility of each access part of what the program does.
SHARED_QUALIFIERS = frozenset({"volatile", "_Atomic"})


def _typedef_name(node: c_ast.Node, table: dict) -> str | None:
    """The typedef name a declarator's type is spelled with (one word of `table`), else None."""
    inner = getattr(node, "type", None)
    if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 and inner.names[0] in table:
        return inner.names[0]
    return None


def const_object(node: c_ast.Node, table: dict) -> bool:
    """Whether the object a declaration with type `node` declares is const itself: `const` among
    the qualifiers of its outermost declarator (a pointer's own, `double *const p`; a plain or
    typedef-named type's), typedefs followed (bounded); what a pointer points to is another object."""
    for _ in range(50):
        if "const" in (getattr(node, "quals", None) or []):
            return True
        name = _typedef_name(node, table) if isinstance(node, c_ast.TypeDecl) else None
        if name is None:
            return False
        node = table[name]
    return False


def shared_qualifiers(node: c_ast.Node, table: dict) -> frozenset:
    """`volatile` and `_Atomic` at any level of a declared type, typedefs followed (bounded)."""
    found: set[str] = set()
    for _ in range(50):
        if node is None:
            break
        found |= set(getattr(node, "quals", None) or []) | set(getattr(node, "dim_quals", None) or [])
        name = _typedef_name(node, table)
        if name is not None:
            node = table[name]
        else:
            inner = getattr(node, "type", None)
            node = inner if isinstance(inner, c_ast.Node) else None
    return frozenset(found) & SHARED_QUALIFIERS
