"""What the caller of a function's SDFG does in the function's place (graph/sdfg.py exports the SDFG).

An SDFG computes into the buffers its caller passes and frees its own transients when it returns; the
statements of the function before its first region are its caller's part (the locals it computes and passes),
those after its last region too (the results it reads from what the SDFG computed). Two more:

- a buffer the function allocates in a statement of its body's top level before its last region, stores
  where its caller sees it (through a dereferenced parameter: `km->x = malloc(...)`, `*out = malloc(...)`) and
  that a region reads or writes (`handed_out`): the SDFG takes it as an argument, which the caller allocates,
  checks (C's early return where an allocation fails is the caller's, like every statement before the first
  region), stores where the function would, and passes. Its extent is the allocation's element count
  (`npts * dim` of `malloc((size_t)npts * dim * sizeof(double))`) where the allocation comes before the first
  region (the caller computes what C computes there) and its size is a product with one `sizeof` of the
  element; an allocation between regions (csr_build's `A->col`, of `A->nnz` elements, which its first region
  computes) keeps the extent the accesses give, else the size symbol the caller passes: at least the count C
  allocates;
- an assignment at the top level between two regions that the SDFG does not run (graph/sdfg_host.py runs
  scalar ones it can) and that writes what the caller sees (through a dereferenced parameter: csr_build's
  `A->nnz = A->rowptr[n];`), where no later region touches what it writes nor writes what it reads, and it
  calls nothing: the caller runs it after the SDFG, which computes the same (`between`; graph/sdfg_source.py
  refuses the others).

Each is named in a `// lift: ...` line of the SDFG's global code, which lift repeats as a warning.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast, c_generator

from lifter.analysis.effects import collect_effects
from lifter.analysis.points_to import allocation
from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import AccessNode, Memlet, Tasklet
from lifter.graph.symbolic import c_to_symbolic


@dataclass(frozen=True)
class HandedOut:
    """A buffer the function allocates and hands to its caller, which the SDFG takes as an argument (module doc)."""

    target: str  # the container (`km->x`)
    line: int
    count: list[str] | None  # the element count's factors (C text), None where the caller cannot compute it first


def handed_out(graphs: list[DataflowGraph]) -> dict[str, HandedOut]:
    """The buffers handed out (module doc) by the graphs' functions, by container."""
    return {b.target: b for _, mine, func in functions_of(graphs) for _, b in handed_out_items(func, mine)}


def handed_out_items(func: c_ast.FuncDef, mine: list) -> list[tuple[c_ast.Assignment, HandedOut]]:
    """A function's allocations handed out (module doc), each with its statement."""
    items = func.body.block_items or []
    lifted = {id(loop.node) for region in mine for loop in region.loops.values()}
    holding = [k for k, item in enumerate(items) if any(id(n) in lifted for n in walk(item))]
    containers = {key: c for region in mine for key, c in region.containers.items()}
    out = []
    for k, item in enumerate(items[:holding[-1]] if holding else []):
        target = allocated_target(item)
        if target in containers and _base(item.lvalue) in _parameters(func):
            c = containers[target]
            count = _count(_call(item.rvalue), c.member_element or c.element) if k < holding[0] else None
            out.append((item, HandedOut(target, item.coord.line if item.coord else 0, count)))
    return out


def failure_checks(func: c_ast.FuncDef, mine: list) -> list[c_ast.If]:
    """The `if`s at the top level that return where a buffer handed out is null and test nothing else (`if (!A->col
    || !A->val) return -1;`): C's early return where an allocation fails, the caller's part with the allocation
    (module doc). What the condition reads is effects.py's reading."""
    targets = {b.target for _, b in handed_out_items(func, mine)}
    symbols = mine[0].file.symbols.for_function(func) if targets else None
    out = []
    for item in func.body.block_items or [] if targets else []:
        body = item.iftrue.block_items or [] if isinstance(item, c_ast.If) and isinstance(item.iftrue, c_ast.Compound) \
            else [getattr(item, "iftrue", None)]
        if isinstance(item, c_ast.If) and item.iffalse is None and len(body) == 1 and isinstance(body[0], c_ast.Return):
            refs = collect_effects(item.cond, symbols, lambda name: name).refs
            if refs and all(not r.is_write and r.text in targets for r in refs):
                out.append(item)
    return out


def functions_of(graphs: list[DataflowGraph]):
    """(name, its regions' scops, its definition) of each function of the graphs that the file defines."""
    for function in dict.fromkeys(g.function for g in graphs):
        mine = [g.nest.scop for g in graphs if g.function == function]
        func = mine[0].file.functions.get(function)
        if func is not None:
            yield function, mine, func


def allocated_target(node: c_ast.Node) -> str | None:
    """The C text of where an assignment stores a fresh allocation, where that is not a local (`km->x`)."""
    if isinstance(node, c_ast.Assignment) and node.op == "=" and allocation(node.rvalue) \
            and not isinstance(node.lvalue, c_ast.ID):
        return c_generator.CGenerator().visit(node.lvalue)
    return None


def _base(e: c_ast.Node) -> str | None:
    """The variable an lvalue stores through, where it dereferences it (`km` of `km->x`, `out` of `*out` and
    `out[0]`; None for `s.x`, a copy's field)."""
    through = False
    while isinstance(e, (c_ast.StructRef, c_ast.ArrayRef, c_ast.UnaryOp)):
        through = through or not (isinstance(e, c_ast.StructRef) and e.type == ".")
        e = e.expr if isinstance(e, c_ast.UnaryOp) else e.name
    return e.name if isinstance(e, c_ast.ID) and through else None


def _parameters(func: c_ast.FuncDef) -> set[str]:
    params = func.decl.type.args.params if func.decl.type.args is not None else []
    return {p.name for p in params if getattr(p, "name", None)}


def _call(e: c_ast.Node) -> c_ast.FuncCall:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e


def _factors(e: c_ast.Node) -> list[c_ast.Node]:
    """The factors of a product, casts (`(size_t)`) left out."""
    while isinstance(e, c_ast.Cast):
        e = e.expr
    if isinstance(e, c_ast.BinaryOp) and e.op == "*":
        return _factors(e.left) + _factors(e.right)
    return [e]


def _count(call: c_ast.FuncCall, element: str) -> list[str] | None:
    """The number of `element`s an allocation holds, as the factors of its size but the one `sizeof` of the
    element (`malloc((size_t)npts * dim * sizeof(double))`: npts, dim; `calloc(n, sizeof(int))`: n); None
    where its size is of another form."""
    args = call.args.exprs if call.args is not None else []
    size = {"malloc": args[:1], "calloc": args[:2], "aligned_alloc": args[1:2]}.get(call.name.name, [])
    factors = [f for a in size for f in _factors(a)]
    sizes = [f for f in factors if isinstance(f, c_ast.UnaryOp) and f.op == "sizeof"]
    if len(sizes) != 1 or not isinstance(sizes[0].expr, c_ast.Typename) or _type_name(sizes[0].expr) != element:
        return None
    generator = c_generator.CGenerator()
    return [generator.visit(f) for f in factors if f is not sizes[0]] or ["1"]


def _type_name(t: c_ast.Typename) -> str | None:
    decl = t.type
    return " ".join(decl.type.names) if isinstance(decl, c_ast.TypeDecl) \
        and isinstance(decl.type, c_ast.IdentifierType) else None


def allocated_shape(buffer: HandedOut | None, node: AccessNode, flat: bool) -> list[str] | None:
    """The SDFG shape (DaCe's symbolic text) of a buffer the caller allocates, from the allocation's element count:
    the count itself where the buffer is seen flat, else its first extent the count without the factors that are
    the other extents (`npts * dim` seen as [?][dim]: [npts, dim]); None where the count is unknown or of another
    form (the exporter keeps the extents the accesses give, or size symbols)."""
    count = buffer.count if buffer is not None and buffer.count is not None else [""]
    # a struct member (`A->n`) is the symbol of its container's name (`A__n`), as graph/sdfg.py's `symbolic`
    factors = [c_to_symbolic(f, members=True) if f else None for f in count]
    if None in factors:
        return None
    ndim = len(node.strides) or node.ndim
    rest = [] if flat or ndim == 1 else [c_to_symbolic(d, members=True) if d else None for d in node.dims[1:ndim]]
    if len(rest) + 1 != (1 if flat else ndim):
        return None
    for d in rest:
        if d not in factors:
            return None
        factors.remove(d)
    first = " * ".join(f"({f})" for f in factors) if len(factors) > 1 else factors[0] if factors else "1"
    return [first] + rest


def caller_allocations(function: str, buffers: list[HandedOut], extents: dict[str, list[str]]) -> str:
    """The global code's `// lift:` line naming the buffers the caller allocates (module doc), each with its
    SDFG extent; "" where there is none."""
    if not buffers:
        return ""
    named = ", ".join(f"{b.target} (line {b.line}: {' x '.join(extents[b.target])})" for b in buffers)
    return (f"// lift: {function} allocates {named} and hands them out; the SDFG takes them as arguments: its "
            f"caller allocates them (of those extents; of a size symbol, at least the elements C allocates), "
            f"handles a failed allocation (C's early return) and stores them where {function} does\n")


def between(graphs: list[DataflowGraph], exported: set[int]) -> list[tuple[c_ast.Node, bool]]:
    """The assignments at the top level between the functions' regions that the SDFG does not run (`exported`:
    ids of the AST statements graph/sdfg_host.py runs) and that write through a dereferenced parameter, but the
    allocations `handed_out`, each with whether the caller can run it after the SDFG (module doc): what a later
    region touches are its containers and the parameters of its bounds (`a->n` of `i < a->n`)."""
    out = []
    for _, mine, func in functions_of(graphs):
        items = func.body.block_items or []
        region_of = {id(loop.node): k for k, region in enumerate(mine) for loop in region.loops.values()}
        holding = {k: {region_of[id(n)] for n in walk(item) if id(n) in region_of} for k, item in enumerate(items)}
        at = [k for k, regions in holding.items() if regions]
        generator = c_generator.CGenerator()
        passed = {id(item) for item, _ in handed_out_items(func, mine)}
        for k in range(at[0] + 1, at[-1]) if at else []:
            target = _assigned(items[k])
            if target is None or id(items[k]) in exported | passed or _base(target) not in _parameters(func):
                continue
            later = [mine[r] for j in range(k + 1, len(items)) for r in holding[j]]
            touched = {name for region in later for name in [*region.containers, *region.params]}  # bounds too
            written = {e.container for g in graphs if g.nest.scop in later for u, _, d in g.edges(data=True)
                       if isinstance(e := d["edge"], Memlet) and isinstance(g.nodes[u]["node"], Tasklet)}
            names = {generator.visit(n) for n in walk(items[k]) if isinstance(n, (c_ast.ID, c_ast.StructRef))}
            writes = {generator.visit(n) for n in walk(target) if isinstance(n, (c_ast.ID, c_ast.StructRef))}
            calls = any(isinstance(n, c_ast.FuncCall) for n in walk(items[k]))
            out.append((items[k], not calls and not writes & touched and not names & written))
    return out


def _assigned(node: c_ast.Node) -> c_ast.Node | None:
    """What an assignment or increment statement writes (its lvalue), None for another statement."""
    if isinstance(node, c_ast.Assignment):
        return node.lvalue
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return node.expr
    return None


def caller_after(function: str, statements: list[c_ast.Node]) -> str:
    """The global code's `// lift:` lines naming the statements the caller runs after the SDFG (`between`), one
    a line: `// lift: after the SDFG, its caller runs line 41: A->nnz = A->rowptr[n];`."""
    generator = c_generator.CGenerator()
    return "".join(f"// lift: after the SDFG, its caller runs line {s.coord.line if s.coord else 0}: "
                   f"{generator.visit(s)}; ({function} does it between its loops, which the SDFG does not)\n"
                   for s in statements)
