"""Delinearization: `a[i*n + j]` on a flat buffer read as `a[i][j]`.

Real code indexes malloc'd buffers with products of loop variables and sizes
(`(i*ny + j)*nz + k`), which is not affine; padded grids with ghost cells use sizes that are
sums, `i*(n + 2) + j`: such a sum is one size of its own (`affine_size`), whose extent the
region builder knows as the affine expression it is. Written as a sum over monomials of
size parameters, `i*(ny*nz) + j*(nz) + k*(1)`, each coefficient is affine; if
the monomials of all accesses to a buffer form one chain (ny*nz, nz, 1), the
buffer has the shape [?][ny][nz] and each access has one affine subscript per
dimension. The reading is only valid where every inner subscript stays within
its extent (0 <= j < ny, 0 <= k < nz): the region builder proves that from the
iteration domain for each access, and an access where it cannot is treated as
touching any element.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd
from typing import Callable

from pycparser import c_ast

from lifter.analysis.affine import AffineTranslator, NotAffine, c_text, int_constant, value_preserving_cast
from lifter.frontend.walk import walk

Monomial = tuple[str, ...]  # sorted parameter names; () is the constant term


def monomials(node: c_ast.Node, is_size) -> dict[Monomial, c_ast.Node]:
    """Split an index into {monomial of size parameters: affine coefficient expression}.

    `is_size(name)` says which names are size parameters (they multiply loop
    variables); other names (loop variables) must appear linearly. A struct field
    (`g->ny`) is a size when `is_size(node)` accepts its node (a stand-in parameter,
    see invariants.py); its monomial factor is then its C text.
    """
    terms = _expand(node, is_size)
    out: dict[Monomial, c_ast.Node] = {}
    for mono, coeff in terms:
        out[mono] = coeff if mono not in out else c_ast.BinaryOp("+", out[mono], coeff)
    return out


def _expand(node, is_size) -> list[tuple[Monomial, c_ast.Node]]:
    if isinstance(node, c_ast.Cast):
        # a cast that may change the value stays whole, for the affine translator to judge
        return _expand(node.expr, is_size) if value_preserving_cast(node) else [((), node)]
    if isinstance(node, c_ast.BinaryOp) and node.op in "+-":
        left, right = _expand(node.left, is_size), _expand(node.right, is_size)
        if node.op == "-":
            right = [(m, c_ast.UnaryOp("-", c)) for m, c in right]
        return left + right
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        return [(m, c_ast.UnaryOp("-", c)) for m, c in _expand(node.expr, is_size)]
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        left, right = node.left, node.right
        size_l, size_r = _scaled_size(left, is_size), _scaled_size(right, is_size)
        if size_r is not None:
            return [(tuple(sorted(m + size_r)), c) for m, c in _expand(left, is_size)]
        if size_l is not None:
            return [(tuple(sorted(m + size_l)), c) for m, c in _expand(right, is_size)]
        for k, other in ((left, right), (right, left)):
            if _constant(k) is not None:
                terms = _expand(other, is_size)
                if any(m for m, _ in terms):
                    # `4*(j*nx + i)`, interleaved components: the constant scales every coefficient;
                    # `Reading.folds` makes it a factor of the strides (`4*nx`) where all share it.
                    return [(m, c_ast.BinaryOp("*", k, c)) for m, c in terms]
        return [((), node)]  # constant factors and the like: left to the affine translator
    name = _size_name(node, is_size)
    if name is not None:
        return [((name,), c_ast.Constant("int", "1"))]
    return [((), node)]


def _size_name(node, is_size) -> str | None:
    if isinstance(node, c_ast.ID) and is_size(node.name):
        return node.name
    if isinstance(node, c_ast.StructRef) and is_size(node):
        return c_text(node)
    if isinstance(node, c_ast.BinaryOp) and node.op in "+-" and is_size(node):
        return affine_size(node)
    return None


def affine_size(node: c_ast.BinaryOp) -> str:
    """The name of a padded size `n + 2` (a sum of size parameters and constants, accepted by
    `is_size`): its parenthesized C text, so that a stride built of it (`(n + 2)*(m + 2)`) is C."""
    return f"({c_text(node)})"


def _constant(node) -> str | None:
    """A positive integer constant's value in decimal (a stride factor, `4` in `4*nx`, `010` is
    8), else None: `int_constant` reads C's literals (octal, hexadecimal; none that fits no C
    integer type); a plain `int` only (an unsigned factor would make the subscript wrap)."""
    value = int_constant(node) if isinstance(node, c_ast.Constant) and node.type == "int" else None
    return str(value) if value is not None and value > 0 else None


def _scaled_size(node, is_size) -> Monomial | None:
    """`_size_product` where it names at least one size parameter (`nx`, `4*nx`; not `4`)."""
    found = _size_product(node, is_size)
    return found if found is not None and not all(f.isdigit() for f in found) else None


def _size_product(node, is_size) -> Monomial | None:
    """The size parameters and constant factors multiplied in `node` (n, n*m, (n), 4*n), or None
    if it is something else."""
    if isinstance(node, c_ast.Cast):
        return _size_product(node.expr, is_size) if value_preserving_cast(node) else None
    name = _size_name(node, is_size) or _constant(node)
    if name is not None:
        return (name,)
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        a, b = _size_product(node.left, is_size), _size_product(node.right, is_size)
        if a is not None and b is not None:
            return tuple(sorted(a + b))
    return None


def shape_of(all_monomials: list[set[Monomial]]) -> list[Monomial] | None:
    """The chain of strides shared by every access (outermost first), or None.

    Each stride must be the next one times one more size parameter, and any constant factors:
    [(ny, nz), (nz,), ()] is the shape [?][ny][nz], [(4, nx), ()] (`4*(j*nx + i) + c`, four
    interleaved components) the shape [?][4*nx].
    """
    keys = set().union(*all_monomials) if all_monomials else set()
    keys.add(())
    chain = sorted(keys, key=len, reverse=True)
    if len(chain) < 2:
        return None
    for extent in extents(chain):
        if extent is None or sum(not f.isdigit() for f in extent) != 1:
            return None
    return chain


def _contains(big: Monomial, small: Monomial) -> bool:
    rest = list(big)
    for name in small:
        if name not in rest:
            return False
        rest.remove(name)
    return True


def extents(chain: list[Monomial]) -> list[Monomial | None]:
    """Extent of each inner dimension, as the factors it multiplies: those one stride has more
    than the next (the size parameter, with any constants: `("4", "nx")`); None where a stride
    does not contain the next (no chain)."""
    out = []
    for outer, inner in zip(chain, chain[1:]):
        rest = list(outer)
        if not _contains(outer, inner):
            out.append(None)
            continue
        for name in inner:
            rest.remove(name)
        out.append(tuple(rest))
    return out


def subscripts(node: c_ast.Node, chain: list[Monomial], translate: AffineTranslator, reading: "Reading") -> list:
    """The readings of one index in the buffer's shape (`Reading.alternatives`): each one isl
    subscript per dimension of `chain`; NotAffine if there is none.

    The outermost subscript may be None (not affine: `c*dim + d` with `c` loaded
    from memory): the outermost dimension has no extent to stay within, so the
    access still touches a known column of an unknown row. Each reading names the same
    address; at most one of them lies inside the shape, which the caller proves.
    """
    out = []
    for terms in reading.alternatives(node):
        if not set(terms) <= set(chain):
            continue
        subs = []
        try:
            for k, m in enumerate(chain):
                try:
                    subs.append(translate.expr(terms[m]) if m in terms else "0")
                except NotAffine:
                    if k:
                        raise
                    subs.append(None)
        except NotAffine:
            continue
        out.append(subs)
    if not out:
        raise NotAffine("index does not follow the buffer's shape")
    return out


@dataclass(frozen=True)
class Reading:
    """How one buffer's indices split into monomials (`buffer_shape`): `is_size` as the region
    gives it, but for the sizes found to be row indices (`rows`), and with a size `p` alone
    read through the padded size `(p + k)` the buffer's strides use (`padded`: p -> (its name,
    k)), so that the first row of a padded grid, `u[(nx + 2) + i]`, is row 1 like
    `u[1*(nx + 2) + i]`."""

    region_is_size: Callable
    rows: frozenset = frozenset()
    padded: tuple = ()  # (p, padded size's name, k)
    folds: tuple = ()  # (monomial, g): every coefficient of the monomial is g times an integer

    def is_size(self, name) -> bool:
        if isinstance(name, c_ast.StructRef):
            key = c_text(name)
        elif isinstance(name, c_ast.BinaryOp):
            key = affine_size(name)
        else:
            key = name
        return key not in self.rows and self.region_is_size(name)

    def terms(self, node: c_ast.Node, padded: bool = True) -> dict[Monomial, c_ast.Node]:
        """{monomial: coefficient} of an index; `padded`: a size alone `p` as `(p + k) - k`,
        else as a parameter of the innermost subscript (a column, `u[j*(nx + 2) + nx]`)."""
        terms = monomials(node, self.is_size)
        for p, name, k in self.padded:
            if (p,) in terms:
                c = terms.pop((p,))
                if padded:
                    _add(terms, (name,), c)
                    _add(terms, (), c_ast.BinaryOp("*", c_ast.Constant("int", str(-k)), c))
                else:
                    _add(terms, (), c_ast.BinaryOp("*", c, c_ast.ID(p)))
        for monomial, g in self.folds:
            if monomial in terms:
                k, rest = _factor(terms[monomial])
                if k % g == 0:
                    del terms[monomial]
                    _add(terms, _scaled(monomial, g), _times(k // g, rest))
        return terms

    def alternatives(self, node: c_ast.Node) -> list[dict[Monomial, c_ast.Node]]:
        """The ways to read an index: the first row of a padded grid, `u[(nx + 2) + i]`, is
        row 1; a halo column, `u[j*(nx + 2) + nx]`, is column nx of row j."""
        padded = self.terms(node)
        if not any((p,) in monomials(node, self.is_size) for p, _, _ in self.padded):
            return [padded]
        return [padded, self.terms(node, padded=False)]


def buffer_shape(indices: list[c_ast.Node], is_size, affine_sizes: dict, loop_vars: set[str]):
    """(chain, Reading) of a flat buffer's indices, or None.

    A size that only ever selects rows of the outermost dimension, never multiplied by a loop
    variable (`u[(ny + 1)*(nx + 2) + i]` beside `u[ny*(nx + 2) + i]`, a padded grid's last
    rows), is a row index, not a stride: read as a stride it makes a dimension `[ny]` whose
    subscript `1` isl cannot keep below `ny`. The chain is taken again with it read as a
    parameter of the outermost subscript, as long as that leaves two dimensions or more."""
    reading = Reading(is_size)
    while True:
        sets = [reading.terms(i) for i in indices]
        padded = _padded_sizes({f for terms in sets for m in terms for f in m}, affine_sizes)
        if padded and not reading.padded:
            reading = replace(reading, padded=padded)
            continue
        reading, sets = _folded(reading, indices)
        if not any(set(terms) - {()} for terms in sets):
            return None
        chain = shape_of([set(terms) for terms in sets])
        if chain is None:
            return None
        top = chain[0]
        if len(chain) < 3 or any(isinstance(n, c_ast.ID) and n.name in loop_vars
                                 for terms in sets if top in terms for n in walk(terms[top])):
            return chain, reading
        row = next(f for f in extents(chain)[0] if not f.isdigit())
        reading = replace(reading, rows=reading.rows | {row})


def _folded(reading: Reading, indices: list) -> tuple[Reading, list[dict]]:
    """The reading with each stride's common constant factor taken into the stride, and the
    indices' terms under it: `4*j*nx + 4*i + c` is then `j*(4*nx) + (4*i + c)`, a cell's four
    components in a row of 4*nx, as `4*(j*nx + i) + c` is; as written (`j*nx` with the
    coefficient 4*j) its column `4*i + c` leaves a row of nx. Where the factors would break the
    chain of strides (`j*nx*ny + 4*k*nx`), the reading stays unfolded.

    Either reading is sound: the region builder proves each access's columns within their
    extents; the folded one asks less (a column below 4*nx, not nx) for the same elements."""
    plain = replace(reading, folds=())
    sets = [plain.terms(i) for i in indices]
    factors: dict[Monomial, int] = {}
    for terms in sets:
        for monomial, coefficient in terms.items():
            if monomial:
                factors[monomial] = gcd(factors.get(monomial, 0), _factor(coefficient)[0])
    folds = tuple((m, g) for m, g in sorted(factors.items()) if g > 1)
    if folds:
        folded = replace(reading, folds=folds)
        folded_sets = [folded.terms(i) for i in indices]
        if shape_of([set(terms) for terms in folded_sets]) is not None:
            return folded, folded_sets
    return plain, sets


def _factor(node: c_ast.Node) -> tuple[int, c_ast.Node]:
    """(k, rest) with `node` equal to k*rest as integers, k the constant factor its terms all
    have (`4*j + 8` is 4*(j + 2)); (1, node) for anything else."""
    if isinstance(node, c_ast.Constant) and _constant(node) is not None:
        return int(_constant(node)), c_ast.Constant("int", "1")
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        k, rest = _factor(node.expr)
        return k, c_ast.UnaryOp("-", rest)
    if isinstance(node, c_ast.BinaryOp) and node.op == "*":
        (kl, rl), (kr, rr) = _factor(node.left), _factor(node.right)
        return kl * kr, rl if _is_one(rr) else rr if _is_one(rl) else c_ast.BinaryOp("*", rl, rr)
    if isinstance(node, c_ast.BinaryOp) and node.op in "+-":
        (kl, rl), (kr, rr) = _factor(node.left), _factor(node.right)
        g = gcd(kl, kr)
        return g, c_ast.BinaryOp(node.op, _times(kl // g, rl), _times(kr // g, rr))
    return 1, node


def _is_one(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == "1"


def _times(k: int, node: c_ast.Node) -> c_ast.Node:
    return node if k == 1 else c_ast.BinaryOp("*", c_ast.Constant("int", str(k)), node)


def _scaled(monomial: Monomial, g: int) -> Monomial:
    """The monomial times g, its constant factors multiplied into one (`("4", "nx")` times 2 is
    `("8", "nx")`)."""
    k = g
    for f in monomial:
        k *= int(f) if f.isdigit() else 1
    return tuple(sorted((str(k),) + tuple(f for f in monomial if not f.isdigit())))


def _add(terms: dict, monomial: Monomial, coefficient: c_ast.Node) -> None:
    terms[monomial] = c_ast.BinaryOp("+", terms[monomial], coefficient) if monomial in terms else coefficient


def _padded_sizes(factors: set[str], affine_sizes: dict) -> tuple:
    """(p, name, k) for each padded size `p + k` or `p - k` among `factors` whose `p` is a
    factor too."""
    out = []
    for name in sorted(f for f in factors if f in affine_sizes):
        node = affine_sizes[name]
        pairs = [(node.left, node.right, 1), (node.right, node.left, 1)] if node.op == "+" \
            else [(node.left, node.right, -1)]
        for p, k, sign in pairs:
            if isinstance(p, c_ast.ID) and p.name in factors and _constant(k) is not None:
                out.append((p.name, name, sign * int(_constant(k))))
                break
    return tuple(out)


__all__ = ["Reading", "affine_size", "buffer_shape", "extents", "monomials", "shape_of", "subscripts"]
