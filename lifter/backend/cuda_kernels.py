"""Kernels of the CUDA backend: what a planned map becomes on the device.

`_KernelCode` is the kernel half of `cuda._NestOffload`: it builds a `_Kernel` from a map (its
grid dimensions, the arguments bound from the host, reductions and atomics, per-thread scratch),
checks what a kernel body cannot hold (variable-length arrays, jumps out of it), and writes the
launch and the `__global__` template. The nest half (cuda.py) decides what runs where.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from lifter.analysis.model import Kind
from lifter.backend.cuda_data import comment_text
from lifter.backend.cuda_kernel_text import KernelText, Own, Src, dedent_drops, line_of
from lifter.backend.cuda_text import _base, _c_ndim, _indent, _int
from lifter.analysis.pure_functions import WITHOUT_LONG_DOUBLE
from lifter.graph.build import STATE, data_id
from lifter.graph.nodes import MapScope, Schedule, scope_children, scope_descendants, scope_parent


# Functions CUDA provides in device code: the pure functions of the C library but the long double
# versions, CUDA's own `rsqrt`, `min` and `max`, and `printf`.
DEVICE_FUNCTIONS = WITHOUT_LONG_DOUBLE | {"rsqrt", "min", "max", "printf"}
BLOCKS = {1: {"x": 256}, 2: {"x": 32, "y": 8}, 3: {"x": 32, "y": 4, "z": 2}}
AXES = {1: ["x"], 2: ["y", "x"], 3: ["z", "y", "x"]}
REDUCTION_OPS = {"+": "lift_op_add", "*": "lift_op_mul", "&": "lift_op_and", "|": "lift_op_or",
                 "^": "lift_op_xor", "min": "lift_op_min", "max": "lift_op_max"}


class NotOffloaded(Exception):
    """Why a nest stays on the host; `code`, the report's reason code (docs/report.md)."""

    def __init__(self, text: str, code: str = "not-offloadable"):
        super().__init__(text)
        self.code = code


class ArgKind(StrEnum):
    """How a kernel receives a name of the nest."""

    ARRAY = "array"  # a device buffer (a view with the host array's shape)
    VALUE = "value"  # a scalar, by value
    LOCAL = "local"  # declared in the kernel (a private scalar, a loop variable): only its type travels
    ACC = "acc"  # a reduction's accumulator in device memory
    INIT = "init"  # a min/max reduction's value before the loop, each thread's start, by value


@dataclass
class _Arg:
    kind: ArgKind
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
    assign_text: list[KernelText]  # each map's variable set from its thread's index, as pieces
    body_text: KernelText
    assigns: list[str] = field(default_factory=list)  # their C (`_bind`: member paths renamed)
    body: str = ""
    args: list[_Arg] = field(default_factory=list)
    arrays: set[str] = field(default_factory=set)
    comment: str = ""
    source: str = ""
    scratch: list[tuple[str, str]] = field(default_factory=list)  # per-thread arrays: (element type, length)


class _KernelCode:
    """The kernel half of `cuda._NestOffload` (a mixin: it uses the nest's graph, context and helpers)."""

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
            body = KernelText.join(self._tree_parts(nid, ""))
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
            if red.kind == Kind.SCALAR and not getattr(m.plan, "sections", {}).get(name):
                scalar_reductions.append((name, op))
            elif not self.reemit:
                raise NotOffloaded(f"reduction into array '{name}' in a nest whose statements cannot be re-emitted")
            elif op not in REDUCTION_OPS:
                raise NotOffloaded(f"reduction operator '{op}' on '{name}'")
            elif no_gpu_atomic(red.element):  # `unsigned char a[]`: no atomic of one byte (lift_word<1>)
                raise NotOffloaded(f"reduction into array '{name}' of type {red.element}")
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
            if not isinstance(kid, MapScope) or kid.schedule != Schedule.PARALLEL:
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
            body = KernelText.join([line_of("", d) for d in inner.declarations_lexed] +
                                   [l for c in scope_children(g, inner.id) for l in self._tree_parts(c, "")])
        else:
            sp = self._for_span(inner)
            piece = self.ctx.cfile.spans.piece(sp.body_start, sp.end)
            body = KernelText([Src(piece, dedent_drops(piece.text))])
        trips = [self._trip(c, [x.var for x in chain[:i]]) for i, c in enumerate(chain)]
        assigns = []
        for i, c in enumerate(chain):
            declared = f"{c.var_type} " if c.var_declared_in_header else ""
            step = f"{'-' if c.decreasing else '+'} lift_t{i}" + (f" * {c.step}" if c.step != 1 else "")
            assigns.append(KernelText([Own(f"{declared}{c.var} = (", frozenset({c.var})), Src(c.first_value),
                                       Own(f") {step};")]))
        line = self._line(m)
        name = self.ctx.fresh(f"{_base(self.function)}_{m.var}_L{line}")
        k = _Kernel(name, nid, False, chain, trips, assigns, body)
        grid = " and ".join(f"'{c.var}'" for c in chain)
        k.comment = (f"lift: loop over '{m.var}' at line {line} of {self.function}: {grid} on the grid"
                     + (f", reduction {', '.join(f'{op}: {v}' for v, op in m.reductions)}" if m.reductions else ""))
        self.atomic = {}
        self._bind(k, [nid] + scope_descendants(g, nid), chain, scalar_reductions)
        return k

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
        heads: set[str] = set()  # the names the member paths of `subst` start with
        args: list[_Arg] = []
        bound: set[str] = set()
        declared_inside: set[str] = set()
        for key, (node, read, written) in sorted(touched.items()):
            info = self.scop.containers.get(key) if self.scop is not None else None
            declared = getattr(info, "declared_in", None)
            if declared is not None and declared in origins:
                declared_inside.add(node.name)
                continue
            if node.kind == Kind.MEMORY:
                raise NotOffloaded("the loop touches memory through pointers lift cannot bound")
            kname = node.name if node.plain_name else self.ctx.member_name(node.name)
            if kname != node.name:
                subst[node.name] = kname
                heads.add(node.path_head)
            if node.kind == Kind.SCALAR or node.ndim == 0:
                if node.name in red:
                    op = red[node.name]
                    if op not in REDUCTION_OPS:
                        raise NotOffloaded(f"reduction operator '{op}' on '{node.name}'")
                    if no_gpu_atomic(node.element):
                        raise NotOffloaded(f"reduction into '{node.name}' of type {node.element}")
                    slot = self.reduction_slots
                    self.reduction_slots += 1
                    args.append(_Arg(ArgKind.ACC, kname, node.name, op=op, slot=slot))
                    if op in ("min", "max"):
                        args.append(_Arg(ArgKind.INIT, kname, node.name, op=op, slot=slot))
                elif written:
                    if k.serial and not (declared is not None and declared in origins):
                        raise NotOffloaded(f"code between the kernels writes '{node.name}' on the device")
                    if node.name not in private:
                        # Not private: a thread's own uninitialized copy would lose the value it
                        # had before the loop and the one it has after (a loop of one iteration
                        # carries nothing, so its scalars stay shared).
                        raise NotOffloaded(f"'{node.name}' is written in the loop but is not private to it")
                    args.append(_Arg(ArgKind.LOCAL, kname, node.name))
                else:
                    args.append(_Arg(ArgKind.VALUE, kname, node.name))
            else:
                if node.name in private and not k.serial:
                    changing = set(self.state.params) | self._nest_written()
                    if any(not d or names & changing for d, names in zip(node.dims, node.dim_words)):
                        raise NotOffloaded(f"private array '{node.name}' has no constant size")
                    args.append(_Arg(ArgKind.LOCAL, kname, node.name))
                elif declared is not None:
                    raise NotOffloaded(f"array '{node.name}' is declared inside the nest but outside the GPU loop")
                elif node.indirect:
                    raise NotOffloaded(f"'{node.name}' is an array of pointers (rows are separate objects)")
                elif _c_ndim(node) > 4:
                    raise NotOffloaded(f"'{node.name}' has more than four dimensions")
                elif kname not in bound:
                    key = self.canon.get(key, key)
                    args.append(_Arg(ArgKind.ARRAY, kname, key, ndim=_c_ndim(self.g.nodes[data_id(key)]["node"])))
                    k.arrays.add(key)
            bound.add(kname)
        # Loop variables of the maps inside: locals (those declared in their headers declare themselves).
        for x in maps:
            if not x.var_declared_in_header and x.var not in bound:
                args.append(_Arg(ArgKind.LOCAL, x.var, x.var))
                bound.add(x.var)
        text = KernelText.join(k.assign_text + [k.body_text])
        used = text.free_words(subst)
        hidden = sorted(heads & used - bound)
        if hidden:  # `g->u[IDX(g, i, j)]`: the macro's expansion reads `g->nx`, a host pointer's field
            raise NotOffloaded(f"the loop names '{hidden[0]}' outside the paths the kernel is given "
                               f"(in a macro's arguments, say), and '{hidden[0]}' is host memory")
        # Parameters of the nest and variables of enclosing host loops, passed by value.
        outer = []
        p = scope_parent(g, k.node_id)
        while p is not None and p != STATE:
            pn = g.nodes[p]["node"]
            if isinstance(pn, MapScope):
                outer.append(pn.var)
            p = scope_parent(g, p)
        # Scalars the nest sets before the kernel that a header inside it reads (`m = n - 2; ...
        # for (k = 1; k <= m; k++)`): the model reads the header as the value, so no statement of
        # the kernel reads them, but the header's text names them (legality's header scalars).
        headers = sorted(set().union(*(self.scop.loops[o].header_scalars for o in origins if o in self.scop.loops))
                         if self.scop is not None else set())
        for name in list(self.state.params) + outer + headers:
            if name in used and name not in bound and name not in declared_inside:
                args.append(_Arg(ArgKind.VALUE, name, name))
                bound.add(name)
        # A pointer alias declared in an enclosing host loop (`double *w = dst + j * n;`,
        # pointer_aliases.py) names a host address: the model reads `w[i]` as `dst[j * n + i]`, so
        # the kernel is given `dst`, but its text still says `w`. Refused rather than rewritten.
        host_locals = {c.name for c in self.scop.containers.values()
                       if c.declared_in is not None and c.declared_in not in origins} if self.scop is not None else set()
        outside = sorted(host_locals & (used - bound - declared_inside))
        if outside:
            raise NotOffloaded(f"the loop names '{outside[0]}', declared in the host code around it, "
                               "which the kernel is not given (a pointer the analysis reads as an element's address)")
        self._check_vla(k, subst, declared_inside, set(self.state.params) | bound,
                        {a.name for a in args if a.kind == ArgKind.VALUE})
        self._check_control(k)
        self.ctx.check_calls(text.called_names())
        k.body, k.assigns = k.body_text.text(subst), [a.text(subst) for a in k.assign_text]
        k.args = args

    def _check_vla(self, k: _Kernel, subst: dict[str, str], declared_inside: set[str], variables: set[str],
                   values: set[str]) -> None:
        """Variable-length arrays declared in the body, which device code cannot have: a one-dimensional
        one (`double sum[np];`) whose size the host knows becomes each thread's slice of a scratch
        buffer the launch allocates (`k.scratch`); any other is refused."""
        edits: dict[int, list] = {}
        for i, d in k.body_text.declarators(declared_inside, subst):
            if d.size is None:
                raise NotOffloaded(f"the size of '{d.name}', declared in the loop body, cannot be read")
            if not d.size_words & variables:
                continue
            if d.statement_end is None or d.size_words & variables - values or \
                    set(d.type_words) & {"static", "extern", "typedef", "const", "volatile"}:
                raise NotOffloaded(f"'{d.name}' is a variable-length array declared in the loop body "
                                   "(not possible in GPU code)")
            elem = " ".join(w for w in d.type_words if w not in ("register", "auto"))
            slot = len(k.scratch)
            k.scratch.append((elem, d.size))
            edits.setdefault(i, []).append((d.start, d.statement_end,
                          f"{elem} *{d.name} = ({elem} *)lift_scratch{slot} + lift_global_rank() * (long)({d.size}); "
                          f"/* lift: this thread's slice of a scratch buffer (was {d.name}[{d.size}]) */"))
        k.body_text.edits = edits

    def _check_control(self, k: _Kernel) -> None:
        body_words = k.body_text.words()
        if "return" in body_words or "goto" in body_words:
            raise NotOffloaded("the loop body returns or jumps out")
        if "break" in body_words and not k.serial:
            first = body_words.index("break")
            if not any(w in ("for", "while", "do", "switch") for w in body_words[:first]):
                raise NotOffloaded("the loop body leaves the loop with 'break'")

    # -- data --------------------------------------------------------------------------

    def _launch(self, k: _Kernel) -> list[str]:
        args = []
        pre, post = [], []
        for a in k.args:
            if a.kind == ArgKind.ARRAY:
                node = self.g.nodes[data_id(a.host)]["node"]
                h, s = node.name, self._dn(a.host)
                if a.ndim == 1:
                    args.append(f"lift_ptr_of(({h})[0], lift_d_{s})")
                else:
                    elem = f"({h})" + "[0]" * a.ndim
                    extents = [f"(long)(sizeof(({h}){'[0]' * d}) / sizeof(({h}){'[0]' * (d + 1)}))"
                               for d in range(1, a.ndim)]
                    args.append(f"lift_view{a.ndim}_of({elem}, lift_d_{s}, {', '.join(extents)})")
            elif a.kind == ArgKind.VALUE:
                args.append(a.host)
            elif a.kind == ArgKind.LOCAL:
                args.append(f"lift_tag<LIFT_T({a.host})>()")
            elif a.kind == ArgKind.ACC:
                args.append(f"(LIFT_T({a.host}) *)(lift_dred + {16 * a.slot})")
                pre.append(f"LIFT_CHECK(cudaMemcpy(lift_dred + {16 * a.slot}, &({a.host}), sizeof({a.host}), "
                           "cudaMemcpyHostToDevice));")
                post.append(f"LIFT_CHECK(cudaMemcpy(&({a.host}), lift_dred + {16 * a.slot}, sizeof({a.host}), "
                            "cudaMemcpyDeviceToHost));")
            elif a.kind == ArgKind.INIT:
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
        reducing = any(a.kind == ArgKind.ACC for a in k.args)
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
            if a.kind in (ArgKind.ARRAY, ArgKind.VALUE):
                params.append(f"{t} {a.name}")
            elif a.kind == ArgKind.LOCAL:
                params.append(f"lift_tag<{t}>")
                top.append(f"{t} {a.name};")
            elif a.kind == ArgKind.ACC:
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
            elif a.kind == ArgKind.INIT:
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


def no_gpu_atomic(element: str) -> bool:
    """No GPU atomic, nor lift's compare-and-swap on 4 or 8 bytes (cuda_prelude.py), updates an
    element of this C type: narrower than 4 bytes, a struct, `long double` or unknown."""
    return any(w in element.split() for w in ("char", "short", "?", "struct", "_Bool")) or \
        element.startswith("long double")
