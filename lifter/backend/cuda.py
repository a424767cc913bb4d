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
  C++ keywords (`new`, `or`, `template`, ...) are renamed by token (cuda_names.py); parameters of
  variable-length array type (`double A[n][m]`), which C++ lacks, become `void *`
  and are re-declared as VLA pointers at the top of the body (a GNU extension nvcc
  and g++ accept in host code); project headers found next to the file are
  inlined with the same edits, with C linkage. Other implicit conversions and missing prototypes
  are made explicit in the C before lifting, and what cannot be is an error (cuda_conversions.py);
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
- Code placement, per lifted region (loop nest): every array a kernel touches
  lives on the device; sequential loops of the nest (time steps) stay on the
  host around the launches, so data stays on the device across them; short
  straight-line code between kernels that touches device data runs as a
  one-thread kernel; longer code (or code lift cannot run on the GPU, like
  calls) stays on the host inside the nest, the rows the kernels made newer
  coming back before it (tracked at run time: each launch adds the rows its map
  memlets say it writes) and the rows it writes going to the device after it.
  A one-dimensional variable-length array declared in a kernel body becomes the
  thread's slice of a scratch buffer the launch allocates.
- Data (cuda_data.py): the rows a region touches (first dimension, from the map
  memlets' isl ranges; for subscripts isl cannot model, like `A[i * m + j]`,
  from interval arithmetic over the domains of the statements that run on the
  GPU, evaluated at run time) are its device buffer; consecutive offloaded
  regions of a function share their buffers when the host code between them can
  be bounded, and so do the iterations of a while, do or (unlifted) for loop whose
  body is such regions and host code, so data stays on the device across them and
  moves only where host code needs it; a loop that calls the file's functions with
  offloaded nests keeps their data on the device from one call to the next (a
  run-time table of host ranges). The planners' run-time conditions (enough work, disjoint
  pointers) and a disjointness check of the device arrays' byte ranges decide
  at run time between the GPU and the original code.
- Everything else is the user's text, byte for byte.

Regions that cannot be offloaded (no plan, data behind unknown pointers,
multi-dimensional variable-length arrays in a loop body, ...) stay as written, with a comment saying why; `g.graph["cuda"]`
records the verdict of every region: {"offloaded", "reason", "kernels"}.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import networkx as nx

from lifter.backend.cuda_cxx import KEYWORDS, CFile, cxx_section, inline_project_headers, param_name, split_params
from lifter.backend.cuda_names import keyword_names, rename_keywords
from lifter.backend.cuda_data import (ArrayUse, NestData, aware_functions, comment_text, emit_region, emit_scope,
                                      find_regions, flat_nests, group_nests, reindent)
from lifter.backend.cuda_prelude import END_MARK, PRELUDE
from lifter.backend.edits import apply, line_start
from lifter.frontend.source import SourceFile
from lifter.frontend.spans import Spans, Token, Unparsable
from lifter.graph.build import STATE, data_id
from lifter.graph.nodes import AccessNode, MapScope, Memlet, scope_children, scope_descendants, scope_parent
from lifter.graph.ranges import bound_c, readable

# Functions CUDA provides in device code (math library and a few more).
DEVICE_FUNCTIONS = {
    "sqrt", "sqrtf", "cbrt", "cbrtf", "fabs", "fabsf", "abs", "labs", "llabs", "exp", "expf", "exp2", "exp2f",
    "expm1", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "pow", "powf", "sin", "sinf", "cos",
    "cosf", "tan", "tanf", "asin", "acos", "atan", "atan2", "asinf", "acosf", "atanf", "atan2f", "sinh", "cosh",
    "tanh", "sinhf", "coshf", "tanhf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc", "truncf",
    "fmod", "fmodf", "fmin", "fminf", "fmax", "fmaxf", "fma", "fmaf", "hypot", "hypotf", "erf", "erff", "erfc",
    "lround", "llround", "rint", "nearbyint", "copysign", "isnan", "isinf", "isfinite", "signbit", "rsqrt",
    "min", "max", "printf",
}
BLOCKS = {1: {"x": 256}, 2: {"x": 32, "y": 8}, 3: {"x": 32, "y": 4, "z": 2}}
AXES = {1: ["x"], 2: ["y", "x"], 3: ["z", "y", "x"]}
REDUCTION_OPS = {"+": "lift_op_add", "*": "lift_op_mul", "&": "lift_op_and", "|": "lift_op_or",
                 "^": "lift_op_xor", "min": "lift_op_min", "max": "lift_op_max"}


class NotOffloaded(Exception):
    """Why a region stays on the host."""


def emit_cuda(source: SourceFile, graphs: list[nx.MultiDiGraph], notes=()) -> str:
    """The whole .cu file: prelude, kernels before their functions, host code with launches (C names
    that are C++ keywords renamed, from the compiler's `notes` on the input: cuda_names.py)."""
    cfile = CFile(source.text)
    ctx = _Context(source, cfile)
    results = []
    for g in graphs:
        if not any(isinstance(d["node"], MapScope) and d["node"].plan is not None for _, d in g.nodes(data=True)):
            g.graph["cuda"] = {"offloaded": False, "reason": "no loop of the nest was parallelized", "kernels": []}
            continue
        calls = set(ctx.calls)
        try:
            result = _Region(ctx, g).offload()
        except NotOffloaded as why:
            ctx.calls = calls  # what its kernels would have called does not run on the GPU
            g.graph["cuda"] = {"offloaded": False, "reason": str(why), "kernels": []}
            results.append(("remark", g, str(why)))
            continue
        results.append(("ok", g, result))
    # A function called from GPU code becomes __host__ __device__; a nest inside one stays on the host.
    hd = ctx.device_functions()
    edits: list[tuple[int, int, str]] = []
    kernels_at: dict[int, list[str]] = {}
    nests, barriers = [], []
    for status, g, result in results:
        if status == "ok" and result.function in hd:
            status, result = "remark", "the function is also called from GPU code"
            g.graph["cuda"] = {"offloaded": False, "reason": result, "kernels": []}
        if status == "remark":
            start = _region_start(ctx, g)
            if start is not None:
                barriers.append(start)
                indent = _indent_at(source.text, start)
                edits.append((line_start(source.text, start), line_start(source.text, start),
                              f"{indent}/* lift: loop nest not offloaded to the GPU: {comment_text(result)} */\n"))
            continue
        g.graph["cuda"] = {"offloaded": True, "reason": "", "kernels": [k.name for k in result.kernels]}
        nests.append(result.data)
        kernels_at.setdefault(result.insert_at, []).extend(k.source for k in result.kernels)
    # Consecutive nests with host code between them that can be bounded share their device data.
    groups = group_nests(cfile.spans, source.text, nests, cfile.macros, barriers)
    # Loops that call functions with data scopes keep those scopes' data on the device (regions).
    scopes: dict[str, list[tuple[int, int]]] = {}
    trusted: dict[str, bool] = {}
    for members, _ in groups:
        f = members[0].function
        scopes.setdefault(f, []).append((members[0].start, members[-1].end))
        trusted[f] = trusted.get(f, True) and f not in hd and not any(
            n.host_only or any(a.tracked for a in n.arrays) for n in flat_nests(members))
    bodies = {d.name: d.body for d in cfile.decls if d.body}
    syncs = aware_functions(cfile.spans, bodies, scopes, trusted, cfile.macros)
    aware = set(syncs)
    occupied = [span for spans_ in scopes.values() for span in spans_] + \
        [(line_start(source.text, b), b + 1) for b in barriers]
    regions = [r for d in cfile.decls if d.body
               for r in find_regions(cfile.spans, source.text, d.name, d.body, aware, cfile.macros, occupied)]
    present = {f for r in regions for f in r.calls}
    edits += [e for f in sorted(present) for e in syncs[f]]
    for r in regions:
        edits.append((r.start, r.end, emit_region(source.text, r, ctx.fresh("lift_region"),
                                                  _indent_at(source.text, r.start))))
    for members, gaps in groups:
        start, end = members[0].start, members[-1].end
        edits.append((start, end, emit_scope(source.text, members, gaps, _indent_at(source.text, start),
                                             present=members[0].function in present)))
        if len(members) > 1:
            for g in graphs:
                info = g.graph.get("cuda") or {}
                if info.get("offloaded") and any(k in info["kernels"] for m in members for k in m.kernels):
                    info["shares_data_with"] = [k for m in members for k in m.kernels if k not in info["kernels"]]
    hd_at = {cfile.tokens[d.start].start for d in cfile.decls if d.name in hd}
    for offset in sorted(set(kernels_at) | hd_at):
        text = cfile.outside_c_linkage(offset, "".join(k + "\n" for k in kernels_at.get(offset, [])))
        if offset in hd_at:
            text += "LIFT_HD "
        edits.append((offset, offset, text))
    edits += cfile.cxx_edits() + inline_project_headers(source.path, cfile)
    body = rename_keywords(apply(source.text, [], edits), keyword_names(notes))
    return PRELUDE + cxx_section(cfile) + END_MARK + "\n" + body


def _indent_at(text: str, offset: int) -> str:
    start = line_start(text, offset)
    pre = text[start:offset]
    return pre if pre.strip() == "" else ""


def _region_start(ctx: "_Context", g) -> int | None:
    span = g.graph.get("span")
    if span:
        return span[0]
    roots = [g.nodes[c]["node"] for c in scope_children(g, STATE)]
    offsets = [m.offset for m in roots if isinstance(m, MapScope) and m.offset is not None]
    return min(offsets) if offsets else None


# --------------------------------------------------------------------------------------
# File-level state shared by the regions.


class _Context:
    def __init__(self, source: SourceFile, cfile: CFile):
        self.source = source
        self.cfile = cfile
        self.names: set[str] = set(cfile.words)
        self.calls: set[str] = set()  # functions and macros called from kernels
        self.members: dict[str, str] = {}
        self.data_names: dict[str, dict[str, str]] = {}

    def fresh(self, base: str) -> str:
        name, k = base, 2
        while name in self.names:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        return name

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
            if name in self.cfile.macros:
                todo.extend(sorted(_calls(self.cfile.macros[name]), reverse=True))
                continue
            d = self.cfile.definition(name)
            if d is not None:
                a, b = d.body
                todo.extend(sorted(_calls(self.source.text[self.cfile.tokens[a].start:self.cfile.tokens[b].end]),
                                   reverse=True))
                continue
            if name in DEVICE_FUNCTIONS or name in KEYWORDS or name.startswith(("lift_", "LIFT_")):
                continue
            raise NotOffloaded(f"the loop calls '{name}', which has no GPU version")
        self.calls |= seen

    def expression_function(self, name: str) -> tuple[list[str], str] | None:
        """(parameters, expression) of a function of the file whose body is `return EXPR;` (an index
        helper like `at(i, j, n)`): subscripts calling it are bounded through its expression."""
        d = self.cfile.definition(name)
        if d is None:
            return None
        toks = self.cfile.tokens
        inner = toks[d.body[0] + 1:d.body[1]]
        if len(inner) < 3 or inner[0].text != "return" or inner[-1].text != ";" or \
                any(t.text == ";" or t.kind == "directive" for t in inner[:-1]):
            return None
        _, open_, close = d.groups[-1]
        params = [param_name(toks, p) for p in split_params(toks, open_ + 1, close)]
        if None in params:
            return None
        return params, self.source.text[inner[1].start:inner[-2].end]

    def device_functions(self) -> set[str]:
        return {name for name in self.calls if self.cfile.definition(name) is not None}


def _calls(text: str) -> set[str]:
    toks = Spans(text).tokens
    out = set()
    for k, t in enumerate(toks):
        if t.kind == "word" and k + 1 < len(toks) and toks[k + 1].text == "(" and not _member(toks, k):
            out.add(t.text)
    return out - KEYWORDS


def _member(toks, k: int) -> bool:
    """Token k follows `.` or `->`."""
    if k == 0:
        return False
    p = toks[k - 1]
    if p.text == ".":
        return True
    return p.text == ">" and k >= 2 and toks[k - 2].text == "-" and toks[k - 2].end == p.start


# --------------------------------------------------------------------------------------
# One region.


@dataclass
class _Arg:
    kind: str  # 'array', 'value', 'local', 'acc', 'init'
    name: str  # name inside the kernel
    host: str  # host expression (container name) or container key for arrays
    ndim: int = 0
    op: str = ""
    slot: int = 0


@dataclass
class _Kernel:
    name: str
    node_id: str
    serial: bool
    maps: list[MapScope]
    trips: list[str]
    assigns: list[str]
    body: str
    args: list[_Arg] = field(default_factory=list)
    arrays: set[str] = field(default_factory=set)
    comment: str = ""
    source: str = ""
    scratch: list[tuple[str, str]] = field(default_factory=list)  # per-thread arrays: (element type, length)


@dataclass
class _Result:
    function: str
    start: int
    end: int
    data: NestData
    insert_at: int
    kernels: list[_Kernel]


@dataclass
class _Array:
    key: str
    node: AccessNode
    read: object = None  # isl ranges
    write: object = None


class _Region:
    def __init__(self, ctx: _Context, g: nx.MultiDiGraph):
        self.ctx, self.g = ctx, g
        self.text = ctx.source.text
        self.region = g.graph.get("region")
        self.state = g.nodes[STATE]["node"]
        self.function = self.state.function
        self.reemit = bool(g.graph.get("reemittable"))
        self.restructured = bool(g.graph.get("restructured"))
        self.live_after = set(g.graph.get("live_after") or ())
        self.kernels: dict[str, _Kernel] = {}
        self.roles: dict[str, str] = {}
        self.reduction_slots = 0
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
            if node.kind in ("array", "pointer") and node.ndim > 0:
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
        self.device = device
        if self.sync_reasons:  # rows the GPU wrote since the host last saw them: copied back when it needs them
            # Also what the host code reads and no kernel here writes: nests before this one in the
            # data scope may have written it on the device (cuda_data then counts every row as newer).
            host = set().union(*(device if self._pseudo(nid) else self._arrays_touched(nid)
                                 for nid, role in self.roles.items() if role == "sync"))
            self.tracked = ({self.canon.get(k, k) for nid, role in self.roles.items() if role in ("kernel", "serial")
                             for k in self._written_arrays(nid)} | host) & device
        arrays = self._arrays(device)
        nest = self._nest_text(span)
        data = self._nest_data(arrays, nest, span)
        start, end = span
        insert_at = line_start(self.text, self.ctx.cfile.tokens[func.start].start)
        if self.text[insert_at:self.ctx.cfile.tokens[func.start].start].strip():
            insert_at = self.ctx.cfile.tokens[func.start].start
        for k in self.kernels.values():
            k.source = self._kernel_source(k)
        return _Result(self.function, start, end, data, insert_at, list(self.kernels.values()))

    def _span(self) -> tuple[int, int]:
        if self.reemit and self.g.graph.get("span"):
            return tuple(self.g.graph["span"])
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
                if (node.kind != "scalar" and node.ndim > 0 or node.kind == "memory") and not self._declared_inside(k)}

    def _declared_inside(self, key: str) -> bool:
        info = self.region.containers.get(key) if self.region is not None else None
        return getattr(info, "declared_in", None) is not None

    def _pseudo(self, nid: str) -> bool:
        """The code touches memory lift cannot name (unknown calls, pointers it cannot bound)."""
        return any(node.name.startswith("<") or node.kind == "memory" for node, _, _ in self._touched(nid).values())

    def _written_arrays(self, nid: str) -> set[str]:
        return {k for k, (node, _, written) in self._touched(nid).items()
                if written and (node.kind != "scalar" and node.ndim > 0)}

    def _node_rows(self, nid: str, key: str, written: bool) -> tuple[str, str]:
        """C text of the first and last row of device array `key` that the map or statement `nid` reads
        or writes, in terms of the host loop variables around it (sound: else the region's rows)."""
        node = self.g.nodes[data_id(key)]["node"]
        rng = None
        edges = self.g.out_edges(nid, data=True) if written else self.g.in_edges(nid, data=True)
        for u, v, d in edges:
            other = v if written else u
            if isinstance(d["edge"], Memlet) and self.canon.get(self.g.nodes[other]["node"].container) == key:
                r = d.get("scope_range")
                rng = False if r is None else _union(rng, r, True)
        return self._rows(_Array(key, node), rng if rng is not None else False)

    # -- kernels -----------------------------------------------------------------------

    def _kernel(self, nid: str, serial: bool) -> _Kernel:
        g = self.g
        node = g.nodes[nid]["node"]
        if serial:
            if not self.reemit:
                raise NotOffloaded("code between the kernels touches device data and cannot be re-emitted")
            inside = [nid] + scope_descendants(g, nid)
            for x in inside:
                n = g.nodes[x]["node"]
                if isinstance(n, MapScope):
                    count = _int(n.trip_count)
                    if count is None or count > 64:
                        raise NotOffloaded(
                            f"the sequential loop over '{n.var}' touches device data: it would run on one GPU thread")
                    if n.var in self.live_after and not n.var_declared_in_header:
                        raise NotOffloaded(f"'{n.var}' is used after the nest")
                    if not n.var_declared_in_header and self._read_outside(n.var, inside):
                        raise NotOffloaded(f"'{n.var}' is read after its loop, which would run on the GPU")
                elif n.opaque_reason:
                    raise NotOffloaded(f"code between the kernels touches device data: {n.opaque_reason}")
            maps = []
            body = "\n".join(self._tree_lines(nid, ""))
            line = node.line if not isinstance(node, MapScope) else self._line(node)
            what = f"{node.var}_L{line}" if isinstance(node, MapScope) else f"S{line}"
            name = self.ctx.fresh(f"{_base(self.function)}_{what}")
            k = _Kernel(name, nid, True, maps, [], [], body)
            k.comment = f"lift: sequential code at line {line} of {self.function}, on one GPU thread (keeps its data on the device)"
            self._bind(k, [nid] + scope_descendants(g, nid), [], [])
            return k
        m: MapScope = node
        scalar_reductions = []
        self.atomic = {}
        for name, op in m.plan.reductions:
            red = self._container(name)
            if red is None:
                raise NotOffloaded(f"reduction into '{name}', which is not in the graph")
            if red.kind == "scalar" and not getattr(m.plan, "sections", {}).get(name):
                scalar_reductions.append((name, op))
            elif not self.reemit:
                raise NotOffloaded(f"reduction into array '{name}' in a nest whose statements cannot be re-emitted")
            elif op not in REDUCTION_OPS:
                raise NotOffloaded(f"reduction operator '{op}' on '{name}'")
            else:
                self.atomic[red.container] = op  # every update becomes an atomic
        if m.plan.lastprivate:
            raise NotOffloaded(f"the loop over '{m.var}' has lastprivate variables ({', '.join(m.plan.lastprivate)})")
        chain = [m]
        if self._trip(m, []) is None:
            raise NotOffloaded(f"the trip count of the loop over '{m.var}' is not known")
        while len(chain) < 3:
            kids = scope_children(g, chain[-1].id)
            if len(kids) != 1:
                break
            kid = g.nodes[kids[0]]["node"]
            if not isinstance(kid, MapScope) or kid.schedule != "parallel":
                break
            if not set(kid.reductions) <= set(m.reductions):
                break
            if self._trip(kid, [c.var for c in chain]) is None or kid.step <= 0:
                break
            if not self.reemit and not self._perfectly_nested(chain[-1], kid):
                break
            if getattr(chain[-1], "declarations", None):
                break
            chain.append(kid)
        inner = chain[-1]
        if self.reemit:
            body = "\n".join([d for d in getattr(inner, "declarations", [])] +
                             [l for c in scope_children(g, inner.id) for l in self._tree_lines(c, "")])
        else:
            sp = self._for_span(inner)
            body = _dedent(self.text[sp.body_start:sp.end])
        trips = [self._trip(c, [x.var for x in chain[:i]]) for i, c in enumerate(chain)]
        assigns = []
        for i, c in enumerate(chain):
            begin = _isl_c(c.end if c.decreasing else c.begin)
            value = f"({begin}) {'-' if c.decreasing else '+'} lift_t{i}" + (f" * {c.step}" if c.step != 1 else "")
            if c.var_declared_in_header:
                ctype = _header_type(c.header, c.var) if c.header else None
                if ctype is None and not self.reemit:
                    ctype = _header_type(self.text[self._for_span(c).start:self._for_span(c).header_end], c.var)
                if ctype is None:
                    raise NotOffloaded(f"the type of '{c.var}' cannot be read from its loop header")
                assigns.append(f"{ctype} {c.var} = {value};")
            else:
                assigns.append(f"{c.var} = {value};")
        line = self._line(m)
        name = self.ctx.fresh(f"{_base(self.function)}_{m.var}_L{line}")
        k = _Kernel(name, nid, False, chain, trips, assigns, body)
        grid = " and ".join(f"'{c.var}'" for c in chain)
        k.comment = (f"lift: loop over '{m.var}' at line {line} of {self.function}: {grid} on the grid"
                     + (f", reduction {', '.join(f'{op}: {v}' for v, op in m.reductions)}" if m.reductions else ""))
        self.atomic = {}
        self._bind(k, [nid] + scope_descendants(g, nid), chain, scalar_reductions)
        return k

    def _read_outside(self, name: str, inside: list[str]) -> bool:
        """Whether code of the region other than `inside` reads the scalar `name`."""
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
            b, e = _isl_c(m.begin), _isl_c(m.end)
            text = f"(({e}) >= ({b}) ? (({e}) - ({b})) / {m.step} + 1 : 0L)"
        if set(_words(text)) & set(outer_vars):
            return None
        return text

    def _tree_lines(self, nid: str, indent: str) -> list[str]:
        node = self.g.nodes[nid]["node"]
        if isinstance(node, MapScope):
            if not node.header:
                raise NotOffloaded(f"the header of the loop over '{node.var}' is not known")
            lines = [f"{indent}{node.header} {{"]
            lines += [f"{indent}    {d}" for d in getattr(node, "declarations", [])]
            for c in scope_children(self.g, nid):
                lines += self._tree_lines(c, indent + "    ")
            return lines + [f"{indent}}}"]
        if not node.text:
            raise NotOffloaded(f"the text of the statement at line {node.line} is not known")
        if self.atomic:
            updated = {self.g.nodes[v]["node"].container for _, v, d in self.g.out_edges(nid, data=True)
                       if isinstance(d["edge"], Memlet)} & set(self.atomic)
            if updated:
                stmt = self.region.statements.get(nid) if self.region is not None else None
                red = getattr(stmt, "reduction", None)
                if red is None or red[0] not in updated or len(updated) > 1:
                    raise NotOffloaded(f"the update of '{next(iter(updated))}' at line {node.line} is not a reduction "
                                       "statement lift can make atomic")
                text = _atomic_update(node.text, REDUCTION_OPS[self.atomic[red[0]]], red[1])
                if text is None:
                    raise NotOffloaded(f"the reduction statement at line {node.line} cannot be made atomic")
                return [indent + text]
        return [indent + node.text]

    def _bind(self, k: _Kernel, inside: list[str], chain: list[MapScope], reductions) -> None:
        """Decide how every name the kernel uses gets there: device array, value, local, reduction."""
        g = self.g
        maps = [g.nodes[x]["node"] for x in inside if isinstance(g.nodes[x]["node"], MapScope)]
        origins = {x.origin or x.id for x in maps} | {x.id for x in maps}
        top = g.nodes[k.node_id]["node"]
        private = set(getattr(top, "private", ())) | (set(top.plan.private) if isinstance(top, MapScope) and top.plan else set())
        red = {name: op for name, op in reductions}
        touched = self._touched(k.node_id)
        subst: dict[str, str] = {}
        args: list[_Arg] = []
        bound: set[str] = set()
        declared_inside: set[str] = set()
        for key, (node, read, written) in sorted(touched.items()):
            info = self.region.containers.get(key) if self.region is not None else None
            declared = getattr(info, "declared_in", None)
            if declared is not None and declared in origins:
                declared_inside.add(node.name)
                continue
            if node.kind == "memory":
                raise NotOffloaded("the loop touches memory through pointers lift cannot bound")
            kname = node.name if re.fullmatch(r"[A-Za-z_]\w*", node.name) else self.ctx.member_name(node.name)
            if kname != node.name:
                subst[node.name] = kname
            if node.kind == "scalar" or node.ndim == 0:
                if node.name in red:
                    op = red[node.name]
                    if op not in REDUCTION_OPS:
                        raise NotOffloaded(f"reduction operator '{op}' on '{node.name}'")
                    if any(w in node.element.split() for w in ("char", "short", "?", "struct", "_Bool")) or \
                            node.element.startswith("long double"):
                        raise NotOffloaded(f"reduction into '{node.name}' of type {node.element}")
                    slot = self.reduction_slots
                    self.reduction_slots += 1
                    args.append(_Arg("acc", kname, node.name, op=op, slot=slot))
                    if op in ("min", "max"):
                        args.append(_Arg("init", kname, node.name, op=op, slot=slot))
                elif written:
                    if k.serial and not (declared is not None and declared in origins):
                        raise NotOffloaded(f"code between the kernels writes '{node.name}' on the device")
                    if node.name not in private:
                        # Not private: a thread's own uninitialized copy would lose the value it
                        # had before the loop and the one it has after (a loop of one iteration
                        # carries nothing, so its scalars stay shared).
                        raise NotOffloaded(f"'{node.name}' is written in the loop but is not private to it")
                    args.append(_Arg("local", kname, node.name))
                else:
                    args.append(_Arg("value", kname, node.name))
            else:
                if node.name in private and not k.serial:
                    dims = getattr(node, "dims", None) or []
                    if any(not d or set(_words(d)) & (set(self.state.params) | self._region_written()) for d in dims):
                        raise NotOffloaded(f"private array '{node.name}' has no constant size")
                    args.append(_Arg("local", kname, node.name))
                elif declared is not None:
                    raise NotOffloaded(f"array '{node.name}' is declared inside the nest but outside the GPU loop")
                elif node.indirect:
                    raise NotOffloaded(f"'{node.name}' is an array of pointers (rows are separate objects)")
                elif _c_ndim(node) > 4:
                    raise NotOffloaded(f"'{node.name}' has more than four dimensions")
                elif kname not in bound:
                    key = self.canon.get(key, key)
                    args.append(_Arg("array", kname, key, ndim=_c_ndim(self.g.nodes[data_id(key)]["node"])))
                    k.arrays.add(key)
            bound.add(kname)
        # Loop variables of the maps inside: locals (those declared in their headers declare themselves).
        for x in maps:
            if not x.var_declared_in_header and x.var not in bound:
                args.append(_Arg("local", x.var, x.var))
                bound.add(x.var)
        text = "\n".join(k.assigns + [k.body])
        text = _substitute(text, subst)
        k.body = _substitute(k.body, subst)
        k.assigns = [_substitute(a, subst) for a in k.assigns]
        words = _free_words(text)
        # Parameters of the nest and variables of enclosing host loops, passed by value.
        outer = []
        p = scope_parent(g, k.node_id)
        while p is not None and p != STATE:
            pn = g.nodes[p]["node"]
            if isinstance(pn, MapScope):
                outer.append(pn.var)
            p = scope_parent(g, p)
        for name in list(self.state.params) + outer:
            if name in words and name not in bound and name not in declared_inside:
                args.append(_Arg("value", name, name))
                bound.add(name)
        self._check_vla(k, declared_inside, set(self.state.params) | bound,
                        {a.name for a in args if a.kind == "value"})
        self._check_control(k)
        self.ctx.check_calls(_calls(text))
        k.args = args

    def _check_vla(self, k: _Kernel, declared_inside: set[str], variables: set[str], values: set[str]) -> None:
        """Variable-length arrays declared in the body, which device code cannot have: a one-dimensional
        one (`double sum[np];`) whose size the host knows becomes each thread's slice of a scratch
        buffer the launch allocates (`k.scratch`); any other is refused."""
        toks = Spans(k.body).tokens
        edits = []
        for i, t in enumerate(toks[:-1]):
            if t.kind == "word" and t.text in declared_inside and toks[i + 1].text == "[" and i > 0 and \
                    (toks[i - 1].kind == "word" or toks[i - 1].text in ("*", ",")):
                depth, j = 0, i + 1
                while j < len(toks):
                    if toks[j].text == "[":
                        depth += 1
                    elif toks[j].text == "]":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                size_words = {x.text for x in toks[i + 2:j] if x.kind == "word"}
                if not size_words & variables:
                    continue
                start = i
                while start > 0 and (toks[start - 1].kind == "word" or toks[start - 1].text == "*"):
                    start -= 1
                simple = (start == 0 or toks[start - 1].text in (";", "{", "}")) and start < i and \
                    j + 1 < len(toks) and toks[j + 1].text == ";" and not (size_words & variables) - values and \
                    not {x.text for x in toks[start:i]} & {"static", "extern", "typedef", "const", "volatile"}
                if not simple:
                    raise NotOffloaded(f"'{t.text}' is a variable-length array declared in the loop body "
                                       "(not possible in GPU code)")
                elem = " ".join(x.text for x in toks[start:i] if x.text not in ("register", "auto"))
                size = k.body[toks[i + 2].start:toks[j - 1].end]
                slot = len(k.scratch)
                k.scratch.append((elem, size))
                edits.append((toks[start].start, toks[j + 1].end,
                               f"{elem} *{t.text} = ({elem} *)lift_scratch{slot} + lift_global_rank() * (long)({size}); "
                               f"/* lift: this thread's slice of a scratch buffer (was {t.text}[{size}]) */"))
        k.body = apply(k.body, [], edits)

    def _check_control(self, k: _Kernel) -> None:
        toks = Spans(k.body).tokens
        words = [t.text for t in toks if t.kind == "word"]
        if "return" in words or "goto" in words:
            raise NotOffloaded("the loop body returns or jumps out")
        if "break" in words and not k.serial:
            first = words.index("break")
            if not any(w in ("for", "while", "do", "switch") for w in words[:first]):
                raise NotOffloaded("the loop body leaves the loop with 'break'")

    # -- data --------------------------------------------------------------------------

    def _arrays(self, device: set[str]) -> list[_Array]:
        """Device arrays with the element ranges the region reads and writes (isl sets)."""
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
                    a.write = _union(a.write, d.get("scope_range"), isinstance(node, MapScope))
                else:
                    a.read = _union(a.read, d.get("scope_range"), isinstance(node, MapScope))
        for key in device:
            if key not in out:
                raise NotOffloaded(f"the accessed range of '{key}' is not known")
            if out[key].node.kind == "memory":
                raise NotOffloaded("the nest touches memory through pointers lift cannot bound")
        return [out[k] for k in sorted(out)]

    def _rows(self, a: _Array, rng) -> tuple[str, str]:
        """C text of the first and last row (index of the first dimension) of a range."""
        node = a.node
        strides = getattr(node, "strides", None) or []
        if rng is not None and rng is not False:
            if strides:  # a flat buffer indexed as A[i*m + j]: the flat range of the box
                bounds = [(_bound(rng, False, d), _bound(rng, True, d)) for d in range(len(strides))]
                if all(lo is not None and hi is not None for lo, hi in bounds):
                    return (" + ".join(f"({lo}) * ({st})" for (lo, _), st in zip(bounds, strides)),
                            " + ".join(f"({hi}) * ({st})" for (_, hi), st in zip(bounds, strides)))
            else:
                lo, hi = _bound(rng, False), _bound(rng, True)
                if lo is not None and hi is not None:
                    return lo, hi
        rows = self._interval_rows(a.key, written_only=rng is a.write and a.write is not None)
        if rows is not None:
            return rows
        dims = getattr(node, "dims", None) or []
        if dims and dims[0] and not strides and not (set(_words(dims[0])) & self._region_written()):
            return "0L", f"(long)({dims[0]}) - 1L"
        if node.kind == "array":
            return "0L", f"(long)(sizeof({node.name}) / sizeof(({node.name})[0])) - 1L"
        raise NotOffloaded(f"the rows of '{node.name}' the nest touches cannot be bounded")

    def _region_written(self) -> set[str]:
        """Names whose value may change inside the region: written scalars and loop variables."""
        out = set()
        for n, d in self.g.nodes(data=True):
            node = d["node"]
            if isinstance(node, MapScope):
                out.add(node.var)
            elif isinstance(node, AccessNode) and any(isinstance(e["edge"], Memlet)
                                                       for _, _, e in self.g.in_edges(n, data=True)):
                out.add(node.name)
        return out

    def _interval_rows(self, key: str, written_only: bool) -> tuple[str, str] | None:
        """Rows from the subscripts as written, bounded by interval arithmetic over the statements'
        domains: sound for subscripts isl cannot model (`A[i * m + j]`), evaluated at run time.
        Only statements that run on the GPU count (host code copies what it uses around itself)."""
        if self.region is None:
            return None
        los, his = [], []
        written = self._region_written()
        on_gpu = {x for nid, role in self.roles.items() if role in ("kernel", "serial")
                  for x in [nid] + scope_descendants(self.g, nid)}
        for nid in scope_descendants(self.g, STATE):
            if isinstance(self.g.nodes[nid]["node"], MapScope) or nid not in on_gpu:
                continue
            edges = [] if written_only else [(u, d) for u, _, d in self.g.in_edges(nid, data=True)]
            edges += [(v, d) for _, v, d in self.g.out_edges(nid, data=True)]
            for other, d in edges:
                if not isinstance(d["edge"], Memlet) or self.canon.get(self.g.nodes[other]["node"].container) != key:
                    continue
                stmt = self.region.statements.get(nid)
                if stmt is None or not d["edge"].text:
                    return None
                iv = _subscript_interval(d["edge"].text, self.g.nodes[other]["node"].name, stmt, self.region,
                                         self.ctx.expression_function,
                                         written)
                if iv is None:
                    return None
                los.append(iv[0])
                his.append(iv[1])
        if not los:
            return None
        lo, hi = los[0], his[0]
        for x in los[1:]:
            lo = f"lift_imin({lo}, {x})"
        for x in his[1:]:
            hi = f"lift_imax({hi}, {x})"
        return f"lift_imax(0L, {lo})", hi

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
                    use.wlo, use.whi = f"lift_imax({use.wlo}, {lo})", f"lift_imin({use.whi}, {hi})"
            uses.append(use)
        arrays_written = {n.name for n in (self.g.nodes[data_id(a.key)]["node"] for a in arrays)}
        written = self._region_written() - arrays_written  # their elements, not the pointers
        host_keys = set().union(*(self._arrays_touched(nid) for nid, role in self.roles.items()
                                  if role in ("host", "sync")))
        host_only = {self.g.nodes[data_id(k)]["node"].name for k in host_keys} - {u.host for u in uses}
        return NestData(self.function, span[0], span[1], nest, uses, self._plan_condition(), self.reduction_slots,
                        [k.name for k in self.kernels.values()], written, host_only)

    def _plan_condition(self) -> str:
        """The planner's run-time condition (enough work, disjoint pointers) of the parallel loops at the
        top of the nest: evaluated before the nest, it decides between the GPU and the original code.
        (Conditions of loops inside sequential loops may use their variables: not usable here.)"""
        conds = []
        for c in scope_children(self.g, STATE):
            m = self.g.nodes[c]["node"]
            if self.roles.get(c) == "kernel" and m.plan.condition and m.plan.condition not in conds:
                conds.append(m.plan.condition)
        return " && ".join(f"({c})" for c in conds)

    def _write_covers(self, a: _Array) -> str | None:
        """When the region writes every element of the rows it moves (and reads none), no copy in is
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
            lo, hi = bound_c(a.write, k, False), bound_c(a.write, k, True)
            if lo is None or hi is None:
                return None
            extent = f"(long)(({strides[k - 1]}) / ({strides[k]}))" if strides else \
                f"(long)(sizeof(({h}){'[0]' * k}) / sizeof(({h}){'[0]' * (k + 1)}))"
            conds.append(f"({lo}) == 0L && ({hi}) + 1L == {extent}")
        return " && ".join(conds)

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

    def _launch(self, k: _Kernel) -> list[str]:
        args = []
        pre, post = [], []
        for a in k.args:
            if a.kind == "array":
                node = self.g.nodes[data_id(a.host)]["node"]
                h, s = node.name, self._dn(a.host)
                if a.ndim == 1:
                    args.append(f"lift_ptr_of(({h})[0], lift_d_{s})")
                else:
                    elem = f"({h})" + "[0]" * a.ndim
                    extents = [f"(long)(sizeof(({h}){'[0]' * d}) / sizeof(({h}){'[0]' * (d + 1)}))"
                               for d in range(1, a.ndim)]
                    args.append(f"lift_view{a.ndim}_of({elem}, lift_d_{s}, {', '.join(extents)})")
            elif a.kind == "value":
                args.append(a.host)
            elif a.kind == "local":
                args.append(f"lift_tag<LIFT_T({a.host})>()")
            elif a.kind == "acc":
                args.append(f"(LIFT_T({a.host}) *)(lift_dred + {16 * a.slot})")
                pre.append(f"LIFT_CHECK(cudaMemcpy(lift_dred + {16 * a.slot}, &({a.host}), sizeof({a.host}), "
                           "cudaMemcpyHostToDevice));")
                post.append(f"LIFT_CHECK(cudaMemcpy(&({a.host}), lift_dred + {16 * a.slot}, sizeof({a.host}), "
                            "cudaMemcpyDeviceToHost));")
            elif a.kind == "init":
                args.append(a.host)
        dirty = []  # rows this launch makes newer on the GPU than on the host, where tracked
        for key in sorted({self.canon.get(x, x) for x in self._written_arrays(k.node_id)} & self.tracked):
            s = self._dn(key)
            lo, hi = self._node_rows(k.node_id, key, True)
            dirty.append(f"lift_hull(&lift_dirty_lo_{s}, &lift_dirty_hi_{s}, lift_imax({lo}, lift_lo_{s}), "
                         f"lift_imin({hi}, lift_lo_{s} + lift_rows_{s} - 1));")
        args += [f"lift_s{i}" for i in range(len(k.scratch))]
        if k.serial:
            launch = self._scratch_launch(k, "1", "1", args)
            return (["{"] + ["    " + x for x in launch] + ["}"] if k.scratch else launch) + dirty
        d = len(k.maps)
        axes, block = AXES[d], BLOCKS[d]
        reducing = any(a.kind == "acc" for a in k.args)
        by_axis = {}
        for i, axis in enumerate(axes):
            if k.scratch:  # at most 64K threads (they loop grid-stride): the scratch buffer stays small
                cap = {1: {"x": "256L"}, 2: {"x": "16L", "y": "16L"}, 3: {"x": "8L", "y": "8L", "z": "4L"}}[d][axis]
            elif reducing:
                cap = "LIFT_REDUCTION_GRID_MAX" if axis == "x" else "64L"
            else:
                cap = "LIFT_GRID_X_MAX" if axis == "x" else "LIFT_GRID_YZ_MAX"
            by_axis[axis] = f"lift_blocks(lift_n{i}, {block[axis]}, {cap})"
        grid = ", ".join(by_axis[a] for a in ("x", "y", "z") if a in by_axis)
        blk = ", ".join(str(block[a]) for a in ("x", "y", "z") if a in block)
        args += [f"lift_n{i}" for i in range(d)]
        trips = ", ".join(f"lift_n{i} = {t}" for i, t in enumerate(k.trips))
        cond = " && ".join(f"lift_n{i} > 0" for i in range(d))
        lines = [f"{{ /* {k.name} */", f"    const long {trips};", f"    if ({cond}) {{"]
        lines += ["        " + x for x in pre + self._scratch_launch(k, grid, blk, args) + post + dirty]
        lines += ["    }", "}"]
        return lines

    def _scratch_launch(self, k: _Kernel, grid: str, blk: str, args: list[str]) -> list[str]:
        """The launch, with the scratch buffers of the kernel's per-thread arrays around it."""
        call = f"LIFT_LAUNCH({k.name}, dim3({grid}), dim3({blk}){''.join(', ' + x for x in args)});"
        if not k.scratch:
            return [call]
        lines = [f"const dim3 lift_grid({grid}), lift_block({blk});",
                 "const size_t lift_threads = (size_t)lift_grid.x * lift_grid.y * lift_grid.z * lift_block.x * "
                 "lift_block.y * lift_block.z;"]
        sizes = [f"lift_threads * (size_t)lift_imax(1L, (long)({size})) * sizeof({elem})" for elem, size in k.scratch]
        for i, n in enumerate(sizes):
            lines += [f"char *lift_s{i} = 0;", f"LIFT_CHECK(lift_malloc(&lift_s{i}, {n}));"]
        lines.append(call.replace(f"dim3({grid}), dim3({blk})", "lift_grid, lift_block"))
        lines += [f"LIFT_CHECK(lift_free(lift_s{i}, {n}));" for i, n in enumerate(sizes)]
        return lines

    def _kernel_source(self, k: _Kernel) -> str:
        tparams, params, top, tail = [], [], [], []
        for i, a in enumerate(k.args):
            t = f"LIFT_T{i}"
            tparams.append(f"typename {t}")
            if a.kind in ("array", "value"):
                params.append(f"{t} {a.name}")
            elif a.kind == "local":
                params.append(f"lift_tag<{t}>")
                top.append(f"{t} {a.name};")
            elif a.kind == "acc":
                params.append(f"{t} *lift_acc{a.slot}")
                if a.op in ("min", "max"):
                    init = f"lift_init{a.slot}"
                elif a.op == "*":
                    init = f"({t})1"
                elif a.op == "&":
                    init = f"({t})~({t})0"
                else:
                    init = f"({t})0"
                top.append(f"{t} {a.name} = {init};")
                tail.append(f"lift_block_reduce({REDUCTION_OPS[a.op]}(), lift_acc{a.slot}, {a.name});")
            elif a.kind == "init":
                params.append(f"{t} lift_init{a.slot}")
        d = len(k.maps)
        params += [f"char *lift_scratch{i}" for i in range(len(k.scratch))]
        params += [f"long lift_n{i}" for i in range(d)]
        lines = [f"/* {comment_text(k.comment)} */"]
        if tparams:
            lines.append(f"template <{', '.join(tparams)}>")
        # static: a kernel of the same name in another file of the program is another kernel
        lines.append(f"static __global__ void {k.name}({', '.join(params) or 'void'})")
        lines.append("{")
        lines += ["    " + x for x in top]
        if k.serial:
            lines.append("    {")
            lines.append(_indent(k.body, "        "))
            lines.append("    }")
        else:
            axes = AXES[d]
            for i, axis in enumerate(axes):
                ind = "    " * (i + 1)
                lines.append(f"{ind}for (long lift_t{i} = (long)blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}; "
                             f"lift_t{i} < lift_n{i}; lift_t{i} += (long)gridDim.{axis} * blockDim.{axis})"
                             + (" {" if i == d - 1 else ""))
            ind = "    " * (d + 1)
            lines += [ind + x for x in k.assigns]
            lines.append(ind + "{")
            lines.append(_indent(k.body, ind + "    "))
            lines.append(ind + "}")
            lines.append("    " * d + "}")
        lines += ["    " + x for x in tail]
        lines.append("}")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Small helpers.


def _base(function: str) -> str:
    return function if function.startswith("kernel") else f"kernel_{function}"


def _sanitize(name: str) -> str:
    return re.sub(r"\W+", "_", name).strip("_") or "x"


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.rstrip("L"))
    except ValueError:
        return None


def _isl_c(text: str) -> str:
    """isl's printed expressions as C: its min/max/floord become the prelude's helpers."""
    return re.sub(r"\b(min|max|floord)\s*\(", lambda m: {"min": "lift_imin(", "max": "lift_imax(",
                                                         "floord": "lift_floord("}[m.group(1)], text)


def _words(text: str) -> list[str]:
    return [t.text for t in Spans(text).tokens if t.kind == "word"]


def _free_words(text: str) -> set[str]:
    """Names used in C text, leaving out struct members (after `.` or `->`)."""
    toks = Spans(text).tokens
    return {t.text for k, t in enumerate(toks) if t.kind == "word" and not _member(toks, k)}


def _substitute(text: str, subst: dict[str, str]) -> str:
    """Replace container expressions like `g->u` by the kernel's names for them."""
    if not subst:
        return text
    toks = Spans(text).tokens
    edits = []
    patterns = sorted(((Spans(name).tokens, new) for name, new in subst.items()), key=lambda p: -len(p[0]))
    k = 0
    while k < len(toks):
        for pat, new in patterns:
            n = len(pat)
            if [t.text for t in toks[k:k + n]] == [t.text for t in pat] and not _member(toks, k):
                edits.append((toks[k].start, toks[k + n - 1].end, new))
                k += n
                break
        else:
            k += 1
    return apply(text, [], edits)


def _atomic_update(text: str, op_struct: str, op: str) -> str | None:
    """`y[j] += e;`, `y[j] = y[j] + e;` or `h[k]++;` as `lift_atomic_update(op, &(y[j]), value);`."""
    toks = Spans(text).tokens
    if not toks or toks[-1].text != ";" or any(t.kind == "directive" for t in toks):
        return None
    body = toks[:-1]
    n = len(body)

    def joined(a: int, b: int) -> bool:
        return body[a].end == body[b].start

    def cut(a: int, b: int) -> str:
        return text[body[a].start:body[b - 1].end] if a < b else ""

    sign = {"+": "1", "-": "-1"}
    if n >= 3 and body[0].text == body[1].text and body[0].text in sign and joined(0, 1):
        lhs, value, cop = cut(2, n), sign[body[0].text], "+"
    elif n >= 3 and body[-1].text == body[-2].text and body[-1].text in sign and joined(n - 2, n - 1):
        lhs, value, cop = cut(0, n - 2), sign[body[-1].text], "+"
    else:
        depth, k = 0, None
        for i, t in enumerate(body):
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
            elif t.text == "=" and depth == 0:
                if i + 1 < n and body[i + 1].text == "=" and joined(i, i + 1):
                    return None
                if i > 0 and body[i - 1].text in "=!<>" and joined(i - 1, i):
                    return None
                k = i
                break
        if k is None or k == 0:
            return None
        if body[k - 1].text in "+-*&|^" and joined(k - 1, k):
            lhs, rhs, cop = cut(0, k - 1), cut(k + 1, n), body[k - 1].text
            value = f"-({rhs})" if cop == "-" else rhs
            cop = "+" if cop == "-" else cop
        else:
            lhs_toks = [t.text for t in body[:k]]
            rest = body[k + 1:]
            m = len(lhs_toks)
            if [t.text for t in rest[:m]] == lhs_toks and len(rest) > m + 1 and rest[m].text in "+-*&|^":
                cop = rest[m].text
                value = text[rest[m + 1].start:rest[-1].end]
                if cop == "-":
                    value, cop = f"-({value})", "+"
            elif [t.text for t in rest[-m:]] == lhs_toks and len(rest) > m + 1 and rest[-m - 1].text in "+*&|^":
                cop = rest[-m - 1].text
                value = text[rest[0].start:rest[-m - 2].end]
            else:
                return None
            lhs = cut(0, k)
    if cop != op:
        return None
    return f"lift_atomic_update({op_struct}(), &({lhs}), {value});"


def _header_type(header: str, var: str) -> str | None:
    m = re.match(r"\s*for\s*\(\s*(.*?)\b" + re.escape(var) + r"\s*=", header, re.S)
    if not m or not m.group(1).strip():
        return None
    return m.group(1).strip()


def _dedent(text: str) -> str:
    """A statement cut from the source: its first line starts at the statement, the others keep
    their columns; shift those left by their common indentation."""
    lines = text.split("\n")
    rest = [l for l in lines[1:] if l.strip()]
    if not rest:
        return text
    common = min(len(l) - len(l.lstrip(" \t")) for l in rest)
    last = lines[-1].lstrip(" \t")
    if last.startswith("}"):  # a block: its closing brace shows where the statement started
        common = min(common, len(lines[-1]) - len(last))
    return "\n".join([lines[0]] + [l[common:] if l.strip() else l for l in lines[1:]])


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


def _bound(rng, upper: bool, dim: int = 0) -> str | None:
    """Strict C for the first or last index of a dimension, else isl's printed form, else None."""
    text = bound_c(rng, dim, upper)
    if text is not None:
        return text
    try:
        pw = rng.dim_max(dim) if upper else rng.dim_min(dim)
        if pw.is_cst() and pw.is_nan() if hasattr(pw, "is_nan") else False:
            return None
        return "(long)(" + _isl_c(readable(pw)) + ")"
    except Exception:
        return None


CAST_WORDS = {"int", "long", "unsigned", "signed", "short", "size_t", "ptrdiff_t", "ssize_t", "char",
              "int64_t", "uint64_t", "int32_t", "uint32_t", "intptr_t", "uintptr_t", "const"}


def _subscript_interval(access: str, name: str, stmt, region, functions, written: set[str]) -> tuple[str, str] | None:
    """(lo, hi) C text bounding the first subscript of `access` (`A[i * m + j][k]`) over the
    statement's iterations, or None when an operand is unknown (a load, a call, a changing name)."""
    toks = Spans(access).tokens
    pat = Spans(name).tokens
    n = len(pat)
    if [t.text for t in toks[:n]] != [t.text for t in pat] or len(toks) <= n or toks[n].text != "[":
        return None
    depth, j = 0, n
    while j < len(toks):
        if toks[j].text == "[":
            depth += 1
        elif toks[j].text == "]":
            depth -= 1
            if depth == 0:
                break
        j += 1
    loop_vars = {region.loops[l].var: pos for pos, l in enumerate(stmt.loops) if l in region.loops}
    parser = _Interval(toks[n + 1:j], stmt.domain, loop_vars, written, functions)
    try:
        iv = parser.expr()
        if parser.k != len(parser.toks):
            return None
    except _NoInterval:
        return None
    return iv[0], iv[1]


class _NoInterval(Exception):
    pass


class _Interval:
    """Interval arithmetic over C integer expressions, producing C text for the bounds."""

    def __init__(self, toks, domain, loop_vars: dict[str, int], written: set[str], functions, depth: int = 0):
        self.toks, self.k = toks, 0
        self.domain, self.loop_vars, self.written = domain, loop_vars, written
        self.functions, self.depth = functions, depth  # name -> (parameters, expression) of index helpers

    def call(self, name: str):
        """The interval of `name(args)` where the function returns an expression of its parameters."""
        fn = self.functions(name) if self.depth < 8 else None
        if fn is None:
            raise _NoInterval()
        params, expr = fn
        self.take()  # (
        args, cur, depth = [], [], 0
        while True:
            t = self.take()
            if t.text in "([" and t.kind == "punct":
                depth += 1
            elif t.text in ")]" and t.kind == "punct":
                if depth == 0 and t.text == ")":
                    break
                depth -= 1
            if t.text == "," and depth == 0:
                args.append(cur)
                cur = []
                continue
            cur.append(t.text)
        if cur or args:
            args.append(cur)
        if len(args) != len(params):
            raise _NoInterval()
        body = Spans(expr).tokens
        others = {t.text for t in body if t.kind == "word"} - set(params)
        if others & (set(self.loop_vars) | self.written):
            raise _NoInterval()  # a global the expression reads looks like a changing name here
        by_param = dict(zip(params, args))
        text = " ".join("( " + " ".join(by_param[t.text]) + " )" if t.kind == "word" and t.text in by_param else t.text
                        for t in body)
        sub = _Interval(Spans(text).tokens, self.domain, self.loop_vars, self.written, self.functions, self.depth + 1)
        iv = sub.expr()
        if sub.k != len(sub.toks):
            raise _NoInterval()
        return iv

    def peek(self, ahead: int = 0) -> str:
        return self.toks[self.k + ahead].text if self.k + ahead < len(self.toks) else ""

    def take(self) -> Token:
        if self.k >= len(self.toks):
            raise _NoInterval()
        self.k += 1
        return self.toks[self.k - 1]

    def expr(self):
        a = self.term()
        while self.peek() in ("+", "-") and self.peek(1) not in ("+", "-", "="):
            op = self.take().text
            b = self.term()
            a = (f"({a[0]} + {b[0]})", f"({a[1]} + {b[1]})", None) if op == "+" else \
                (f"({a[0]} - {b[1]})", f"({a[1]} - {b[0]})", None)
        return a

    def term(self):
        a = self.unary()
        while self.peek() in ("*", "/", "%") and self.peek(1) != "=":
            op = self.take().text
            b = self.unary()
            if op == "*":
                if b[2] is not None or a[2] is not None:
                    c, x = (b[2], a) if b[2] is not None else (a[2], b)
                    a = (f"({c}L * {x[0]})", f"({c}L * {x[1]})", None) if c >= 0 else \
                        (f"({c}L * {x[1]})", f"({c}L * {x[0]})", None)
                else:
                    p = [f"({a[i]} * {b[j]})" for i in (0, 1) for j in (0, 1)]
                    a = (f"lift_imin(lift_imin({p[0]}, {p[1]}), lift_imin({p[2]}, {p[3]}))",
                         f"lift_imax(lift_imax({p[0]}, {p[1]}), lift_imax({p[2]}, {p[3]}))", None)
            elif op == "/":
                if b[2] is None or b[2] <= 0:
                    raise _NoInterval()
                a = (f"({a[0]} / {b[2]}L)", f"({a[1]} / {b[2]}L)", None)
            else:
                if b[2] is None or b[2] <= 0:
                    raise _NoInterval()
                a = (f"(({a[0]}) >= 0 ? 0L : {1 - b[2]}L)", f"{b[2] - 1}L", None)
        return a

    def unary(self):
        t = self.peek()
        if t == "-":
            self.take()
            a = self.unary()
            return (f"(-{a[1]})", f"(-{a[0]})", None if a[2] is None else -a[2])
        if t == "+":
            self.take()
            return self.unary()
        if t == "(":
            # a cast to an integer type keeps the interval (values of subscripts are in range)
            j = self.k + 1
            while j < len(self.toks) and self.toks[j].text in CAST_WORDS:
                j += 1
            if j > self.k + 1 and j < len(self.toks) and self.toks[j].text == ")":
                self.k = j + 1
                return self.unary()
            self.take()
            a = self.expr()
            if self.take().text != ")":
                raise _NoInterval()
            return a
        return self.primary()

    def primary(self):
        t = self.take()
        if t.kind == "number":
            digits = t.text.rstrip("uUlL")
            try:
                v = int(digits, 0)
            except ValueError:
                raise _NoInterval() from None
            return (f"{v}L", f"{v}L", v)
        if t.kind != "word" or t.text in KEYWORDS:
            raise _NoInterval()
        path = [t.text]
        while self.peek() == "." or (self.peek() == "-" and self.peek(1) == ">"):
            self.take()
            if path and self.toks[self.k - 1].text == "-":
                self.take()
            w = self.take()
            if w.kind != "word":
                raise _NoInterval()
            path.append(("." if self.toks[self.k - 2].text == "." else "->") + w.text)
        if self.peek() == "(" and len(path) == 1:
            return self.call(t.text)
        if self.peek() in ("(", "["):
            raise _NoInterval()  # a load: unknown value
        if len(path) == 1 and t.text in self.loop_vars:
            pos = self.loop_vars[t.text]
            lo, hi = _domain_bound(self.domain, pos, False), _domain_bound(self.domain, pos, True)
            if lo is None or hi is None:
                raise _NoInterval()
            return (f"(long)({lo})", f"(long)({hi})", None)
        text = "".join(path)
        if path[0] in self.written or text in self.written:
            raise _NoInterval()
        return (f"(long)({text})", f"(long)({text})", None)


def _domain_bound(domain, pos: int, upper: bool) -> str | None:
    try:
        text = bound_c(domain, pos, upper)
        if text is not None:
            return text
        pw = domain.dim_max(pos) if upper else domain.dim_min(pos)
        return _isl_c(readable(pw))
    except Exception:
        return None
