"""Parameters that every call passes the same integer constant: the sizes a kernel is run at.

A suite-style program defines its sizes as macros and hands them to a `static` kernel,
`kernel_jacobi_1d(TSTEPS, N, A, B)`; after preprocessing (with the user's `-D` values) every call
of the kernel passes `500` and `2000`. Inside the kernel those are parameters `tsteps` and `n`, so
a loop's work is a C expression (`n - 2`) and its profitability guard a run-time test, which the
compiler folds only if it inlines the kernel. Where the test is known to be false, lift should not
emit the parallel loop at all: a program whose every loop stays sequential then has no OpenMP
construct, does not need the OpenMP runtime, and runs as its serial build does (jacobi_1d at its
medium size: the same code, but linking libgomp moved the heap and cost 4-5%).

The calls of a function are all known when it can only be called from this file (`static`) and
its name is used nowhere but as the callee of direct calls (no pointer to it escapes). For each
call, the sizes are its parameters that the call passes an integer constant expression and that
the body never assigns, takes the address of, or declares another object of the name of. A
loop's work at every call's sizes is then a constant per call (`transform/parallelize.py`): one
size where all calls agree, else the largest, which decides where even that is too small (the
suite's `dump1`, called for two vectors of different lengths). The sizes are used for
profitability only: a wrong one would cost speed, not correctness, and the code stays valid for
every size.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.affine import int_constant
from lifter.analysis.walk import written_names
from lifter.frontend.walk import walk

_ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "<<": lambda a, b: a << b if 0 <= b < 63 else None}


def call_sizes(ast: c_ast.FileAST, integer_param) -> dict[str, list[dict[str, int]]]:
    """{function: one {parameter: value} per call, the parameters it passes a constant} for the
    file's functions whose calls are all known (module doc); `integer_param(decl)` says whether a
    parameter's declaration is an integer scalar."""
    candidates = {ext.decl.name: ext for ext in ast.ext
                  if isinstance(ext, c_ast.FuncDef) and "static" in (ext.decl.storage or [])}
    if not candidates:
        return {}
    # One walk of the code that can name a function: the bodies and file-scope initializers (not
    # the headers' declarations, most of a preprocessed file).
    callees, calls, named = set(), {name: [] for name in candidates}, []
    code = [ext.body if isinstance(ext, c_ast.FuncDef) else ext.init for ext in ast.ext
            if isinstance(ext, c_ast.FuncDef) or isinstance(ext, c_ast.Decl) and ext.init is not None]
    for n in walk(c_ast.Compound(code)):
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in candidates:
            callees.add(id(n.name))
            calls[n.name.name].append(n.args.exprs if n.args else [])
        elif isinstance(n, c_ast.ID) and n.name in candidates:
            named.append(n)
    escaped = {n.name for n in named if id(n) not in callees}
    out = {}
    for name, func in candidates.items():
        if name in escaped or not calls[name]:
            continue
        params = func.decl.type.args.params if func.decl.type.args else []
        if any(isinstance(p, c_ast.EllipsisParam) for p in params) \
                or any(len(args) != len(params) for args in calls[name]):
            continue
        written = written_names(func.body)
        sizes = [i for i, p in enumerate(params)
                 if isinstance(p, c_ast.Decl) and p.name and p.name not in written and integer_param(p)]
        known = [{params[i].name: value for i in sizes for value in [_value(args[i])] if value is not None}
                 for args in calls[name]]
        if any(known):
            out[name] = known
    return out


def _value(node: c_ast.Node) -> int | None:
    """The value of an integer constant expression of literals, `+ - * <<` and unary minus, else
    None (division is left out: C truncates where Python floors, and sizes rarely divide)."""
    if isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC:
        left, right = _value(node.left), _value(node.right)
        return None if left is None or right is None else _ARITHMETIC[node.op](left, right)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("+", "-"):
        inner = _value(node.expr)
        return None if inner is None else (inner if node.op == "+" else -inner)
    return int_constant(node)
