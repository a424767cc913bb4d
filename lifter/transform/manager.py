"""The pass interface and the pass manager: every transformation of the graphs runs through here.

A pass (`Pass`) has a `name` (the word the report and remarks use for what it does),
`enabled(options)` (whether the options ask for it) and `run(graph, context) -> bool` (whether
it changed the graph). It declares with `reshapes` whether it may change the scope tree or the
maps' schedules, the two things the control layer (states, loop regions, `graph/control.py`) is
a function of; that is what it does not preserve, as an LLVM pass declares what it preserves. A
`FilePass` runs once over the file's list of graphs instead (fusion of consecutive regions
merges graphs).

The manager runs the passes in order, each over every graph. If a pass raises, the graph is put
back as it was before that pass and the next pass runs on it, so a failed rewrite costs an
optimization, never a wrong output; the manager records it (`dropped`: the pass, the graph, the
exception) so that `lift -v` can say why the transformation is missing. It takes a checkpoint of
each graph (`checkpoint.py`) once, where its run of graph passes starts (after a file pass), not
before every pass: a checkpoint copies every field of the graph, and one before each of the
eighteen passes cost 7% of the instructions of a whole `lift gemm.c` (the graph unrolled and
jammed is copied by each pass after the unrolling), for a rollback that almost never happens.
To undo a pass it rolls back to that checkpoint and runs again the passes that succeeded since,
which leaves the graph as it was before the failing one: a pass is a function of the graph and
the context (the same input gives the same graph, as it gives the same output file). After a pass that reshaped a graph it rebuilds the control layer, so no pass has
to remember to. With checking on (`check=True`, or LIFT_CHECK_PASSES=1 in the environment, which
the test suite sets), the graph validator runs after every pass, and a pass that raises or leaves
an invalid graph fails loudly, naming the pass, instead of being rolled back.

A pass that rebuilds its graph from a rewritten model (scalar expansion) hands the new graph to
`context.replace`; the manager puts it in the list in place of the old one.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


from lifter.diagnostics import LiftError
from lifter.frontend.source import SourceFile
from lifter.frontend.spans import Spans
from lifter.graph.control import build_control
from lifter.graph.validate import InvalidGraph, validate
from lifter.transform.checkpoint import Checkpoint, checkpoint, rollback
from lifter.graph.attributes import DataflowGraph

CHECK_ENV = "LIFT_CHECK_PASSES"


@dataclass
class PassContext:
    """What passes read besides the graph: the options, the source text and its spans."""

    options: Any  # lifter.driver.LiftOptions (the driver imports this package, not the reverse)
    source: SourceFile
    spans: Spans | None
    replacement: DataflowGraph | None = None  # set by `replace` during one pass's run

    def replace(self, g: DataflowGraph) -> None:
        """Make `g` the graph the running pass leaves (instead of the one it was given)."""
        self.replacement = g


class Pass:
    """One transformation of one graph (see the module doc)."""

    name = ""
    reshapes = False  # may change the scope tree or schedules: the control layer is rebuilt after a change

    def enabled(self, options) -> bool:
        return True

    def run(self, g: DataflowGraph, context: PassContext) -> bool:
        raise NotImplementedError


class FilePass(Pass):
    """One transformation of the file's list of graphs (it may merge, split or replace graphs)."""

    def run_file(self, graphs: list[DataflowGraph], context: PassContext) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class DroppedPass:
    """A pass that raised on a graph and was rolled back: `graph`, the graph's name ('' for a pass over
    the file's graphs), `error`, the exception as Python writes it (`KeyError('x')`)."""

    name: str
    graph: str
    error: str


@dataclass(eq=False)
class _Start:
    """Where a graph's run of graph passes started: the graph then, its checkpoint, and the passes
    that have run on it since without failing, in order."""

    graph: DataflowGraph
    saved: Checkpoint
    done: list[Pass] = field(default_factory=list)


class PassFailed(AssertionError):
    """Checking is on and a pass raised or left an invalid graph."""


class PassManager:
    def __init__(self, passes: list[Pass], check: bool | None = None):
        self.passes = passes
        self.check = os.environ.get(CHECK_ENV) == "1" if check is None else check
        self.dropped: list[DroppedPass] = []  # the passes rolled back, in the order they failed

    def run(self, graphs: list[DataflowGraph], context: PassContext) -> list[DataflowGraph]:
        """Run every pass over `graphs` (changed in place, and returned)."""
        starts: list[_Start] = []
        for p in self.passes:
            if isinstance(p, FilePass):
                self._run_file(p, graphs, context)
                starts = []
                continue
            if not starts:
                starts = [_Start(g, checkpoint(g)) for g in graphs]
            for index, g in enumerate(graphs):
                graphs[index] = self._run_graph(p, g, context, starts[index])
        return graphs

    def _run_graph(self, p: Pass, g: DataflowGraph, context: PassContext, start: _Start) -> DataflowGraph:
        try:
            result = self._apply(p, g, context)
        except LiftError:
            raise  # the input's fault, located: the driver reports it
        except Exception as exc:  # noqa: BLE001  a failed rewrite: undo it (module doc)
            g = self._undo(start, context)
            if self.check:
                if isinstance(exc, PassFailed):
                    raise
                raise PassFailed(f"pass '{p.name}' failed on {g.name}: {exc!r}") from exc
            self.dropped.append(DroppedPass(p.name, g.name, repr(exc)))
            return g
        start.done.append(p)
        return result

    def _apply(self, p: Pass, g: DataflowGraph, context: PassContext) -> DataflowGraph:
        """Run `p` on `g`, rebuild the control layer after a reshaping change and (checking) validate:
        the graph it leaves (a new one where it called `context.replace`)."""
        context.replacement = None
        try:
            changed = p.run(g, context)
            result = g if context.replacement is None else context.replacement
            if changed and p.reshapes:
                build_control(result)
            self._validate(p, [result])
            return result
        finally:
            context.replacement = None

    def _undo(self, start: _Start, context: PassContext) -> DataflowGraph:
        """The graph as the passes before the failing one left it: the checkpoint at `start`, and those
        passes run again on it (they succeeded before; see the module doc)."""
        rollback(start.graph, start.saved)
        g = start.graph
        for done in start.done:
            g = self._apply(done, g, context)
        return g

    def _run_file(self, p: FilePass, graphs: list[DataflowGraph], context: PassContext) -> None:
        before = list(graphs)
        saved = [checkpoint(g) for g in before]
        try:
            changed = p.run_file(graphs, context)
            if changed and p.reshapes:
                for g in graphs:
                    build_control(g)
            self._validate(p, graphs)
        except LiftError:
            raise
        except Exception as exc:  # noqa: BLE001  as in _run_graph
            graphs[:] = before
            for g, s in zip(before, saved):
                rollback(g, s)
            if self.check:
                if isinstance(exc, PassFailed):
                    raise
                raise PassFailed(f"pass '{p.name}' failed: {exc!r}") from exc
            self.dropped.append(DroppedPass(p.name, "", repr(exc)))

    def _validate(self, p: Pass, graphs: list[DataflowGraph]) -> None:
        if not self.check:
            return
        for g in graphs:
            try:
                validate(g)
            except InvalidGraph as exc:
                raise PassFailed(f"pass '{p.name}' left {g.name} invalid: {exc}") from exc


__all__ = ["CHECK_ENV", "DroppedPass", "FilePass", "Pass", "PassContext", "PassFailed", "PassManager"]
