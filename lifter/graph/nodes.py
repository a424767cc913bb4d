"""Node and edge types of the dataflow graph (in the spirit of SDFGs).

One graph per lifted region (a networkx MultiDiGraph). Node attribute `node`
holds one of the data classes below; edge attribute `edge` holds a Scope, a
Memlet, a Contains or a Transition. The graph is what transformations rewrite
and backends read. It has two layers:

- Control (graph/control.py builds it from the scope tree): the Root's
  control-flow graph. Its blocks are States (each runs one top-level map or
  tasklet), LoopRegions (a sequential loop whose body is again blocks: the
  time loop around parallel sweeps) and ConditionalRegions (an `if` whose
  branches are again blocks). Contains edges nest blocks in their region
  and tie each State to what it runs; Transition edges chain the blocks of a
  region (of a branch) in the order they run.
- Dataflow: MapScope (a loop as a scope over a parametric range; `schedule` is
  'parallel' when the analysis proved its iterations independent, up to the
  listed reductions and private scalars, 'sequential' otherwise; the
  transformation stage attaches `plan`, what the backend emits for it), Tasklet
  (one statement of the user's code, run once per map iteration) and
  AccessNode (a data container: array, pointer target or scalar). Scope edges
  (parent scope -> child map or tasklet, in textual order) form the scope tree
  under the Root; Memlets carry data between an access node and a map or
  tasklet (the container, the subset moved, its volume and, for conflicting
  writes, the reduction operator `wcr`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import islpy as isl

from lifter.analysis.model import Condition, Kind
from lifter.analysis.subscript_bounds import isl_c
from lifter.frontend.spans import CExpr, Spans, TokenKind, c_expr, called_names, compound_update, lexed, word_tokens


STATE = "state"  # node id of the Root (the name dates from when the Root was the region's only state)


@dataclass
class Root:
    """The region: root of the scope tree and the control-flow region at the top (its blocks run in order)."""

    region: str
    function: str
    params: list[str]


@dataclass
class State:
    """A basic block: runs one top-level map (with everything inside it) or tasklet, its Contains edge's target.

    Consecutive maps and tasklets are separate states, so their order is control flow (a
    Transition), as in DaCe, where only data dependences order the nodes inside one state.
    """

    id: str


@dataclass
class LoopRegion:
    """A sequential loop over states: a sequential map with a parallel map inside (a time loop).

    Its body is the map's children, each a block (a State, or a LoopRegion again), run in order
    once per iteration. The loop's control (variable, bounds, step) is the map's, copied here.
    """

    id: str
    map: str  # the MapScope it stands for
    var: str
    begin: str  # inclusive bounds, C text
    end: str
    step: int
    decreasing: bool


@dataclass
class Branch:
    """One branch of a ConditionalRegion: its condition (C text) and its blocks, in the order they run."""

    condition: str
    blocks: list[str]


@dataclass
class ConditionalRegion:
    """An `if` around blocks: the run of consecutive scope children under one `if` of the user's
    code (the same `Condition.if_id` first among the conditions not yet shown by enclosing regions).

    One branch per branch of the `if` that holds blocks, in textual order: the then-branch (the
    `if`'s condition) and the else-branch (its negation `!(...)`); a branch's blocks are its
    children by the same rule, so an `if` inside it is a ConditionalRegion again. Its Contains
    edges go to the blocks of all branches (`order` running on from one branch to the next), and
    transitions chain the blocks of each branch, never one branch to another.
    """

    id: str
    branches: list[Branch]


@dataclass
class ScratchBuffer:
    """A pointer target a parallel loop privatizes: each thread points its own `name` at a
    fresh allocation of `count` elements for its share of the loop (`transform/scratch.py`)."""

    name: str
    count: str  # C expression, evaluated before the loop
    # a buffer that outlives the loop (analysis/shared_scratch.py): true in the loop's last
    # iteration, which works on the buffer itself; '' for a fresh allocation, which nothing reads after
    last: str = ""
    body: int | None = None  # just after the `{` of the loop's body in the user's file (with `last`)
    braced: bool = True  # False: the body is one statement without braces, and `body` is where it starts


@dataclass(frozen=True)
class GuardedUpdate:
    """An update of a reduced array whose index has no bounds in C (`f[j] -= d`, j read from
    memory; `transform/guarded_updates.py`): inside the reduced section it updates the thread's
    copy; outside it, it updates nothing and sets `lift_escape`, after which the loop runs again
    as written (`SavedReduction`)."""

    name: str  # the array
    element: str  # its element type
    start: int  # offsets of the statement in the user's file, its `;` included
    end: int
    inside: str  # C condition: the index (free of side effects) falls in the reduced section


@dataclass(frozen=True)
class SavedReduction:
    """A reduction target of a plan with guarded updates, copied before the parallel loop: if an
    update fell outside its section, the copy is put back and the loop runs again as written."""

    name: str
    element: str  # its C type (an array's element type); a scalar's copy is declared with it
    first: str = ""  # an array's reduced section, C expressions; '' for a scalar
    length: str = ""


@dataclass
class OmpPlan:
    """What the OpenMP backend emits for a parallel map."""

    collapse: int = 1
    private: list[str] = field(default_factory=list)
    lastprivate: list[str] = field(default_factory=list)
    reductions: list[tuple[str, str]] = field(default_factory=list)
    condition: str = ""  # run-time condition (work size, no aliasing); empty means always
    versioned: bool = False  # test the condition in C before the loop, with a sequential copy
    sections: dict[str, str] = field(default_factory=dict)  # array reductions: name -> "first:length"
    guard: str = ""  # the part of `condition` correctness needs (no aliasing, trip count, section size)
    work: str = ""  # the size test of the profitability part of `condition` (`work > N`, team_start.work_parts)
    schedule: str = "static"  # 'static'; 'static, 1' for triangular loops; 'dynamic, 64' for data-driven work
    worksharing: bool = False  # inside an enclosing OmpRegion: `omp for`, no `parallel`, no `if`
    scratch: list[ScratchBuffer] = field(default_factory=list)  # private pointer targets, one buffer per thread
    guarded: list[GuardedUpdate] = field(default_factory=list)  # array reductions' unbounded updates
    saved: list[SavedReduction] = field(default_factory=list)  # with `guarded`: what a second run restores
    assumed_apart: bool = False  # parallel (or without a test) only by the user's --assume-no-alias
    team_work: str = ""  # the work of the `lift_team_worth` test in `condition`, beside `work` (team_start.py)
    team_copies: bool = False  # each thread gets a copy: the test is `lift_team_worth_copies` (team_start.py)

    @property
    def condition_expr(self) -> CExpr:
        """`condition` with its words (a backend that tests it elsewhere asks what it reads)."""
        return c_expr(self.condition)


@dataclass
class BucketScatter:
    """A loop `T[C[b]++] = V` the OpenMP backend runs in parallel (transform/bucket_scatter.py,
    backend/openmp_scatter.py): the texts and names it needs."""

    bucket: str  # the integer scalar the body declares: the item's bucket
    declaration: str  # that declaration's text as written (`int b = keys[i] >> 10;`)
    store: str  # the store on each thread's row of offsets (`buf[lift_own[b - lift_lo]++] = keys[i];`)
    counts: str  # the running offsets as written (`fill`, `s->key_rank`)
    element: str  # their element type
    target: str  # the array the items go to (`buf`)
    reads: list[str]  # the arrays read at the loop's variable (`keys`)
    work: str  # the profitability test in C (`n > 40000L`)
    bump: str = "p++"  # 'p++' (`T[C[b]++]`) or '--' (`T[--C[b]]`)
    sized: bool = True  # the offsets are an array of the function (its length is known), else the
    #                buckets' least and greatest are found at run time, by one more pass
    places: int = 1  # the places each item takes (`T[C[b]] = V; T[C[b] + 1] = W; C[b] += 2;`)


@dataclass
class OmpRegion:
    """One `#pragma omp parallel` around a sequential map, so threads start once, not per iteration.

    Every thread runs the sequential loop's control; its planned child maps are
    `omp for` (plans with `worksharing`), and every other child runs on one
    thread in `omp single` (both end in a barrier, so each child sees what the
    one before wrote).
    """

    private: list[str] = field(default_factory=list)  # the loop's own variable when declared outside it
    singles: list[list[str]] = field(default_factory=list)  # runs of consecutive child ids for `omp single`
    guard: str = ""  # profitability and correctness (no aliasing): tested in C before the loop, with a sequential copy
    nowait: list[bool] = field(default_factory=list)  # per single: the `omp for` after it has the barrier


class Schedule(StrEnum):
    """How a map's iterations run. A str enum: the exports print its value."""

    PARALLEL = "parallel"  # independent (up to the map's reductions and private scalars)
    SEQUENTIAL = "sequential"


@dataclass
class MapScope:
    id: str
    var: str
    begin: str  # inclusive bounds, C text over parameters and outer map variables
    end: str
    step: int
    decreasing: bool
    schedule: Schedule
    line: int
    column: int
    depth: int
    function: str
    offset: int | None  # where the loop's `for` keyword is in the user's file
    var_declared_in_header: bool
    trip_count: str | None  # strict C (over parameters and outer variables), None if not affine
    max_trip_count: str | None  # the largest trip count over all outer iterations, over parameters only
    reductions: list[tuple[str, str]] = field(default_factory=list)
    private: list[str] = field(default_factory=list)
    lastprivate: list[str] = field(default_factory=list)
    reason: str = ""  # why sequential, or what was over-approximated
    condition: str = ""  # sequential, but parallel when this C test of values holds before it (verdicts.py)
    plan: OmpPlan | None = None
    not_parallelized: str = ""  # why a parallel map was left sequential by the transformations
    not_parallelized_code: str = ""  # that reason, stably: the report's reason_code
    origin: str = ""  # the loop this map came from (copies made by distribution share it)
    header: str = ""  # the loop's `for (...)` text as written, when a nest is re-emitted
    var_type: str = ""  # the variable's type as C text where the header declares it (from the AST)
    transformations: list[str] = field(default_factory=list)  # e.g. 'distribution', 'interchange'
    declarations: list[str] = field(default_factory=list)  # plain declarations at the top of the body
    closing: list[str] = field(default_factory=list)  # plain statements at its end (register locals written back)
    prologue: list[str] = field(default_factory=list)  # declarations and statements just before the loop, and
    epilogue: list[str] = field(default_factory=list)  # statements just after it, all in one block around it
    #                (register accumulators read before a reduction loop and written back after it)
    declares: bool = False  # its body declares variables, so it must stay where it is
    span: tuple[int, int] | None = None  # (start, end) of the loop statement in the user's file
    simd: bool = False  # vectorize with `omp simd` (set by transform/vectorize.py)
    parallel_region: OmpRegion | None = None  # on a sequential map: one parallel region around it
    fused: list[str] = field(default_factory=list)  # origins of the loops fused into this map
    tile: int = 0  # a tile loop (transform/tiling.py): steps over blocks of this many iterations of
    #                the map of the same origin inside it, its point loop; 0 for every other map
    tile_lower: str = ""  # a tile loop of a triangular band: the first index of its grid (isl text over
    #                parameters and the loops above the band), where its loop's lower bound uses a loop of the band
    conditions: list[Condition] = field(default_factory=list)  # the `if`s around it inside its parent
    #                scope, outermost first (not `condition`, a run-time test of values for parallelism)
    shared_scratch: list[str] = field(default_factory=list)  # privatized buffers that outlive the loop:
    #                sequential until planned, like `condition` (analysis/shared_scratch.py)
    block: bool = False  # unrolled whole into one iteration of copies (transform/outer_jam.py): emitted as
    #                a plain block `{ ... }` that scopes the copies' variables, its header gone
    stands_for: dict[str, int] = field(default_factory=dict)  # statements (tasklet ids) for which this map
    #                runs over their iteration dimension d, not its origin's depth: a rotated nest (rotation.py)
    scatter: BucketScatter | None = None  # sequential as planned, but a bucket scatter the OpenMP backend
    #                runs in parallel (transform/bucket_scatter.py)
    body_text: str = ""  # its body exactly as the user wrote it, emitted in place of its children: a nest whose
    #                statements cannot be cut apart (`if`s around them) but whose loops were rewritten (diagonal.py)

    # Facts about the names its C texts use, read from the texts as they are now (a pass that rewrites a
    # bound or the trip count changes them with it): the backends read these, not the texts.
    @property
    def trip_words(self) -> set[str]:
        """The words (names, and keywords such as a cast's `long`) the trip count's C uses:
        `trip_count`'s, else the bounds' (isl's functions `min`, `max`, `floord` are no names of the program)."""
        if self.trip_count is not None:
            return word_tokens(self.trip_count)
        return set().union(*(word_tokens(b) - called_names(b) for b in (self.begin, self.end)))

    # Its texts with their tokens (the frontend's lexical layer, made once per text): a backend that
    # copies them into code of its own reads their names and edits them by these offsets.
    @property
    def header_lexed(self) -> Spans:
        return lexed(self.header)

    @property
    def declarations_lexed(self) -> list[Spans]:
        return [lexed(d) for d in self.declarations]

    @property
    def prologue_lexed(self) -> list[Spans]:
        return [lexed(p) for p in self.prologue]

    @property
    def epilogue_lexed(self) -> list[Spans]:
        return [lexed(e) for e in self.epilogue]

    @property
    def first_value(self) -> Spans:
        """The C of the variable's first value (`end` for a decreasing loop), isl's min/max/floord
        as the CUDA prelude's helpers (`isl_c`)."""
        return lexed(isl_c(self.end if self.decreasing else self.begin))


@dataclass
class Tasklet:
    id: str
    code: str
    line: int
    opaque_reason: str | None = None
    text: str = ""  # the statement exactly as written, when a nest is re-emitted
    span: tuple[int, int] | None = None  # (start, end) of that statement in the user's file
    conditions: list[Condition] = field(default_factory=list)  # the `if`s around it inside its parent scope
    guarded_text: bool = False  # `text` is the whole `if (c) s;` around it (`source_text._guarded_statement`)

    @property
    def update(self) -> tuple[str, str, str] | None:
        """The statement as a compound update `y[j] += e;` (or `y[j] = y[j] + e;`, `h[k]++;`): the
        updated lvalue's text, the operator and the value it combines (frontend/spans.compound_update);
        None for any other statement or where its text is not known."""
        return compound_update(self.text) if self.text else None

    @property
    def lexed(self) -> Spans:
        """`text` with its tokens (the frontend's lexical layer, made once per text)."""
        return lexed(self.text)

    @property
    def update_lexed(self) -> tuple[Spans, str, Spans] | None:
        """`update` with the lvalue's and the value's tokens."""
        update = self.update
        return None if update is None else (lexed(update[0]), update[1], lexed(update[2]))


@dataclass
class AccessNode:
    container: str  # unique key in the region
    name: str  # the C name
    ndim: int
    element: str
    kind: Kind
    restrict: bool
    storage: str
    transient: bool  # declared inside the region
    indirect: bool
    dims: list[str] = field(default_factory=list)  # declared extents as C text ('' where unknown)
    strides: list[str] = field(default_factory=list)  # delinearized flat buffer: element stride per dim
    field: str = ""  # one field of an array of structs ('.x'): elements are `name[i].x`

    @property
    def name_words(self) -> set[str]:
        """The names the C expression of the container uses (`g->u`: `g` and `u`)."""
        return word_tokens(self.name)

    @property
    def plain_name(self) -> bool:
        """The C expression is one name (`u`, not a member path `g->u`)."""
        toks = lexed(self.name).tokens
        return len(toks) == 1 and toks[0].kind == TokenKind.WORD

    @property
    def path_head(self) -> str | None:
        """The name the C expression starts with (`g` of `g->u`), None where it starts with none."""
        toks = lexed(self.name).tokens
        return toks[0].text if toks and toks[0].kind == TokenKind.WORD else None

    @property
    def dim_words(self) -> list[set[str]]:
        """Per declared extent, the names its C uses (none where the extent is unknown)."""
        return [word_tokens(d) for d in self.dims]

    @property
    def stride_words(self) -> list[set[str]]:
        """Per stride of a delinearized buffer, the names its C uses."""
        return [word_tokens(d) for d in self.strides]


@dataclass
class Scope:
    order: int


@dataclass
class Contains:
    """Control nesting: Root, LoopRegion or ConditionalRegion -> its blocks (`order` 0 is the first
    to run; a conditional region's run through its branches in turn), and State -> the map or
    tasklet it runs (`order` 0)."""

    order: int


@dataclass
class Transition:
    """Control passes from one block to the next block of the same region or branch (DaCe's
    InterstateEdge).

    Always unconditional and without assignments: a loop's own control is its LoopRegion's, and
    an `if`'s is its ConditionalRegion's (docs/graph.md).
    """


@dataclass
class Memlet:
    container: str
    subset: list[tuple[str, str]]  # per dimension (first, last) inclusive, C text; ("?", "?") unknown
    volume: str
    wcr: str | None = None  # reduction operator for conflicting writes
    dynamic: bool = False  # may-access: moves at most this data
    text: str = ""  # the access as written, for tasklet memlets
    # a map's memlet: the elements it touches over all the map's iterations (an isl set over the
    # parameters and outer map variables; `subset` is its box as C text); None on a tasklet's
    range: isl.Set | None = None

    def subset_text(self) -> str:
        if not self.subset:
            return self.container
        dims = []
        for lo, hi in self.subset:
            dims.append(lo if lo == hi else f"{lo}:{hi}")
        return f"{self.container}[{', '.join(dims)}]"


def guards_updates(g) -> bool:
    """Whether a map of `g` plans guarded updates (`OmpPlan.guarded`): the backend places them at
    the user's text offsets, so a pass that re-emits the nest from the graph would drop them."""
    return any(isinstance(n, MapScope) and n.plan is not None and bool(n.plan.guarded)
               for n in (data["node"] for _, data in g.nodes(data=True)))


def scope_children(g, node_id: str) -> list[str]:
    """The maps and tasklets directly inside a scope, in textual order."""
    kids = [(d["edge"].order, v) for _, v, d in g.out_edges(node_id, data=True) if isinstance(d["edge"], Scope)]
    return [v for _, v in sorted(kids)]


def scope_descendants(g, node_id: str) -> list[str]:
    """Everything nested inside a scope (following scope edges only, not memlets)."""
    out, todo = [], scope_children(g, node_id)
    while todo:
        n = todo.pop(0)
        out.append(n)
        todo.extend(scope_children(g, n))
    return out


def strips_before(g, node_id: str) -> int:
    """The step of the unrolled map whose remainder this map is (unroll-and-jam's copy
    `<main>.<var>_rest`, transform/unroll.py, which keeps its main map's bounds but runs after
    the main map's whole strips), 1 for any other map."""
    rest = f".{g.nodes[node_id]['node'].var}_rest"
    main = g.nodes.get(node_id.replace(rest, "", 1)) if rest in node_id else None
    return main["node"].step if main is not None and main["node"].step > 1 else 1


def scope_parent(g, node_id: str) -> str | None:
    for u, _, d in g.in_edges(node_id, data=True):
        if isinstance(d["edge"], Scope):
            return u
    return None
