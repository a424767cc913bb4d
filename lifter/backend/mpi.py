"""MPI backend: the OpenMP output, with the distributable regions split over MPI ranks.

The plan (which maps are distributed, which rows they read and write) is `mpi_plan.py`'s; the C
support and the exchange statements are `mpi_runtime.py`'s. Here they become edits of the
user's text: a distributed map's loop runs over its rank's block (`lift_lo` to `lift_hi`,
its OpenMP directive kept for the threads of the node), preceded by the halo exchanges of what
it reads; a replicated unit that reads rows another rank wrote is preceded by their gather; the
region ends with the gather of every array it distributed, so the host code after it, which
every rank runs, sees the original's values. Everything else is the OpenMP backend's output.
"""
from __future__ import annotations

from dataclasses import replace


from lifter.backend.edits import Insertion, apply, before_statement, line_start
from lifter.backend.mpi_plan import MPI_OPS, Distributed, RegionPlan, plan_region
from lifter.backend.mpi_runtime import PRELUDE, exchange, table_line
from lifter.backend.openmp import annotate_map, includes, pragma
from lifter.backend.outcome import Emitted, RegionOutcome
from lifter.frontend.source import SourceFile
from lifter.frontend.cfile import CFile
from lifter.frontend.spans import Spans, Unparsable
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, scope_children
from lifter.transform.row_spans import runtime_helpers

MARK = "/* lift-mpi */"


def emit_mpi(source: SourceFile, graphs: list[DataflowGraph]) -> Emitted:
    """The output text, and for every region how its top-level maps run over the ranks."""
    text = source.text
    spans = source.spans
    insertions: list[Insertion] = []
    replacements: list[tuple[int, int, str]] = []
    outcomes = []
    for g in graphs:
        plan, why = plan_region(g)
        edits = _region_edits(g, plan, text, spans) if plan is not None else None
        if plan is not None and edits is None:
            why = "its loops' text cannot be rewritten in place"
        top = [c for c in scope_children(g, STATE) if isinstance(g.nodes[c]["node"], MapScope)]
        if edits is None:
            outcomes.append(RegionOutcome(ranks={c: f"runs replicated on every MPI rank: {why}" for c in top}))
            for child in scope_children(g, STATE):
                annotate_map(g, text, child, insertions, replacements)
            continue
        outcomes.append(RegionOutcome(ranks={u: f"distributed over the MPI ranks in blocks of "
                                                f"'{g.nodes[u]['node'].var}'" for u in plan.distributed}))
        insertions += edits[0]
        replacements += edits[1]
    insertions += _setup(source.cfile)
    out = apply(text, insertions, replacements)
    head = spans.prologue_end()
    return Emitted(out[:head] + PRELUDE + includes(out) + runtime_helpers(out) + out[head:], outcomes)


def _region_edits(g: DataflowGraph, plan: RegionPlan, text: str, spans: Spans):
    """(insertions, replacements) for a distributed region, or None where its text cannot take them."""
    if g.nest.text_span is None:
        return None
    region_start, region_end = g.nest.text_span
    if plan.time_loop is not None:
        try:
            body = spans.for_span(g.nodes[plan.time_loop]["node"].offset).body_start
        except Unparsable:
            return None
        braced = text[body] == "{"
    else:
        braced = True
    pending: set[str] = set()
    if plan.time_loop is not None:  # what the body leaves pending is pending at its top from the second step on
        _walk(g, plan, text, spans, pending, None)
    insertions: list[Insertion] = [before_statement(text, region_start, f"{{ {MARK}")]
    replacements: list[tuple[int, int, str]] = []
    if not _walk(g, plan, text, spans, pending, (insertions, replacements, braced)):
        return None
    gathers = [exchange(plan.names[c], _have(plan, c), None, "gather") for c in sorted(pending)]
    insertions.append(Insertion(region_end, "".join(f"\n{_indent(text, region_start)}{s}" for s in gathers) + " }"))
    return insertions, replacements


def _walk(g: DataflowGraph, plan: RegionPlan, text: str, spans: Spans, pending: set[str], out) -> bool:
    """Run through the units in order, updating the arrays whose rows are `pending` (written by a
    distributed map since their last gather); with `out`, also emit the edits (False: cannot)."""
    for u in plan.units:
        node = g.nodes[u]["node"]
        d = plan.distributed.get(u)
        if d is not None:
            halos = [exchange(plan.names[c], _have(plan, c),
                              table_line("need", d.lower, d.upper, d.reads[c].first, d.reads[c].last), "halo")
                     for c in sorted(set(d.reads) & pending) if not _own_rows(plan, d, c)]
            if out is not None:
                loop = _block_loop(text, spans, node, d, halos)
                if loop is None:
                    return False
                out[1].append((node.span[0], node.span[1], loop))
            pending |= set(d.writes)
            continue
        reads = plan.reads[u]
        synced = sorted(pending if "*" in reads else pending & reads)
        pending -= set(synced)
        if out is None:
            continue
        if synced:
            span = node.span
            if span is None or not out[2]:
                return False
            gathers = " ".join(exchange(plan.names[c], _have(plan, c), None, "gather") for c in synced)
            out[0].append(before_statement(text, span[0], gathers))
        annotate_map(g, text, u, out[0], out[1])
    return True


def _own_rows(plan: RegionPlan, d, container: str) -> bool:
    """The map reads only rows its own block of the array's writer wrote: no halo."""
    w = next(w for w in plan.distributed.values() if container in w.writes)
    return (w.lower, w.upper) == (d.lower, d.upper) and d.reads[container] == w.writes[container]


def _have(plan: RegionPlan, container: str) -> str:
    """The table line of the rows each rank's block of the array's writer wrote."""
    d = next(d for d in plan.distributed.values() if container in d.writes)
    rows = d.writes[container]
    return table_line("have", d.lower, d.upper, rows.first, rows.last)


def _block_loop(text: str, spans: Spans, m: MapScope, d: Distributed, halos: list[str]) -> str | None:
    """The map's loop over this rank's block, after its halo exchanges, as one compound statement."""
    try:
        whole = spans.for_span(m.offset)
    except Unparsable:
        return None
    header = text[whole.start:whole.header_end]
    parts = header[header.index("(") + 1:-1].split(";")
    if len(parts) != 3 or parts[0].count("=") != 1 or "," in parts[0]:
        return None
    # the bounds as written stay in the header, unevaluated, so that their names stay used (-Wall)
    lhs, rhs = parts[0].split("=")
    init = f"{lhs.rstrip()} = (sizeof({rhs.strip()}) ? lift_lo : lift_lo)"
    test = f"{m.var} < (sizeof({parts[1].strip()}) ? lift_hi : lift_hi)"
    indent = _indent(text, whole.start)
    lines = [f"{{ {MARK}"] + [f"{indent}    {h}" for h in halos]
    lines.append(f"{indent}    long lift_lo, lift_hi; "
                 f"lift_mpi_block({d.lower}, ({d.upper}) + 1, "
                 f"lift_mpi_rank, &lift_lo, &lift_hi);")
    # a plan versioned for profitability only (no guard: mpi_plan.py) keeps its work test as `if`
    directive = pragma(replace(m, plan=replace(m.plan, versioned=False, condition=m.plan.work))
                       if m.plan.versioned else m)
    starts, ends = _reductions(d)
    lines += [f"{indent}    {line}" for line in starts]
    lines.append(f"{indent}    {directive}")
    lines.append(f"{indent}    for ({init}; {test};{parts[2]}){text[whole.header_end:whole.end]}")
    lines += [f"{indent}    {line}" for line in ends]
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def _reductions(d: Distributed) -> tuple[list[str], list[str]]:
    """Each rank reduces its block from the identity; MPI_Allreduce joins the partial results and
    the value before the loop (an idempotent operator reduces the value itself on every rank)."""
    starts, ends = [], []
    for name, op, kind in d.reductions:
        mpi_op, identity, join = MPI_OPS[op]
        ends.append(f"MPI_Allreduce(MPI_IN_PLACE, &{name}, 1, {kind}, {mpi_op}, MPI_COMM_WORLD);")
        if identity is not None:
            starts.append(f"__typeof__({name}) lift_before_{name} = {name}; {name} = {identity};")
            ends[-1] += f" {name} = lift_before_{name} {join} {name};"
    return starts, ends


def _indent(text: str, offset: int) -> str:
    indent = text[line_start(text, offset):offset]
    return indent if indent.strip() == "" else ""


def _setup(cfile: CFile) -> list[Insertion]:
    """`lift_mpi_setup();` first thing in `main`, so that only rank 0 prints from the start."""
    main = cfile.definition("main")
    return [Insertion(cfile.body_offsets(main)[0] + 1, " lift_mpi_setup();")] if main is not None else []
