"""Parametric access ranges: which elements an access touches over a scope, and isl bounds
and conditions as C text (analysis facts: the graph builder puts the ranges on memlets, the
transforms write the conditions into run-time tests).

The outer loop variables of the scope become symbols (isl parameters), the
scope's own and inner variables are projected out, and the image is bounded
dimension by dimension (a box hull, which is what a memlet's subset states).
"""
from __future__ import annotations

import islpy as isl

from lifter.analysis.affine import c_name


def access_range(relation: isl.Map, outer: int) -> isl.Set:
    """Elements touched by `relation` for fixed values of its first `outer` iterators."""
    nparam = relation.dim(isl.dim_type.param)
    moved = relation.move_dims(isl.dim_type.param, nparam, isl.dim_type.in_, 0, outer)
    return moved.range()


def _bound(s: isl.Set, dim: int, upper: bool) -> isl.PwAff | None:
    """The least or greatest index in a dimension, None where it is unbounded."""
    try:
        return s.dim_max(dim) if upper else s.dim_min(dim)
    except isl.Error:
        return None


def box(s: isl.Set) -> list[tuple[str, str]]:
    """Per dimension (first, last) as readable text; '?' where unbounded."""
    out = []
    for d in range(s.dim(isl.dim_type.set)):
        lo, hi = _bound(s, d, False), _bound(s, d, True)
        try:
            out.append(("?", "?") if lo is None or hi is None else (readable(lo), readable(hi)))
        except isl.Error:  # an empty range (a statement that never runs) has no bounds to print
            out.append(("?", "?"))
    return out


def readable(pw: isl.PwAff) -> str:
    """C-like text of a piecewise bound (isl's printer: may use min/max), for people."""
    return c_name(isl_text(pw))


def isl_text(pw: isl.PwAff) -> str:
    """isl's printed form of a piecewise bound, in isl's names (text isl parses back)."""
    build = isl.AstBuild.from_context(isl.Set.universe(pw.get_domain_space()))
    return build.expr_from_pw_aff(pw).to_C_str()


def pw_to_c(pw: isl.PwAff) -> str | None:
    """Strict C text of a single-piece affine bound without divisions, else None."""
    pieces = []
    pw.foreach_piece(lambda dom, aff: pieces.append((dom, aff)))
    if len(pieces) != 1:
        return None
    _, aff = pieces[0]  # the piece's domain only excludes empty loops
    if any(aff.get_coefficient_val(isl.dim_type.div, i).to_python() for i in range(aff.dim(isl.dim_type.div))):
        return None
    if aff.get_denominator_val().to_python() != 1:
        return None
    terms = []
    for i in range(aff.dim(isl.dim_type.param)):
        c = aff.get_coefficient_val(isl.dim_type.param, i).to_python()
        if c:
            name = c_name(aff.get_dim_name(isl.dim_type.param, i))
            # every term signed: `-1L*m` with a size_t m is unsigned, and `-1L*m >= 0L` always true
            terms.append(f"{c}L*(long){name}" if c != 1 else f"(long){name}")
    for i in range(aff.dim(isl.dim_type.in_)):
        if aff.get_coefficient_val(isl.dim_type.in_, i).to_python():
            return None
    const = aff.get_constant_val().to_python()
    if const or not terms:
        terms.append(f"{const}L")
    return " + ".join(terms).replace("+ -", "- ")


def bound_c(s: isl.Set, dim: int, upper: bool) -> str | None:
    """Strict C text of the first or last index of a dimension, or None."""
    pw = _bound(s, dim, upper)
    return pw_to_c(pw) if pw is not None else None


def rounded_upper_c(s: isl.Set, dim: int) -> str | None:
    """C text of a value at or above the last index of a dimension whose exact bound floors a
    division with a positive coefficient (rows `i / 2` for i <= n - 2: `floor((1 + n)/2) - 1`),
    else None. C's `/` truncates toward zero, never below the floor, so the text may exceed the
    bound by one where the divided value is negative: only for ranges that may grow (alias
    tests' spans, sizes of private copies), never for loop bounds or copies back."""
    pw = _bound(s, dim, True)
    if pw is None:
        return None
    pieces = []
    pw.foreach_piece(lambda dom, aff: pieces.append(aff))
    if len(pieces) != 1:
        return None
    aff, divisions = pieces[0], []
    for i in range(aff.dim(isl.dim_type.div)):
        c = aff.get_coefficient_val(isl.dim_type.div, i).to_python()
        if c == 0:
            continue
        inner = aff.get_div(i)  # the division floors this rational expression
        den = inner.get_denominator_val().to_python()
        num = pw_to_c(isl.PwAff.from_aff(inner.scale_val(isl.Val.int_from_si(inner.get_ctx(), den))))
        if c < 0 or num is None:
            return None
        divisions.append(f"{c}L*(({num}) / {den}L)")
        aff = aff.set_coefficient_val(isl.dim_type.div, i, isl.Val.zero(aff.get_ctx()))
    rest = pw_to_c(isl.PwAff.from_aff(aff))
    if rest is None or not divisions:
        return None
    return " + ".join([rest] + divisions)


def params_c(s: isl.Set) -> str | None:
    """A set of parameter values as a C condition (None if it needs divisions)."""
    disjuncts = []

    def basic(bs):
        if bs.dim(isl.dim_type.div) > 0:
            disjuncts.append(None)
            return
        terms = []
        bs.foreach_constraint(lambda c: terms.append(
            (pw_to_c(isl.PwAff.from_aff(c.get_aff())), "==" if c.is_equality() else ">=")))
        disjuncts.append(None if any(t is None for t, _ in terms)
                         else " && ".join(f"{t} {op} 0L" for t, op in terms) or "1")

    s.foreach_basic_set(basic)
    if not disjuncts or None in disjuncts:
        return None
    return "(" + " || ".join(f"({x})" for x in disjuncts) + ")"
