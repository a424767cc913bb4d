"""Local pointers that are copies of what the caller handed in (`double *f = s->f;`, cellmd's force
loop): declared once, from a parameter or a field reached through one, and never assigned, nor
their address taken, afterwards. `--assume-no-alias` promises that the caller's pointers never
overlap; such a copy is one of them, under another name (`Region.from_params`).

The promise is about the values the caller hands in, so each such pointer is recorded with its
origin, the text of the caller's pointer it holds: two copies of one parameter (`q = a; r = a;`),
or a copy and the parameter itself, are one pointer under two names and overlap whatever the
caller promised. A parameter assigned something not derived from itself (`a = b + 1;`) holds
no longer what the caller handed in, and neither do the pointers read through or copied from it;
`a++` and `a += k` stay inside the caller's object (C's pointer arithmetic), so they keep it.
Likewise a field the function itself sets (`s->f = b + 1;`, or any field of that name, through
whatever struct: another pointer may reach the same one), or whose address it takes or hands to
a call (which may set it), holds what the function put there, not the caller's pointer."""
from __future__ import annotations

import re
import weakref

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.model import Kind
from lifter.frontend.walk import walk

_STEPS = ("++", "--", "p++", "p--")
# Each function's facts, computed once: every loop nest of a function asks (`Region.from_params`),
# and one walk of the body per nest made a function of 1,000 loops take minutes.
_FACTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _root(text: str) -> str:
    return re.split(r"\W", text, maxsplit=1)[0]


def _self_derived(name: str, value: c_ast.Node) -> bool:
    """`name = name + k` / `name - k`: a step inside the object the pointer points into."""
    return isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-") \
        and isinstance(value.left, c_ast.ID) and value.left.name == name


def _assignments(symbols) -> tuple[dict[str, list[c_ast.Decl]], set[str], set[str]]:
    """Declarations by name, names assigned at all, and names assigned other than by a step
    (for fields: `->f` for every field `f` the function sets, takes the address of, or passes
    the struct of to a call)."""
    declared: dict[str, list[c_ast.Decl]] = {}
    assigned = set(symbols.addressed)
    replaced = set(symbols.addressed)
    for n in walk(symbols.body):
        if isinstance(n, c_ast.Decl) and n.name:
            declared.setdefault(n.name, []).append(n)
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            assigned.add(n.lvalue.name)
            if n.op == "=" and not _self_derived(n.lvalue.name, n.rvalue):
                replaced.add(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in _STEPS and isinstance(n.expr, c_ast.ID):
            assigned.add(n.expr.name)
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.StructRef) \
                or isinstance(n, c_ast.UnaryOp) and n.op in _STEPS + ("&",) and isinstance(n.expr, c_ast.StructRef):
            target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr
            replaced.add("->" + target.field.name)
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            for arg in n.args.exprs:  # a call handed a struct pointer may set the fields behind it
                while isinstance(arg, c_ast.Cast):
                    arg = arg.expr
                if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
                    arg = arg.expr
                if isinstance(arg, (c_ast.ID, c_ast.StructRef)):
                    replaced.add("(" + re.sub(r"\s+", "", c_text(arg)))
    return declared, assigned, replaced


def _held(text: str, replaced: set[str]) -> bool:
    """Whether the pointer spelled `text` (`a`, `s->f`, `s->g.h`) still holds what the caller
    handed in, given `replaced` (_assignments)."""
    if _root(text) in replaced:
        return False
    text = re.sub(r"\s+", "", text)
    fields = list(re.finditer(r"(?:->|\.)(\w+)", text))
    if any("->" + m.group(1) in replaced for m in fields):
        return False
    return not any("(" + text[:m.start()] in replaced for m in fields)  # what holds the field went to a call


def _facts(symbols) -> tuple[set[str], dict[str, str]]:
    """`replaced` (_assignments) and the parameter copies (_copies) of the function of `symbols`,
    computed once per function."""
    facts = _FACTS.get(symbols)
    if facts is None:
        declared, assigned, replaced = _assignments(symbols)
        facts = _FACTS[symbols] = (replaced, _copies(symbols, declared, assigned, replaced))
    return facts


def _copies(symbols, declared, assigned, replaced) -> dict[str, str]:
    """The local pointers of the function of `symbols` that are copies of parameters' pointers,
    each with the text of the pointer it copies (`{"f": "s->f"}`)."""
    out = {}
    for name, decls in declared.items():
        sym = symbols.lookup(name)
        if len(decls) != 1 or name in assigned or sym is None or sym.kind != Kind.POINTER or sym.storage != "local" \
                or name in symbols.ambiguous or not isinstance(decls[0].init, (c_ast.ID, c_ast.StructRef)):
            continue
        origin = c_text(decls[0].init)
        root = symbols.lookup(_root(origin))
        if root is not None and root.storage == "param" and _held(origin, replaced):
            out[name] = origin
    return out


def parameter_origins(symbols, pointers) -> dict[str, str]:
    """Of the pointer containers named in `pointers` (`a`, `s->f`, a local copy `f`), those that
    hold what the caller handed in, each with the caller's pointer it is (`Region.from_params`)."""
    replaced, copies = _facts(symbols)
    out = {}
    for name in pointers:
        root = symbols.lookup(_root(name))
        if name in copies:
            out[name] = copies[name]
        elif root is not None and root.storage == "param" and _held(name, replaced):
            out[name] = name
    return out
