"""The JSON shapes of DaCe 1.0.2's SDFG files that every part of the export writes: control-flow graphs,
states, ranges and scalar memlets (graph/sdfg.py builds the regions, graph/sdfg_host.py what runs around
them)."""
from __future__ import annotations

# C's arithmetic types: DaCe's names of them, and those that are integers
INTEGERS = {"int", "long", "long long", "short", "unsigned", "unsigned int", "unsigned long", "size_t",
            "unsigned long long", "unsigned short", "char", "signed char", "unsigned char"}
DTYPES = {
    "double": "float64", "float": "float32", "long double": "float64",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8", "_Bool": "bool",
    "short": "int16", "unsigned short": "uint16", "int": "int32", "unsigned": "uint32",
    "unsigned int": "uint32", "long": "int64", "unsigned long": "uint64", "long long": "int64",
    "unsigned long long": "uint64", "size_t": "uint64",
}


def graph_fields(blocks: list[dict], edges: list[tuple[int, int]], cfg_id: int) -> dict:
    """A control-flow graph: its blocks, the first one the start, and unconditional interstate edges
    between them (by index)."""
    for i, b in enumerate(blocks):
        b["id"] = i
    edges = [{"type": "Edge", "src": str(u), "dst": str(v),
              "attributes": {"data": {"type": "InterstateEdge", "attributes": {}, "label": ""}}}
             for u, v in edges]
    return {"nodes": blocks, "edges": edges, "collapsed": False, "cfg_list_id": cfg_id, "start_block": 0}


def state(label: str, nodes: list[dict], edges: list[dict]) -> dict:
    scope_dict: dict[str, list[int]] = {}
    for i, n in enumerate(nodes):
        key = "-1" if n["scope_entry"] is None else n["scope_entry"]
        scope_dict.setdefault(key, []).append(i)
        if n["type"] == "MapEntry":
            scope_dict.setdefault(str(i), [])
    return {"type": "SDFGState", "label": label, "collapsed": False, "scope_dict": scope_dict or {"-1": []},
            "nodes": nodes, "edges": edges, "attributes": {}}


def range_json(subset: list[tuple[str, str]]) -> dict:
    return {"type": "Range", "ranges": [{"start": lo, "end": hi, "step": step, "tile": "1"}
                                        for lo, hi, step in (r if len(r) == 3 else (*r, "1") for r in subset)]}


def scalar_memlet(name: str) -> dict:
    """A scalar's (or a one-element array's) one element."""
    return {"type": "Memlet", "attributes": {"data": name, "subset": range_json([("0", "0")]), "volume": "1",
                                             "dynamic": False}}


def whole_memlet(name: str, descriptor: dict) -> dict:
    """All of an array, of which a tasklet reads or writes some elements (dynamic: how many, DaCe does not know)."""
    return {"type": "Memlet", "attributes": {"data": name, "volume": "1", "dynamic": True, "subset": range_json(
        [("0", f"{d} - 1") for d in descriptor["attributes"]["shape"]])}}


def dataflow_node(kind: str, label: str, attributes: dict, index: int, scope: tuple[int, int] | None = None) -> dict:
    """A dataflow node of a state, inside the scope of the map whose entry and exit are `scope`."""
    return {"type": kind, "label": label, "attributes": attributes, "id": index,
            "scope_entry": None if scope is None else str(scope[0]),
            "scope_exit": None if scope is None else str(scope[1])}


def dataflow_edge(src: int, src_conn: str | None, dst: int, dst_conn: str | None, memlet: dict | None) -> dict:
    """A dataflow edge between connectors; without a memlet an empty one (an ordering edge)."""
    return {"type": "MultiConnectorEdge", "attributes": {"data": memlet or {"type": "Memlet", "attributes": {}}},
            "src": str(src), "dst": str(dst), "src_connector": src_conn, "dst_connector": dst_conn}
