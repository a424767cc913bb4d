"""Whether worker processes can start safely from the program that calls lift.

The batch's workers are started with `forkserver` (or `spawn`): each imports the program's main
module again before it runs anything. A plain script that calls `lift_batch` at its top level,
outside an `if __name__ == "__main__":` guard, would run again in every worker, and
multiprocessing stops such a worker while it starts; the pool breaks and no file is lifted. Such
a program is recognized from its source, and the batch then lifts in its own process.
"""
from __future__ import annotations

import ast
import sys


def workers_can_start() -> bool:
    """True unless the main module is a script whose top level does more than define things."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    name = getattr(spec, "name", None)
    if name is not None and (name == "__main__" or name.endswith(".__main__")):
        return True  # `python -m package`: multiprocessing does not import it again
    path = getattr(main, "__file__", None)
    if path is None:
        return True  # an interactive session or `python -c`: nothing is imported again
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return False
    return all(_only_defines(statement) for statement in tree.body)


def _only_defines(node: ast.stmt) -> bool:
    """A top-level statement that, run again in a worker, starts nothing: imports, definitions,
    assignments without calls, the `__main__` guard, and `if`/`try` blocks of these."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                         ast.Pass)):
        return True
    if isinstance(node, ast.If) and _is_main_guard(node.test):
        return all(_only_defines(s) for s in node.orelse)
    if isinstance(node, ast.If):
        return _no_call(node.test) and all(_only_defines(s) for s in node.body + node.orelse)
    if isinstance(node, ast.Try):
        blocks = node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
        return all(_only_defines(s) for s in blocks)
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Expr)):
        return _no_call(node)
    return False


def _no_call(node: ast.AST) -> bool:
    return not any(isinstance(n, (ast.Call, ast.Await)) for n in ast.walk(node))


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
