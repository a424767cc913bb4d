"""Polyhedral analysis: AST -> ProgramModel (regions with domains, accesses, dependences, verdicts)."""
from __future__ import annotations

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import NotAffine
from lifter.analysis.affine_gathers import affine_gathers
from lifter.analysis.budget import MAX_NEST_DEPTH, BudgetExceeded, isl_budget, nest_deeper_than
from lifter.analysis.dependences import compute_dependences
from lifter.analysis.inner_loops import early_exits, inner_regions
from lifter.analysis.liveness import Liveness
from lifter.analysis.model import FileFacts, ProgramModel, Region, UnliftedLoop
from lifter.analysis.pragmas import PragmaRole, strongest
from lifter.analysis.owned_rows import owned_verdicts
from lifter.analysis.row_ranges import row_ranges
from lifter.analysis.scop import NotModelable, RegionBuilder, header_var
from lifter.analysis.symbols import SymbolTable, Typedefs
from lifter.analysis.verdicts import compute_verdicts
from lifter.frontend import TranslationUnit
from lifter.frontend.tokens import keyword_offsets
from lifter.frontend.walk import walk


class ForLocator:
    """Maps each `for` node of the user's file to the offset of its keyword in the exact text.

    Loops that come out of macro expansions have no such place; they get None
    and are never rewritten.
    """

    def __init__(self, unit: TranslationUnit):
        self.path = unit.source.path
        self.offsets = keyword_offsets(unit.source.text, "for")
        by_line: dict[int, list[c_ast.For]] = {}
        for node in _fors(unit.ast):
            if node.coord is not None and node.coord.file == self.path:
                by_line.setdefault(node.coord.line, []).append(node)
        self.place: dict[int, int] = {}
        for line, nodes in by_line.items():
            offsets = self.offsets.get(line, [])
            if len(offsets) == len(nodes):
                nodes.sort(key=lambda n: n.coord.column)
                for node, offset in zip(nodes, offsets):
                    self.place[id(node)] = offset

    def __call__(self, node: c_ast.For) -> int | None:
        return self.place.get(id(node))


def _fors(ast):
    """The `for` statements of the file: inside its function definitions, the only place for a
    statement (the headers' thousands of declarations are not walked)."""
    return (n for ext in ast.ext if isinstance(ext, c_ast.FuncDef) for n in walk(ext.body) if isinstance(n, c_ast.For))


def analyze(unit: TranslationUnit, strict_aliasing: bool = True, assume_no_alias: bool = False) -> ProgramModel:
    """The polyhedral model of every loop nest of the file. `strict_aliasing` false (cc's
    -fno-strict-aliasing) withdraws the proofs that rest on C's type rules (a store of a `double`
    changes no `long`), here and in the transformations. `assume_no_alias` (--assume-no-alias)
    is the user's word that memory reached through two pointer parameters never overlaps: a store
    through one then leaves the other's fields as they were (`invariants.py`)."""
    typedefs = Typedefs(unit.ast)
    table = SymbolTable(unit.ast, typedefs)
    table.strict_aliasing = strict_aliasing
    table.assume_no_alias = assume_no_alias
    locate = ForLocator(unit)
    facts = FileFacts(unit.source.path, {e.decl.name: e for e in unit.ast.ext if isinstance(e, c_ast.FuncDef)},
                      [e for e in unit.ast.ext if isinstance(e, c_ast.Typedef)], frozenset(table.pure_functions), table)
    regions: list[Region] = []
    unlifted: list[UnliftedLoop] = []
    for func in unit.ast.ext:
        if not isinstance(func, c_ast.FuncDef) or func.coord is None or func.coord.file != unit.source.path:
            continue
        symbols = table.for_function(func)
        name = func.decl.name
        liveness = Liveness(func, symbols)

        def visit(node, depth, enclosing):
            if node is None:
                return
            if isinstance(node, c_ast.For):
                region_id = f"R{len(regions)}"
                try:
                    if nest_deeper_than(node, MAX_NEST_DEPTH):
                        raise BudgetExceeded(f"loop nest deeper than {MAX_NEST_DEPTH} levels")
                    with isl_budget():
                        region = RegionBuilder(region_id, name, symbols, locate).build(node)
                        region.file = facts
                        region.dependences = compute_dependences(region)
                        region.live_after = liveness.live_after([node], enclosing)
                        region.verdicts = compute_verdicts(region, region.live_after)
                        region.inner = inner_regions(region, symbols, locate, depth)
                        region.row_ranges = row_ranges(region, symbols)
                        owned_verdicts(region)
                        region.gathers = affine_gathers(region, symbols)
                    region.rebuild = _rebuilder(name, symbols, locate, liveness, enclosing, facts)
                    regions.append(region)
                    unlifted.extend(early_exits(region, depth))
                    return
                except BudgetExceeded as exc:
                    # Inner nests would cost as much again, level after level: the whole nest stays as written.
                    unlifted.append(UnliftedLoop(node.coord.line, node.coord.column, name, depth,
                                                 header_var(node) or "", exc.reason, "budget"))
                    return
                except NotModelable as exc:
                    reason, code = exc.reason, exc.code
                except NotAffine as exc:
                    reason, code = str(exc), "non-affine-bound"
                except isl.Error as exc:
                    reason = f"the polyhedral library could not model it ({str(exc).splitlines()[0]})"
                    code = "not-modelable"
                var = header_var(node) or ""
                unlifted.append(UnliftedLoop(node.coord.line, node.coord.column, name, depth, var, reason, code))
                visit(node.stmt, depth + 1, enclosing + [node])
                return
            inner = enclosing + [node] if isinstance(node, (c_ast.While, c_ast.DoWhile)) else enclosing
            pragmas: list[str] = []  # the pragmas right before the current child
            for _, child in node.children():
                decided = strongest(pragmas) if isinstance(child, c_ast.For) else None
                if decided is None:
                    visit(child, depth, inner)
                else:
                    role, text = decided
                    reason = f"the loop has its own '#pragma {text}'"
                    if role is PragmaRole.BOUND:
                        reason += ", which must stay right before it"
                    unlifted.append(UnliftedLoop(child.coord.line, child.coord.column, name, depth,
                                                 header_var(child) or "", reason, "user-pragma"))
                    if role is PragmaRole.BOUND:
                        visit(child.stmt, depth + 1, inner + [child])
                pragmas = pragmas + [child.string] if isinstance(child, c_ast.Pragma) else []

        visit(func.body, 0, [])
    return ProgramModel(unit.source.path, regions, unlifted)


def _rebuilder(name, symbols, locate, liveness, enclosing, facts):
    """Builds, analyses and returns the region of consecutive outermost loops of one block (the
    first is this region's root); raises like the analysis of one loop does."""
    def rebuild(region_id: str, roots: list[c_ast.For]) -> Region:
        with isl_budget():
            region = RegionBuilder(region_id, name, symbols, locate).build(*roots)
            region.file = facts
            region.dependences = compute_dependences(region)
            region.live_after = liveness.live_after(roots, enclosing)
            region.verdicts = compute_verdicts(region, region.live_after)
            region.row_ranges = row_ranges(region, symbols)
            owned_verdicts(region)
            region.gathers = affine_gathers(region, symbols)
        region.rebuild = rebuild
        return region
    return rebuild
