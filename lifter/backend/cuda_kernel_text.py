"""A kernel's C as the pieces it is made of, so that the CUDA backend never lexes it.

A kernel's body and its index assignments are lift's own text (indentation, braces, the atomic
update around a reduction statement, `lift_t0`) around texts of the graph's nodes (statements,
loop headers, declarations, a loop's first value) or a loop body cut from the user's file. The
nodes hand out those texts with their tokens (`Tasklet.lexed`, `MapScope.header_lexed`, ...,
the frontend's lexical layer, made once per text), the file's body comes from the file's
tokens (`Spans.piece`). What `_KernelCode` must know of the kernel's names (which it uses, which
it calls, which arrays it declares, its jumps) is read off those tokens, and its member paths
(`g->u`, a kernel parameter `g_u`) and per-thread arrays are replaced by their offsets
(`edits.apply`), piece by piece.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lifter.backend.edits import apply
from lifter.frontend.spans import ArrayDeclarator, Spans


@dataclass(frozen=True)
class Own:
    """lift's own text, and the program's names it uses (the variable an index assignment sets)."""

    text: str
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Src:
    """A text of the graph, or a piece of the user's file, with its tokens; `drops`: the blanks
    taken out of it (a body cut from the file, its lines moved left, `dedent_drops`)."""

    spans: Spans
    drops: tuple[tuple[int, int], ...] = ()


Edit = tuple[int, int, str]


@dataclass
class KernelText:
    """C text as a sequence of pieces (`Own`, `Src`), with text replaced in the pieces of the
    graph by their offsets: `edits`, by the piece's place in `parts`."""

    parts: list[Own | Src]
    edits: dict[int, list[Edit]] = field(default_factory=dict)

    @staticmethod
    def join(texts: list["KernelText"], sep: str = "\n") -> "KernelText":
        """The texts one after the other, `sep` between them (lines of a body)."""
        parts: list[Own | Src] = []
        for i, t in enumerate(texts):
            if i:
                parts.append(Own(sep))
            parts += t.parts
        return KernelText(parts)

    def sources(self):
        """(place, piece) of each piece of the graph's text."""
        return [(i, p) for i, p in enumerate(self.parts) if isinstance(p, Src)]

    def free_words(self, subst: dict[str, str]) -> set[str]:
        """The names the text uses once the member paths of `subst` are renamed, struct members
        left out (what `Spans.free_words` would read in the text `text(subst)` makes)."""
        out: set[str] = set()
        for p in self.parts:
            if isinstance(p, Own):
                out |= p.names
                continue
            paths = p.spans.path_edits(subst)
            out |= p.spans.free_words([(a, b) for a, b, _ in paths]) | {new for _, _, new in paths}
        return out

    def called_names(self) -> set[str]:
        """The functions the graph's pieces call by name (lift's own text calls only its prelude's
        `lift_` helpers; a member path is never called: renaming one calls nothing new)."""
        return set().union(*(p.spans.called_names() for _, p in self.sources()))

    def words(self) -> list[str]:
        """The identifiers of the graph's pieces in order, repeats kept (lift's own text adds no
        keyword: no jump, no loop)."""
        return [w for _, p in self.sources() for w in p.spans.words_between(0, len(p.spans.text))]

    def declarators(self, names: set[str], subst: dict[str, str]) -> list[tuple[int, ArrayDeclarator]]:
        """The declarators of arrays named `names` (each piece is whole statements: one begins a
        statement where its piece begins), by the place of their piece, their sizes as `text(subst)`
        writes them."""
        out = []
        for i, p in self.sources():
            for d in p.spans.array_declarators(names):
                if d.size_span is not None:
                    a, b = d.size_span
                    paths = [e for e in p.spans.path_edits(subst) if a <= e[0] and e[1] <= b]
                    d = ArrayDeclarator(d.name, _render(p, paths, a, b),
                                        frozenset(p.spans.words_between(a, b, [(x, y) for x, y, _ in paths]))
                                        | {new for _, _, new in paths}, d.type_words, d.start, d.statement_end,
                                        d.size_span)
                out.append((i, d))
        return out

    def text(self, subst: dict[str, str] | None = None) -> str:
        """The C text, the member paths of `subst` renamed (not inside a replaced piece of `edits`)."""
        out = []
        for i, p in enumerate(self.parts):
            if isinstance(p, Own):
                out.append(p.text)
                continue
            own = self.edits.get(i, [])
            paths = [e for e in p.spans.path_edits(subst or {})
                     if not any(a <= e[0] and e[1] <= b for a, b, _ in own)]
            out.append(_render(p, own + paths, 0, len(p.spans.text)))
        return "".join(out)


def line_of(indent: str, x: str | Spans) -> KernelText:
    """A line: lift's own text (a brace), or a text of the graph with its tokens, indented."""
    return KernelText([Own(indent + x)] if isinstance(x, str) else [Own(indent), Src(x)])


def _render(p: Src, edits: list[Edit], lo: int, hi: int) -> str:
    """text[lo:hi] of a piece with `edits` made and its blanks dropped (those inside an edit go with it)."""
    drops = [(a, b, "") for a, b in p.drops if lo <= a and b <= hi and
             not any(x <= a and b <= y for x, y, _ in edits)]
    return apply(p.spans.text[lo:hi], [], [(a - lo, b - lo, new) for a, b, new in edits + drops])


def dedent_drops(text: str) -> tuple[tuple[int, int], ...]:
    """A statement cut from the source: its first line starts at the statement, the others keep
    their columns; the blanks that shift those left by their common indentation."""
    lines = text.split("\n")
    rest = [l for l in lines[1:] if l.strip()]
    if not rest:
        return ()
    common = min(len(l) - len(l.lstrip(" \t")) for l in rest)
    last = lines[-1].lstrip(" \t")
    if last.startswith("}"):  # a block: its closing brace shows where the statement started
        common = min(common, len(lines[-1]) - len(last))
    out, at = [], len(lines[0]) + 1
    for l in lines[1:]:
        if l.strip() and common:
            out.append((at, at + common))
        at += len(l) + 1
    return tuple(out)
