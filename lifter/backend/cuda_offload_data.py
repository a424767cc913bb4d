"""Data movement of the CUDA backend's nests: what one offloaded nest needs on the device.

`_OffloadData` is the data half of `cuda._NestOffload` (a mixin, beside `cuda_kernels._KernelCode`: it
uses the nest's graph, roles, kernels and context): the device arrays with the element ranges
the nest reads and writes (isl sets from the memlets), their first and last rows as C the host
evaluates before the nest (from those ranges; for subscripts isl cannot model, by interval
arithmetic over the statements' domains, `analysis/subscript_bounds.py`; else the array's
extent), whether the nest overwrites all it moves, what host code inside it writes, and the
planners' run-time condition: together the `NestData` the data scopes of cuda_data.py are made of.
"""
from __future__ import annotations

from dataclasses import dataclass

from lifter.analysis.minplus import declared_names
from lifter.analysis.model import Kind
from lifter.analysis.subscript_bounds import bound_expr, subscript_interval
from lifter.backend.cuda_data import ArrayUse, HostWrite, NestData, may_overlap
from lifter.backend.cuda_kernels import NotOffloaded
from lifter.backend.cuda_text import _c_ndim, _union
from lifter.frontend.spans import CExpr
from lifter.graph.build import STATE, data_id
from lifter.graph.nodes import AccessNode, MapScope, Memlet, scope_children, scope_descendants


@dataclass
class _Array:
    key: str
    node: AccessNode
    read: object = None  # isl ranges
    write: object = None


class _OffloadData:
    """The data half of `cuda._NestOffload`: device arrays, their rows, the nest's `NestData`."""

    def _node_rows(self, nid: str, key: str, written: bool) -> tuple[CExpr, CExpr]:
        """C text of the first and last row of device array `key` that the map or statement `nid` reads
        or writes, in terms of the host loop variables around it (sound: else the nest's rows).

        A statement's memlets carry no range: its rows are those of its own subscripts, else the
        whole buffer's. (The nest's rows from `_rows` count only what runs on the GPU: host code
        that writes elsewhere, `memset(a + (i - 1) * m, ...)` before a kernel on row i, had its
        rows sent to the device from the kernel's rows, and the device's stale row came back.)"""
        node = self.g.nodes[data_id(key)]["node"]
        rng = None
        edges = self.g.out_edges(nid, data=True) if written else self.g.in_edges(nid, data=True)
        for u, v, d in edges:
            other = v if written else u
            if isinstance(d["edge"], Memlet) and self.canon.get(self.g.nodes[other]["node"].container) == key:
                r = d["edge"].range
                rng = False if r is None else _union(rng, r, True)
        if rng is False and not isinstance(self.g.nodes[nid]["node"], MapScope):
            rows = self._interval_rows(key, written, [nid])
            if rows is not None and self._host_visible(*rows):
                return rows
            s = self._dn(key)
            lo, rows = f"lift_lo_{s}", f"lift_rows_{s}"
            return CExpr(lo, {lo}), CExpr(f"{lo} + {rows} - 1", {lo, rows})
        return self._rows(_Array(key, node), rng if rng is not None else False)

    def _arrays(self, device: set[str]) -> list[_Array]:
        """Device arrays with the element ranges the nest reads and writes (isl sets)."""
        out = {}
        for c in scope_children(self.g, STATE):
            node = self.g.nodes[c]["node"]
            edges = [(u, False, d) for u, _, d in self.g.in_edges(c, data=True)] + \
                    [(v, True, d) for _, v, d in self.g.out_edges(c, data=True)]
            for other, written, d in edges:
                if not isinstance(d["edge"], Memlet):
                    continue
                key = self.canon.get(self.g.nodes[other]["node"].container)
                if key not in device:
                    continue
                a = out.setdefault(key, _Array(key, self.g.nodes[data_id(key)]["node"]))
                if written:
                    a.write = _union(a.write, d["edge"].range, isinstance(node, MapScope))
                else:
                    a.read = _union(a.read, d["edge"].range, isinstance(node, MapScope))
        for key in device:
            if key not in out:
                raise NotOffloaded(f"the accessed range of '{key}' is not known")
            if out[key].node.kind == Kind.MEMORY:
                raise NotOffloaded("the nest touches memory through pointers lift cannot bound")
        return [out[k] for k in sorted(out)]

    def _rows(self, a: _Array, rng) -> tuple[CExpr, CExpr]:
        """C text of the first and last row (index of the first dimension) of a range, with its words."""
        node = a.node
        strides = getattr(node, "strides", None) or []
        if rng is not None and rng is not False:
            if strides:  # a flat buffer indexed as A[i*m + j]: the flat range of the box
                bounds = [(bound_expr(rng, False, d), bound_expr(rng, True, d)) for d in range(len(strides))]
                if all(self._host_visible(lo, hi) for lo, hi in bounds):
                    words = set().union(*node.stride_words)
                    return (CExpr.of(" + ".join(f"({lo}) * ({st})" for (lo, _), st in zip(bounds, strides)),
                                     *(lo for lo, _ in bounds), names=words),
                            CExpr.of(" + ".join(f"({hi}) * ({st})" for (_, hi), st in zip(bounds, strides)),
                                     *(hi for _, hi in bounds), names=words))
            else:
                lo, hi = bound_expr(rng, False), bound_expr(rng, True)
                if self._host_visible(lo, hi):
                    return lo, hi
        rows = self._interval_rows(a.key, written_only=rng is a.write and a.write is not None)
        if rows is not None and self._host_visible(*rows):
            return rows
        dims = getattr(node, "dims", None) or []
        if dims and dims[0] and not strides and not (node.dim_words[0] & self._nest_written()):
            return CExpr("0L"), CExpr(f"(long)({dims[0]}) - 1L", {"long"} | node.dim_words[0])
        if node.kind == Kind.ARRAY:
            return CExpr("0L"), CExpr(f"(long)(sizeof({node.name}) / sizeof(({node.name})[0])) - 1L",
                                      {"long", "sizeof"} | node.name_words)
        raise NotOffloaded(f"the rows of '{node.name}' the nest touches cannot be bounded")

    def _host_visible(self, lo: CExpr | None, hi: CExpr | None) -> bool:
        """Whether a row bound is C the host can evaluate around the nest: it names no variable
        declared inside it (a counter of a loop kept as one statement, `for (unsigned j = m; j-- > 0;)`,
        or a local of the body; an outer variable of that name would be another object)."""
        if lo is None or hi is None:
            return False
        if self.inner_names is None:
            self.inner_names = {c.name for c in self.scop.containers.values() if c.declared_in is not None} | \
                set().union(*(declared_names(s.node) for s in self.scop.statements.values())) \
                if self.scop is not None else set()
        return not (lo.names | hi.names) & self.inner_names

    def _nest_written(self) -> set[str]:
        """Names whose value may change inside the nest: written scalars and loop variables."""
        out = set()
        for n, d in self.g.nodes(data=True):
            node = d["node"]
            if isinstance(node, MapScope):
                out.add(node.var)
            elif isinstance(node, AccessNode) and any(isinstance(e["edge"], Memlet)
                                                       for _, _, e in self.g.in_edges(n, data=True)):
                out.add(node.name)
        return out

    def _interval_rows(self, key: str, written_only: bool, statements=None) -> tuple[CExpr, CExpr] | None:
        """Rows from the subscripts as written, bounded by interval arithmetic over the statements'
        domains: sound for subscripts isl cannot model (`A[i * m + j]`), evaluated at run time.
        Only statements that run on the GPU count (host code copies what it uses around itself),
        or only `statements` where given."""
        if self.scop is None:
            return None
        los, his = [], []
        written = self._nest_written()
        if statements is None:
            statements = [x for nid, role in self.roles.items() if role in ("kernel", "serial")
                          for x in [nid] + scope_descendants(self.g, nid)]
        for nid in scope_descendants(self.g, STATE):
            if isinstance(self.g.nodes[nid]["node"], MapScope) or nid not in statements:
                continue
            edges = [] if written_only else [(u, d) for u, _, d in self.g.in_edges(nid, data=True)]
            edges += [(v, d) for _, v, d in self.g.out_edges(nid, data=True)]
            for other, d in edges:
                if not isinstance(d["edge"], Memlet) or self.canon.get(self.g.nodes[other]["node"].container) != key:
                    continue
                stmt = self.scop.statements.get(nid)
                if stmt is None or not d["edge"].text:
                    return None
                iv = subscript_interval(d["edge"].text, self.g.nodes[other]["node"].name, stmt, self.scop,
                                        self.ctx.cfile.returned_expression, written)
                if iv is None:
                    return None
                los.append(iv[0])
                his.append(iv[1])
        if not los:
            return None
        lo, hi = los[0], his[0]
        for x in los[1:]:
            lo = CExpr.of(f"lift_imin({lo}, {x})", lo, x, names={"lift_imin"})
        for x in his[1:]:
            hi = CExpr.of(f"lift_imax({hi}, {x})", hi, x, names={"lift_imax"})
        return CExpr.of(f"lift_imax(0L, {lo})", lo, names={"lift_imax"}), hi

    def _nest_data(self, arrays: list[_Array], nest: str, span) -> NestData:
        """What the nest's data scope needs: per device array the rows touched and written (C text,
        from the memlets) and whether the nest overwrites all it moves; the run-time condition."""
        uses = []
        gpu_written = {self.canon.get(k, k) for nid, role in self.roles.items() if role in ("kernel", "serial")
                       for k in self._written_arrays(nid)}
        for a in arrays:
            h = a.node.name
            lo, hi = self._rows(a, _union(a.read, a.write, True))
            use = ArrayUse(h, self._dn(a.key), f"sizeof(({h})[0])", a.node, lo, hi, covers=self._write_covers(a),
                           tracked=a.key in self.tracked)
            if a.write is not None and (a.key in gpu_written or not self.sync_reasons):
                use.wlo, use.whi = self._rows(a, a.write)
                if self.sync_reasons:  # host code writes rows the buffer may not hold: only the buffer's come back
                    use.wlo, use.whi = (CExpr.of(f"lift_imax({use.wlo}, {lo})", use.wlo, lo, names={"lift_imax"}),
                                        CExpr.of(f"lift_imin({use.whi}, {hi})", use.whi, hi, names={"lift_imin"}))
            uses.append(use)
        arrays_written = {n.name for n in (self.g.nodes[data_id(a.key)]["node"] for a in arrays)}
        written = self._nest_written() - arrays_written  # their elements, not the pointers
        host_keys = set().union(*(self._arrays_touched(nid) for nid, role in self.roles.items()
                                  if role in ("host", "sync")))
        host_only = {self.g.nodes[data_id(k)]["node"].name for k in host_keys} - {u.host for u in uses}
        return NestData(self.function, span[0], span[1], nest, uses, self._plan_condition(), self.reduction_slots,
                        [k.name for k in self.kernels.values()], written, host_only, self._host_writes(arrays),
                        self.launch_test)

    def _host_writes(self, arrays: list[_Array]) -> list[HostWrite]:
        """Arrays the nest's host code writes that are no device buffer of it but may share one's
        memory (`kernel(A1, A1)` with A0 on the device, A1 written on the host): their rows, for the
        data scope's run-time check that they do not overlap any buffer."""
        keys = {self.canon.get(k, k) for nid, role in self.roles.items() if role in ("host", "sync")
                for k in self._written_arrays(nid)} - {a.key for a in arrays}
        keys = {k for k in keys if self.g.nodes[data_id(k)]["node"].kind != Kind.MEMORY  # copied whole around it
                and any(may_overlap(self.g.nodes[data_id(k)]["node"], a.node) for a in arrays)}
        out = []
        for a in (self._arrays(keys) if keys else []):
            h = a.node.name
            try:
                lo, hi = self._rows(a, a.write)
            except NotOffloaded:
                raise NotOffloaded(f"host code in the nest writes '{h}', which may share memory with a device "
                                   f"array, and its rows cannot be bounded") from None
            out.append(HostWrite(h, f"sizeof(({h})[0])", a.node, lo, hi))
        return out

    def _plan_condition(self) -> CExpr:
        """The planner's run-time condition (enough work, disjoint pointers) of the parallel loops at the
        top of the nest: evaluated before the nest, it decides between the GPU and the original code.
        (Conditions of loops inside sequential loops may use their variables: not usable here; whether
        their launches pay for themselves is tested instead.)"""
        conds = []
        for c in scope_children(self.g, STATE):
            m = self.g.nodes[c]["node"]
            if self.roles.get(c) == "kernel" and m.plan.condition and m.plan.condition not in conds:
                conds.append(m.plan.condition_expr)
        if self.launch_test:  # (kernels launched inside host loops: cuda_launches.py)
            conds.append(self.launch_test)
        return CExpr.of(" && ".join(f"({c})" for c in conds), *conds)

    def _write_covers(self, a: _Array) -> CExpr | None:
        """When the nest writes every element of the rows it moves (and reads none), no copy in is
        needed: '' if that holds always, a C condition if it holds when the inner dimensions are
        covered (checked at run time), None if a copy in is needed."""
        if a.read is not None or a.write is None or a.write is False:
            return None
        group = self._group(a.key)
        if any(getattr(self.g.nodes[data_id(k)]["node"], "field", "") for k in group):
            return None  # a field of each element is written, not the element
        for nid in scope_descendants(self.g, STATE):
            if isinstance(self.g.nodes[nid]["node"], MapScope):
                continue
            for _, v, d in self.g.out_edges(nid, data=True):
                if isinstance(d["edge"], Memlet) and self.g.nodes[v]["node"].container in group and d["edge"].dynamic:
                    return None
        try:
            if not a.write.is_box():
                return None
        except Exception:
            return None
        h = a.node.name
        strides = getattr(a.node, "strides", None) or []
        conds = []
        # the inner dimensions: of the C array, or of a delinearized flat buffer (A[i * m + j]: the
        # flat range moved is covered when j covers the row, 0 .. m - 1)
        for k in range(1, len(strides) if strides else _c_ndim(a.node)):
            lo, hi = bound_expr(a.write, False, k, strict=True), bound_expr(a.write, True, k, strict=True)
            if lo is None or hi is None:
                return None
            if strides:
                extent = CExpr(f"(long)(({strides[k - 1]}) / ({strides[k]}))",
                               {"long"} | a.node.stride_words[k - 1] | a.node.stride_words[k])
            else:
                extent = CExpr(f"(long)(sizeof(({h}){'[0]' * k}) / sizeof(({h}){'[0]' * (k + 1)}))",
                               {"long", "sizeof"} | a.node.name_words)
            conds.append(CExpr.of(f"({lo}) == 0L && ({hi}) + 1L == {extent}", lo, hi, extent))
        return CExpr.of(" && ".join(conds), *conds)
