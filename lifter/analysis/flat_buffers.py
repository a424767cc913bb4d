"""Flat buffers read as multi-dimensional arrays, in the region builder (scop.py).

The pure side of delinearization (monomials, chains, readings) is `delinearize.py`; this is the
region builder's: which names are sizes, the shape a container takes, and each access's
subscripts, proved within the shape by isl over the statement's domain. A mixin of
`scop.RegionBuilder`, whose state it reads (`_translator`, `_stand_ins`, `_is_parameter`,
`_loop_vars`, `params`, `shapes`, `_readings`, `_affine_sizes`), kept apart to keep that
module small.
"""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import NotAffine, c_name, isl_name
from lifter.analysis.delinearize import affine_size, extents, subscripts
from lifter.analysis.model import Container


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

    def _delinearized(self, stmt, ref, translate, iters, container, span=None) -> tuple[list[str], bool, isl.Set | None]:
        """Subscripts of an access to a delinearized buffer, if provably within the shape
        (for every offset of a call's range `span`, where there is one), and the sizes' test
        under which they are, where they are only when the sizes are not negative (else None)."""
        chain = self.shapes[ref.key]
        if len(ref.subscripts) != 1 or ref.subscripts[0] is None:
            return [], False, None
        try:
            readings = subscripts(ref.subscripts[0], chain, translate, self._readings[ref.key])
        except NotAffine:
            return [], False, None
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
            return [subs[0] if exact else "o0"] + subs[1:], exact, assumed
        return [], False, None

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
