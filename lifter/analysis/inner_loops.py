"""Verdicts for loops inside opaque leaves whose bounds are read from memory but stay constant.

`for (int p = rowptr[i]; p < rowptr[i + 1]; p++) s += val[p] * x[col[p]];` is a leaf
of its region (its bounds are not affine): the row loop around it sees its effects
over-approximated, as before. Within one execution of the loop, though, the bounds
are constants when nothing in its body can write what they read (no name in them is
assigned in the body, and nothing the body writes may be memory they read). The loop
is then modelled on its own, each such bound replaced by a stand-in parameter, and
gets a verdict of its own: a reduction on `s` here. Such a region is for the report
only: it becomes no graph and nothing is emitted for it, since its code belongs to
the leaf of the region around it.
"""
from __future__ import annotations

import copy

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import NotAffine
from lifter.analysis.dependences import compute_dependences
from lifter.analysis.effects import MEMORY, WORLD
from lifter.analysis.model import Kind, Region, UnliftedLoop
from lifter.analysis.scop import LEAVES_EARLY, NotModelable, RegionBuilder, header_var, written_names
from lifter.analysis.symbols import FunctionSymbols
from lifter.analysis.verdicts import compute_verdicts
from lifter.frontend.walk import walk

_COMPARISONS = ("<", "<=", ">", ">=")


def inner_regions(region: Region, symbols: FunctionSymbols, locate, depth: int = 0) -> list[tuple[int, Region]]:
    """(depth in the function, region) of each qualifying loop that is a leaf of `region`, and of the
    loops inside those, in turn; `depth` is the depth of `region`'s outermost loop."""
    out = []
    for stmt in region.statements.values():
        node = stmt.node
        if not isinstance(node, c_ast.For) or not (stmt.opaque_reason or "").startswith("loop header"):
            continue
        sub = _inner_region(f"{region.id}_in{len(out)}", region.function, node, symbols, locate)
        if sub is not None:
            here = depth + len(stmt.loops)
            out.append((here, sub))
            out.extend(inner_regions(sub, symbols, locate, here))
    return out


def early_exits(region: Region, depth: int = 0) -> list[UnliftedLoop]:
    """Entries for the `for` loops inside opaque leaves of `region` that get no verdict of their
    own (no region of `inner_regions`, which `region.inner` must already hold): a loop a break
    or continue of its own leaves early, or whose bounds read memory the loop may write (each
    an opaque leaf of the loops around it, which stay parallelizable), and the loops inside
    such a leaf. Every user loop gets a remark; these stay sequential."""
    covered = {(loop.line, loop.var) for _, sub in region.inner for loop in sub.loops.values()}
    out = []
    for stmt in region.statements.values():
        node = stmt.node
        if not isinstance(node, c_ast.For) or not stmt.opaque_reason:
            continue
        here = depth + len(stmt.loops)
        var = header_var(node) or ""
        if (node.coord.line, var) in covered:
            continue
        code = _leaf_code(stmt.opaque_reason)
        out.append(UnliftedLoop(node.coord.line, node.coord.column, region.function, here, var,
                                stmt.opaque_reason, code))
        out.extend(_loops_inside(node.stmt, region.function, here + 1, covered,
                                 f"inside the loop over '{var}' (line {node.coord.line}), which the loops "
                                 f"around it keep as one statement ({stmt.opaque_reason})"))
    return out


def _leaf_code(reason: str) -> str:
    """The report's reason_code for a `for` loop kept as one opaque statement."""
    if reason == LEAVES_EARLY:
        return "jump"
    if reason.startswith("loop header"):
        return "non-affine-bound"
    return "call-effects" if reason.startswith("call to") else "not-modelable"


def _loops_inside(node, function: str, depth: int, covered: set, reason: str) -> list[UnliftedLoop]:
    out = []
    for _, child in (node.children() if node is not None else []):
        if isinstance(child, c_ast.For):
            var = header_var(child) or ""
            if (child.coord.line, var) not in covered:
                out.append(UnliftedLoop(child.coord.line, child.coord.column, function, depth, var, reason,
                                        "enclosing-statement"))
            out.extend(_loops_inside(child.stmt, function, depth + 1, covered, reason))
        else:
            out.extend(_loops_inside(child, function, depth, covered, reason))
    return out


def _inner_region(region_id: str, function: str, node: c_ast.For, symbols: FunctionSymbols, locate) -> Region | None:
    found = _with_stand_ins(node)
    if found is None:
        return None
    rewritten, bounds = found
    read = {n.name for b in bounds for n in walk(b) if isinstance(n, c_ast.ID)}
    if read & (written_names(node.stmt) | written_names(node.next)):
        return None
    builder = RegionBuilder(region_id, function, symbols, lambda n: locate(node) if n is rewritten else locate(n),
                            stand_ins=frozenset(_stand_in(node, k) for k in range(2)))
    try:
        sub = builder.build(rewritten)
    except (NotModelable, NotAffine, isl.Error):
        return None
    if not _bounds_stay(sub, bounds, symbols):
        return None
    sub.dependences = compute_dependences(sub)
    sub.live_after = {k for k, c in sub.containers.items() if c.kind == Kind.SCALAR}  # all: the rest is unseen
    sub.verdicts = compute_verdicts(sub, sub.live_after)
    return sub


def _stand_in(node: c_ast.For, k: int) -> str:
    return f"lift_{'lower' if k == 0 else 'upper'}_bound_{node.coord.line}"


def _with_stand_ins(node: c_ast.For):
    """The loop with each bound that reads memory replaced by a stand-in name, and those bounds;
    None if its header has another form or no bound reads memory."""
    init, cond, bounds = copy.copy(node.init), copy.copy(node.cond), []
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        decl = copy.copy(init.decls[0])
        init.decls = [decl]
        decl.init = _replaced(decl.init, _stand_in(node, 0), bounds)
    elif isinstance(init, c_ast.Assignment) and init.op == "=":
        init.rvalue = _replaced(init.rvalue, _stand_in(node, 0), bounds)
    else:
        return None
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in _COMPARISONS:
        return None
    if isinstance(cond.left, c_ast.ID):
        cond.right = _replaced(cond.right, _stand_in(node, 1), bounds)
    elif isinstance(cond.right, c_ast.ID):
        cond.left = _replaced(cond.left, _stand_in(node, 1), bounds)
    else:
        return None
    if not bounds or any(isinstance(n, c_ast.FuncCall) for b in bounds for n in walk(b)):
        return None
    return c_ast.For(init, cond, node.next, node.stmt, node.coord), bounds


def _replaced(expr: c_ast.Node, name: str, bounds: list) -> c_ast.Node:
    """`expr`, or the stand-in `name` if `expr` reads memory (recorded in `bounds`)."""
    if any(isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or
           isinstance(n, c_ast.UnaryOp) and n.op == "*" for n in walk(expr)):
        bounds.append(expr)
        return c_ast.ID(name, expr.coord)
    return expr


def _bounds_stay(sub: Region, bounds: list, symbols: FunctionSymbols) -> bool:
    """Nothing the loop writes may be memory its bounds read: no unknown memory, no name the
    bounds use; an array written must be restrict, or an object of its own while the bounds read
    only arrays that are objects of their own (a pointer may point into any array)."""
    roots = set()
    for b in bounds:
        for n in walk(b):
            if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or isinstance(n, c_ast.UnaryOp) and n.op == "*":
                roots |= {x.name for x in walk(n) if isinstance(x, c_ast.ID)}
    named = all((sym := symbols.lookup(r)) is not None and sym.owns_storage for r in roots)
    for stmt in sub.statements.values():
        for a in stmt.accesses:
            if not a.is_write:
                continue
            c = sub.containers[a.container]
            if c.name in (WORLD, MEMORY) or c.name in roots:
                return False
            if c.kind == Kind.SCALAR or c.restrict:
                continue
            sym = symbols.lookup(c.name)
            if not named or sym is None or not sym.owns_storage:
                return False
    return True
