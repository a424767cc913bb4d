"""`memset`, `memcpy` and `memmove` of a block of elements, as the accesses they make.

`memset(&a[i*m], 0, m * sizeof(double))` clears row i of a flat buffer. As an unknown call
it would keep every loop around it sequential; where the size argument counts elements of
the pointer's own type (`K * sizeof(T)`, `sizeof(T) * K`, `K * sizeof *p`, `K * sizeof(p[0])`
with T the element type of `p`), the call writes (and `memcpy`/`memmove` read) the K elements
from the pointer on: an access over a range of offsets, like a summarized helper's span
(call_spans.py), which the region builder turns into an isl relation. Any other size (bytes
counted another way, a struct's `sizeof`) leaves the call unknown.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.call_spans import OFFSET

# function -> (position of the block written, position of the block read or None)
BLOCK_FUNCTIONS = {"memset": (0, None), "memcpy": (0, 1), "memmove": (0, 1)}
# The span of a block call: offsets 0 .. K - 1, K the span's only argument.
SPAN = f"0 <= {OFFSET} and {OFFSET} <= arg0 - 1"


def element_count(size: c_ast.Node, element: str, base: str) -> c_ast.Node | None:
    """K where `size` is K elements of type `element`, the type of the array or pointer `base`
    that the block starts in, else None."""
    if not isinstance(size, c_ast.BinaryOp) or size.op != "*":
        return None
    for factor, count in ((size.right, size.left), (size.left, size.right)):
        if _sizeof_element(factor, element, base):
            return count
    return None


def _sizeof_element(node: c_ast.Node, element: str, base: str) -> bool:
    """`sizeof(T)` with T spelled as `element`, or `sizeof *base` / `sizeof(base[0])`."""
    if not isinstance(node, c_ast.UnaryOp) or node.op != "sizeof":
        return False
    what = node.expr
    if isinstance(what, c_ast.Typename):
        kind = what.type
        return isinstance(kind, c_ast.TypeDecl) and isinstance(kind.type, c_ast.IdentifierType) \
            and " ".join(kind.type.names) == element
    return isinstance(what, c_ast.UnaryOp) and what.op == "*" and c_text(what.expr) == base \
        or isinstance(what, c_ast.ArrayRef) and c_text(what.name) == base and c_text(what.subscript) == "0"
