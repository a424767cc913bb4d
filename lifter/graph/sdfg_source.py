"""The SDFG's global code: the definitions of the file's functions that its tasklets call.

A statement may call a function of its file (`pairs(seq[i], seq[j])`, `sq(x - c)`); DaCe's
generated C++ defines the program only, so the SDFG carries the definitions of the functions its
tasklets call (with those they call in turn, and the typedefs they name) as its global code, which
DaCe writes above the program. Only functions that compute a value from scalar arguments qualify
(the analysis' pure functions: they read and write nothing but their parameters and locals): a
call of another one (`kernel_forces(n, p)` writes through its pointer) moves data that no memlet
describes: the global code is then an `#error` with the reason, so that DaCe, which reads and
validates the SDFG, refuses to compile it rather than run a program that hides that data.

The definitions are those of the AST lift analysed (`FileFacts`, which the analysis hands along with
every region): the same macros and `-D` values as the statements, so no C text is read again here.
A function that a header defines is refused: its text may rest on the header's other declarations,
which the SDFG does not carry.

The same AST says what a function does beyond its lifted regions that the SDFG, which holds the regions
only, would not do (`unexported_work`): a loop outside them (the `while` after cg_solve's first loop, which
calls functions that write memory) whose work the SDFG would skip or run once, but those that
graph/sdfg_host.py runs around the regions (jacobi_conv's `while` around its sweeps), an allocation handed out
inside an `if` or a loop, whose buffer the caller could not tell it needs, a statement between its regions
that writes what the caller sees and that the caller could not run after the SDFG (graph/sdfg_caller.py), and a
call between its regions of a function of the file that moves data which the SDFG does not run
(graph/sdfg_calls.py nests the callees it can), and any other statement between its regions that the SDFG does
not run (an early `return`, a call of `printf`, a local's assignment where graph/sdfg_host.py runs none), named
with its line and text. Each is an `#error` in the global code too: nothing between the regions is dropped
without a word.

What the function does outside its regions that its caller does in its place (the buffers it allocates and
hands out, the statements between its regions that write what the caller sees) is graph/sdfg_caller.py's.
"""
from __future__ import annotations

from pycparser import c_ast, c_generator

from lifter.analysis.effects import PURE_FUNCTIONS, collect_effects
from lifter.frontend.walk import walk
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope
from lifter.graph.sdfg_caller import allocated_target, between, failure_checks, functions_of, handed_out_items

# what DaCe's tasklets know themselves: the C library's math (PURE_FUNCTIONS), and these
_KNOWN = {"min", "max", "Min", "Max", "int_floor"}


def called_functions(graphs: list[DataflowGraph]) -> dict[str, tuple[int]]:
    """The names the regions' statements call that no tasklet knows, each with the line of a statement
    calling it."""
    out = {}
    for g in graphs:
        for stmt in g.nest.scop.statements.values():
            for n in walk(stmt.node):
                if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                        and n.name.name not in _KNOWN and n.name.name not in PURE_FUNCTIONS:
                    out.setdefault(n.name.name, (stmt.line,))
    return out


def global_code(graphs: list[DataflowGraph]) -> str:
    """C++ text defining the file's functions the statements call (and what they need), in file order;
    "" when they call none. A function it cannot define is an `#error` saying why: DaCe reads and
    validates the SDFG, and its compiler stops there with lift's reason, never running a wrong call."""
    called = called_functions(graphs)
    if not called:
        return ""
    facts = graphs[0].nest.scop.file
    functions = facts.functions
    needed, errors, todo = set(), [], [name for name in called if name in functions]  # others: the C library's
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        if name not in facts.pure_functions:
            errors.append(_error(f"{facts.path}:{called.get(name, ('?',))[0]}: a statement calls '{name}', which "
                                 f"reads or writes memory beyond its arguments: DaCe's tasklets see data only "
                                 f"through memlets"))
        elif functions[name].coord is None or functions[name].coord.file != facts.path:
            errors.append(_error(f"'{name}' is defined in a header, whose other declarations the SDFG does not "
                                 f"carry"))
        else:
            todo += [n.name.name for n in walk(functions[name].body) if isinstance(n, c_ast.FuncCall)
                     and isinstance(n.name, c_ast.ID) and n.name.name in functions]
    if errors:
        return "".join(errors)
    generator = c_generator.CGenerator()
    definitions = [f for name, f in functions.items() if name in needed]
    typedefs = _typedefs(facts.typedefs, definitions)
    return "".join(generator.visit(e) + ";\n" for e in typedefs) + "".join(generator.visit(e) for e in definitions)


def unexported_work(graphs: list[DataflowGraph], exported: set[int] = frozenset()) -> str:
    """`#error`s for what the graphs' functions do outside their regions that the SDFG would not: the
    loops that no region holds but those the SDFG runs around the regions (`exported`, ids of their AST
    nodes: graph/sdfg_host.py), and the allocations whose buffers a region touches made inside a statement
    (an `if`, a loop), which no caller could make in the function's place (module doc); those at the top level
    are `handed_out` or, after the regions, the caller's part; and the assignments between the regions that write
    what the caller sees and that it could not run after the SDFG (graph/sdfg_caller.py's `between`); "" where
    there is none."""
    assignments = between(graphs, exported)
    errors = [_error(f"{_place(node)}: a statement between the loops writes what the caller sees, which the SDFG "
                     f"does not run, and a later loop touches what it writes or writes what it reads (or it "
                     f"calls a function), so its caller could not run it after the SDFG either")
              for node, deferrable in assignments if not deferrable]
    for function, mine, func in functions_of(graphs):
        lifted = {id(loop.node) for region in mine for loop in region.loops.values()} | set(exported)
        containers = {key for region in mine for key in region.containers}
        top = {id(item) for item in func.body.block_items or []}  # handed out, or the caller's part after the regions
        allocated = []  # (the assignment, its target) of the buffers handed out inside a statement that a region writes
        for node in _outside(func.body, lifted):
            if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
                kind = {c_ast.For: "for", c_ast.While: "while", c_ast.DoWhile: "do-while"}[type(node)]
                errors.append(_error(f"{_place(node)}: {function}'s {kind} loop is not lifted, so the SDFG (its "
                                     f"lifted loops only) would not run it as C does"))
            elif (target := allocated_target(node)) in containers and id(node) not in top:
                allocated.append((node, target))
        if allocated:
            errors.append(_error(_allocation_reason(function, allocated)))
        errors += _calls_between(func, function, lifted, mine[0].file)
        errors += _dropped(func, function, mine, exported | {id(node) for node, _ in assignments})
    return "".join(errors)


def _dropped(func: c_ast.FuncDef, function: str, mine: list, accounted: set[int]) -> list[str]:
    """`#error`s for the other statements at the top level between the function's first and last region that the
    SDFG does not account for (`accounted`: those it runs, and the assignments `between` reports or defers to its
    caller), each named with its line and what it does (effects.py's reading, not its text): an early `return`, a
    `goto`, a call of a function whose effects no memlet describes (I/O, memory), an `if` around a region (the
    SDFG would run the region whatever the condition), or any other statement where not all of them have an exact
    form (graph/sdfg_host.py runs all or none). The SDFG runs its steps in order with nothing in between, so each
    would be skipped. Those the checks above report (a loop, a call of the file's functions), the allocations
    handed out and the checks that they succeeded (the caller's) are left out, and a declaration without a value
    does nothing."""
    items = func.body.block_items or []
    regions = {id(loop.node) for region in mine for loop in region.loops.values()}
    holding = [k for k, item in enumerate(items) if any(id(n) in regions for n in walk(item))]
    facts = mine[0].file
    callers = [item for item, _ in handed_out_items(func, mine)] + failure_checks(func, mine)
    accounted = accounted | {id(item) for item in callers}
    symbols = facts.symbols.for_function(func)
    errors = []
    for k in range(holding[0], holding[-1] + 1) if holding else []:
        item = items[k]
        if id(item) in accounted | regions or isinstance(item, c_ast.Decl) and item.init is None \
                or isinstance(item, (c_ast.Pragma, c_ast.EmptyStatement)) \
                or isinstance(item, c_ast.Compound) and all(id(i) in regions for i in item.block_items or []) or any(
                    isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) and id(n) not in regions
                    or isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in facts.functions
                    and n.name.name not in facts.pure_functions for n in walk(item)):
            continue
        text = " ".join(c_generator.CGenerator().visit(item).split())
        text = text if len(text) <= 80 else text[:77] + "..."
        errors.append(_error(f"{_place(item)}: {function} runs '{text}' between its loops, which the SDFG does not "
                             f"run: {_what_it_does(item, symbols, k in holding)}"))
    return errors


def _what_it_does(item: c_ast.Node, symbols, holds_region: bool) -> str:
    """Why the SDFG cannot run a statement between its regions (`_dropped`), from what it does."""
    kinds = {type(n) for n in walk(item)}
    if c_ast.Return in kinds:
        return "it may return early, and the SDFG runs all its loops"
    if kinds & {c_ast.Goto, c_ast.Label}:
        return "it jumps (goto), and the SDFG runs its loops one after the other"
    effects = collect_effects(item, symbols, lambda name: name, declared_key=getattr(item, "name", None))
    if effects.unknown_call is not None:
        return f"it calls '{effects.unknown_call}', whose effects (I/O, memory) no memlet describes"
    if holds_region:
        return "it decides whether the loops inside it run, and the SDFG runs them whatever it decides"
    return ("the SDFG runs the statements between its loops only where each has an exact form there (a scalar's "
            "assignment, a call of a function exported itself, a while loop of those), and not all do here")


def _calls_between(func: c_ast.FuncDef, function: str, run: set[int], facts) -> list[str]:
    """`#error`s for the calls of the file's functions that move data (not pure) between the function's first and
    last region that the SDFG does not run (`run`: ids of the AST nodes it runs): it would skip them. Those
    before the first region and after the last are the caller's part."""
    items = func.body.block_items or []
    holding = [k for k, item in enumerate(items) if any(id(n) in run for n in walk(item))]
    errors = []
    for item in items[holding[0]:holding[-1] + 1] if holding else []:
        for node in _outside(item, run):
            if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                    and node.name.name in facts.functions and node.name.name not in facts.pure_functions:
                errors.append(_error(f"{_place(node)}: {function} calls '{node.name.name}' between its regions, "
                                     f"which the SDFG does not run (the callee is not exported, or the call does "
                                     f"not bind to its SDFG), so it would skip what the call moves"))
    return errors


def _allocation_reason(function: str, allocated: list[tuple[c_ast.Assignment, str]]) -> str:
    """Why an SDFG cannot do what a function that allocates buffers and hands them out does where the allocation
    is inside a statement (an `if`, a loop: not `handed_out`), and what to export instead. An SDFG
    computes into the buffers its caller passes; its own (transients) are freed when it returns, so it can
    hand none back; and whether an allocation inside an `if` or a loop happens, or how often, the caller cannot
    tell before the call, so it cannot allocate in its place."""
    (first, _), targets = allocated[0], ", ".join(target for _, target in allocated)
    return (f"{_place(first)}: {function} points {targets} at buffers it allocates inside a statement (an if, "
            f"a loop), which the caller gets back; an SDFG computes into buffers its caller "
            f"passes and frees its own when it returns, so it cannot hand any back, and its caller cannot tell "
            f"which to allocate in its place. To run this computation in DaCe, move the loops that fill the "
            f"buffers into a function that takes them as parameters, and export that one (--emit-graph F.sdfg "
            f"--function NAME)")


def _outside(body: c_ast.Node, lifted: set[int]):
    """The nodes of a function body outside its lifted loops (ids in `lifted`); those loops are skipped
    whole, their headers too."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node is None or id(node) in lifted:
            continue
        yield node
        if not isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):  # a loop outside: reported, not entered
            stack.extend(child for _, child in reversed(node.children()))


def _place(node: c_ast.Node) -> str:
    return f"{node.coord.file}:{node.coord.line}" if node.coord is not None else "?"


def unknown_elements(names: list[str]) -> str:
    """The `#error` refusing an SDFG with containers whose element type is unknown."""
    return _error(f"the element type of {', '.join(names)} is unknown: DaCe would read memory with a "
                  f"type that C does not") if names else ""


def jammed_loops(graphs) -> str:
    """The `#error` refusing an SDFG of regions with a loop unrolled whole into copies that have
    scalars of their own (`MapScope.block`, transform/outer_jam.py): the copies' statements name
    `below_0`, ..., which no container of the SDFG holds."""
    loops = [f"'{m.var}' (line {m.line})" for g in graphs for _, d in g.nodes(data=True)
             if isinstance(m := d["node"], MapScope) and m.block]
    return _error(f"the loop(s) over {', '.join(loops)} were unrolled into copies with scalars of their own, "
                  f"which the SDFG does not hold: export with --no-unroll") if loops else ""


def unexpressed_bounds(bounds: list[str]) -> str:
    """The `#error` refusing an SDFG with loop bounds DaCe cannot read: each would be a free symbol,
    which the caller could not know how to set."""
    return _error(f"{'; '.join(dict.fromkeys(bounds))} has no form DaCe reads") if bounds else ""


def _error(reason: str) -> str:
    """A line that stops DaCe's compiler with lift's reason (a C string: quotes and backslashes escaped)."""
    reason = reason.replace("\\", "\\\\").replace('"', '\\"')
    return f'#error "lift: {reason}"\n'


def _typedefs(typedefs: list[c_ast.Typedef], nodes: list[c_ast.Node]) -> list[c_ast.Typedef]:
    """The file's typedefs that the nodes name, and those these name, in file order."""
    table = {e.name: e for e in typedefs}
    needed, todo = set(), list(nodes)
    while todo:
        for n in walk(todo.pop()):
            if isinstance(n, c_ast.IdentifierType):
                for name in n.names:
                    if name in table and name not in needed:
                        needed.add(name)
                        todo.append(table[name])
    return [e for e in typedefs if e.name in needed]
