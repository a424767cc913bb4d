"""Reduction updates read from the AST: which element a statement updates, and with which operator.

Shared by the effects of one statement (effects.py), the polyhedral model (scop.py) and the
guarded updates of array reductions (transform/guarded_updates.py). Pure functions of the
syntax tree: they name no container (that is the collector's work).
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.frontend.walk import walk

REDUCTION_OPS = {"+=": "+", "-=": "+", "*=": "*", "&=": "&", "|=": "|", "^=": "^"}


def reduction_target(node) -> str:
    """The C text of the element a reduction statement updates (`x` in `x += e`, `m` in a min/max `if`)."""
    if isinstance(node, c_ast.If):
        update = minmax_update(node)
        return c_text(update[0]) if update is not None else ""
    if isinstance(node, c_ast.UnaryOp):
        return c_text(node.expr)
    return c_text(node.lvalue) if isinstance(node, c_ast.Assignment) else ""


def rest_spares_target(lvalue, rest) -> bool:
    """The other operand `e` of `x op= e` does not read the reduced variable `x`.

    For an array element, `e` may read other elements of the same array
    (`A[i][j] -= A[i][k] * A[k][j]`): the statement stays a reduction
    candidate, and the loop verdict proves with isl that, within the loop, those
    reads never touch an element the loop reduces into. `e` must not spell the
    target itself, nor may the target's subscripts read its array, so that the
    update's own accesses are exactly those written like the target.
    """
    root = root_name(lvalue)
    if not any(names_in(r, root) for r in rest):
        return True
    if not isinstance(lvalue, c_ast.ArrayRef) or not isinstance(array_base(lvalue), c_ast.ID):
        return False
    if any(isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&") and names_in(n, root)
           for r in rest for n in walk(r)):
        return False  # the array reached through a pointer expression: any element
    target = c_text(lvalue)
    sub = lvalue
    while isinstance(sub, c_ast.ArrayRef):
        if any(isinstance(n, c_ast.ID) and n.name == root for n in walk(sub.subscript)):
            return False
        sub = sub.name
    return not any(c_text(n) == target for r in rest for n in walk(r) if isinstance(n, c_ast.ArrayRef))


def select(cond, if_true, if_false, target):
    """`P < Q ? P : Q` style selections of `target` and e: ('min' or 'max', e), else None."""
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in ("<", "<=", ">", ">="):
        return None
    p, q = c_text(cond.left), c_text(cond.right)
    t, f = c_text(if_true), c_text(if_false)
    if {p, q} != {t, f} or target not in (p, q) or p == q:
        return None
    smaller_first = cond.op in ("<", "<=")  # cond says left < right
    picks_left = t == p
    op = "min" if smaller_first == picks_left else "max"
    other = cond.right if p == target else cond.left
    return op, other


def minmax_update(node: c_ast.If) -> tuple[c_ast.Node, str] | None:
    """`if (e > m) m = e;` (and mirrored forms): the updated lvalue and 'max' or 'min'."""
    if node.iffalse is not None:
        return None
    body = node.iftrue
    if isinstance(body, c_ast.Compound) and body.block_items and len(body.block_items) == 1:
        body = body.block_items[0]
    if not (isinstance(body, c_ast.Assignment) and body.op == "="):
        return None
    target, value = c_text(body.lvalue), c_text(body.rvalue)
    found = select(node.cond, body.rvalue, body.lvalue, target)
    if found is None or c_text(found[1]) != value:
        return None
    root = root_name(body.lvalue)
    if root is None or any(isinstance(n, c_ast.ID) and n.name == root for n in walk(body.rvalue)):
        return None
    return body.lvalue, found[0]


def names_in(node, name) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == name for n in walk(node))


def root_name(node):
    """The variable an lvalue is reached from: `a` in `a[i].f`, `p` in `*p`."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)) or isinstance(node, c_ast.UnaryOp) and node.op == "*":
        node = node.expr if isinstance(node, c_ast.UnaryOp) else node.name
    return node.name if isinstance(node, c_ast.ID) else None


def array_base(node):
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node
