"""OpenMP backend: the user's file with `#pragma omp` directives on the planned maps."""
from __future__ import annotations


from lifter.backend.edits import Insertion, apply, before_statement, in_block, line_start
from lifter.frontend.source import SourceFile
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, OmpRegion, ScratchBuffer, scope_children
from lifter.backend.openmp_scatter import HEADERS as SCATTER_HEADERS, NAME as SCATTER_NAME, scatter_text
from lifter.transform.row_spans import runtime_helpers
from lifter.transform.team_start import team_helpers

MARK = "/* lift */"
RESTRUCTURED = "/* lift: loop nest restructured for locality (see the report) */"


def simd_pragma(m: MapScope) -> str:
    clauses = ["simd"] + [f"reduction({op}: {name})" for name, op in m.reductions]
    return f"#pragma omp {' '.join(clauses)} {MARK}"


def pragma(m: MapScope) -> str:
    plan = m.plan
    own = {b.name for b in plan.scratch}  # private on the `omp parallel` around (`scratch_lines`)
    clauses = ["for" if plan.worksharing or own else "parallel for"]
    if m.simd:
        clauses[0] += " simd"
    if plan.collapse > 1:
        clauses.append(f"collapse({plan.collapse})")
    clauses.append(f"schedule({plan.schedule})")
    private = [v for v in plan.private if v not in own]
    if private:
        clauses.append(f"private({', '.join(private)})")
    if plan.lastprivate:
        clauses.append(f"lastprivate({', '.join(plan.lastprivate)})")
    for name, op in plan.reductions:
        section = f"[{plan.sections[name]}]" if name in plan.sections else ""
        clauses.append(f"reduction({op}: {name}{section})")
    if plan.guarded:
        clauses.append("reduction(|: lift_escape)")
    if plan.condition and not plan.versioned and not plan.worksharing and not own:
        clauses.append(f"if({plan.condition})")
    return f"#pragma omp {' '.join(clauses)} {MARK}"


def scratch_lines(m: MapScope) -> tuple[list[str], str]:
    """The lines before a planned loop (its directive last) and the text after it.

    A loop that privatizes pointer targets runs in an `omp parallel` of its own, in which
    each thread points its private pointer at a fresh buffer, shares the loop (`omp for`) and
    frees the buffer; otherwise this is just the loop's directive. A buffer that outlives the
    loop is `firstprivate`: each thread keeps its address for the last iteration (`switch_text`)."""
    plan = m.plan
    if not plan.scratch:
        return [pragma(m)], ""
    fresh = [b.name for b in plan.scratch if not b.last]
    shared = [b.name for b in plan.scratch if b.last]
    clauses = (f" private({', '.join(fresh)})" if fresh else "") + \
        (f" firstprivate({', '.join(shared)})" if shared else "")
    condition = f" if({plan.condition})" if plan.condition and not plan.versioned else ""
    lines = [f"#pragma omp parallel{clauses}{condition} {MARK}", "{"]
    for b in plan.scratch:
        own = _own(b)
        keep = f"void *const lift_shared_{b.name} = {b.name}, *const " if b.last else ""
        # a shared buffer's loop may run no iteration here (the count is then not positive)
        count = f"({b.count}) > 0 ? ({b.count}) : 1" if b.last else b.count
        lines.append(f"    {keep}{own} = malloc(sizeof *{b.name} * (size_t)({count})); if (!{own}) abort();")
    lines.append(pragma(m))
    return lines, " " + " ".join(f"free({_own(b)});" for b in plan.scratch) + " }"


def _own(b: ScratchBuffer) -> str:
    """The thread's own copy: the private pointer itself, or beside a shared buffer's address."""
    return f"lift_own_{b.name}" if b.last else b.name


def switch_text(m: MapScope) -> str:
    """The statements first in the body of a loop with shared scratch buffers: the last iteration
    works on the buffer itself, every other on the thread's copy ('' without such buffers). The
    body as written follows in a block of its own (closed by `_switch_insertions`), so that its
    declarations still open a block (C90, -Wdeclaration-after-statement)."""
    plan = m.plan
    shared = [b for b in plan.scratch if b.last] if plan is not None else []
    if not shared:
        return ""
    return "".join(f" {b.name} = {b.last} ? lift_shared_{b.name} : lift_own_{b.name};" for b in shared) + " {"


def guarded_replacements(text: str, m: MapScope) -> list[tuple[int, int, str]]:
    """The planned loop's unbounded updates of reduced arrays (`transform/guarded_updates.py`):
    inside the reduced section the update as written, on the thread's copy; outside it nothing
    but the flag after which the loop runs again as written (`_rerun`)."""
    return [(u.start, u.end, f"{{ if ({u.inside}) {text[u.start:u.end]} else lift_escape = 1; }}")
            for u in m.plan.guarded]


def _rerun(text: str, m: MapScope, loop_text: str, directive: str, sequential: str) -> str:
    """A loop with guarded updates: each reduction target copied (a scalar into a local, an array's
    section, whatever its element, by `memcpy` into a fresh buffer), the parallel loop, and where an
    update fell outside its section (`lift_escape`), the copies put back and the loop run again as
    written; also where the condition or an allocation fails. Declarations first (C90)."""
    plan = m.plan
    indent = _indent(text, m.span[0])
    arrays = [s for s in plan.saved if s.first]
    scalars = [s for s in plan.saved if not s.first]
    size = {s.name: f"sizeof {s.name}[0] * (size_t)({s.length})" for s in arrays}
    declared = ["int lift_escape = 1;"] + [f"{s.element} lift_saved_{s.name} = {s.name};" for s in scalars]
    declared += [f"void *lift_saved_{s.name} = 0;" for s in arrays]
    allocated = [f"(lift_saved_{s.name} = malloc({size[s.name]})) != 0" for s in arrays]
    condition = " && ".join(([f"({plan.condition})"] if plan.condition else []) + allocated) or "1"
    save = [f"memcpy(lift_saved_{s.name}, &{s.name}[{s.first}], {size[s.name]});" for s in arrays]
    restore = [f"memcpy(&{s.name}[{s.first}], lift_saved_{s.name}, {size[s.name]});" for s in arrays] + \
        [f"{s.name} = lift_saved_{s.name};" for s in scalars]
    inner = indent + "    "
    lines = [f"{{ {' '.join(declared)} {MARK}", f"{indent}if ({condition}) {{ {MARK}"]
    lines += [f"{inner}{line}" for line in ["lift_escape = 0;"] + save + [directive, _reindent(loop_text, indent)]]
    lines.append(f"{inner}if (lift_escape) {{ /* lift: an update outside its section: the loop again, as written */")
    lines += [f"{inner}    {line}" for line in restore] + [f"{inner}}}", f"{indent}}}"]
    if arrays:
        lines.append(f"{indent}{' '.join(f'free(lift_saved_{s.name});' for s in arrays)} {MARK}")
    return "\n".join(lines + [f"{indent}if (lift_escape) {{", f"{inner}{_reindent(sequential, indent)}",
                              f"{indent}}} }}"])


def _switch_insertions(m: MapScope) -> list[Insertion]:
    """`switch_text` at the start of the loop's body in the user's file, and the end of its block;
    a body of one statement without braces gets a block of its own around both."""
    shared = [b for b in m.plan.scratch if b.last]
    if not shared:
        return []
    if shared[0].braced:
        return [Insertion(shared[0].body, switch_text(m)), Insertion(m.span[1] - 1, "} ")]
    return [Insertion(shared[0].body, "{" + switch_text(m) + " "), Insertion(m.span[1], " } }")]


def region_pragma(region: OmpRegion) -> str:
    clauses = ["parallel"]
    if region.private:
        clauses.append(f"private({', '.join(region.private)})")
    return f"#pragma omp {' '.join(clauses)} {MARK}"


def emit_openmp(source: SourceFile, graphs: list[DataflowGraph]) -> str:
    insertions: list[Insertion] = []
    replacements: list[tuple[int, int, str]] = []
    for g in graphs:
        if g.nest.restructured:
            start, end = g.nest.text_span
            indent = source.text[line_start(source.text, start):start]
            indent = indent if indent.strip() == "" else ""
            worth = f"({g.nest.worth})" if " || " in g.nest.worth else g.nest.worth
            guard = " && ".join(c for c in (worth, g.nest.reorder_guard) if c)
            if not guard:
                lines = [indent + RESTRUCTURED] + _nest_lines(g, STATE, indent)
            else:  # too little work, or pointers that may overlap: the reordered nest only where neither
                written = _reindent(source.text[start:end], indent)
                lines = _if_else_lines(indent, guard, RESTRUCTURED, _nest_lines(g, STATE, indent + "    "),
                                       [f"{indent}    {written}"])
            replacements.append((start, end, "\n".join(lines)[len(indent):]))
            continue
        for child in scope_children(g, STATE):
            annotate_map(g, source.text, child, insertions, replacements)
    out = apply(source.text, insertions, replacements)
    bom = "\ufeff" if out.startswith("\ufeff") else ""  # the byte-order mark stays the file's first character
    headers = includes(out)
    # After the file's opening directives: a feature-test macro there (`#define _POSIX_C_SOURCE`) must
    # precede every system header. (The edits all lie inside functions, past that point.)
    head = max(source.spans.prologue_end(), len(bom)) if headers else len(bom)
    return bom + runtime_helpers(out) + team_helpers(out) + out[len(bom):head] + headers + out[head:]


def includes(text: str) -> str:
    """`#include <stdlib.h>` where the output allocates copies of shared scratch buffers or of
    reduced sections (`_rerun`, which copies with `memcpy`: `<string.h>` too): the user's file need
    not declare them (it got the buffer from elsewhere). A fresh scratch buffer's file called
    malloc itself. The MPI backend, which places these loops with `annotate_map`, adds them too."""
    lines = []
    if "lift_own_" in text:
        lines.append("#include <stdlib.h> /* lift: malloc, free and abort for per-thread copies */\n")
    if "lift_saved_" in text:
        lines += [] if lines else ["#include <stdlib.h> /* lift: malloc and free for copies of reduced sections */\n"]
        lines.append("#include <string.h> /* lift: memcpy for copies of reduced sections */\n")
    if SCATTER_NAME in text:
        lines.append(SCATTER_HEADERS)
    return "".join(lines)


def annotate_map(g: DataflowGraph, text: str, node_id: str, insertions: list[Insertion], replacements: list) -> None:
    """The directives for one map and the maps inside it, as edits of the user's text."""
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope):
        return
    if node.parallel_region is not None:
        _region(g, text, node, insertions, replacements)
        return
    if node.scatter is not None:
        replacements.append((*node.span, scatter_text(text, node, _indent(text, node.span[0]))))
        return
    if node.plan is not None and node.plan.versioned:
        start, end = node.span
        opening, closing = scratch_lines(node)
        indent = _indent(text, start) + "    "
        loop = apply(text[start:end], [Insertion(i.offset - start, i.text) for i in _switch_insertions(node)],
                     [(s - start, e - start, new) for s, e, new in guarded_replacements(text, node)])
        if node.plan.guarded:
            replacements.append((start, end, _rerun(text, node, loop, opening[-1], text[start:end])))
            return
        replacements.append((start, end, _versioned(text, node, loop + closing,
                                                    f"\n{indent}".join(opening), node.plan.condition,
                                                    text[start:end])))
        return  # the sequential copy is as written, so nothing inside gets a directive
    if node.plan is not None:
        opening, closing = scratch_lines(node)
        insertions.append(before_statement(text, node.offset, f"\n{_indent(text, node.offset)}".join(opening)))
        insertions.extend(_switch_insertions(node))  # (before `closing`: both may end where the loop does)
        if closing:
            insertions.append(Insertion(node.span[1], closing))
        replacements.extend(guarded_replacements(text, node))
    elif node.simd:
        insertions.append(before_statement(text, node.offset, simd_pragma(node)))
    for child in scope_children(g, node_id):
        annotate_map(g, text, child, insertions, replacements)


def _region(g: DataflowGraph, text: str, s: MapScope, insertions: list[Insertion], replacements: list) -> None:
    """`omp parallel` before the sequential map, `omp for` and `omp single` inside it."""
    region = s.parallel_region
    inner: list[Insertion] = []
    inner_replacements: list = []  # inside the region's text (guarded updates, versioned children)
    for run, nowait in zip(region.singles, region.nowait):
        first, last = g.nodes[run[0]]["node"].span[0], g.nodes[run[-1]]["node"].span[1]
        directive = f"#pragma omp single{' nowait' if nowait else ''} {MARK}"
        # Before the children's directives at the same place (edits at one offset keep their
        # order); a loop's `omp simd` goes inside the block, so its brace takes a line of its own.
        loop = g.nodes[run[0]]["node"]
        brace = before_statement(text, first, "{") if isinstance(loop, MapScope) and loop.simd \
            else Insertion(first, "{ ")
        inner += [before_statement(text, first, directive), brace, Insertion(last, " }")]
    for child in scope_children(g, s.id):
        annotate_map(g, text, child, inner, inner_replacements)
    if not region.guard:
        insertions.append(before_statement(text, s.offset, region_pragma(region)))
        insertions.extend(inner)
        replacements.extend(inner_replacements)
        return
    start, end = s.span
    parallel = apply(text[start:end], [Insertion(i.offset - start, i.text) for i in inner],
                     [(a - start, b - start, new) for a, b, new in inner_replacements])
    replacements.append((start, end, _versioned(text, s, parallel, region_pragma(region), region.guard,
                                                text[start:end])))


def _versioned(text: str, m: MapScope, loop_text: str, directive: str, condition: str,
               sequential: str | None = None) -> str:
    """`if (condition) { directive loop } else { loop as written }`, indented like the loop."""
    start = m.span[0]
    indent = text[line_start(text, start):start]
    indent = indent if indent.strip() == "" else ""
    body = _reindent(loop_text, indent)
    plain = body if sequential is None else _reindent(sequential, indent)
    return (f"if ({condition}) {{ {MARK}\n{indent}    {directive}\n{indent}    {body}\n"
            f"{indent}}} else {{\n{indent}    {plain}\n{indent}}}")


def _indent(text: str, offset: int) -> str:
    """The blanks before `offset` on its line ('' if code precedes it there)."""
    indent = text[line_start(text, offset):offset]
    return indent if indent.strip() == "" else ""


def _reindent(text: str, indent: str) -> str:
    """Shift the continuation lines of a statement one level deeper."""
    return text.replace("\n", "\n    ")


def _nest_lines(g: DataflowGraph, scope: str, indent: str, plain: bool = False,
                region: OmpRegion | None = None) -> list[str]:
    """Re-emit a restructured nest from the graph: headers and statements as the user wrote them.

    `plain` leaves out every directive (the sequential copy of a versioned loop); `region` is
    the parallel region of `scope`, whose runs of other children go into `omp single`.
    """
    runs = {run[0]: (run, nowait) for run, nowait in zip(region.singles, region.nowait)} if region else {}
    lines, done = [], set()
    for child in scope_children(g, scope):
        if child in done:
            continue
        if child in runs:
            run, nowait = runs[child]
            lines.append(f"{indent}#pragma omp single{' nowait' if nowait else ''} {MARK}")
            lines.append(indent + "{")
            for c in run:
                lines += _child_lines(g, c, indent + "    ", plain)
            lines.append(indent + "}")
            done.update(run)
            continue
        lines += _child_lines(g, child, indent, plain)
    return lines


def _child_lines(g: DataflowGraph, child: str, indent: str, plain: bool) -> list[str]:
    node = g.nodes[child]["node"]
    if not isinstance(node, MapScope):
        return [indent + node.text]
    return in_block(node, indent, lambda inner: _loop_lines(g, child, node, inner, plain))


def _loop_lines(g: DataflowGraph, child: str, node: MapScope, indent: str, plain: bool) -> list[str]:
    """A map's loop with its directives (and the sequential copy where its plan is versioned)."""
    if plain:
        return _map_lines(g, child, node, indent, plain=True)
    if node.parallel_region is not None:
        region = node.parallel_region
        if not region.guard:
            return [indent + region_pragma(region)] + _map_lines(g, child, node, indent, region=region)
        inner = indent + "    "
        return _if_else_lines(indent, region.guard, MARK,
                              [inner + region_pragma(region)] + _map_lines(g, child, node, inner, region=region),
                              _map_lines(g, child, node, inner, plain=True))
    if node.plan is not None:
        opening, closing = scratch_lines(node)
        inner = indent + "    " if node.plan.versioned else indent
        lines = [inner + line for line in opening] + _map_lines(g, child, node, inner)
        switch = switch_text(node)
        if switch:
            lines[len(opening)] += switch
            lines[-1] = lines[-1].replace("}", "} }", 1)
        lines[-1] += closing
        if not node.plan.versioned:
            return lines
        return _if_else_lines(indent, node.plan.condition, MARK, lines,
                              _map_lines(g, child, node, inner, plain=True))
    if node.simd:
        return [indent + simd_pragma(node)] + _map_lines(g, child, node, indent)
    return _map_lines(g, child, node, indent)


def _if_else_lines(indent: str, condition: str, mark: str, then: list[str], otherwise: list[str]) -> list[str]:
    """`if (condition) { then } else { otherwise }`: the guarded parallel or reordered code and the
    code as written; both branches come already indented one level deeper."""
    return [f"{indent}if ({condition}) {{ {mark}"] + then + [f"{indent}}} else {{"] + otherwise + [f"{indent}}}"]


def _map_lines(g: DataflowGraph, map_id: str, node: MapScope, indent: str, plain: bool = False,
               region: OmpRegion | None = None) -> list[str]:
    if node.body_text:
        return [f"{indent}{node.header} {node.body_text.strip()}"]
    lines = [f"{indent}{'' if node.block else node.header + ' '}{{"]
    lines += [indent + "    " + d for d in node.declarations]
    lines += _nest_lines(g, map_id, indent + "    ", plain, region)
    lines += [indent + "    " + c for c in node.closing]
    lines.append(f"{indent}}}")
    return lines
