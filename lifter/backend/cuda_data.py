"""Data placement of the CUDA backend: device buffers and host<->device copies, shared by
consecutive offloaded loop nests of one function and across the iterations of loops around them.

A *data scope* covers one offloaded nest, or several that are statements of the same block
with only host code between them (`group_nests`); a sequential loop (while, do, or a for lift
did not lift) whose body is nests and such host code is one item of a scope, like a nest
(`LoopData`, `_loop_data`), so its arrays stay on the device across its iterations. In a scope
every array the nests touch gets one device buffer (the hull of the rows the nests touch), and
copies follow the data, not the nests (`_Moves`): an array is copied to the device right before
the first nest that needs it (skipped when that nest overwrites every row it moves), stays there
across the following nests, and comes back once, at the end, if a nest wrote it. Host code
between two nests is read conservatively from the records of the file's host code the graphs
carry (`gap_effects`, analysis/host_effects.py):
every array it may read is copied back right before it (if a nest made the device copy newer), every array it may
write is copied to the device again before the next nest that uses it; code whose effects cannot
be bounded (calls of unknown functions, writes through pointers lift cannot name, declarations
that a data scope would hide, jumps out of the scope, reassigned array pointers) ends the scope,
so the next nest opens its own; an exact rotation of array pointers in a loop the scope holds
(`t = u; u = v; v = t;`) rotates their device buffers with them instead. A loop decides per array where it is at the top of every
iteration, and puts copies before the loop, at the end of its body and in front of its own
`break` and `continue` so that this holds on every path.

Across calls: a loop outside every scope that calls the file's functions with data scopes is a
*call region* (`find_regions`, cuda_call_regions.py); while it runs, those functions' scopes keep their buffers in a
run-time table (cuda_prelude.py) instead of copying out and freeing them, and the next call finds
them there; the table says where each range's values are, so those scopes' copies check it.

Every copy goes through LIFT_TO_DEVICE / LIFT_TO_HOST, which count bytes; with -DLIFT_PROFILE
each data scope prints at exit the bytes it moved against the minimum (each array the nests
read copied in once, each array they write copied out once): `lift-bytes: ...`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lifter.analysis.host_effects import GapEffects, HostCode, clause_effects, gap_effects
from lifter.analysis.model import Kind
from lifter.frontend.spans import CExpr, LoopKind, LoopStatement, Spans
from lifter.graph.nodes import AccessNode


@dataclass
class ArrayUse:
    """One device array of one offloaded nest: which rows it touches, writes and must read."""

    host: str  # the C expression of the array on the host (`A`, `g->u`)
    suffix: str  # of its host-side variables: lift_lo_<suffix>, lift_d_<suffix>, ...
    row: str  # C expression: bytes of one row (`sizeof((A)[0])`)
    node: AccessNode
    lo: CExpr  # first and last row the nest touches (C expressions, evaluated before the scope, with
    hi: CExpr  # the words they use: their makers know them, cuda_offload_data.py)
    wlo: CExpr | None = None  # first and last row it writes (None: read only)
    whi: CExpr | None = None
    covers: CExpr | None = None  # no copy in needed: '' always, a C condition, None never
    tracked: bool = False  # the nest keeps lift_dirty_lo/hi_<suffix>: rows newer on the GPU (host code inside)


@dataclass
class HostWrite:
    """An array a nest's host code writes that is no device buffer of it but may share one's memory
    under another name (`kernel(A1, A1)` with A0 on the device): it has no device variables, only
    its rows, `first` to `last` (C expressions, evaluated before the scope), which the scope keeps
    apart from every buffer at run time."""

    host: str  # the C expression of the array on the host
    row: str  # C expression: bytes of one row
    node: AccessNode
    first: CExpr
    last: CExpr


@dataclass
class NestData:
    """One offloaded nest, everything its data scope needs to know."""

    function: str
    start: int  # span of the nest in the source text
    end: int
    nest: str  # the nest with kernel launches in place of the parallel loops
    arrays: list[ArrayUse]
    condition: CExpr  # the planner's run-time condition, parenthesized ('' when none)
    reduction_slots: int
    kernels: list[str]
    written: set[str]  # names the nest may assign (scalars, loop variables)
    host_only: set[str] = field(default_factory=set)  # arrays only its host code touches ('<...>': unknown)
    host_writes: list[HostWrite] = field(default_factory=list)
    launch_test: CExpr = CExpr()  # the part of `condition` that its launches in host loops pay (cuda_launches.py)

    def head_words(self) -> set[str]:
        """Names the scope's head evaluates for this nest (row bounds, conditions)."""
        texts = [self.condition] + [x for a in self.arrays for x in (a.lo, a.hi, a.wlo, a.whi, a.covers) if x] \
            + [x for w in self.host_writes for x in (w.first, w.last)]
        return set().union(*(x.names for x in texts))

    def value_words(self) -> set[str]:
        """The head's names whose values matter, not only their addresses: a name the condition uses
        only as `&name[...]` (the planner's overlap checks) is left out. Pointers rotated with their
        device buffers may appear there: rotating them rotates the same set of arrays, which the
        scope's own overlap check (on the hull of all rotated buffers) keeps apart."""
        texts = [x for a in self.arrays for x in (a.lo, a.hi, a.wlo, a.whi, a.covers) if x]
        return set().union(*(x.names for x in texts), self.condition.values)


@dataclass
class LoopData:
    """A sequential loop statement (`while`, `do`, or a `for` lift did not lift) whose body is offloaded
    nests and host code a data scope can span: a scope holds it whole, so its arrays stay on the
    device across iterations. To the scope around it, it is one item, like a nest."""

    function: str
    start: int  # span of the loop statement in the source text
    end: int
    kind: LoopKind
    before: str  # the text before the body's statements (the header, and `{` when braced)
    after: str  # the text after them (`}`, `} while (c);`; braces are added around a lone statement)
    items: list  # NestData | LoopData, in text order
    gaps: list["GapEffects"]  # host code before, between and after the items (len(items) + 1)
    head: "GapEffects"  # the condition (while, for): evaluated before every iteration
    tail: "GapEffects"  # the increment (for) or the condition (do): after every iteration's body
    assigned: set[str]  # names the loop's header or host code may assign or declare

    @property
    def nests(self) -> list[NestData]:
        return [n for item in self.items for n in (item.nests if isinstance(item, LoopData) else [item])]

    @property
    def arrays(self) -> list[ArrayUse]:
        return [a for n in self.nests for a in n.arrays]

    @property
    def kernels(self) -> list[str]:
        return [k for n in self.nests for k in n.kernels]

    @property
    def written(self) -> set[str]:
        return set(self.assigned).union(*(n.written for n in self.nests))

    @property
    def host_only(self) -> set[str]:
        return set().union(*(n.host_only for n in self.nests))

    def head_words(self) -> set[str]:
        return set().union(*(n.head_words() for n in self.nests))

    def value_words(self) -> set[str]:
        return set().union(*(n.value_words() for n in self.nests))

    @property
    def swapped(self) -> set[str]:
        """Array pointers its host code rotates (the scope rotates their device buffers with them)."""
        return set().union(*(g.swapped for g in self.gaps),
                           *(m.swapped for m in self.items if isinstance(m, LoopData)))


# --------------------------------------------------------------------------------------
# Which nests share a data scope.


def group_nests(spans: Spans, text: str, nests: list[NestData], code: HostCode,
                barriers: list[int]) -> list[tuple[list, list[GapEffects]]]:
    """Consecutive nests of one function (in text order) with host code between them that a data
    scope can span, as (nests, gaps between them); a loop statement whose body is such nests and
    host code is one item (`LoopData`) of it. `barriers` are offsets of nests lift did not
    offload (with a remark in front): a scope never spans one. What host code does comes from
    `code`, the records of the file's host code that the graphs carry."""
    groups: list[tuple[list, list[GapEffects]]] = []
    for nest in _loops(code, spans, text, sorted(nests, key=lambda x: x.start), barriers):
        if groups:
            members, gaps = groups[-1]
            prev = members[-1]
            eff = None
            if prev.function == nest.function and not any(prev.end <= b < nest.start for b in barriers):
                hosts = {a.host for m in members + [nest] for a in m.arrays}
                eff = gap_effects(code, prev.end, nest.start, hosts)
            if eff is not None and _can_join(members, gaps + [eff], nest):
                members.append(nest)
                gaps.append(eff)
                continue
        groups.append(([nest], []))
    return groups


def _loops(code: HostCode, spans: Spans, text: str, items: list, barriers: list[int]) -> list:
    """`items` (nests in text order) where every loop statement whose body a data scope can hold
    whole (`_loop_data`) replaces the items in it, innermost loops first."""
    tried: set[int] = set()
    while True:
        for item in items:
            where = spans.loop_around(item.start, item.end)
            if where is None or where.start in tried:
                continue
            tried.add(where.start)
            loop = _loop_data(code, text, where, items, barriers)
            if loop is not None:  # an outer loop refused before it may now be held
                tried.clear()
                items = sorted([x for x in items if not (loop.start <= x.start and x.end <= loop.end)] + [loop],
                               key=lambda x: x.start)
                break
        else:
            return items


def _loop_data(code: HostCode, text: str, where: LoopStatement, items: list, barriers: list[int]) -> LoopData | None:
    """The loop at `where` as one item of a data scope, or None when a scope cannot hold it whole:
    host code in it that cannot be bounded (calls of unknown functions, jumps other than the loop's own
    `break` and `continue`: `return` would leave the scope past its copies out), a header that writes
    device arrays, nests
    whose row bounds or conditions (evaluated once, before the loop) the loop may change, or host
    code inside a nest (its run-time row tracking is not carried across iterations)."""
    start, end, lo, hi = where.start, where.end, where.body_start, where.body_end
    members = [x for x in items if lo <= x.start and x.end <= hi]
    if not members or any(m.function != members[0].function for m in members) or \
            any(lo <= b < hi for b in barriers):
        return None
    nests = [n for m in members for n in (m.nests if isinstance(m, LoopData) else [m])]
    if any(a.tracked for n in nests for a in n.arrays):
        return None
    hosts = {a.host for n in nests for a in n.arrays}
    gaps, prev = [], lo
    for m in members + [None]:
        gap = gap_effects(code, prev, m.start if m else hi, hosts, in_loop=True)
        if gap is None:
            return None
        gaps.append(gap)
        prev = m.end if m else hi
    loop = code.loops.get(where.start)
    if loop is None or len(where.clauses) != (3 if where.kind == LoopKind.FOR else 1):
        return None
    effects = [clause_effects(facts, hosts, start=a, end=b) for facts, (a, b) in zip(loop.clauses, where.clauses)]
    if any(eff is None or eff.writes for eff in effects):
        return None
    if where.kind == LoopKind.FOR:
        init, head, tail = effects
        if init.reads or init.reads_all:
            return None  # its copies back could not go between it and the loop
    else:
        init, head, tail = GapEffects(start, start), effects[0], GapEffects(start, start)
        if where.kind == LoopKind.DO:
            head, tail = tail, head
    assigned = set().union(init.assigned, head.assigned, tail.assigned, *(g.assigned for g in gaps),
                           *(m.assigned for m in members if isinstance(m, LoopData)))
    changed = assigned.union(*(n.written for n in nests))
    words = set().union(*(n.head_words() | {w for a in n.arrays for w in a.node.name_words} for n in nests))
    host_only = set().union(*(n.host_only for n in nests))
    if words & changed or any(h.startswith("<") for h in host_only) or host_only & hosts:
        return None
    swapped = set().union(*(g.swapped for g in gaps), *(m.swapped for m in members if isinstance(m, LoopData)))
    if swapped & set().union(*(n.value_words() for n in nests)):
        return None  # a row bound or condition, evaluated once before the loop, reads a rotated pointer
    before, after = text[start:lo], text[hi:end]
    if not where.braced:  # the copies at the end of the body need braces
        before, after = before.rstrip() + " {", "}" + after
    return LoopData(members[0].function, start, end, where.kind, before, after, members, gaps, head, tail, assigned)


def _can_join(members: list[NestData], gaps: list[GapEffects], nest: NestData) -> bool:
    """The scope's head is evaluated before its first nest: what the nest's row bounds and condition
    use must not change before it runs, nor the pointers of the arrays it touches."""
    changed = set().union(*(m.written for m in members), *(g.assigned for g in gaps))
    words = nest.head_words() | {w for a in nest.arrays for w in a.node.name_words}
    earlier = {w for m in members for a in m.arrays for w in a.node.name_words}
    # Host code inside a nest sees the host's copy of the arrays it touches that the nest's own
    # buffers do not cover: no other nest of the scope may hold them on the device.
    host_only = set().union(nest.host_only, *(m.host_only for m in members))
    devices = {a.host for m in members + [nest] for a in m.arrays}
    if any(h.startswith("<") for h in host_only) or host_only & devices:
        return False
    swapped = set().union(*(m.swapped for m in members if isinstance(m, LoopData)))
    if swapped & nest.value_words():
        return False
    if any(n.launch_test for n in flat_nests(members + [nest])):
        return False  # its test would decide for the other nests too (ludcmp: the factorization with the
        # substitutions, whose row launches do not pay)
    return not (words & changed) and not (earlier & nest.written)



# --------------------------------------------------------------------------------------
# The text of a data scope.


@dataclass
class _Buffer:
    host: str
    suffix: str
    row: str
    node: AccessNode
    uses: list[tuple[int, ArrayUse]] = field(default_factory=list)
    # the pointers it is rotated with (host code swaps them): all hold the hull of all their rows, and
    # count as written (after a rotation any of them may hold rows a nest wrote through another name)
    rotated: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return bool(self.rotated) or any(u.wlo is not None for _, u in self.uses)

    def covers(self, use: ArrayUse) -> str | None:
        """When the nest of `use` overwrites everything it moves, no copy in is needed before it:
        '' always, a C condition, None never. The buffer holds the hull of all nests' rows: with
        several nests, only when the hull is this nest's rows (checked at run time)."""
        if self.rotated:
            return None
        if use.covers is None or len(self.uses) == 1:
            return use.covers
        s = self.suffix
        same = f"lift_lo_{s} == ({use.lo}) && lift_lo_{s}_end == ({use.hi})"
        return f"{use.covers} && {same}" if use.covers else same


def emit_scope(text: str, items: list, gaps: list[GapEffects], indent: str, present: bool = False) -> str:
    """The replacement of the text from the first item's start to the last item's end (items: nests
    and loops, `gaps`: the host code between them). With `present` (a scope of a function that
    regions call) the buffers may be entries of the run-time table (cuda_prelude.py): where their
    values are is then known at run time only, so every copy checks it (and keeps it up to date)."""
    i1, i2 = indent + "    ", indent + "        "
    nests = flat_nests(items)
    buffers: dict[str, _Buffer] = {}
    for k, nest in enumerate(nests):
        for a in nest.arrays:
            b = buffers.setdefault(a.host, _Buffer(a.host, a.suffix, a.row, a.node))
            b.uses.append((k, a))
    for group in _rotation_groups(items, gaps):
        for h in group:
            buffers[h].rotated = group
    head, sizes = [], []
    for b in buffers.values():
        if b.rotated:
            same = [buffers[h] for h in b.rotated]
            head += _hull(b.suffix, "lo", "rows", [(u.lo, u.hi) for x in same for _, u in x.uses])
            s = b.suffix
            head.append(f"const long lift_olo_{s} = lift_lo_{s}, lift_orows_{s} = lift_rows_{s};")
            if b is not same[0]:
                sizes.append(f"{same[0].row} == {b.row}")
            continue
        head += _hull(b.suffix, "lo", "rows", [(u.lo, u.hi) for _, u in b.uses])
        if b.written:
            head += _hull(b.suffix, "olo", "orows", [(u.wlo, u.whi) for _, u in b.uses if u.wlo is not None])
    spans = {h: (row_address(h, f"lift_lo_{b.suffix}", b.row),
                 row_address(h, f"(lift_lo_{b.suffix} + lift_rows_{b.suffix})", b.row))
             for h, b in buffers.items()}
    conds = []
    for n in nests:
        if n.condition and n.condition not in conds:
            conds.append(n.condition)
    cond = " && ".join(conds + sizes + [x for x in [_alias_condition(list(buffers.values()), spans, nests)] if x])

    body = ["LIFT_BYTES_START;"]
    for b in buffers.values():
        s = b.suffix
        body.append(f"char *lift_r_{s} = 0;")
        if present:
            body.append(f"lift_present_entry *lift_e_{s} = 0;")
            body.append(f"int lift_own_at_{s}, *lift_at_{s} = 0;")
            body.append(f"LIFT_CHECK(lift_present_acquire(&lift_r_{s}, {row_address(b.host, f'lift_lo_{s}', b.row)}, "
                        f"(size_t)lift_rows_{s} * {b.row}, &lift_e_{s}, &lift_own_at_{s}, &lift_at_{s}));")
        else:
            body.append(f"LIFT_CHECK(lift_malloc(&lift_r_{s}, (size_t)lift_imax(1L, lift_rows_{s}) * {b.row}));")
        body.append(f"char *lift_d_{s} = lift_r_{s} - lift_lo_{s} * (long){b.row};")
    for b in buffers.values():
        uses = [u for _, u in b.uses]
        tracked = [i for i, u in enumerate(uses) if u.tracked]
        if not tracked:
            continue
        s = b.suffix
        if any(u.wlo is not None and not u.tracked for u in uses[:tracked[-1]]):
            # A nest without tracking writes it before one with: its rows are not counted, so all count.
            body.append(f"long lift_dirty_lo_{s} = lift_lo_{s}, lift_dirty_hi_{s} = lift_lo_{s} + lift_rows_{s} - 1; "
                        "/* earlier nests wrote it: any row may be newer on the GPU */")
        else:
            body.append(f"long lift_dirty_lo_{s} = 0, lift_dirty_hi_{s} = -1; /* none newer on the GPU */")
    slots = max(n.reduction_slots for n in nests)
    if slots:
        body.append("char *lift_dred = 0;")
        body.append(f"LIFT_CHECK(lift_malloc(&lift_dred, 16 * {slots}));")
    moves = _Moves(text, buffers, emit=True, present=present)
    state = moves.sequence(items, [None] + gaps + [None], {h: UNKNOWN if present else HOST for h in buffers}, 1,
                           body)
    for h, b in buffers.items():
        if state[h] == DEVICE and not present:
            body.append(_to_host(b))
            moves.moved_out.append(h)
    # the minimum: an input unless the scope's first use of it is a nest that overwrites it
    first = {h: next((b.covers(next(a for a in it.arrays if a.host == h)) if isinstance(it, NestData) else None
                      for it in items if any(a.host == h for a in it.arrays)), None)
             for h, b in buffers.items()}
    min_in = " + ".join(f"(size_t)lift_rows_{b.suffix} * {b.row}" if first[h] is None else
                        f"(({first[h]}) ? (size_t)0 : (size_t)lift_rows_{b.suffix} * {b.row})"
                        for h, b in buffers.items() if first[h] != "") or "(size_t)0"
    min_out = " + ".join(f"(size_t)lift_orows_{b.suffix} * {b.row}" for b in buffers.values() if b.written) \
        or "(size_t)0"
    site = " ".join(x for n in nests for x in n.kernels)
    body.append(f'LIFT_BYTES("{site}", lift_bytes_in, lift_bytes_out, {min_in}, {min_out});')
    for b in buffers.values():
        s, free = b.suffix, f"LIFT_CHECK(lift_free(lift_r_{b.suffix}, (size_t)lift_imax(1L, lift_rows_{b.suffix}) * {b.row}));"
        if not present:
            body.append(free)
            continue
        free = f"LIFT_CHECK(lift_free(lift_r_{s}, lift_rows_{s} > 0 ? (size_t)lift_rows_{s} * {b.row} : (size_t)1));"
        # an entry keeps the values (the next call, or the region's end, moves them); an own buffer
        # copies out what the device made newer
        out = f"if (*lift_at_{s} == LIFT_AT_DEVICE) {_to_host(b)} " if b.written else ""
        body.append(f"if (lift_e_{s}) lift_e_{s}->lift_busy--; else {{ {out}{free} }}")
        if b.written:
            moves.moved_out.append(f"{b.host} (unless kept for the next call)")
    if slots:
        body.append(f"LIFT_CHECK(lift_free(lift_dred, 16 * {slots}));")
    body.append("LIFT_CHECK(cudaDeviceSynchronize());")

    what = f"in: {', '.join(_once(moves.moved_in)) or 'nothing'}; out: {', '.join(_once(moves.moved_out)) or 'nothing'}"
    if moves.synced:
        what += f"; back to the host for host code: {', '.join(_once(moves.synced))}"
    loops = sum(isinstance(it, LoopData) for it in items)
    shared = f"{len(nests)} loop nests share their device data" if len(nests) > 1 else "loop nest offloaded to the GPU"
    if loops:
        shared += ", kept on the device across the iterations of the loop around them"
    lines = [f"{{ /* lift: {shared} ({', '.join(site.split())}); copies {comment_text(what)} */"]
    lines += [i1 + x for x in head]
    inner = i2 if cond else i1
    if cond:
        lines.append(f"{i1}if ({cond}) {{")
    lines += [reindent(x, inner) for x in body]
    if cond:
        lines.append(f"{i1}}} else {{ /* too little work, or the arrays overlap: the original code, on the host */")
        if present:
            lines.append(f"{i2}lift_present_host(0, 0, 1); /* device data kept across calls comes back first */")
        lines.append(i2 + text[items[0].start:items[-1].end])
        lines.append(f"{i1}}}")
    lines.append(indent + "}")
    return "\n".join(lines)


def _rotation_groups(items: list, gaps: list) -> list[list[str]]:
    """The sets of array pointers host code in the scope's loops rotates among themselves (a name
    in two rotations joins their sets), each sorted."""
    rotations = [names for it in items if isinstance(it, LoopData) for g in _all_gaps(it) for _, names in g.swaps]
    rotations += [names for g in gaps if g is not None for _, names in g.swaps]
    groups: list[set[str]] = []
    for names in rotations:
        joined = set(names).union(*(g for g in groups if g & set(names)))
        groups = [g for g in groups if not g & joined] + [joined]
    return [sorted(g) for g in groups]


def _all_gaps(loop: LoopData) -> list[GapEffects]:
    return loop.gaps + [g for it in loop.items if isinstance(it, LoopData) for g in _all_gaps(it)]


def flat_nests(items: list) -> list[NestData]:
    return [n for it in items for n in (it.nests if isinstance(it, LoopData) else [it])]


def _once(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


# Where an array's current values are, at a point of a data scope (known when the code is emitted):
HOST = "host"  # on the host only (the device copy is stale, or was never made)
BOTH = "both"  # on both (the host's and the device's copies are equal)
UNKNOWN = "unknown"  # known at run time only (a buffer that may be an entry of the table of a region)
DEVICE = "device"  # on the device; the host's copy may be older
# A claim may be weakened without moving data where it is true: BOTH holds where HOST or DEVICE is
# claimed (a copy back, or in, of equal data is merely wasted). Any other change is one copy.
LOOP_WEIGHT = 1000  # a copy in a loop's body counts as this many copies around it


def _copies(frm: str, to: str) -> int:
    return 0 if frm == to and frm != UNKNOWN or frm == BOTH else 1


class _Moves:
    """Walks a data scope's items in program order, keeping for every array where its current values
    are, and emits the copies host code and nests need: a nest needs its arrays on the device (copied
    in unless it overwrites every row the buffer holds), host code needs on the host the arrays it
    may read or write, and what it writes is then on the host only. Copies are counted (weighted by
    the loops around them), which lets a loop choose where its arrays are at the top of every
    iteration (`loop`)."""

    def __init__(self, text: str, buffers: dict[str, "_Buffer"], emit: bool, present: bool = False):
        self.text, self.buffers, self.emit, self.present = text, buffers, emit, present
        self.cost = {h: 0 for h in buffers}
        self.moved_in: list[str] = []
        self.moved_out: list[str] = []
        self.synced: list[str] = []
        # per loop being emitted, innermost last: where `break` and `continue` must leave the arrays
        self.targets: list[dict[str, dict[str, str]]] = []

    def sequence(self, items: list, gaps: list, state: dict[str, str], weight: int, out: list[str]) -> dict[str, str]:
        """Host code gaps[0], items[0], gaps[1], ...; gaps[k] is None where there is no host code."""
        state = dict(state)
        for k, item in enumerate(items + [None]):
            if gaps[k] is not None:
                self.gap(gaps[k], state, weight, out)
            if isinstance(item, LoopData):
                self.loop(item, state, weight, out)
            elif item is not None:
                self.nest(item, state, weight, out)
        return state

    def move(self, h: str, frm: str, to: str, weight: int, out: list[str], covers: str | None = None) -> str:
        """Makes the claim `to` true where `frm` is (with a copy, unless it can be weakened to it)."""
        if _copies(frm, to) == 0:
            return to
        b = self.buffers[h]
        if self.present:  # copies that check where the values are (and say where they are now)
            self.cost[h] += weight
            s = b.suffix
            if frm in (HOST, UNKNOWN) and to != HOST:
                copy = f"LIFT_PRESENT_IN(lift_e_{s}, lift_at_{s}, {_to_device(b)[:-1]});"
                if covers is not None:  # an own buffer the nest overwrites needs no copy; an entry moves whole
                    copy = f"if (lift_e_{s}{f' || !({covers})' if covers else ''}) {copy}"
                out.append(copy)
                self.moved_in.append(h)
            if frm in (DEVICE, UNKNOWN) and to != DEVICE:
                out.append(f"LIFT_PRESENT_OUT(lift_e_{s}, lift_at_{s}, {_to_host(b)[:-1]});")
                self.synced.append(h)
            return to
        if frm == DEVICE:
            self.cost[h] += weight
            out.append(_to_host(b))
            self.synced.append(h)
        elif covers is None:
            self.cost[h] += weight
            out.append(_to_device(b))
            self.moved_in.append(h)
        elif covers:
            self.cost[h] += weight
            out += [f"if (!({covers})) /* unless every element is overwritten */", "    " + _to_device(b)]
            self.moved_in.append(f"{h} (unless overwritten)")
        return to

    def nest(self, nest: NestData, state: dict[str, str], weight: int, out: list[str]) -> None:
        for a in nest.arrays:
            if state[a.host] in (HOST, UNKNOWN):
                state[a.host] = self.move(a.host, state[a.host], DEVICE if state[a.host] == UNKNOWN else BOTH,
                                          weight, out, self.buffers[a.host].covers(a))
        out.append(nest.nest)
        for a in nest.arrays:
            if a.wlo is not None:
                state[a.host] = DEVICE
                if self.present:
                    out.append(f"*lift_at_{a.suffix} = LIFT_AT_DEVICE;")

    def gap(self, gap: GapEffects, state: dict[str, str], weight: int, out: list[str]) -> None:
        back = [h for h in self.buffers if state[h] in (DEVICE, UNKNOWN) and _touches(gap, h)]
        if back:
            out.append(f"/* lift: the host code below may read {', '.join(back)}: back to the host first */")
        for h in back:
            state[h] = self.move(h, state[h], BOTH if state[h] == DEVICE else HOST, weight, out)
        swaps = []
        for at, names in gap.swaps:  # the device pointers (and where the values are) rotate with the host's
            moved = [state[h] for h in names]
            for h, frm in zip(names, moved[1:] + moved[:1]):
                state[h] = frm
            swaps.append((at, at, " " + _rotate(names, [b.suffix for b in map(self.buffers.get, names)],
                                                self.present)))
        for h in gap.writes:
            if h in state:
                state[h] = HOST  # copied again before the next nest that uses it
        if self.present:  # said before it runs: its own `break` and `continue` leave with it said
            out += [f"*lift_at_{self.buffers[h].suffix} = LIFT_AT_HOST;" for h in sorted(gap.writes) if h in state]
        # `break` and `continue` leave with the arrays where the code they jump to expects them (the
        # state after the whole host code holds anywhere in it: what it reads is on the host)
        jumps = []
        for kind, start, end in gap.exits if self.emit else []:
            copies: list[str] = []
            for h, to in self.targets[-1][kind].items():
                self.move(h, state[h], to, weight, copies)
            if copies:
                jumps.append((start, end, "{ " + " ".join(copies + [f"{kind};"]) + " }"))
        piece = _gap_text(self.text, gap, jumps + swaps)
        if piece:
            out.append(piece)

    def loop(self, loop: LoopData, state: dict[str, str], weight: int, out: list[str]) -> None:
        """The state at the top of every iteration is chosen per array, among the three, for the
        fewest copies in the body (then before the loop): copies before the loop make it true on
        entry, copies at the end of the body make it true again for the next iteration. The loop's
        condition sees the host's copies (it must be able to read them): where it reads an array,
        that array is not on the device only at the top (while, for) or after the body (do)."""
        inner = weight * LOOP_WEIGHT
        keys: dict[str, dict[str, tuple]] = {h: {} for h in state}
        for top in (BOTH, DEVICE, HOST):
            sim = _Moves(self.text, self.buffers, emit=False)
            end = sim.sequence(loop.items, loop.gaps, {h: top for h in state}, inner, [])
            for h in state:
                if top == DEVICE and _touches(loop.head, h):
                    continue
                back = _back_edge(end[h], top, loop.tail, h)
                keys[h][top] = (sim.cost[h] + _copies(end[h], back) * inner, _copies(state[h], top))
        # pointers rotated among themselves trade places: they take the same place at the top
        top = {}
        for h in state:
            group = self.buffers[h].rotated or [h]
            choices = [t for t in (BOTH, DEVICE, HOST) if all(t in keys[g] for g in group)]
            top[h] = min(choices, key=lambda t: tuple(map(sum, zip(*(keys[g][t] for g in group)))))
        if any(_copies(state[h], top[h]) for h in state):
            out.append("/* lift: where the loop below expects its arrays at the top of every iteration */")
        for h in state:
            state[h] = self.move(h, state[h], top[h], weight, out)
        end = _Moves(self.text, self.buffers, emit=False).sequence(loop.items, loop.gaps, top, inner, [])
        tail = {h: _back_edge(end[h], top[h], loop.tail, h) for h in state}
        self.targets.append({"continue": tail, "break": tail if loop.kind == LoopKind.DO else top})
        body: list[str] = []
        self.sequence(loop.items, loop.gaps, top, inner, body)
        self.targets.pop()
        if any(_copies(end[h], tail[h]) for h in state):
            body.append("/* lift: back where the next iteration expects them */")
        for h in state:
            self.move(h, end[h], tail[h], inner, body)
        out.append("\n".join([loop.before.rstrip()] + [reindent(x, "    ") for x in body] +
                             [loop.after.lstrip(" \t")]))
        state.update(tail if loop.kind == LoopKind.DO else top)


def _rotate(names: list[str], suffixes: list[str], present: bool) -> str:
    """C statements doing to the device-side variables of `names` what `t = n0; n0 = n1; ...; nk = t;`
    did to the host pointers."""
    kinds = [("char *", "r"), ("char *", "d")] + ([("lift_present_entry *", "e"), ("int *", "at")] if present else [])
    out = []
    for ctype, v in kinds:
        chain = [f"lift_{v}_{s}" for s in suffixes]
        steps = [f"{a} = {b};" for a, b in zip(chain, chain[1:])]
        out.append(f"{{ {ctype}lift_t = {chain[0]}; {' '.join(steps)} {chain[-1]} = lift_t; }}")
    return f"/* lift: the device buffers rotate with them */ {' '.join(out)}"


def _back_edge(end: str, top: str, tail: GapEffects, h: str) -> str:
    """Where array h must be at the end of a loop's body: `top`, or BOTH where the increment (for) or
    the condition (do) after the body reads it on the host, or where that needs fewer copies."""
    if top == DEVICE and _touches(tail, h):
        return BOTH
    return top if _copies(end, top) <= _copies(end, BOTH) else BOTH


def _touches(gap: GapEffects, h: str) -> bool:
    return gap.reads_all or h in gap.reads or h in gap.writes


def _hull(s: str, lo: str, rows: str, ranges: list[tuple[str, str]]) -> list[str]:
    """Head lines defining lift_<lo>_<s> and lift_<rows>_<s>: the rows of one range, or the hull of the
    non-empty ones among several."""
    if len(ranges) == 1:
        a, b = ranges[0]
        return [f"const long lift_{lo}_{s} = {a}, lift_{rows}_{s} = lift_imax(0L, ({b}) - lift_{lo}_{s} + 1L);"]
    lines = [f"long lift_{lo}_{s} = 0, lift_{lo}_{s}_end = -1; /* the hull of the nests' rows */"]
    lines += [f"lift_hull(&lift_{lo}_{s}, &lift_{lo}_{s}_end, {a}, {b});" for a, b in ranges]
    lines.append(f"const long lift_{rows}_{s} = lift_imax(0L, lift_{lo}_{s}_end - lift_{lo}_{s} + 1L);")
    return lines


def _to_device(b: _Buffer) -> str:
    s, h = b.suffix, b.host
    return (f"LIFT_TO_DEVICE(lift_r_{s}, {row_address(h, f'lift_lo_{s}', b.row)}, "
            f"(size_t)lift_rows_{s} * {b.row});")


def _to_host(b: _Buffer) -> str:
    """The copy back of the rows the scope writes (of all it holds where it writes none: only an
    entry of the table, which another scope may have written, can then be newer on the device)."""
    s, h = b.suffix, b.host
    lo, rows = ("olo", "orows") if b.written else ("lo", "rows")
    return (f"LIFT_TO_HOST((char *)({h}) + lift_{lo}_{s} * {b.row}, lift_d_{s} + lift_{lo}_{s} * {b.row}, "
            f"(size_t)lift_{rows}_{s} * {b.row});")


def _gap_text(text: str, gap: GapEffects, edits: list[tuple[int, int, str]] = ()) -> str:
    piece = text[gap.start:gap.end]
    for start, end, new in sorted(edits, reverse=True):
        piece = piece[:start - gap.start] + new + piece[end - gap.start:]
    piece = piece.strip("\n")
    lines = piece.split("\n")
    rest = [l for l in lines if l.strip()]
    common = min((len(l) - len(l.lstrip(" \t")) for l in rest), default=0)
    return "\n".join(l[common:] if l.strip() else "" for l in lines).strip("\n")


def _alias_condition(buffers: list[_Buffer], spans: dict[str, tuple[str, str]], nests: list[NestData]) -> str:
    """Run-time check that device arrays reached through pointers do not overlap where one is written
    (each gets its own buffer: overlapping ones would see stale copies), nor overlap what host code
    inside the nests writes under other names (the buffer would not see those writes)."""
    checks = []
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            if (a.written or b.written) and may_overlap(a.node, b.node):
                (plo, phi), (qlo, qhi) = spans[a.host], spans[b.host]
                checks.append(f"({phi} <= {qlo} || {qhi} <= {plo})")
    for w in (w for n in nests for w in n.host_writes):
        wlo, whi = row_address(w.host, f"({w.first})", w.row), row_address(w.host, f"(({w.last}) + 1L)", w.row)
        for b in buffers:
            if b.host != w.host and may_overlap(w.node, b.node):
                qlo, qhi = spans[b.host]
                checks.append(f"({whi} <= {qlo} || {qhi} <= {wlo})")
    return " && ".join(_once(checks))


def row_address(host: str, index: str, row: str) -> str:
    """C text of the byte address of row `index` of the host array `host` (rows of `row` bytes):
    the bounds of the byte ranges the scope copies and tests for overlap."""
    return f"(const char *)({host}) + {index} * {row}"


def may_overlap(a: AccessNode, b: AccessNode) -> bool:
    """Whether two containers of different names may share memory: one is reached through a
    pointer (neither `restrict`), and neither is an array object of its own."""
    if not (_may_alias(a) or _may_alias(b)) or a.restrict or b.restrict:
        return False
    if a.kind == Kind.ARRAY and b.kind == Kind.ARRAY:
        return False  # two objects of their own
    return not any(x.kind == Kind.ARRAY and x.storage == "local" for x in (a, b))  # not reached through a pointer


def _may_alias(node: AccessNode) -> bool:
    return node.kind in (Kind.POINTER, Kind.MEMORY) or node.storage == "param"


def comment_text(text: str) -> str:
    return text.replace("*/", "* /")


def reindent(text: str, indent: str) -> str:
    lines = text.split("\n")
    return "\n".join([indent + lines[0].lstrip() if lines[0].strip() else lines[0]] +
                     [(indent + l if l.strip() else l) for l in lines[1:]])
