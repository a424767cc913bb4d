"""Splicing generated code into the user's text, leaving every other byte as it was."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Insertion:
    offset: int
    text: str


def apply(text: str, insertions: list[Insertion], replacements=()) -> str:
    """Insert pieces and replace (start, end, new) spans; offsets refer to the original text."""
    edits = [(i.offset, i.offset, i.text) for i in insertions] + list(replacements)
    out, last = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < last:
            raise ValueError("overlapping edits")
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def before_statement(text: str, offset: int, line: str) -> Insertion:
    """Put a directive line right before the statement starting at `offset`.

    If only indentation precedes the statement on its line, the directive goes
    on its own line above with the same indentation; otherwise the line is
    broken before the statement.
    """
    start = line_start(text, offset)
    indent = text[start:offset]
    if indent.strip() == "":
        return Insertion(start, f"{indent}{line}\n")
    pad = "".join(ch if ch in " \t" else " " for ch in indent)
    return Insertion(offset, f"\n{pad}{line}\n{pad}")


def in_block(m, indent: str, loop_lines, line=lambda indent, x: indent + x, around=None) -> list:
    """The lines of map `m`'s loop (`loop_lines(indent)`), inside a block with `m.prologue` before
    the loop and `m.epilogue` after it where it has either (register accumulators): the block
    scopes the prologue's locals to the loop, and keeps a directive on the loop next to it.
    `line(indent, x)` makes the line of a brace or of an item of `around` (the prologue and epilogue:
    the CUDA backend passes them with their tokens, and makes lines of pieces, cuda_kernel_text.py)."""
    before, after = around if around is not None else (m.prologue, m.epilogue)
    if not (before or after):
        return loop_lines(indent)
    inner = indent + "    "
    return ([line(indent, "{")] + [line(inner, p) for p in before] + loop_lines(inner)
            + [line(inner, e) for e in after] + [line(indent, "}")])
