"""What a dataflow graph knows about its nest as a whole, as typed fields.

networkx keeps a graph's attributes in the dict `g.graph`. Its identity stays there, as the
exports and networkx read it (`name`: the nest's id, `function`, `path`: the user's file); every
other fact the stages hand on about the whole nest is a field of one `NestAttributes` record,
`g.graph["nest"]`, read and written through `nest(g)`, so each fact has one declared name, type
and meaning instead of a string key that a stage may or may not have set.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from lifter.analysis.model import Region


@dataclass
class NestAttributes:
    """The facts about one graph's nest that passes and backends share."""

    # the polyhedral model of the nest (analysis): passes prove their rewrites legal on it
    scop: Region
    live_after: list[str]  # scalars whose values code after the nest reads (a loop's final variable)
    # `transform/source_text.py`: every loop header and statement has its exact text, so the nest
    # can be re-emitted from its scope tree; `text_span` is then the (start, end) of its text
    reemittable: bool = False
    whole_texts: bool = False  # every statement has its text, some with their `if` (not reemittable then)
    text_span: tuple[int, int] | None = None
    restructured: bool = False  # a pass reshaped the scope tree: the backends re-emit the whole nest
    # `legality.reorder_guard`: the C test under which the nest may be reordered ('!why': never);
    # None until first asked
    reorder_guard: str | None = None
    # `legality._checked`: the dependences split per access pair and the verdicts already reached, by the region's id
    forward_checks: dict = field(default_factory=dict)
    assume_no_alias: bool = False  # the user's promise that pointer parameters never overlap
    identical_pointers: bool = False  # alias tests may accept equal pointers (OpenMP only)
    strict_aliasing: bool = True  # C's type rules keep pointers apart (cc's -fno-strict-aliasing: off)
    profitability: bool = True  # the planner judged work (min_work > 0): so may the backends (CUDA launches)


def nest(g: nx.MultiDiGraph) -> NestAttributes:
    """The record of `g`'s nest (set when the graph is built, `graph/build.py`)."""
    return g.graph["nest"]
