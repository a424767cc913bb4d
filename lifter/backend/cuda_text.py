"""Small helpers the kernels (cuda_kernels.py) and the regions (cuda.py) share: kernel names,
indentation, unions of ranges. Reading C text is the frontend's (spans.py); bounds of ranges and
subscripts as C, analysis/subscript_bounds.py.
"""
from __future__ import annotations

from lifter.graph.nodes import AccessNode


def _base(function: str) -> str:
    return function if function.startswith("kernel") else f"kernel_{function}"


def _sanitize(name: str) -> str:
    """A C name made of a member path's words (`g->u` -> `g_u`): every run of other characters one
    `_`, none at the ends."""
    return "_".join("".join(c if c.isalnum() or c == "_" else " " for c in name).split()).strip("_") or "x"


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.rstrip("L"))
    except ValueError:
        return None


def _indent(text: str, indent: str) -> str:
    return "\n".join(indent + l if l.strip() else l for l in text.split("\n"))


def _union(a, b, ok: bool):
    if not ok:
        return False
    if a is False or b is False:
        return False
    if a is None:
        return b
    if b is None:
        return a
    try:
        return a.union(b).coalesce()
    except Exception:  # isl: spaces that cannot be aligned
        try:
            return a.align_params(b.get_space()).union(b.align_params(a.get_space())).coalesce()
        except Exception:
            return False


def _c_ndim(node: AccessNode) -> int:
    """Dimensions of the C object: a delinearized flat buffer (`strides`) is one-dimensional in C."""
    return 1 if getattr(node, "strides", None) else node.ndim
