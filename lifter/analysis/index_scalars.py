"""Per-iteration index scalars: `int c = x + y*nx; out[c] = in[c - 1] + in[c + 1];`.

Application code computes a flat index once per iteration and uses it in several subscripts.
The analysis reads each later use of such a scalar as the expression it holds (`scop.py`
substitutes it into subscripts, bounds and conditions), so that `out[c]` is `out[x + y*nx]`,
affine or delinearizable, instead of "any element". The scalar's own writes stay what they
are (a scalar written in every iteration: private, or lastprivate where it is live after the
loop), so only the reading of subscripts changes.

A block item defines `c` for the rest of its block when it is `int c = e;` or `c = e;` with:
- `c` an integer at least as wide as int (a narrower one would wrap the index), not a global
  (a call could change it) and, for an assignment, a variable whose address the function never
  takes (no pointer could change it);
- `e` without side effects, calls or memory reads other than struct fields (which become
  stand-ins only where the whole region cannot change them), not reading `c` itself, and not
  one that may wrap around where the model goes below zero (`unsigned c = i - 1;`: wrapping.py);
- no later item of the block writing `c` or a name `e` reads, or taking their address.
Whether `e` is affine is left to the uses: a subscript it does not make affine is "any
element", as the scalar alone was.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.analysis.symbols import FunctionSymbols, substitute, wide_integer
from lifter.analysis.wrapping import wrapping_value
from lifter.analysis.walk import plain_value
from lifter.frontend.walk import walk


def definition(item: c_ast.Node, rest: list, symbols: FunctionSymbols, rewrite, written_names):
    """(name, value as the analysis reads it) if `item` defines an index scalar for `rest`, else None.

    `rewrite` reads an expression as the analysis does (earlier definitions substituted);
    `written_names(node)` gives the names a node assigns or takes the address of."""
    if isinstance(item, c_ast.Decl):
        if item.init is None or isinstance(item.init, c_ast.InitList) or isinstance(item.type, c_ast.FuncDecl):
            return None
        name, value, type_node = item.name, item.init, item.type
    elif isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID):
        name, value = item.lvalue.name, item.rvalue
        sym = symbols.lookup(name)
        if sym is None or sym.decl is None or sym.storage == "global" or name in symbols.addressed:
            return None
        type_node = sym.decl.type
    else:
        return None
    if name in symbols.ambiguous or not wide_integer(type_node, symbols.table.typedefs):
        return None
    original, value = value, rewrite(value)
    if not plain_value(value) or wrapping_value(type_node, original, value, symbols):
        return None
    used = {n.name for n in walk(value) if isinstance(n, c_ast.ID)}
    if name in used or ({name} | used) & written_names(c_ast.Compound(list(rest))):
        return None
    return name, value


def entry_values(symbols: FunctionSymbols, written_names) -> dict[str, c_ast.Node]:
    """Index scalars of the whole function: `int nxy = g->nx * g->ny;`, declared once, never
    assigned again nor address-taken, whose value no write of the function can change (its
    variables are parameters the function never assigns, its fields no write of the function can
    reach: `invariants.py`). Such a name is its value anywhere in the function, in every region;
    delinearization then sees `z*nxy` as `z*(g->nx*g->ny)`."""
    from lifter.analysis.invariants import StandIns

    cached = getattr(symbols, "_entry_values", None)
    if cached is not None:
        return cached
    body = symbols.body
    decls: dict[str, list] = {}
    for n in walk(body):
        if isinstance(n, c_ast.Decl) and n.name:
            decls.setdefault(n.name, []).append(n)
    written = written_names(body)
    assigned = written - set(decls)  # names assigned or address-taken, not only declared
    for n in walk(body):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) or \
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") \
                and isinstance(n.expr, c_ast.ID):
            assigned.add(n.lvalue.name if isinstance(n, c_ast.Assignment) else n.expr.name)

    def parameter(name):
        sym = symbols.lookup(name)
        return name not in written and sym is not None and sym.kind == Kind.SCALAR and sym.integer

    invariant = StandIns(body, symbols, parameter, written)
    found = {}
    for name, (decl, *more) in decls.items():
        if more or name in assigned or name in symbols.ambiguous or decl.init is None \
                or isinstance(decl.init, c_ast.InitList) or isinstance(decl.type, c_ast.FuncDecl) \
                or not wide_integer(decl.type, symbols.table.typedefs) or "static" in (decl.storage or []):
            continue
        value = symbols.table.inline_helpers(decl.init)
        if plain_value(value) and not wrapping_value(decl.type, decl.init, value, symbols) and invariant(value) is not None:
            found[name] = value
    symbols._entry_values = found
    return found


def index_views(root: c_ast.Node, symbols: FunctionSymbols, written_names):
    """(access node, index with the index scalars defined before it substituted) for each `a[e]`
    and `a + e` under `root`: delinearization (`scop.py` `_plan_shapes`) needs the shapes of all
    accesses before the nest is walked in order."""
    out = []

    def visit(node, defs: dict):
        if isinstance(node, c_ast.ArrayRef):
            out.append((node, node.name, _read(node.subscript, defs)))
        elif isinstance(node, c_ast.BinaryOp) and node.op == "+":
            out.append((node, node.left, _read(node.right, defs)))
        if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList):
            defs = {k: v for k, v in defs.items() if k not in {d.name for d in node.init.decls}}
        if isinstance(node, c_ast.Compound):
            defs = dict(defs)
            items = node.block_items or []
            for k, item in enumerate(items):
                visit(item, defs)
                found = definition(item, items[k + 1:], symbols,
                                   lambda e: _read(symbols.table.inline_helpers(e), defs), written_names)
                if found is not None:
                    defs[found[0]] = found[1]
                elif isinstance(item, c_ast.Decl) or isinstance(item, c_ast.Assignment) \
                        and isinstance(item.lvalue, c_ast.ID):
                    defs.pop(item.name if isinstance(item, c_ast.Decl) else item.lvalue.name, None)
            return
        for _, child in node.children():
            visit(child, defs)

    visit(root, dict(entry_values(symbols, written_names)))
    return out


def _read(node: c_ast.Node, defs: dict) -> c_ast.Node:
    return substitute(node, defs.get) if defs else node
