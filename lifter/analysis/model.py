"""The polyhedral model of a program: plain data handed from analysis to lifting.

A *region* is one outermost loop nest that the analysis could model. Each of its
statements has an iteration domain, a place in the original schedule and
access relations; the sets and maps are kept as isl objects.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import islpy as isl
from pycparser import c_ast


@dataclass(frozen=True)
class Condition:
    """An `if` between a loop or statement and its parent loop (or the region's root), and the
    branch taken: `text` is the `if`'s condition as written (C text) for its then-branch, and
    `!(...)` of it for its else-branch (or for the rest of a loop body after `if (c) continue;`).
    `if_id` numbers the `if`s of a region in textual order: two `if`s with the same text stay two
    (a data-dependent condition may change between them), and the two branches of one `if` share it.
    Affine conditions also shape the domains; this is what the graph's control layer shows."""

    text: str
    if_id: int


@dataclass
class Loop:
    """A `for` loop of a region, with affine bounds over outer loops and parameters."""

    id: str
    var: str
    node: c_ast.For
    line: int
    column: int
    depth: int  # 0 for the region's outermost loop
    parent: str | None
    function: str
    lower: str  # isl expressions, over parameters and outer loop variables
    upper: str  # inclusive
    step: int  # positive; `decreasing` loops run from upper down to lower
    decreasing: bool
    var_declared_in_header: bool
    var_type: str = ""  # the variable's type as C text where the header declares it
    children: list = field(default_factory=list)  # Loop ids and Statement ids, in order
    offset: int | None = None  # character offset of `for` in the user's file, if it is there
    conditions: list[Condition] = field(default_factory=list)  # the `if`s around it inside its parent, outermost first
    position: int = 0  # its place among its parent's children (the schedule's beta at its depth)
    # Scalars the nest sets that the header's text reads (scop.py `_header_scalars`): the model
    # reads their values, so the header must stay where those values are set.
    header_scalars: frozenset = frozenset()


@dataclass
class Access:
    """One reference to a container: `A[i][j-1]`, read or written, must or may."""

    id: str  # unique in its region: the isl tuple name of this access
    statement: str
    container: str
    is_write: bool
    must: bool  # a must-write kills earlier values; reads are always must
    relation: isl.Map  # statement instance -> element
    text: str
    line: int
    reduces: bool = False  # the read or write of the element its statement's reduction updates


@dataclass(eq=False)
class Statement:
    """A leaf of the region: one C statement (or an opaque sub-tree) executed per instance."""

    id: str
    node: c_ast.Node
    loops: list[str]  # enclosing loop ids, outermost first
    domain: isl.Set
    beta: list[int]  # textual positions at each depth, len(loops)+1
    line: int
    code: str
    accesses: list[Access] = field(default_factory=list)
    reduction: tuple[str, str] | None = None  # (container, operator) for `x op= e` forms
    opaque_reason: str | None = None  # why this leaf was not modelled exactly
    # In an opaque leaf: {container: operator} for those it touches only by reduction updates.
    updates: dict[str, str] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)  # the `if`s around it inside its loop, outermost first
    # C tests of sizes (`nx >= 0`) under which its accesses are read exactly (scop._delinearized):
    # the model holds only where they do, so every loop around it is parallel, and its nest
    # reordered, only under them (verdicts.py, transform/legality.reorder_guard)
    assumed: list[str] = field(default_factory=list)


class Kind(StrEnum):
    """What a declared name (`symbols.Symbol`) or a container is: one enum for both, since a
    container's kind is its symbol's. A str enum: the report and the exports print its value."""

    ARRAY = "array"
    POINTER = "pointer"  # the target of a pointer
    SCALAR = "scalar"
    MEMORY = "memory"  # a container only: memory no name can bound (`<world>`, `<memory>`, `p->f` of an unknown pointer)
    STRUCT = "struct"  # a symbol only: a struct or union object
    FUNCTION = "function"  # a symbol only


@dataclass
class Container:
    """A piece of data the region reads or writes: an array, a pointer's target or a scalar."""

    name: str
    ndim: int
    element: str
    kind: Kind  # may be given as its value ('array'); kept as the enum
    restrict: bool = False
    storage: str = "local"
    declared_in: str | None = None  # id of the loop whose body declares it (then private there)
    indirect: bool = False
    dims: list[str] = field(default_factory=list)  # declared extents as C text ('' where unknown)
    strides: list[str] = field(default_factory=list)  # a delinearized flat buffer: C stride per dimension
    field: str = ""  # one field of an array of structs ('.x'): `name[i].x`
    qualifiers: frozenset = frozenset()  # `volatile`, `_Atomic` (qualifiers.SHARED_QUALIFIERS) of its declaration
    allocated: bool = False  # a local pointer declared with a fresh allocation as its value
    const: bool = False  # declared const itself (a pointer: `double *const p`, which no code can point elsewhere)
    # a struct member's (`g->u`, or the field `p[i].x` of an array of structs) declared element type, for the
    # SDFG export's data types; `element` stays '?' for it, as the analyses and backends read it (they treat
    # a member's type as unknown)
    member_element: str = ""

    def __post_init__(self):
        self.kind = Kind(self.kind)


@dataclass
class LoopVerdict:
    """What the analysis proved about one loop."""

    parallel: bool
    reductions: list[tuple[str, str]] = field(default_factory=list)
    private: list[str] = field(default_factory=list)
    lastprivate: list[str] = field(default_factory=list)
    reason: str = ""
    condition: str = ""  # C test of values, made before the loop, under which it is parallel ('' always)
    code: str = ""  # why not parallel, stably (docs/report.md): 'flow-dependence', 'call-effects', ...
    # buffers that outlive the loop, privatized with the last iteration on the buffer itself
    # (analysis/shared_scratch.py): the emitted loop must know its last iteration
    shared_scratch: list[str] = field(default_factory=list)


@dataclass
class Region:
    """One modelled loop nest: loops, statements, containers, dependences and verdicts."""

    id: str
    function: str
    root: str  # id of the outermost loop
    loops: dict[str, Loop]
    statements: dict[str, Statement]
    containers: dict[str, Container]
    params: list[str]
    context: isl.Set
    dependences: dict[str, isl.UnionMap] = field(default_factory=dict)
    verdicts: dict[str, LoopVerdict] = field(default_factory=dict)
    may_alias: list[tuple[str, str]] = field(default_factory=list)  # pointer pairs to check at run time
    apart: set = field(default_factory=set)  # pointer parameter pairs that never share an object (points_to.py)
    type_apart: set = field(default_factory=set)  # pointer pairs C's aliasing rules keep apart (type_apart.py)
    # pointers that hold what the caller handed in (parameters, fields reached from them, `a->col`, their
    # local copies), each with the caller's pointer it holds (param_copies.py)
    from_params: dict = field(default_factory=dict)
    live_after: set[str] = field(default_factory=set)  # scalars read after the region
    called_in_loop: bool = False  # its function is called inside a loop of the file
    # one {parameter: integer constant} per call of its function, where all its calls are known
    # (call_constants.py): the sizes its loops run at, for profitability only
    call_sizes: list = field(default_factory=list)
    looping_calls: set = field(default_factory=set)  # statements calling a function that loops (symbols.py)
    irregular: set = field(default_factory=set)  # statements whose work depends on the data (irregular.py)
    # Loops inside opaque leaves with a verdict of their own (inner_loops.py), analysis only:
    # (depth of the loop in its function, the region of that loop)
    inner: list[tuple[int, "Region"]] = field(default_factory=list)
    row_ranges: dict = field(default_factory=dict)  # statement id -> RowRange of an opaque row loop (row_ranges.py)
    gathers: dict = field(default_factory=dict)  # statement id -> its AffineGathers (affine_gathers.py)
    owned: dict = field(default_factory=dict)  # loop id -> the OwnedGathers its verdict's condition tests (owned_rows.py)
    rebuild: object = None  # (id, loops) -> the Region of those consecutive outermost loops (for fusion)
    file: "FileFacts | None" = None  # the file around it, for the SDFG export (one object for all regions)

    def loops_inside(self, loop_id: str) -> list[str]:
        """The loop itself and every loop nested in it."""
        out, todo = [], [loop_id]
        while todo:
            lid = todo.pop()
            out.append(lid)
            todo.extend(c for c in self.loops[lid].children if c in self.loops)
        return out

    def containers_by_name(self, name: str) -> Container:
        """The container a C name refers to (reductions and clauses speak in C names)."""
        return next(c for c in self.containers.values() if c.name == name)

    def statements_inside(self, loop_id: str) -> list[str]:
        return [s.id for s in self.statements.values() if loop_id in s.loops]


@dataclass(eq=False)
class FileFacts:
    """What the SDFG export needs of the file beyond its regions, from the AST lift analysed: the
    definitions of the file's functions (those its statements call become the SDFG's global code), its
    typedefs (those the definitions name) and which functions are pure (compute from their arguments
    only). The AST lift analysed, not the file parsed again: the definitions are then those the
    statements were lifted with, the same macros and `-D` values, and nothing after the frontend
    reads C text. Its symbol table is the analysis' own, for effects.py's reading of a statement outside the
    regions (the export refuses one it would not run, naming what it does)."""

    path: str
    functions: dict  # name -> c_ast.FuncDef, every definition of the translation unit (a header's too)
    typedefs: list  # the c_ast.Typedef nodes at file scope, in file order
    pure_functions: frozenset
    symbols: object  # the file's symbols.SymbolTable: what a statement outside the regions reads and writes


@dataclass
class UnliftedLoop:
    """A loop the analysis could not model, with the reason, for remarks and the report."""

    line: int
    column: int
    function: str
    depth: int
    var: str
    reason: str
    code: str = ""  # the reason, stably (docs/report.md): 'jump', 'non-affine-bound', 'budget', ...


@dataclass(eq=False)
class ProgramModel:
    path: str
    regions: list[Region]
    unlifted: list[UnliftedLoop]
