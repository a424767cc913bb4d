"""CUDA backend: the user's file as CUDA C, planned loop nests offloaded as GPU kernels.

What the output is
- A prelude (`PRELUDE`, cuda_prelude.py): checking macros for every CUDA call (`LIFT_CHECK`: file,
  line and error, then exit(1)) and launch (`LIFT_LAUNCH`, which also times every
  launch with -DLIFT_PROFILE), a small pool of device buffers, and the device
  helpers (array views, atomics, the block-level reduction). Then the file's own
  unconditional system headers, and the C-as-C++ shims (`CXX_SHIMS`).
- C as C++ (cuda_cxx.py): nvcc compiles .cu files as C++, so the user's C is kept as written and
  made valid C++ where the two differ in ways that need no understanding of the
  code: `restrict` and the C11 keywords become macros; `malloc`/`calloc`/`realloc`
  results convert to any object pointer as in C (the call is wrapped in an object
  with a converting template operator; the file's system headers are included
  before these macros so that their declarations are untouched); C names that are
  C++ keywords (`new`, `or`, `template`, ...) are renamed by token (frontend/cxx_names.py, which
  the driver runs on the output); parameters of
  variable-length array type (`double A[n][m]`), which C++ lacks, become `void *`
  and are re-declared as VLA pointers at the top of the body (a GNU extension nvcc
  and g++ accept in host code); project headers found next to the file are
  inlined with the same edits, with C linkage. Other implicit conversions and missing prototypes
  are made explicit in the C before lifting, and what cannot be is an error (frontend/cxx_text.py);
  kernels before a function inside `extern "C" {` close and reopen the block.
- Kernels: every map the planner parallelized (`plan`) becomes a `__global__`
  function template (parameter types are deduced from the host's declarations, so
  lift spells no type) inserted before the function holding the nest, named
  `kernel_<function>_<var>_L<line>`, keeping the user's names. The outermost
  parallel map and up to two perfectly nested parallel maps inside it become grid
  dimensions (innermost on x, so consecutive threads touch consecutive elements),
  with grid-stride loops as bounds guards; everything inside runs sequentially in
  the thread, as the user wrote it (re-emitted from the graph's headers and
  statements, or cut from the source when the graph has no text). Scalar
  reductions are thread-local, reduced per block by a shared-memory tree and
  combined with one atomic per block (atomicAdd where CUDA has it, else a
  compare-and-swap loop: min, max, *, &, |, ^); array reductions (`hist[k] += 1`)
  become atomic updates.
- Code placement, per lifted nest: every array a kernel touches
  lives on the device; sequential loops of the nest (time steps) stay on the
  host around the launches, so data stays on the device across them; short
  straight-line code between kernels that touches device data runs as a
  one-thread kernel; longer code (or code lift cannot run on the GPU, like
  calls) stays on the host inside the nest, the rows the kernels made newer
  coming back before it (tracked at run time: each launch adds the rows its map
  memlets say it writes) and the rows it writes going to the device after it.
  A one-dimensional variable-length array declared in a kernel body becomes the
  thread's slice of a scratch buffer the launch allocates.
- Data (cuda_offload_data.py per nest, cuda_data.py for the scopes): the rows a nest touches (first dimension, from the map
  memlets' isl ranges; for subscripts isl cannot model, like `A[i * m + j]`,
  from interval arithmetic over the domains of the statements that run on the
  GPU, evaluated at run time) are its device buffer; consecutive offloaded
  nests of a function share their buffers when the host code between them can
  be bounded, and so do the iterations of a while, do or (unlifted) for loop whose
  body is such nests and host code, so data stays on the device across them and
  moves only where host code needs it; a loop that calls the file's functions with
  offloaded nests keeps their data on the device from one call to the next (a
  run-time table of host ranges). The planners' run-time conditions (enough work, disjoint
  pointers) and a disjointness check of the device arrays' byte ranges decide
  at run time between the GPU and the original code.
- Everything else is the user's text, byte for byte.

Nests that cannot be offloaded (no plan, data behind unknown pointers,
multi-dimensional variable-length arrays in a loop body, ...) stay as written, with a comment saying why; `emit_cuda`
returns the verdict on every nest beside the text (outcome.Offload), for the report.
"""
from __future__ import annotations

from dataclasses import dataclass


from lifter.analysis.host_effects import HostCode
from lifter.analysis.model import Kind
from lifter.backend.cuda_cxx import cxx_edits, cxx_section, inline_project_headers, outside_c_linkage
from lifter.backend.cuda_call_regions import aware_functions, emit_region, find_regions
from lifter.backend.cuda_data import NestData, comment_text, emit_scope, flat_nests, group_nests, reindent
from lifter.backend.cuda_launches import launch_condition
from lifter.backend.cuda_kernel_text import KernelText, Own, Src, line_of
from lifter.backend.cuda_kernels import DEVICE_FUNCTIONS, REDUCTION_OPS, NotOffloaded, _Kernel, _KernelCode
from lifter.backend.cuda_prelude import END_MARK, PRELUDE
from lifter.backend.cuda_offload_data import _OffloadData
from lifter.backend.cuda_text import _sanitize
from lifter.backend.edits import apply, in_block, line_start
from lifter.backend.outcome import Emitted, Offload, RegionOutcome
from lifter.analysis.subscript_bounds import isl_c
from lifter.frontend.cxx_text import keyword_names
from lifter.frontend.names import fresh_name
from lifter.frontend.source import SourceFile
from lifter.frontend.cfile import CFile
from lifter.frontend.spans import KEYWORDS, CExpr, Unparsable
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE, data_id
from lifter.graph.nodes import AccessNode, MapScope, Memlet, scope_children, scope_descendants


def emit_cuda(source: SourceFile, graphs: list[DataflowGraph], notes=()) -> Emitted:
    """The whole .cu file: prelude, kernels before their functions, host code with launches (C names
    that are C++ keywords named, from the compiler's `notes` on the input, for the driver to rename:
    frontend/cxx_names.py), and the
    verdict on every graph's nest."""
    cfile = source.cfile
    ctx = _Context(source, cfile)
    verdicts = [Offload(False, "no loop of the nest was parallelized")] * len(graphs)
    results = []
    for i, g in enumerate(graphs):
        if not any(isinstance(d["node"], MapScope) and d["node"].plan is not None for _, d in g.nodes(data=True)):
            continue
        calls = set(ctx.calls)
        try:
            result = _NestOffload(ctx, g).offload()
        except NotOffloaded as why:
            ctx.calls = calls  # what its kernels would have called does not run on the GPU
            verdicts[i] = Offload(False, str(why), code=why.code)
            results.append(("remark", i, g, str(why)))
            continue
        results.append(("ok", i, g, result))
    # A function called from GPU code becomes __host__ __device__; a nest inside one stays on the host.
    hd = ctx.device_functions()
    edits: list[tuple[int, int, str]] = []
    kernels_at: dict[int, list[str]] = {}
    nests, barriers = [], []
    for status, i, g, result in results:
        if status == "ok" and result.function in hd:
            status, result = "remark", "the function is also called from GPU code"
            verdicts[i] = Offload(False, result)
        if status == "remark":
            start = _nest_start(ctx, g)
            if start is not None:
                barriers.append(start)
                indent = _indent_at(source.text, start)
                edits.append((line_start(source.text, start), line_start(source.text, start),
                              f"{indent}/* lift: loop nest not offloaded to the GPU: {comment_text(result)} */\n"))
            continue
        verdicts[i] = Offload(True, kernels=tuple(k.name for k in result.kernels),
                              launch_test=str(result.data.launch_test))
        nests.append(result.data)
        kernels_at.setdefault(result.insert_at, []).extend(k.source for k in result.kernels)
    # Consecutive nests with host code between them that can be bounded share their device data.
    code = next((g.nest.host_code for g in graphs if g.nest.host_code is not None), None) or HostCode.unknown()
    groups = group_nests(cfile.spans, source.text, nests, code, barriers)
    # Loops that call functions with data scopes keep those scopes' data on the device (regions).
    scopes: dict[str, list[tuple[int, int]]] = {}
    trusted: dict[str, bool] = {}
    for members, _ in groups:
        f = members[0].function
        scopes.setdefault(f, []).append((members[0].start, members[-1].end))
        trusted[f] = trusted.get(f, True) and f not in hd and not any(
            n.host_only or any(a.tracked for a in n.arrays) for n in flat_nests(members))
    bodies = {d.name: cfile.body_offsets(d) for d in cfile.decls if d.body}
    syncs = aware_functions(code, source.text, bodies, scopes, trusted)
    aware = set(syncs)
    occupied = [span for spans_ in scopes.values() for span in spans_] + \
        [(line_start(source.text, b), b + 1) for b in barriers]
    regions = [r for d in cfile.decls if d.body
               for r in find_regions(code, source.text, d.name, cfile.body_offsets(d), aware, occupied)]
    present = {f for r in regions for f in r.calls}
    edits += [e for f in sorted(present) for e in syncs[f]]
    for r in regions:
        edits.append((r.start, r.end, emit_region(source.text, r, ctx.fresh("lift_region"),
                                                  _indent_at(source.text, r.start))))
    for members, gaps in groups:
        start, end = members[0].start, members[-1].end
        edits.append((start, end, emit_scope(source.text, members, gaps, _indent_at(source.text, start),
                                             present=members[0].function in present)))
    hd_at = {cfile.start_offset(d) for d in cfile.decls if d.name in hd}
    for offset in sorted(set(kernels_at) | hd_at):
        text = outside_c_linkage(cfile, offset, "".join(k + "\n" for k in kernels_at.get(offset, [])))
        if offset in hd_at:
            text += "LIFT_HD "
        edits.append((offset, offset, text))
    edits += cxx_edits(cfile) + inline_project_headers(source.path, cfile)
    return Emitted(apply(source.text, [], edits), [RegionOutcome(offload=v) for v in verdicts],
                   prelude=PRELUDE + cxx_section(cfile) + END_MARK + "\n", cxx_names=frozenset(keyword_names(notes)))


def _indent_at(text: str, offset: int) -> str:
    start = line_start(text, offset)
    pre = text[start:offset]
    return pre if pre.strip() == "" else ""


def _nest_start(ctx: "_Context", g) -> int | None:
    span = g.nest.text_span
    if span:
        return span[0]
    roots = [g.nodes[c]["node"] for c in scope_children(g, STATE)]
    offsets = [m.offset for m in roots if isinstance(m, MapScope) and m.offset is not None]
    return min(offsets) if offsets else None


# --------------------------------------------------------------------------------------
# File-level state shared by the nests.


class _Context:
    def __init__(self, source: SourceFile, cfile: CFile):
        self.source = source
        self.cfile = cfile
        self.names: set[str] = set(cfile.words)
        self.calls: set[str] = set()  # functions and macros called from kernels
        self.members: dict[str, str] = {}
        self.data_names: dict[str, dict[str, str]] = {}

    def fresh(self, base: str) -> str:
        """A name no word of the file, nor one made before, spells: `base`, `base_2`, ..."""
        return fresh_name(base, self.names, "_")

    def data_name(self, function: str, host: str) -> str:
        """Suffix of the host-side variables of a device array (`lift_d_<suffix>`), unique per function."""
        names = self.data_names.setdefault(function, {})
        if host not in names:
            base = _sanitize(host)
            name, k = base, 2
            while name in names.values():
                name, k = f"{base}_{k}", k + 1
            names[host] = name
        return names[host]

    def member_name(self, expr: str) -> str:
        """The kernel's name for a container reached through a struct (`g->u` becomes `g_u`)."""
        if expr not in self.members:
            self.members[expr] = self.fresh(_sanitize(expr))
        return self.members[expr]

    def check_calls(self, calls: set[str]) -> None:
        """Every function a kernel calls must exist on the GPU; file-local helpers become host+device."""
        todo, seen = sorted(calls, reverse=True), set()  # in name order: the same message on every run
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name not in self.cfile.macros and (d := self.cfile.definition(name)) is not None:
                host = self.cfile.objects_named_in(d)
                if host:  # found by fuzz10 (idioms --target cuda, seed 550919631)
                    raise NotOffloaded(f"the loop calls '{name}', which names the file's variable '{host[0]}' (host memory)")
            callees = self.cfile.calls_in(name)
            if callees is not None:
                todo.extend(sorted(callees, reverse=True))
                continue
            if name in DEVICE_FUNCTIONS or name in KEYWORDS or name.startswith(("lift_", "LIFT_")):
                continue
            raise NotOffloaded(f"the loop calls '{name}', which has no GPU version")
        self.calls |= seen

    def device_functions(self) -> set[str]:
        return {name for name in self.calls if self.cfile.definition(name) is not None}


# --------------------------------------------------------------------------------------
# One nest.


@dataclass
class _Result:
    function: str
    start: int
    end: int
    data: NestData
    insert_at: int
    kernels: list[_Kernel]


class _NestOffload(_KernelCode, _OffloadData):
    """One nest offloaded: here what runs where (roles) and the host text around the launches; its
    kernels are `_KernelCode`'s (cuda_kernels.py), its device arrays and rows `_OffloadData`'s
    (cuda_offload_data.py)."""

    def __init__(self, ctx: _Context, g: DataflowGraph):
        self.ctx, self.g = ctx, g
        self.text = ctx.source.text
        self.scop = g.nest.scop
        self.inner_names: set[str] | None = None  # names declared inside the nest (_host_visible)
        self.state = g.nodes[STATE]["node"]
        self.function = self.state.function
        self.reemit = g.nest.reemittable
        self.restructured = g.nest.restructured
        self.live_after = set(g.nest.live_after)
        self.kernels: dict[str, _Kernel] = {}
        self.roles: dict[str, str] = {}
        self.reduction_slots = 0
        self.launch_test = CExpr()  # whether the launches inside host loops pay for themselves (C; '' always)
        self.atomic: dict[str, str] = {}  # arrays the kernel being built reduces into: key -> operator
        self.sync_reasons: dict[str, str] = {}  # host code between kernels that uses device data: why not on the GPU
        self.device: set[str] = set()
        self.tracked: set[str] = set()  # device arrays whose rows newer on the GPU are tracked at run time
        # Containers that are one C object (the fields of an array of structs, `p[i].x` and `p[i].y`,
        # are containers of their own): one device buffer and one kernel parameter per C name.
        by_name: dict[str, str] = {}
        self.canon: dict[str, str] = {}
        for key in sorted(d["node"].container for _, d in g.nodes(data=True) if isinstance(d["node"], AccessNode)):
            node = g.nodes[data_id(key)]["node"]
            if node.kind in (Kind.ARRAY, Kind.POINTER) and node.ndim > 0:
                self.canon[key] = by_name.setdefault(node.name, key)
            else:
                self.canon[key] = key

    def _group(self, key: str) -> list[str]:
        """Every container key of the C object that `key` belongs to."""
        c = self.canon.get(key, key)
        return [k for k, v in self.canon.items() if v == c]

    def _dn(self, key: str) -> str:
        """Suffix of the host-side variables for a device array (one per C name in the function, so
        that nests sharing a data scope agree on it)."""
        return self.ctx.data_name(self.function, self.g.nodes[data_id(key)]["node"].name)

    # -- decisions ---------------------------------------------------------------------

    def offload(self) -> _Result:
        g = self.g
        if not self.reemit and self.restructured:
            raise NotOffloaded("the nest was reordered but its text cannot be re-emitted")
        span = self._span()
        func = self.ctx.cfile.function_at(span[0])
        if func is None:
            raise NotOffloaded("the enclosing function was not found in the text")
        self._roles()
        device = set()
        for nid, role in self.roles.items():
            if role == "kernel":
                device |= self._arrays_touched(nid)
        # Code outside kernels that touches device data runs on the GPU too (one thread) where it is
        # short; else it stays on the host, with the device rows it uses copied around it ("sync").
        changed = True
        while changed:
            changed = False
            for nid, role in list(self.roles.items()):
                if role == "host" and (self._arrays_touched(nid) & device or device and self._pseudo(nid)):
                    try:
                        self.kernels[nid] = self._kernel(nid, True)
                    except NotOffloaded as why:
                        if not self.reemit:
                            raise
                        self.roles[nid] = "sync"
                        self.sync_reasons[nid] = str(why)
                    else:
                        self.roles[nid] = "serial"
                        device |= self._arrays_touched(nid)
                    changed = True
        for nid, role in list(self.roles.items()):
            if role == "kernel":
                self.kernels[nid] = self._kernel(nid, False)
        if g.nest.profitability:
            self.launch_test = launch_condition(g, {nid: self.roles[nid] == "kernel" for nid in self.kernels},
                                               lambda c: self._host_visible(c, c) and not c.names &
                                               self._nest_written())
        self.device = device
        if self.sync_reasons:  # rows the GPU wrote since the host last saw them: copied back when it needs them
            # Also what the host code reads and no kernel here writes: nests before this one in the
            # data scope may have written it on the device (cuda_data then counts every row as newer).
            host = set().union(*(device if self._pseudo(nid) else self._arrays_touched(nid)
                                 for nid, role in self.roles.items() if role == "sync"))
            self.tracked = ({self.canon.get(k, k) for nid, role in self.roles.items() if role in ("kernel", "serial")
                             for k in self._written_arrays(nid)} | host) & device
        arrays = self._arrays(device)
        text = self._nest_text(span)
        data = self._nest_data(arrays, text, span)
        start, end = span
        func_start = self.ctx.cfile.start_offset(func)
        insert_at = line_start(self.text, func_start)
        if self.text[insert_at:func_start].strip():
            insert_at = func_start
        for k in self.kernels.values():
            k.source = self._kernel_source(k)
        return _Result(self.function, start, end, data, insert_at, list(self.kernels.values()))

    def _span(self) -> tuple[int, int]:
        if self.reemit and self.g.nest.text_span:
            return tuple(self.g.nest.text_span)
        roots = scope_children(self.g, STATE)
        if len(roots) != 1 or not isinstance(self.g.nodes[roots[0]]["node"], MapScope):
            raise NotOffloaded("the nest's text cannot be located")
        m = self.g.nodes[roots[0]]["node"]
        sp = self._for_span(m)
        return sp.start, sp.end

    def _for_span(self, m: MapScope):
        if getattr(m, "span", None) is not None and m.offset is not None:
            try:
                return self.ctx.cfile.spans.for_span(m.offset)
            except Unparsable:
                pass
        if m.offset is None:
            raise NotOffloaded(f"the loop over '{m.var}' comes from a macro expansion")
        try:
            return self.ctx.cfile.spans.for_span(m.offset)
        except Unparsable as exc:
            raise NotOffloaded(f"the text of the loop over '{m.var}' cannot be cut: {exc}") from None

    def _roles(self) -> None:
        g = self.g

        def visit(nid: str) -> None:
            node = g.nodes[nid]["node"]
            if isinstance(node, MapScope) and node.plan is not None:
                self.roles[nid] = "kernel"
                return
            inner = [d for d in scope_descendants(g, nid)
                     if isinstance(g.nodes[d]["node"], MapScope) and g.nodes[d]["node"].plan is not None]
            if inner:
                self.roles[nid] = "loop"
                for c in scope_children(g, nid):
                    visit(c)
            else:
                self.roles[nid] = "host"

        for c in scope_children(g, STATE):
            visit(c)

    def _touched(self, nid: str) -> dict[str, tuple[AccessNode, bool, bool]]:
        """Containers a map (its whole scope) or tasklet reads and writes: key -> (node, read, written)."""
        out: dict[str, list] = {}
        for u, _, d in self.g.in_edges(nid, data=True):
            if isinstance(d["edge"], Memlet):
                node = self.g.nodes[u]["node"]
                out.setdefault(node.container, [node, False, False])[1] = True
        for _, v, d in self.g.out_edges(nid, data=True):
            if isinstance(d["edge"], Memlet):
                node = self.g.nodes[v]["node"]
                out.setdefault(node.container, [node, False, False])[2] = True
        return {k: tuple(v) for k, v in out.items()}

    def _arrays_touched(self, nid: str) -> set[str]:
        """Arrays (and unknown memory) the code touches that live outside the nest (arrays declared in it
        are the kernels' own: see _bind)."""
        return {self.canon.get(k, k) for k, (node, _, _) in self._touched(nid).items()
                if (node.kind != Kind.SCALAR and node.ndim > 0 or node.kind == Kind.MEMORY) and not self._declared_inside(k)}

    def _declared_inside(self, key: str) -> bool:
        info = self.scop.containers.get(key) if self.scop is not None else None
        return getattr(info, "declared_in", None) is not None

    def _pseudo(self, nid: str) -> bool:
        """The code touches memory lift cannot name (unknown calls, pointers it cannot bound)."""
        return any(node.name.startswith("<") or node.kind == Kind.MEMORY for node, _, _ in self._touched(nid).values())

    def _written_arrays(self, nid: str) -> set[str]:
        return {k for k, (node, _, written) in self._touched(nid).items()
                if written and (node.kind != Kind.SCALAR and node.ndim > 0)}

    # -- kernels -----------------------------------------------------------------------

    def _read_outside(self, name: str, inside: list[str]) -> bool:
        """Whether code of the nest other than `inside` reads the scalar `name`."""
        inside_set = set(inside)
        for n, d in self.g.nodes(data=True):
            if isinstance(d["node"], AccessNode) and d["node"].name == name:
                for _, v, e in self.g.out_edges(n, data=True):
                    if isinstance(e["edge"], Memlet) and v not in inside_set and \
                            not isinstance(self.g.nodes[v]["node"], MapScope):
                        return True
        return False

    def _container(self, name: str) -> AccessNode | None:
        for _, d in self.g.nodes(data=True):
            if isinstance(d["node"], AccessNode) and d["node"].name == name:
                return d["node"]
        return None

    def _perfectly_nested(self, outer: MapScope, inner: MapScope) -> bool:
        if outer.offset is None or inner.offset is None:
            return False
        try:
            sp = self.ctx.cfile.spans.for_span(outer.offset)
            if self.text[sp.body_start] == "{":
                items = self.ctx.cfile.spans.block_items(sp.body_start)
                return len(items) == 1 and items[0][0] == inner.offset
            return sp.body_start == inner.offset
        except Unparsable:
            return False

    def _line(self, m: MapScope) -> int:
        if m.offset is not None:
            return self.ctx.source.position(m.offset)[0]
        return m.line

    def _trip(self, m: MapScope, outer_vars: list[str]) -> str | None:
        text = m.trip_count
        if text is None:
            if "?" in (m.begin + m.end) or m.step <= 0:
                return None
            b, e = isl_c(m.begin), isl_c(m.end)
            text = f"(({e}) >= ({b}) ? (({e}) - ({b})) / {m.step} + 1 : 0L)"
        if m.trip_words & set(outer_vars):
            return None
        return text

    def _tree_lines(self, nid: str, indent: str) -> list[str]:
        """The lines of a map or statement of the nest as written (`_tree_parts`)."""
        return [line.text() for line in self._tree_parts(nid, indent)]

    def _tree_parts(self, nid: str, indent: str) -> list[KernelText]:
        """The lines of a map or statement of the nest as written, each as the pieces it is made of
        (cuda_kernel_text.py); in a kernel that reduces into an array (`atomic`), its updates made atomic."""
        node = self.g.nodes[nid]["node"]
        if isinstance(node, MapScope):
            if not node.header:
                raise NotOffloaded(f"the header of the loop over '{node.var}' is not known")
            return in_block(node, indent, lambda inner: self._loop_parts(nid, node, inner), line_of,
                            (node.prologue_lexed, node.epilogue_lexed))
        if not node.text:
            raise NotOffloaded(f"the text of the statement at line {node.line} is not known")
        if self.atomic:
            updated = {self.g.nodes[v]["node"].container for _, v, d in self.g.out_edges(nid, data=True)
                       if isinstance(d["edge"], Memlet)} & set(self.atomic)
            if updated:
                stmt = self.scop.statements.get(nid) if self.scop is not None else None
                red = getattr(stmt, "reduction", None)
                if red is None or red[0] not in updated or len(updated) > 1:
                    raise NotOffloaded(f"the update of '{next(iter(updated))}' at line {node.line} is not a reduction "
                                       "statement lift can make atomic")
                update = node.update_lexed
                if update is None or update[1] != red[1]:
                    raise NotOffloaded(f"the reduction statement at line {node.line} cannot be made atomic")
                lhs, _, value = update
                return [KernelText([Own(indent + f"lift_atomic_update({REDUCTION_OPS[self.atomic[red[0]]]}(), &("),
                                    Src(lhs), Own("), "), Src(value), Own(");")])]
        return [line_of(indent, node.lexed)]

    # -- text --------------------------------------------------------------------------

    def _nest_text(self, span) -> str:
        """The nest with kernels launched in place of the parallel loops (host loops around them)."""
        if self.reemit:
            lines = []
            for c in scope_children(self.g, STATE):
                lines += self._host_lines(c, "")
            return "\n".join(lines)
        start, end = span
        edits = []
        for nid, k in self.kernels.items():
            m = self.g.nodes[nid]["node"]
            sp = self._for_span(m)
            indent = _indent_at(self.text, sp.start)
            edits.append((sp.start - start, sp.end - start, reindent("\n".join(self._launch(k)), indent)
                          .lstrip()))
        return apply(self.text[start:end], [], edits)

    def _loop_parts(self, nid: str, node: MapScope, indent: str) -> list[KernelText]:
        lines = [KernelText([Own(indent), Src(node.header_lexed), Own(" {")])] + \
            [line_of(indent + "    ", d) for d in node.declarations_lexed]
        for c in scope_children(self.g, nid):
            lines += self._tree_parts(c, indent + "    ")
        return lines + [line_of(indent, "}")]

    def _host_lines(self, nid: str, indent: str) -> list[str]:
        role = self.roles.get(nid, "host")
        if role in ("kernel", "serial"):
            return [indent + x for x in self._launch(self.kernels[nid])]
        if role == "sync":
            return self._sync_lines(nid, indent)
        if role == "loop":
            m = self.g.nodes[nid]["node"]
            lines = [f"{indent}{m.header} {{"]
            lines += [f"{indent}    {d}" for d in getattr(m, "declarations", [])]
            for c in scope_children(self.g, nid):
                lines += self._host_lines(c, indent + "    ")
            return lines + [f"{indent}}}"]
        return self._tree_lines(nid, indent)

    def _sync_lines(self, nid: str, indent: str) -> list[str]:
        """Host code between kernels that uses device data and cannot run on the GPU: the rows the GPU
        wrote since the host last saw them come back first, the rows it writes go to the device after."""
        pseudo = self._pseudo(nid)
        touched = self.device if pseudo else self._arrays_touched(nid) & self.device
        written = self.device if pseudo else {self.canon.get(k, k) for k in self._written_arrays(nid)} & self.device
        lines = [f"{indent}/* lift: host code ({comment_text(self.sync_reasons[nid])}): "
                 f"device data it uses comes back first */"]
        for key in sorted(touched & self.tracked):
            h, s = self.g.nodes[data_id(key)]["node"].name, self._dn(key)
            lines.append(f"{indent}LIFT_DIRTY_TO_HOST({h}, lift_d_{s}, lift_dirty_lo_{s}, lift_dirty_hi_{s}, "
                         f"sizeof(({h})[0]));")
        lines += self._tree_lines(nid, indent)
        for key in sorted(written):
            h, s = self.g.nodes[data_id(key)]["node"].name, self._dn(key)
            lo, hi = ("lift_lo_" + s, f"lift_lo_{s} + lift_rows_{s} - 1") if pseudo else self._node_rows(nid, key, True)
            lines.append(f"{indent}LIFT_ROWS_TO_DEVICE(lift_d_{s}, {h}, {lo}, {hi}, lift_lo_{s}, lift_rows_{s}, "
                         f"sizeof(({h})[0]));")
        return lines
