"""Attaching the user's exact text to the graph: loop headers, statements and the nest's span.

Backends that re-emit a nest in a new shape (a reordered nest, a CUDA kernel)
need each loop header and each statement exactly as written. A region gets
them only if its text can be cut cleanly (`frontend/spans.py`): every statement
a direct item of its loop's body, plain declarations only at the top of a
body (kept there, in `declarations`), no preprocessor lines inside. A map whose
body declares variables is marked `declares`: moving it would move their scope. Then `reemittable` is set on
the graph, `span` holds the nest's (start, end) offsets, maps get `header` and
tasklets `text`.

A body item `if (c) s;` (no else, `s` one statement of the region, the only `if` around it in
its loop) gives `s` the whole item as its text (`Tasklet.guarded_text`): such a statement can
be repeated with its `if` but not moved apart from it, so the nest is then `whole_texts` (every
statement has a text) but not `reemittable`, which the passes that reorder statements ask for.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.model import Region
from lifter.frontend.source import SourceFile
from lifter.frontend.spans import Spans, TokenKind, Unparsable, after_member, lexed, replace_paths
from lifter.graph.attributes import DataflowGraph


def attach_source_text(g: DataflowGraph, source: SourceFile, spans: Spans) -> bool:
    region: Region = g.nest.scop
    for lid, loop in region.loops.items():
        if loop.offset is not None:
            try:
                whole = spans.for_span(loop.offset)
                g.nodes[lid]["node"].span = (whole.start, whole.end)
                g.nodes[lid]["node"].header = source.text[whole.start:whole.header_end]
            except Unparsable:
                pass
    g.nest.whole_texts = _attach(g, region, source, spans)
    g.nest.reemittable = g.nest.whole_texts and not any(
        g.nodes[s]["node"].guarded_text for s in region.statements)
    return g.nest.reemittable


def _attach(g, region: Region, source: SourceFile, spans: Spans) -> bool:
    """Give every map its header text and every tasklet its statement text; False if impossible."""
    try:
        for lid, loop in region.loops.items():
            if loop.offset is None:
                return False
            span = spans.for_span(loop.offset)
            m = g.nodes[lid]["node"]
            m.header = source.text[span.start:span.header_end]
            if loop.parent is None:  # the nest's span covers every outermost loop of the region
                start, end = g.nest.text_span or (span.start, span.end)
                g.nest.text_span = (min(start, span.start), max(end, span.end))
            body = loop.node.stmt
            if isinstance(body, c_ast.Compound):
                items = [n for n in body.block_items or [] if not isinstance(n, c_ast.EmptyStatement)]
                pieces = spans.block_items(span.body_start)
            else:
                items, pieces = [body], [(span.body_start, span.end)]
            if len(items) != len(pieces):
                return False
            for index, (node, (start, end)) in enumerate(zip(items, pieces)):
                if isinstance(node, c_ast.Decl):
                    m.declares = True
                    if node.init is None:
                        # Plain declarations stay at the top of their block.
                        if not all(isinstance(n, c_ast.Decl) and n.init is None for n in items[:index]):
                            return False
                        m.declarations.append(source.text[start:end])
                        continue
                if isinstance(node, (c_ast.For,)) and any(l.node is node for l in region.loops.values()):
                    continue
                guarded = _guarded_statement(node)
                stmt = next((s for s in region.statements.values() if s.node is (guarded or node)), None)
                if stmt is None or stmt.loops[-1] != lid or guarded is not None and len(stmt.conditions) != 1:
                    return False
                g.nodes[stmt.id]["node"].text = source.text[start:end]
                g.nodes[stmt.id]["node"].span = (start, end)
                g.nodes[stmt.id]["node"].guarded_text = guarded is not None
    except Unparsable:
        return False
    return all(g.nodes[s]["node"].text for s in region.statements)


def _guarded_statement(node: c_ast.Node) -> c_ast.Node | None:
    """The one statement an `if` without else guards (`if (c) s;` or `if (c) { s; }`), else None."""
    if not isinstance(node, c_ast.If) or node.iffalse is not None:
        return None
    body = node.iftrue
    if isinstance(body, c_ast.Compound):
        items = [n for n in body.block_items or [] if not isinstance(n, c_ast.EmptyStatement)]
        body = items[0] if len(items) == 1 else None
    return None if isinstance(body, (c_ast.If, c_ast.Compound, c_ast.Decl)) else body


def rename_identifiers(text: str, names: dict[str, str]) -> str:
    """Replace whole identifiers of a statement (not member names after `.` or `->`, nor words in
    comments) by the text `names` maps them to (the frontend's `replace_paths`).

    The statement must hold no string or character literal (callers check): a rename must not
    reach into one."""
    return replace_paths(text, names)


def identifier_count(text: str, name: str) -> int:
    """How many times `rename_identifiers` would replace `name` in `text`."""
    toks = lexed(text).tokens
    return sum(1 for k, t in enumerate(toks) if t.kind == TokenKind.WORD and t.text == name and not after_member(toks, k))


def replace_subscripted(text: str, name: str, new: str) -> str:
    """Replace each whole identifier `name` and the subscripts that follow it (`t[i][j]`) by `new`.
    Same caveat as `rename_identifiers`: no literals in `text`."""
    spans = Spans(text)
    toks, out, pos, k = spans.tokens, [], 0, 0
    while k < len(toks):
        t = toks[k]
        if t.kind != TokenKind.WORD or t.text != name or after_member(toks, k):
            k += 1
            continue
        end = k + 1
        while end < len(toks) and toks[end].text == "[" and end in spans.brackets:
            end = spans.brackets[end] + 1
        out += [text[pos:t.start], new]
        pos, k = toks[end - 1].end, end
    return "".join(out) + text[pos:]
