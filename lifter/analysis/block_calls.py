"""`memset`, `memcpy` and `memmove` of a block of elements, as the accesses they make.

`memset(&a[i*m], 0, m * sizeof(double))` clears row i of a flat buffer. As an unknown call
it would keep every loop around it sequential; where the size argument counts elements of
the pointer's own type (`K * sizeof(T)`, `sizeof(T) * K`, `K * sizeof *p`, `K * sizeof(p[0])`
with T the element type of `p`), the call writes (and `memcpy`/`memmove` read) the K elements
from the pointer on: an access over a range of offsets, like a summarized helper's span
(call_spans.py), which the region builder turns into an isl relation. Sizes counted in bytes
are read too where the element's size is one every target of lift gives it (`_BYTES`: `m * 8`
of doubles, `n` of chars), and a constant number of bytes more or fewer (`m * sizeof(double) -
4`) reaches into one element more, or none, partly: the block's last element counts as touched
(the call's writes are may-writes, effects.py, so a partial one kills nothing). Any other size
(a struct's `sizeof`, a type whose size differs between targets, like `long`) leaves the call
unknown.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.call_spans import OFFSET

# function -> (position of the block written, position of the block read or None)
BLOCK_FUNCTIONS = {"memset": (0, None), "memcpy": (0, 1), "memmove": (0, 1)}
# The span of a block call: offsets 0 .. K - 1, K the span's only argument.
SPAN = f"0 <= {OFFSET} and {OFFSET} <= arg0 - 1"
# Element types whose size in bytes is the same on every target lift emits for (LP64 and
# LLP64 hosts, CUDA devices); `long` is not one of them.
_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
          "unsigned": 4, "unsigned int": 4, "float": 4, "double": 8, "long long": 8, "unsigned long long": 8,
          "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8,
          "uint64_t": 8}


def element_count(size: c_ast.Node, element: str, base: str) -> c_ast.Node | None:
    """K, the number of elements of type `element` (the type of the array or pointer `base`
    that the block starts in) that `size` bytes reach into, else None."""
    whole = _units(size, element, base)
    if whole is not None:
        return whole
    extra = 0
    if isinstance(size, c_ast.BinaryOp) and size.op in "+-" and _integer(size.right) is not None:
        extra = _integer(size.right) * (1 if size.op == "+" else -1)
        size = size.left
    width = _BYTES.get(element)
    count = _units(size, element, base)
    if count is None and width is not None:
        count = _scaled(size, width)
    if count is None or extra and width is None:
        return None
    more = -(-extra // width) if extra else 0  # (the bytes past the last whole element start one more)
    if more == 0:
        return count
    return c_ast.BinaryOp("+" if more > 0 else "-", count, c_ast.Constant("int", str(abs(more))))


def _units(size: c_ast.Node, element: str, base: str) -> c_ast.Node | None:
    """K where `size` is `K * sizeof(T)` (or `sizeof(T) * K`) of the element's type."""
    if not isinstance(size, c_ast.BinaryOp) or size.op != "*":
        return None
    for factor, count in ((size.right, size.left), (size.left, size.right)):
        if _sizeof_element(factor, element, base):
            return count
    return None


def _scaled(size: c_ast.Node, width: int) -> c_ast.Node | None:
    """K * (q / width) where `size` is `K * q` (or `q * K`) bytes, q a constant multiple of the
    element's width, or K itself for one-byte elements; else None."""
    if width == 1:
        return size
    if not isinstance(size, c_ast.BinaryOp) or size.op != "*":
        return None
    for factor, count in ((size.right, size.left), (size.left, size.right)):
        q = _integer(factor)
        if q is not None and q > 0 and q % width == 0:
            return count if q == width else c_ast.BinaryOp("*", count, c_ast.Constant("int", str(q // width)))
    return None


def _integer(node: c_ast.Node) -> int | None:
    return int_constant(node) if isinstance(node, c_ast.Constant) else None


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
