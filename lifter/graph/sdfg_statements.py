"""How one statement becomes a DaCe tasklet inside the state being built (graph/sdfg.py's state
builder, of which this is a part): its code over connectors (graph/sdfg_tasklet.py) and the
memlets binding them.

- one element in and out (`tasklet_code`), or a statement over single elements (`statement_code`):
  exact memlets, one per connector;
- a statement some of whose accesses are not single elements (`hist[key[i]]++`, an index read from
  data, an opaque loop kept as C text): a connector per such container bound to all of it
  (`_array_code`), a pointer in DaCe's C++;
- an `if` around several statements, one of which writes what it tests: tested once, into a
  transient the statements read (`_test`);
- anything else keeps its C text over its containers' connectors, which DaCe's compiler refuses
  (the names are no variables of the tasklet) rather than compute something else.
"""
from __future__ import annotations

import dataclasses
import re

from lifter.graph.build import data_id
from lifter.graph.control import is_loop_region
from lifter.graph.nodes import STATE, MapScope, Memlet, Tasklet, scope_parent
from lifter.graph.sdfg_json import scalar_memlet
from lifter.graph.sdfg_tasklet import over_arrays, statement_code, subscripts, tasklet_code
from lifter.graph.symbolic import identifier


def exact_memlet(memlet: Memlet) -> Memlet:
    """A tasklet's memlet of one access, which its code reads or writes exactly once."""
    return Memlet(memlet.container, memlet.subset, "1", memlet.wcr, False, memlet.text)


class StatementBuilder:
    """The tasklet part of the state builder (graph/sdfg.py): it uses the builder's nodes, edges,
    paths through the maps (`_path`), `sdfg` (descriptors, symbols) and `g` (the region's graph)."""

    def _conditions(self, node_id: str) -> list:
        """The `if`s around a statement inside its state, outermost first: those around the maps between it
        and the state's map (`if (count[c] > 0) for (d ...)` inside the map over c), which no control
        block shows, then its own."""
        node = self.g.nodes[node_id]["node"]
        out, p = list(node.conditions), scope_parent(self.g, node_id)
        while isinstance(self.g.nodes[p]["node"], MapScope):
            grand = scope_parent(self.g, p)
            if grand == STATE or is_loop_region(self.g, grand):
                break  # the state's map: its `if`s are the control layer's
            out[:0] = self.g.nodes[p]["node"].conditions
            p = grand
        return out

    def _retested_ifs(self) -> set[int]:
        """The `if`s (by `if_id`) around several statements one of which writes what the `if` tests
        (`if (x[i] < best) { best = x[i]; idx = i; }`): C tests once, but each statement's tasklet would
        test again, the later ones after the write. Their statements read the test's value (`_test`)."""
        under: dict[int, list[str]] = {}
        for n, d in self.g.nodes(data=True):
            for c in self._conditions(n) if isinstance(d["node"], Tasklet) else []:
                under.setdefault(c.if_id, []).append(n)
        out = set()
        for if_id, statements in under.items():
            tests = [c.text for s in statements for c in self._conditions(s) if c.if_id == if_id]
            written = {self.g.nodes[v]["node"].name for s in statements for _, v, e in self.g.out_edges(s, data=True)
                       if isinstance(e["edge"], Memlet)}
            if len(statements) > 1 and any(re.search(rf"\b{re.escape(name)}\b", t) for name in written for t in tests):
                out.add(if_id)
        return out

    def _test(self, condition, reads: list[Memlet], enclosing: list[str], parent) -> tuple[str, int] | None:
        """A retested `if`'s condition (`_retested_ifs`) as the text `__if` (or `!(__if)`, its else-branch)
        over the connector that reads its value, and the access node holding that value: a tasklet
        computes it once per iteration, before the statements under the `if`, which read it. None where
        the condition is not over the statement's single-element reads."""
        key = (enclosing[-1] if enclosing else None, condition.if_id)
        if key not in self.tests:
            code = tasklet_code(f"__test = {condition.text}", [r.text for r in reads], "__test", None)
            if code is None:
                return None
            name = f"if{condition.if_id}_{identifier(self.g.name)}"
            self.sdfg.arrays[name] = {"type": "Scalar", "attributes": {"dtype": "bool", "shape": ["1"],
                                                                       "transient": True}}
            attributes = {"label": name, "code": {"string_data": code.code, "language": "CPP"},
                          "in_connectors": {c: None for c in code.inputs}, "out_connectors": {"__out": None}}
            t = self._add("Tasklet", f"if ({condition.text})"[:60], attributes, parent)
            by_text = {r.text: r for r in reversed(reads)}
            for connector, text in code.inputs.items():
                self._path(t, connector, exact_memlet(by_text[text]), False, None, enclosing)
            if parent is not None and not code.inputs:
                self._edge(parent[0], None, t, None, None)
            value = self._add("AccessNode", name, {"data": name}, parent)
            self._edge(t, "__out", value, None, scalar_memlet(name))
            self.tests[key] = (condition.text, value)
        text, value = self.tests[key]
        if condition.text == text:
            return "__if", value
        return ("!(__if)", value) if f"!({text})" == condition.text or f"!({condition.text})" == text else None

    def _tasklet(self, node_id: str, node: Tasklet, enclosing: list[str], parent) -> None:
        # integer scalars the region only reads are symbols: the tasklet reads them by name
        memlets = [e for _, _, d in self.g.in_edges(node_id, data=True) if isinstance(e := d["edge"], Memlet)]
        reads = [e for e in memlets if self._name(e.container) in self.sdfg.arrays]
        self.sdfg.symbols.update(self._name(e.container) for e in memlets if e not in reads)
        writes = [e for _, _, d in self.g.out_edges(node_id, data=True) if isinstance(e := d["edge"], Memlet)]
        own = node.conditions
        node = dataclasses.replace(node, conditions=self._conditions(node_id))
        conditions = [c.text for c in node.conditions]
        if conditions and writes:  # the old value, kept where the conditions fail
            reads.append(Memlet(writes[0].container, writes[0].subset, "1", text=writes[0].text))
        # one element per connector, or the memlet DaCe binds it to is a range read from its start
        points = exact = all(self._point(e) for e in reads + writes)
        tests = {}  # connector -> the access node of a retested if's value
        for k, c in enumerate(node.conditions):
            # an `if` around a map, tested again inside: no tasklet before the map computes it
            test = self._test(c, reads, enclosing, parent) if exact and c.if_id in self.retested and c in own else None
            if test is not None:
                conditions[k] = test[0].replace("__if", f"__if{k}")
                tests[f"__if{k}"] = test[1]
            exact = exact and (test is not None or c.if_id not in self.retested)
        code = tasklet_code(node.code, [r.text for r in reads], writes[0].text, writes[0].wcr, conditions) \
            if len(writes) == 1 and node.opaque_reason is None and writes[0].text and exact else None
        statement = self._statement_code(node, reads, writes, conditions) if code is None and exact else None
        arrays = self._array_code(node, reads, writes) if not points and not tests and not any(
            c.if_id in self.retested for c in node.conditions) else None
        code = None if code is None or self._unbound(code.code) else code
        statement = None if statement is None or self._unbound(statement.code) else statement
        arrays = None if arrays is None or self._unbound(arrays[0].code) else arrays
        if code is not None:  # one element in, one out: exact memlets (a dynamic output is a pointer in DaCe)
            by_text = {r.text: r for r in reversed(reads)}
            memlets = [(c, exact_memlet(by_text[text]), False, None) for c, text in code.inputs.items()]
            memlets.append((code.output, exact_memlet(writes[0]), True, code.wcr))
            text = {"string_data": code.code, "language": "CPP"}
        elif statement is not None:  # C text over single elements: exact memlets, every output written
            by_text = {e.text: e for e in reversed(reads + writes)}
            wcr = {w.text: w.wcr for w in writes}
            memlets = [(c, exact_memlet(by_text[text]), False, None) for c, text in statement.inputs.items()]
            memlets += [(c, exact_memlet(by_text[text]), True, wcr[text]) for c, text in statement.outputs.items()]
            text = {"string_data": statement.code, "language": "CPP"}
        elif arrays is not None:  # data-dependent elements through array connectors, the others exact
            statement, whole = arrays
            by_text = {e.text: e for e in reversed(reads + writes)}
            wcr = {w.text: w.wcr for w in writes}
            memlets = [(c, exact_memlet(by_text[text]), False, None) for c, text in statement.inputs.items()]
            memlets += [(c, exact_memlet(by_text[text]), True, wcr[text]) for c, text in statement.outputs.items()]
            memlets += whole
            text = {"string_data": statement.code, "language": "CPP"}
        else:  # not one assignment: the C statement as it is, over its containers' connectors
            memlets = [(f"__in{k}", r, False, None) for k, r in enumerate(reads)]
            memlets += [(f"__out{k}", w, True, w.wcr) for k, w in enumerate(writes)]
            tests = {}
            guard = "".join(f"if ({c.text}) " for c in node.conditions)
            code_text = self._private_names(node.code, enclosing)
            text = {"string_data": f"{guard}{{ {code_text} }}" if guard else code_text, "language": "CPP"}
        inputs = {c: None for c, _, w, _ in memlets if not w} | dict.fromkeys(tests)
        outputs = {c: None for c, _, w, _ in memlets if w}
        attributes = {"label": identifier(node_id), "code": text, "in_connectors": inputs, "out_connectors": outputs}
        t = self._add("Tasklet", node.code.split("\n")[0][:60], attributes, parent)
        self.first_last[node_id] = (t, t)
        for connector, value in tests.items():
            self._edge(value, None, t, connector, scalar_memlet(self.nodes[value]["label"]))
        for connector, memlet, is_write, wcr in memlets:
            self._path(t, connector, memlet, is_write, wcr, enclosing)
        if parent is not None and not inputs:
            self._edge(parent[0], None, t, None, None)
        if parent is not None and not outputs:
            self._edge(t, None, parent[1], None, None)

    def _unbound(self, code: str) -> bool:
        """Whether tasklet code still names a container that is no symbol (the condition of an enclosing
        map over data the statement itself does not read): C++ would read the program's argument of
        that name, not the element."""
        region = self.g.name
        return any(self._name(key) in self.sdfg.arrays
                   and re.search(rf"(?<![\w.])(?<!->){re.escape(c.name)}\b", code)
                   for key, c in self.g.nest.scop.containers.items() if (region, key) in self.sdfg.names)

    def _point(self, memlet: Memlet) -> bool:
        """The memlet's subset in the SDFG is one element (not widened to the extent where unreadable)."""
        return all(lo == hi for lo, hi in self.sdfg.subset(self.g.name, memlet.container, memlet.subset))

    def _statement_code(self, node: Tasklet, reads: list[Memlet], writes: list[Memlet], conditions: list[str]):
        """The statement's C text over connectors where each of its accesses (one element each) has its text
        and no write reduces but by `min` or `max` (the old value an output starts from is counted once
        by those, twice by a sum), else None."""
        every = reads + writes
        if node.opaque_reason is not None or not writes or any(not e.text for e in every) \
                or any(w.wcr not in (None, "min", "max") for w in writes):
            return None
        names = {self.g.nodes[data_id(e.container)]["node"].name for e in every}
        return statement_code(node.code, [r.text for r in reads], [w.text for w in writes], names, conditions)

    def _array_code(self, node: Tasklet, reads: list[Memlet], writes: list[Memlet]):
        """A statement whose accesses of some containers are not single elements (`hist[key[i]]++`: the
        element depends on data) over a connector per such container, bound to all of it, written if the
        statement writes it (a pointer in DaCe's C++: reads through it see the writes), indexed with the
        C subscripts (one flat index, or one per dimension over the descriptor's strides); the other
        accesses over single-element connectors (`statement_code`). An opaque statement too (a loop kept
        as C text, csr_build's `for (k = 1; k < row_length(i); k++)` writing `A->col[p + k]`): every access
        its memlets name is bound so, and one they do not name leaves the container's name in the text,
        refused (`statement_code`). None where an access text is not the container's name and subscripts,
        or a reduction is not of its form (`over_arrays`; a loop never is)."""
        every = reads + writes
        if not writes or any(not e.text for e in every):
            return None
        containers = list(dict.fromkeys(e.container for e in every if not self._point(e)))
        elements, whole, reduced = {}, [], [w for w in writes if w.wcr is not None]
        for k, container in enumerate(containers):
            written = [w for w in writes if w.container == container]
            if any(w.wcr != written[0].wcr for w in written):
                return None
            descriptor = self.sdfg.arrays[self._name(container)]["attributes"]
            access = self.g.nodes[data_id(container)]["node"]
            # one subscript: a flat index, the offset in the buffer where C indexes it flat (delinearized)
            flat_buffer = bool(access.strides) or (self.g.name, container) in self.sdfg.flat
            connector = f"__arr{k}"
            for e in every:
                if e.container == container:
                    index = subscripts(e.text, access.name) or []
                    if len(index) != len(descriptor["shape"]) and not (len(index) == 1 and flat_buffer):
                        return None
                    flat = index[0] if len(index) == 1 else " + ".join(
                        f"({i}) * ({stride})" for i, stride in zip(index, descriptor["strides"]))
                    elements[e.text] = f"{connector}[{flat}]"
            wcr = written[0].wcr if written else None
            whole.append((connector, Memlet(container, [], "1", wcr, True), bool(written), wcr))
        if len(reduced) > 1 or any(w.container not in containers for w in reduced):
            return None  # a reduction of a single element: the exact paths'
        code = over_arrays(node.code, elements, reduced[0].text if reduced else None,
                           reduced[0].wcr if reduced else None)
        names = {self.g.nodes[data_id(e.container)]["node"].name for e in every}
        rest = [e for e in every if e.container not in containers]
        statement = statement_code(code, [r.text for r in rest if r in reads], [w.text for w in rest if w in writes],
                                   names, [c.text for c in node.conditions]) if code is not None else None
        return (statement, whole) if statement is not None else None
