"""The number of points of an iteration domain, as a polynomial in its parameters.

The profitability guard of a parallel loop compares its work, the statement instances it
runs, with a threshold (transform/parallelize.py). Counting a triangular nest as its
longest row times the rows doubles the work; a tetrahedral one triples it. islpy has no
parametric counting (that is barvinok's `card`, not in isl), so this counts exactly the
sets a loop nest without strides or holes gives: each dimension runs over every integer
between an affine lower and upper bound of the dimensions outside it and the parameters
(rectangles, triangles, skewed bands, tetrahedra). It sums one dimension at a time, from
the innermost out, with the forward-difference form of summation, exact for polynomials:

    sum_{v=a}^{b} p(v) = sum_j (Δ^j p)(a) * C(b - a + 1, j + 1)

The bounds of each dimension are read from the projection of the set on it and the
dimensions outside it, so a row that would be empty is not in the range summed over; the
set must equal the box those bounds describe (no `if` that cuts holes, no stride), or the
answer is None. Where the whole set is empty (parameters for which the outermost loop runs
no iteration) the polynomial has no meaning: the guard is then only a test before a loop
that does nothing.
"""
from __future__ import annotations

from fractions import Fraction
from math import factorial, lcm

import islpy as isl
from pycparser import c_ast, c_generator

from lifter.analysis.affine import c_name
from lifter.conditions import int_value, parse_expression

# A polynomial: monomial (sorted (name, power) pairs) -> coefficient.
Poly = dict[tuple[tuple[str, int], ...], Fraction]

_DIM = "lift_d"  # isl names of the counted dimensions (user names are all prefixed, affine.py)


def count_points(s: isl.Set) -> Poly | None:
    """The number of points of `s` as a polynomial in its parameters (isl names), or None when
    `s` is not a box of affine bounds (see the module's docstring)."""
    try:
        return _count(s)
    except isl.Error:  # a bound isl cannot find (unbounded over a union of pieces): not a box
        return None


def _count(s: isl.Set) -> Poly | None:
    n = s.dim(isl.dim_type.set)
    for k in range(n):
        s = s.set_dim_name(isl.dim_type.set, k, f"{_DIM}{k}")
    bounds = []
    for k in range(n):
        inner = s.project_out(isl.dim_type.set, k + 1, n - k - 1)
        fiber = inner.move_dims(isl.dim_type.param, inner.dim(isl.dim_type.param), isl.dim_type.set, 0, k)
        found = _fiber_bounds(fiber)
        if found is None:
            return None
        bounds.append(found)
    total: Poly = {(): Fraction(1)}
    for k in reversed(range(n)):
        total = _sum(total, f"{_DIM}{k}", *bounds[k])
    return {m: c for m, c in total.items() if c}


def _fiber_bounds(fiber: isl.Set) -> tuple[Poly, Poly] | None:
    """The affine lower and upper bound of a one-dimensional set over its parameters, when every
    integer between them is in it."""
    lo, hi = fiber.dim_min(0), fiber.dim_max(0)
    found = _affine(lo), _affine(hi)
    if None in found:
        return None
    x = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(fiber.get_space()), isl.dim_type.set, 0)
    box = lo.add_dims(isl.dim_type.in_, 1).le_set(x) & x.le_set(hi.add_dims(isl.dim_type.in_, 1))
    if not box.is_equal(fiber):
        return None
    return found


def _affine(pw: isl.PwAff) -> Poly | None:
    """A single-piece affine function of the parameters with integer coefficients, as a Poly."""
    pieces = pw.get_pieces()
    if len(pieces) != 1:
        return None
    aff = pieces[0][1]
    if aff.dim(isl.dim_type.div) > 0 or aff.get_denominator_val().to_python() != 1:
        return None
    out: Poly = {}
    for i in range(aff.dim(isl.dim_type.param)):
        c = aff.get_coefficient_val(isl.dim_type.param, i).to_python()
        if c:
            out[((aff.get_dim_name(isl.dim_type.param, i), 1),)] = Fraction(c)
    const = aff.get_constant_val().to_python()
    if const:
        out[()] = Fraction(const)
    return out


def add_polys(p: Poly, q: Poly, scale: Fraction = Fraction(1)) -> Poly:
    out = dict(p)
    for m, c in q.items():
        out[m] = out.get(m, Fraction(0)) + scale * c
    return {m: c for m, c in out.items() if c}


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            powers = dict(m1)
            for name, e in m2:
                powers[name] = powers.get(name, 0) + e
            m = tuple(sorted(powers.items()))
            out[m] = out.get(m, Fraction(0)) + c1 * c2
    return {m: c for m, c in out.items() if c}


def _substitute(p: Poly, name: str, value: Poly) -> Poly:
    """`p` with the variable `name` replaced by the polynomial `value`."""
    out: Poly = {}
    for m, c in p.items():
        term: Poly = {tuple(x for x in m if x[0] != name): c}
        for _ in range(dict(m).get(name, 0)):
            term = _mul(term, value)
        out = add_polys(out, term)
    return out


def _sum(p: Poly, name: str, first: Poly, last: Poly) -> Poly:
    """sum_{name=first}^{last} p, for last >= first - 1."""
    degree = max((dict(m).get(name, 0) for m in p), default=0)
    values = [_substitute(p, name, add_polys(first, {(): Fraction(i)})) for i in range(degree + 2)]
    rows = add_polys(add_polys(last, first, Fraction(-1)), {(): Fraction(1)})  # last - first + 1
    out: Poly = {}
    choose: Poly = {(): Fraction(1)}  # C(rows, j + 1), built one factor at a time
    for j in range(degree + 1):
        choose = _mul(choose, add_polys(rows, {(): Fraction(-j)}))
        difference = {}
        for i in range(j + 1):  # (Δ^j p)(first) = sum_i (-1)^(j-i) C(j, i) p(first + i)
            sign = -1 if (j - i) % 2 else 1
            difference = add_polys(difference, values[i], Fraction(sign * factorial(j), factorial(i) * factorial(j - i)))
        out = add_polys(out, _mul(difference, choose), Fraction(1, factorial(j + 1)))
    return out


def largest(p: Poly, where: isl.Set) -> int | None:
    """An upper bound of `p` over the points of `where` (set dimensions and parameters named as
    in `p`), when it does not depend on the parameters (isl's Bernstein bound); else None. An
    inner loop's work as a function of the loops around it: a bound below the threshold means
    the test would never be true there."""
    space = where.get_space()
    total = isl.QPolynomial.zero_on_domain(space)
    for m, c in p.items():
        term = isl.QPolynomial.val_on_domain(space, isl.Val(f"{c.numerator}/{c.denominator}"))
        for name, e in m:
            for kind in (isl.dim_type.set, isl.dim_type.param):
                at = where.find_dim_by_name(kind, name)
                if at >= 0:
                    break
            else:
                return None
            term = term.mul(isl.QPolynomial.var_on_domain(space, kind, at).pow(e))
        total = total.add(term)
    try:
        bound, _ = isl.PwQPolynomial.from_qpolynomial(total).intersect_domain(where).bound(isl.fold.max)
        bound = bound.drop_unused_params()
        if bound.dim(isl.dim_type.param) or where.is_empty():
            return None
        return bound.max().floor().to_python()
    except isl.Error:  # no bound found (an unbounded set)
        return None


def same_value(text: str, p: Poly) -> bool:
    """Whether the C expression `text` (sums and products of integer constants and names, casts
    aside) is the polynomial `p`: then it is the one to print, as it was written (`n * (m + 2)`)."""
    written = _from_c(parse_expression(text))
    return written is not None and written == {tuple(sorted((_c_atom(x), e) for x, e in m)): c for m, c in p.items()}


def _c_atom(name: str) -> str:
    """The C text of an isl name as a factor of a product (a stand-in without its parentheses)."""
    text = c_name(name)
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _from_c(node: c_ast.Node | None) -> Poly | None:
    if node is None:
        return None
    value = int_value(node)
    if value is not None:
        return {(): Fraction(value)} if value else {}
    if isinstance(node, c_ast.Cast):
        return _from_c(node.expr)
    if isinstance(node, (c_ast.ID, c_ast.StructRef)):
        return {((c_generator.CGenerator().visit(node), 1),): Fraction(1)}
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        inner = _from_c(node.expr)
        return None if inner is None else add_polys({}, inner, Fraction(-1))
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        left, right = _from_c(node.left), _from_c(node.right)
        if left is None or right is None:
            return None
        if node.op == "*":
            return _mul(left, right)
        return add_polys(left, right, Fraction(1 if node.op == "+" else -1))
    return None


def constant(p: Poly) -> int | None:
    """The value of a polynomial without variables."""
    if any(m for m in p):
        return None
    return int(p.get((), 0))


def poly_to_c(p: Poly) -> str:
    """C text of a polynomial with an integer value at integer points, in `long` arithmetic and the
    user's names: `((long)n * n + (long)n) / 2`. Highest degree first."""
    denominator = lcm(*(c.denominator for c in p.values())) if p else 1
    terms = []
    for m, c in sorted(p.items(), key=lambda t: (-sum(e for _, e in t[0]), t[0])):
        value = int(c * denominator)
        factors = [c_name(name) for name, e in m for _ in range(e)]
        if not factors:
            text = f"{abs(value)}L"
        elif abs(value) == 1:
            text = " * ".join([f"(long){factors[0]}"] + factors[1:])
        else:
            text = " * ".join([f"{abs(value)}L"] + factors)
        terms.append(("-" if value < 0 else "+", text))
    if not terms:
        return "0L"
    out = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    for sign, text in terms[1:]:
        out += f" {sign} {text}"
    return f"({out}) / {denominator}" if denominator != 1 else out
