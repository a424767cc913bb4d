"""The dataflow graph's class, and what it knows about its nest as a whole, as typed fields.

A `DataflowGraph` is a networkx multigraph whose facts about the whole nest are typed
attributes: `name` (networkx's own: the nest's id), `nest` (one `NestAttributes` record: every fact
the stages hand on about the nest, each with one declared name, type and meaning), and `function`
and `path`, read off that record. networkx keeps a graph's attributes in the dict `g.graph`, and its
copies, pickles and `transform/checkpoint.py` carry that dict: so the record lives there, under
one key that only this module names, rather than in a Python attribute they would drop.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from lifter.analysis.host_effects import HostCode
from lifter.analysis.model import Region


@dataclass(eq=False)
class NestAttributes:
    """The facts about one graph's nest that passes and backends share."""

    # the polyhedral model of the nest (analysis): passes prove their rewrites legal on it
    scop: Region
    path: str  # the user's file, as the driver named it
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
    # `wavefront.py`: the work test under which the restructured nest pays (its size test, over the
    # region's parameters); the nest as written runs otherwise, not its tiles one after the other
    worth: str = ""
    # `legality._checked`: the dependences split per access pair and the verdicts already reached, by the region's id
    forward_checks: dict = field(default_factory=dict)
    # `build._map_range`: each map memlet's range and box, by the access relations it unites
    map_ranges: dict = field(default_factory=dict)
    assume_no_alias: bool = False  # the user's promise that pointer parameters never overlap
    identical_pointers: bool = False  # alias tests may accept equal pointers (OpenMP only)
    strict_aliasing: bool = True  # C's type rules keep pointers apart (cc's -fno-strict-aliasing: off)
    profitability: bool = True  # the planner judged work (min_work > 0): so may the backends (CUDA launches)
    # `analysis/host_code.py` (CUDA only): the records of the file's host code, one object for all
    # the file's graphs, from which the backend's data scopes and call regions learn what code
    # between and around the nests does
    host_code: HostCode | None = None


class DataflowGraph(nx.MultiDiGraph):
    """One nest's dataflow graph (`graph/build.py` makes them): the scope tree, the containers and
    memlets and the control layer as nodes and edges (graph/nodes.py), the nest's facts as attributes."""

    @classmethod
    def of(cls, nest: NestAttributes) -> DataflowGraph:
        g = cls(name=nest.scop.id)
        g.graph["nest"] = nest
        return g

    @property
    def nest(self) -> NestAttributes:
        return self.graph["nest"]

    @property
    def function(self) -> str:
        """The C function the nest lies in."""
        return self.nest.scop.function

    @property
    def path(self) -> str:
        return self.nest.path
