"""Which elements a summarized function touches through each pointer parameter.

A call summary (symbols.py `CallEffects`) says through which pointer parameters
a function reads and writes. For a per-row helper, `row_update(double *p, int m)`
writing `p[0] .. p[m-1]`, that is not enough to parallelize
`for (i...) row_update(&a[i*n], n);`: each call writes "any element" of `a`. A
*span* is the range of offsets the function touches through one parameter, as
affine bounds over its integer parameters: (0, m - 1) here, so that the call
touches `a[i*n + 0 .. i*n + m - 1]`, row i (effects.py turns that into an access
over a range, scop.py into an isl relation).

A parameter gets a span only when every access through it is `p[e]` or `*p`, with
`e` affine in the enclosing loops' variables and in integer parameters the function
never assigns, inside `for` loops with affine headers only; a pointer passed on to
another function, copied into a local pointer, or accessed inside any other loop
has none (any element). Conditions inside the function are ignored: the span
covers every element the accesses may touch.
"""
from __future__ import annotations

import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import AffineTranslator, NotAffine, int_constant

ARG = "arg"  # bounds name the call's arguments by position: arg1 is the second argument


class SpanRecorder:
    """Collects the accesses through pointer parameters while a function body is walked."""

    def __init__(self, integer_params: dict[str, int], assigned: set[str]):
        self.integer_params = integer_params  # integer parameter -> position
        self.assigned = assigned
        self.loops: list[tuple[str, str] | None] = []  # (variable, isl constraint), None: opaque
        self.accesses: dict[int, list[str]] = {}  # position -> isl sets of touched offsets
        self.unranged: set[int] = set()

    # -- loops ---------------------------------------------------------------------------
    def enter_loop(self, node) -> None:
        """A loop around the accesses that follow, until `leave_loop`."""
        self.loops.append(self._header(node) if isinstance(node, c_ast.For) else None)

    def leave_loop(self) -> None:
        self.loops.pop()

    def _header(self, node: c_ast.For) -> tuple[str, str] | None:
        init, cond, step = node.init, node.cond, node.next
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
            var, start = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            var, start = init.lvalue.name, init.rvalue
        else:
            return None
        unit = (isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++") and _is(step.expr, var)) or \
            (isinstance(step, c_ast.Assignment) and step.op == "+=" and _is(step.lvalue, var)
             and int_constant(step.rvalue) == 1)
        if not unit or var in self.integer_params or not isinstance(cond, c_ast.BinaryOp) \
                or cond.op not in ("<", "<=") or not _is(cond.left, var) or _assigns(node.stmt, var):
            return None
        try:
            translate = self._translator()
            lower, upper = translate.expr(start), translate.expr(cond.right)
        except NotAffine:
            return None
        if translate.numerators:
            return None
        v = f"v_{var}"
        return v, f"{lower} <= {v} {cond.op} {upper}"

    # -- accesses --------------------------------------------------------------------------
    def access(self, position: int, subscript) -> None:
        """`p[subscript]` (or `*p` with subscript None) through the parameter at `position`."""
        if position in self.unranged:
            return
        if any(loop is None for loop in self.loops):
            self.unranged.add(position)
            return
        try:
            translate = self._translator()
            offset = "0" if subscript is None else translate.expr(subscript)
        except NotAffine:
            self.unranged.add(position)
            return
        if translate.numerators:
            self.unranged.add(position)
            return
        names = ", ".join(v for v, _ in self.loops)
        where = " and ".join([c for _, c in self.loops] + [f"o = {offset}"])
        inner = f"exists ({names}: {where})" if names else where
        self.accesses.setdefault(position, []).append(f"{{ [o] : {inner} }}")

    def lose(self, position: int) -> None:
        """The parameter is used in a way whose elements cannot be bounded."""
        self.unranged.add(position)

    def _translator(self) -> AffineTranslator:
        loop_vars = [v[2:] for v, _ in self.loops]
        return AffineTranslator(loop_vars, lambda name: name in self.integer_params and name not in self.assigned)

    # -- result ----------------------------------------------------------------------------
    def spans(self) -> tuple[tuple[int, str, str], ...]:
        """(position, first offset, last offset) per parameter with a span; bounds are isl text
        over `arg<k>`, the call's k-th argument."""
        out = []
        params = ", ".join(f"v_{p}" for p in sorted(self.integer_params))
        for position, sets in sorted(self.accesses.items()):
            if position in self.unranged:
                continue
            bounds = [_bounds(isl.Set(f"[{params}] -> {text}")) for text in sets]
            if None in bounds:
                continue
            # Each access's bounds are one affine piece; together, their min and max.
            lo = _fold("min", sorted({b[0] for b in bounds}))
            hi = _fold("max", sorted({b[1] for b in bounds}))
            rename = lambda m: f"{ARG}{self.integer_params[m.group(1)]}"
            out.append((position, re.sub(r"\bv_(\w+)", rename, lo), re.sub(r"\bv_(\w+)", rename, hi)))
        return tuple(out)


def _fold(fn: str, terms: list[str]) -> str:
    """`min(a, min(b, c))`: isl's min and max take two arguments."""
    return terms[0] if len(terms) == 1 else f"{fn}({terms[0]}, {_fold(fn, terms[1:])})"


def _bounds(touched: isl.Set) -> tuple[str, str] | None:
    """(first, last) offset of one access as affine isl text, None if either is not one piece."""
    try:
        lo, hi = _affine(touched.dim_min(0)), _affine(touched.dim_max(0))
    except isl.Error:
        return None
    return (lo, hi) if lo is not None and hi is not None else None


def _affine(pw: isl.PwAff) -> str | None:
    """isl text of a single-piece affine bound without divisions over parameters, else None."""
    pieces = []
    pw.foreach_piece(lambda dom, aff: pieces.append(aff))
    if len(pieces) != 1:
        return None
    aff = pieces[0]
    if aff.dim(isl.dim_type.div) > 0 or aff.get_denominator_val().to_python() != 1:
        return None
    terms = [str(aff.get_constant_val().to_python())]
    for i in range(aff.dim(isl.dim_type.param)):
        c = aff.get_coefficient_val(isl.dim_type.param, i).to_python()
        if c:
            terms.append(f"{c}*{aff.get_dim_name(isl.dim_type.param, i)}")
    return " + ".join(terms)


def _is(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _assigns(node, name: str) -> bool:
    from lifter.analysis.walk import walk

    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
        if _is(target, name) or (isinstance(n, c_ast.Decl) and n.name == name):
            return True
    return False
