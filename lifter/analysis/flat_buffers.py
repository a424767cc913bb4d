"""Flat buffers read as multi-dimensional arrays, in the region builder (scop.py).

The pure side of delinearization (monomials, chains, readings) is `delinearize.py`; this is the
region builder's: which names are sizes, the shape a container takes, and each access's
subscripts, proved within the shape by isl over the statement's domain. A mixin of
`scop.RegionBuilder`, whose state it reads (`_translator`, `_stand_ins`, `_is_parameter`,
`_loop_vars`, `params`, `shapes`, `_readings`, `_affine_sizes`), kept apart to keep that
module small.
"""
from __future__ import annotations

from itertools import product
from typing import NamedTuple

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import NotAffine, c_name, isl_name
from lifter.analysis.delinearize import affine_size, extents, subscripts
from lifter.analysis.model import Container


# Carries between rows are tried for up to three dimensions (3**2 - 1 pieces besides the plain one).
_MOST_CARRIED_DIMENSIONS = 3
_SIGN = {1: " + ", -1: " - ", 0: " + 0*"}  # a carry's term in isl: none, plus or minus


class FlatAccess(NamedTuple):
    """One access to a delinearized buffer: its subscripts (`o0` where not known), whether it
    names exactly one element, the sizes' test under which it does (`_delinearized`), and, for
    an access read in pieces (`_carried`), the isl condition relating its outputs `o0, o1, ...`
    to the iteration (the subscripts are then those output names)."""

    subs: list[str]
    exact: bool
    assumed: isl.Set | None = None
    where: str | None = None


class FlatBuffers:
    def _is_size(self, name) -> bool:
        """A name, or a struct field's node, that may be a size parameter of a flat buffer; or a
        padded size `n + 2`: affine in such parameters and naming one (kept in `_affine_sizes`,
        so that the extent check reads it as the expression it is)."""
        if isinstance(name, c_ast.BinaryOp):
            try:
                translate = self._translator([])
                translate.expr(name)
            except NotAffine:
                return False
            if not translate.parameters:
                return False
            self._affine_sizes[affine_size(name)] = name
            return True
        if isinstance(name, c_ast.Node):
            return self._stand_ins(name) is not None
        return name not in self._loop_vars and self._is_parameter(name)

    def _shape(self, key: str, c: Container) -> None:
        """Reads a flat 1-D buffer with the shape `_plan_shapes` found for it (delinearize.py)."""
        if key in self.shapes and c.ndim == 1 and not c.field:
            chain = self.shapes[key]
            c.ndim = len(chain)
            c.dims = [""] + ["*".join(extent) for extent in extents(chain)]
            c.strides = ["*".join(m) if m else "1" for m in chain]

    def _delinearized(self, stmt, ref, translate, iters, container, span=None) -> FlatAccess:
        """Subscripts of an access to a delinearized buffer, if provably within the shape
        (for every offset of a call's range `span`, where there is one), and the sizes' test
        under which they are, where they are only when the sizes are not negative; else the
        access as pieces that carry into the next row (`_carried`), where that reads it."""
        chain = self.shapes[ref.key]
        none = FlatAccess([], False)
        if len(ref.subscripts) != 1 or ref.subscripts[0] is None:
            return none
        try:
            readings = subscripts(ref.subscripts[0], chain, translate, self._readings[ref.key])
        except NotAffine:
            return none
        bounds = [" * ".join(self._extent_factor(factor, translate) for factor in extent) for extent in extents(chain)]
        sizes = sorted(set().union(*(self._size_params(extent) for extent in extents(chain))))
        params = ", ".join(isl_name(p) for p in sorted(self.params | translate.parameters))
        # A halo loop's `u[j*(nx + 2) + nx + 1]` stays in its row only where nx >= 0: such an
        # access is read so under that test, made in C before any loop it makes parallel.
        apart = isl.Set(f"[{params}] -> {{ : {' and '.join(f'{isl_name(p)} >= 0' for p in sizes) or 'false'} }}")
        for subs in readings:
            assumed = self._outside(stmt, subs[1:], bounds, params, iters, span, apart)
            if assumed is False:
                continue
            if assumed is not None:
                stmt.assumed += [t for t in (f"{c_name(isl_name(p))} >= 0" for p in sizes) if t not in stmt.assumed]
            exact = subs[0] is not None
            return FlatAccess([subs[0] if exact else "o0"] + subs[1:], exact, assumed)
        if span is None and len(chain) <= _MOST_CARRIED_DIMENSIONS and sizes:  # (a test to read them under)
            positive = isl.Set(f"[{params}] -> {{ : {' and '.join(f'{isl_name(p)} >= 1' for p in sizes) or 'false'} }}")
            for subs in readings:
                carried = self._carried(stmt, subs, bounds, params, iters, positive)
                if carried is not None:
                    if carried.assumed is not None:
                        stmt.assumed += [t for t in (f"{c_name(isl_name(p))} >= 1" for p in sizes)
                                         if t not in stmt.assumed]
                    return carried
        return none

    @staticmethod
    def _carried(stmt, subs, bounds, params, iters, positive) -> FlatAccess | None:
        """The access as pieces, one per carry of -1, 0 or 1 from each dimension into the next
        outer one: `q[j*nx + i]` with `i <= nx` is q[j][i] where i < nx and q[j + 1][0] where
        i = nx (a row's end spilling into the next row, or a left neighbour into the row
        before). Each piece keeps its columns within their extents, so at most one holds for an
        iteration, and the element it names is the address written (extents are positive
        where a column lies within one). Iterations no piece reads (a carry of 2 rows, an
        empty row) touch any element: then the access is not exact. It is read under the test
        that the sizes are at least 1 (`positive`, `FlatAccess.assumed`), where rows are not
        empty. None where no iteration carries (the access is any element, as before)."""
        n = len(subs)
        pieces, covers = [], []
        for carry in product((-1, 0, 1), repeat=n - 1):
            if not any(carry):
                continue
            k = (0,) + carry + (0,)  # k[d]: the carry out of dimension d (into d - 1)
            outs = [f"({subs[d]}){_SIGN[-k[d]]}({bounds[d - 1]}){_SIGN[k[d + 1]]}1" if d else
                    (f"({subs[0]}){_SIGN[k[1]]}1" if subs[0] is not None else None) for d in range(n)]
            cover = " and ".join(f"0 <= {o} < {b}" for o, b in zip(outs[1:], bounds))
            covers.append(cover)
            pieces.append(" and ".join([cover] + [f"o{d} = {o}" for d, o in enumerate(outs) if o is not None]))
        carrying = isl.Set(f"[{params}] -> {{ {stmt.id}[{', '.join(iters)}] : {' or '.join(f'({c})' for c in covers)} }}")
        if carrying.intersect(stmt.domain).is_empty():
            return None
        plain = " and ".join(f"0 <= {o} < {b}" for o, b in zip(subs[1:], bounds))
        covers.append(plain)
        pieces.append(" and ".join([plain] + [f"o{d} = ({o})" for d, o in enumerate(subs) if o is not None]))
        anywhere = " or ".join(f"({c})" for c in covers)
        uncovered = isl.Set(f"[{params}] -> {{ {stmt.id}[{', '.join(iters)}] : not ({anywhere}) }}")
        uncovered = uncovered.intersect(stmt.domain).intersect_params(positive)
        exact = subs[0] is not None and uncovered.is_empty()
        # Exact, it is so under the test always: the box of rows such an access spans reaches past
        # the column its last row ends at (`q[j*nx + i]`, i <= nx: rows 0..ny, columns 0..nx - 1
        # for an end at q[ny*nx]), too far for a copy of that box (CUDA's, MPI's), which leave a
        # loop under a test alone; OpenMP tests it, and only tests and sizes read the box.
        assumed = positive if exact else None
        where = " or ".join(f"({p})" for p in pieces) + f" or not ({anywhere})"
        return FlatAccess([f"o{d}" for d in range(n)], exact, assumed, where)

    @staticmethod
    def _outside(stmt, subs, bounds, params, iters, span, apart):
        """None if the inner subscripts stay within their extents wherever the statement runs,
        `apart` (the sizes' test) if they do where it holds, False if neither."""
        assumed = None
        for sub, bound in zip(subs, bounds):
            where = f"({sub} < 0 or {sub} >= {bound})"
            if span is not None:
                where = f"exists ({span[0]}: {span[1]} and {where})"
            outside = isl.Set(f"[{params}] -> {{ {stmt.id}[{', '.join(iters)}] : {where} }}").intersect(stmt.domain)
            if outside.is_empty():
                continue
            if not outside.intersect_params(apart).is_empty():
                return False
            assumed = apart
        return assumed

    def _size_params(self, extent) -> set[str]:
        """The size parameters a delinearized dimension's extent multiplies (`nx` of `(nx + 2)`)."""
        out = set()
        for factor in extent:
            if factor in self._affine_sizes:
                translate = self._translator([])
                translate.expr(self._affine_sizes[factor])
                out |= translate.parameters
            elif not factor.isdigit():
                out.add(factor)
        return out

    def _extent_factor(self, factor: str, translate) -> str:
        """One factor of a delinearized dimension's extent in isl: a constant, a padded size
        read as the affine expression it is, or a size parameter."""
        if factor.isdigit():
            return factor
        if factor in self._affine_sizes:
            return f"({translate.expr(self._affine_sizes[factor])})"
        translate.parameters.add(factor)
        return isl_name(factor)
