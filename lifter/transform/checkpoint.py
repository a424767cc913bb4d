"""Checkpoints of a whole dataflow graph, so a rewrite that fails or does not pay can be undone.

A checkpoint holds everything a pass can change: the graph's attributes (the fields of its
`NestAttributes` record too, copied one level: the polyhedral model it holds is the analysis's and
stays the same object), every node and edge with its attribute dict, the order of every
adjacency (backends and later passes iterate in that order, so an undone rewrite must not
reorder anything), and the fields of every node and
edge object (MapScope, Tasklet, Memlet, ...), copied down to nested lists and plans. `rollback`
puts all of it back in place: the same graph object, the same node objects with their old
fields, so callers that hold the graph or a node keep valid references. A field list (what to
save) would miss whatever the next rewrite learns to change.

It writes networkx's adjacency dicts (`_node`, `_succ`, `_pred`) directly: re-adding edges
through the API cannot restore both the successor and the predecessor order of a multigraph.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from lifter.graph.attributes import DataflowGraph


@dataclasses.dataclass(eq=False)
class Checkpoint:
    graph: dict
    records: list[tuple[object, dict]]  # the graph's attribute records and a shallow copy of their fields
    nodes: list[tuple[Any, dict]]  # node id and attribute dict, in node order
    succ: list[tuple[Any, list[tuple[Any, list[tuple[Any, dict]]]]]]  # u -> [(v, [(key, data)])]
    pred: list[tuple[Any, list[Any]]]  # v -> its predecessors in order
    objects: list[tuple[object, dict]]  # every node and edge object and a copy of its fields


def checkpoint(g: DataflowGraph) -> Checkpoint:
    """Everything `rollback` needs to make `g` what it is now."""
    objects: dict[int, tuple[object, dict]] = {}

    def keep(data: dict) -> dict:
        for value in data.values():
            if _is_object(value) and id(value) not in objects:
                objects[id(value)] = (value, _copied_dict(vars(value)))
        return dict(data)

    nodes = [(n, keep(d)) for n, d in g._node.items()]
    succ = [(u, [(v, [(k, keep(d)) for k, d in keyed.items()]) for v, keyed in nbrs.items()])
            for u, nbrs in g._succ.items()]
    pred = [(v, list(nbrs)) for v, nbrs in g._pred.items()]
    records = [(v, dict(vars(v))) for v in g.graph.values() if _is_object(v)]
    return Checkpoint(dict(g.graph), records, nodes, succ, pred, list(objects.values()))


def rollback(g: DataflowGraph, saved: Checkpoint) -> None:
    """Make `g` (the same object) what it was at `checkpoint`; `saved` can be rolled back to again."""
    for obj, fields in saved.objects:
        vars(obj).clear()
        vars(obj).update(_copied_dict(fields))
    for record, fields in saved.records:
        vars(record).clear()
        vars(record).update(fields)
    g.graph.clear()
    g.graph.update(saved.graph)
    g._node.clear()
    g._succ.clear()
    g._pred.clear()
    for n, data in saved.nodes:
        g._node[n] = dict(data)
        g._succ[n] = {}
        g._pred[n] = {}
    for u, nbrs in saved.succ:
        for v, keyed in nbrs:
            g._succ[u][v] = {k: dict(d) for k, d in keyed}
    for v, us in saved.pred:
        for u in us:
            g._pred[v][u] = g._succ[u][v]  # one key dict per edge pair, as networkx keeps it
    getattr(g, "__networkx_cache__", {}).clear()


def _copied(value):
    """`value` with its lists, dicts, sets and dataclass objects copied all the way down; strings,
    numbers and isl objects (immutable from Python) are shared."""
    kind = _KINDS.get(type(value))
    if kind is None:
        kind = _kind_of(type(value))
    if kind == _SHARE:
        return value
    if kind == _LIST:
        return [v if type(v) in _SHARED else _copied(v) for v in value]
    if kind == _TUPLE:
        for v in value:
            if type(v) not in _SHARED:
                return tuple([v if type(v) in _SHARED else _copied(v) for v in value])
        return value  # immutable all the way down (a memlet's bounds): nothing to copy
    if kind == _DICT:
        return _copied_dict(value)
    if kind == _SET:
        return set(value)
    copy = object.__new__(type(value))
    vars(copy).update(_copied_dict(vars(value)))
    return copy


def _copied_dict(value: dict) -> dict:
    """A dict (an object's fields) copied as `_copied` copies it. A checkpoint copies every field of
    the graph, most of them strings, numbers and None: those are taken as they are here, without a
    call of `_copied` for each (the calls were most of a checkpoint's time)."""
    return {k: v if type(v) in _SHARED else _copied(v) for k, v in value.items()}


def _kind_of(cls: type) -> int:
    """How `_copied` copies a value of class `cls` (subclasses of list, tuple, dict and set as those),
    recorded in `_KINDS` (and in `_SHARED` for a class shared as it is)."""
    kind = next((kind for base, kind in ((list, _LIST), (tuple, _TUPLE), (dict, _DICT), (set, _SET))
                 if issubclass(cls, base)), _OBJECT if hasattr(cls, _DATACLASS_FIELDS) else _SHARE)
    _KINDS[cls] = kind
    if kind == _SHARE:
        _SHARED.add(cls)
    return kind


def _is_object(value) -> bool:
    """A node, edge or plan object: a dataclass instance (not the class itself). What
    `dataclasses.is_dataclass` tests for an instance, without its general case (a class too)."""
    return hasattr(type(value), _DATACLASS_FIELDS)


# A checkpoint visits every field of the graph: how each class of value is copied is decided once
# per class (`_kind_of`), not by a chain of isinstance tests per value. Immutable values are shared.
_SHARE, _LIST, _TUPLE, _DICT, _SET, _OBJECT = range(6)
_SHARED: set[type] = {str, int, float, bool, type(None)}  # the classes whose values are shared, not copied
_KINDS: dict[type, int] = dict.fromkeys(_SHARED, _SHARE)
_DATACLASS_FIELDS = "__dataclass_fields__"  # the attribute the dataclass decorator sets on the class


__all__ = ["Checkpoint", "checkpoint", "rollback"]
