"""What the SDFG export takes from the C file read again: the file's functions that its tasklets
call (the SDFG's global code) and the element types of struct fields.

A statement may call a function of its file (`pairs(seq[i], seq[j])`, `sq(x - c)`); DaCe's
generated C++ defines the program only, so the SDFG carries the definitions of the functions its
tasklets call (with those they call in turn, and the typedefs they name) as its global code, which
DaCe writes above the program. Only functions that compute a value from scalar arguments qualify
(the analysis' pure functions: they read and write nothing but their parameters and locals): a
call of another one (`kernel_forces(n, p)` writes through its pointer) moves data that no memlet
describes: the global code is then an `#error` with the reason, so that DaCe, which reads and
validates the SDFG, refuses to compile it rather than run a program that hides that data.

lift's graphs hold statements, not the file's other functions, so the definitions come from the
file read again with the default preprocessing: a definition whose text a macro changes (whose
value a `-D` of the lift run may have set otherwise) is refused too: every name in its source
text must still be there after preprocessing.

A field of an array of structs (`p[i].x`) is a container of its own, whose element type lift's
model leaves open (`?`); it is the field's declared type in the struct of the variable's declaration
(`field_elements`). One that cannot be found stays open, and the exporter refuses the SDFG (an
`#error` in the global code) rather than guess a type.
"""
from __future__ import annotations

import re

import networkx as nx
from pycparser import c_ast, c_generator

from lifter.analysis.effects import PURE_FUNCTIONS
from lifter.analysis.symbols import SymbolTable, Typedefs
from lifter.analysis.walk import walk
from lifter.diagnostics import LiftError
from lifter.frontend.parse import parse
from lifter.frontend.preprocess import PreprocessOptions, preprocess
from lifter.frontend.source import read_source
from lifter.graph.nodes import Tasklet

_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# words before `(` that are no calls (statement keywords, operators), and what DaCe's tasklets know
_NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "_Alignof", "min", "max", "Min", "Max",
              "int_floor"}


def called_functions(graphs: list[nx.MultiDiGraph]) -> dict[str, tuple[int]]:
    """The names the graphs' statements call that no tasklet knows (not a math function), each with
    the line of a statement calling it."""
    out = {}
    for g in graphs:
        for _, d in g.nodes(data=True):
            node = d["node"]
            if isinstance(node, Tasklet):
                for name in _CALLED.findall(node.code):
                    if name not in _NOT_CALLS and name not in PURE_FUNCTIONS:
                        out.setdefault(name, (node.line,))
    return out


def global_code(graphs: list[nx.MultiDiGraph]) -> str:
    """C++ text defining the file's functions the statements call (and what they need), in file order;
    "" when they call none. A function it cannot define is an `#error` saying why: DaCe reads and
    validates the SDFG, and its compiler stops there with lift's reason, never running a wrong call."""
    called = called_functions(graphs)
    if not called:
        return ""
    path = graphs[0].graph["path"]
    source, ast = reread(path)
    if ast is None:
        return _error(f"the definitions of {', '.join(sorted(called))} are not exported: the file could not "
                      f"be read again ({source})")
    functions = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    pure = SymbolTable(ast, Typedefs(ast)).pure_functions
    needed, errors, todo = set(), [], [name for name in called if name in functions]  # others: the C library's
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        if name not in pure:
            errors.append(_error(f"{path}:{called.get(name, ('?',))[0]}: a statement calls '{name}', which reads "
                                 f"or writes memory beyond its arguments: DaCe's tasklets see data only "
                                 f"through memlets"))
        elif not _as_written(functions[name], path, source.text):
            errors.append(_error(f"'{name}' is not written out in the file: a macro shapes it (the SDFG would "
                                 f"define it with the default macros, maybe not those lift ran with) or a "
                                 f"header defines it"))
        else:
            todo += [n.name.name for n in walk(functions[name].body) if isinstance(n, c_ast.FuncCall)
                     and isinstance(n.name, c_ast.ID) and n.name.name in functions]
    if errors:
        return "".join(errors)
    generator = c_generator.CGenerator()
    definitions = [e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name in needed]
    typedefs = _typedefs(ast, definitions)
    return "".join(generator.visit(e) + ";\n" for e in typedefs) + "".join(generator.visit(e) for e in definitions)


def reread(path: str) -> tuple:
    """(the file's source, its AST) with the default preprocessing, or (why not, None)."""
    try:
        source = read_source(path)
        return source, parse(preprocess(path, source.text, PreprocessOptions()).text, path, "c11")
    except LiftError as exc:
        return exc.diagnostic.message, None


def field_elements(graphs: list[nx.MultiDiGraph]) -> dict[tuple[str, str], str]:
    """(region, container) -> the C element type of each field container (`p.x` of `particle_t *p`) whose
    type lift leaves open, where the declaration of its variable in the function names a struct that
    declares the field with a type of plain words (`double`)."""
    fields = [(g, key, c) for g in graphs for key, c in g.graph["region"].containers.items()
              if c.field and c.element == "?"]
    if not fields:
        return {}
    _, ast = reread(graphs[0].graph["path"])
    if ast is None:
        return {}
    typedefs = Typedefs(ast)
    structs = {n.name: n for n in walk(ast) if isinstance(n, c_ast.Struct) and n.name and n.decls}
    functions = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    out = {}
    for g, key, c in fields:
        func = functions.get(g.graph["function"])
        decls = [n for n in walk(func) if isinstance(n, c_ast.Decl) and n.name == c.name] if func else []
        element = _field_type(decls[0].type, c.field, typedefs, structs) if len(decls) == 1 else None
        if element is not None:
            out[g.graph["name"], key] = element
    return out


def _field_type(t: c_ast.Node, field: str, typedefs: Typedefs, structs: dict) -> str | None:
    """The type of `.field` in the struct the declared type `t` points at or holds, as plain words."""
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    t = typedefs.resolve(t)
    struct = t.type if isinstance(t, c_ast.TypeDecl) else None
    if isinstance(struct, c_ast.Struct) and struct.decls is None:
        struct = structs.get(struct.name)
    if not isinstance(struct, c_ast.Struct) or not field.startswith(".") or "." in field[1:]:
        return None
    member = next((d for d in struct.decls or [] if d.name == field[1:]), None)
    member = typedefs.resolve(member.type) if member is not None else None
    if isinstance(member, c_ast.TypeDecl) and isinstance(member.type, c_ast.IdentifierType):
        return " ".join(member.type.names)
    return None


def unknown_elements(names: list[str]) -> str:
    """The `#error` refusing an SDFG with containers whose element type is unknown."""
    return _error(f"the element type of {', '.join(names)} is unknown: DaCe would read memory with a "
                  f"type that C does not") if names else ""


def _error(reason: str) -> str:
    """A line that stops DaCe's compiler with lift's reason (a C string: quotes and backslashes escaped)."""
    reason = reason.replace("\\", "\\\\").replace('"', '\\"')
    return f'#error "lift: {reason}"\n'


def _typedefs(ast: c_ast.FileAST, nodes: list[c_ast.Node]) -> list[c_ast.Typedef]:
    """The file's typedefs that the nodes name, and those these name, in file order."""
    table = {e.name: e for e in ast.ext if isinstance(e, c_ast.Typedef)}
    needed, todo = set(), list(nodes)
    while todo:
        for n in walk(todo.pop()):
            if isinstance(n, c_ast.IdentifierType):
                for name in n.names:
                    if name in table and name not in needed:
                        needed.add(name)
                        todo.append(table[name])
    return [e for e in ast.ext if isinstance(e, c_ast.Typedef) and e.name in needed]


def _as_written(func: c_ast.FuncDef, path: str, text: str) -> bool:
    """Whether no macro shaped the definition: every name of its source lines (those of its nodes, in
    the file itself) is a name of the preprocessed definition, and no directive sits among them."""
    lines = [n.coord.line for n in walk(func) if getattr(n, "coord", None) is not None]
    if func.coord is None or func.coord.file != path:
        return False
    written = "\n".join(text.splitlines()[func.coord.line - 1:max(lines)])
    written = _COMMENT.sub(" ", written)
    if any(line.lstrip().startswith("#") for line in written.splitlines()):
        return False
    return set(_NAME.findall(written)) <= set(_NAME.findall(c_generator.CGenerator().visit(func)))
