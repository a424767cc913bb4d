"""The modules of lifter import each other without a circle.

A circle (graph/export.py once imported cli.py, which imports the whole pipeline) makes the
layers one knot: a module of it works only when another was imported first, and a function-level
import hides it until that function runs. So every `import` statement of lifter/ counts, also
those inside functions; and every module (those the pipeline never loads too) must import in a
fresh interpreter, dependencies first.
"""
from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

import networkx as nx

from lifter.transform.manager import CHECK_ENV

ROOT = pathlib.Path(__file__).resolve().parent.parent / "lifter"


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(name: str, path: pathlib.Path, modules: dict[str, pathlib.Path]) -> set[str]:
    """The lifter modules `path` names in its import statements (a `from p import x` names the
    module p.x where there is one, else p). A package's __init__ that runs before its modules
    is not counted: it is not what the statement asks for."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return {m for m in found if m in modules and m != name}


def import_graph() -> nx.DiGraph:
    """An edge a -> b where module a imports module b, and a -> the package of b where b lies in
    another of lifter's packages: importing b first runs that package's __init__, which may import
    the rest of its package (analysis/__init__.py does), so a module that imports across packages
    depends on all of them (graph/ranges.py imported analysis/affine.py while an analysis module
    imported graph/ranges.py: a circle only an import of graph/ranges.py before analysis showed)."""
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for other in _imported(name, path, modules):
            graph.add_edge(name, other)
            package = ".".join(other.split(".")[:2])
            if package in modules and package != other and not (name + ".").startswith(package + "."):
                graph.add_edge(name, package)
    return graph


def test_the_import_graph_sees_imports():
    """The graph is built from the statements (a check that finds nothing proves nothing)."""
    graph = import_graph()
    assert graph.has_edge("lifter.cli", "lifter.files")
    assert graph.has_edge("lifter.graph.export", "lifter.files")  # a function-level import
    assert graph.has_edge("lifter.backend.cuda", "lifter.backend.cuda_data")
    assert graph.has_edge("lifter.transform.alias_test", "lifter.analysis")  # the package's __init__ runs first


def test_no_import_circle():
    cycles = list(nx.simple_cycles(import_graph()))
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c + c[:1]) for c in cycles)


def test_every_module_imports_in_dependency_order():
    """In a fresh interpreter, every module imports, each after the modules it imports (this also
    covers modules the pipeline never loads). `lifter.__main__` runs the command when imported, so
    it is left out."""
    order = [m for m in reversed(list(nx.topological_sort(import_graph()))) if m != "lifter.__main__"]
    code = "import importlib\nfor name in %r:\n    importlib.import_module(name)\n" % order
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          cwd=ROOT.parent)
    assert done.returncode == 0, done.stderr


def test_no_module_over_800_lines():
    """The project's limit: a module longer than this has more than one job (split it along its seams)."""
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 800}
    assert not long, long


# What lifting C to OpenMP never needs, so a `lift` process must not import it: every lift would pay
# for loading it. (networkx is needed: the dataflow graph is its MultiDiGraph; its import overlaps
# the frontend's compiler runs, driver.py.)
NOT_FOR_OPENMP = ("lifter.backend.cuda", "lifter.backend.mpi", "lifter.graph.sdfg", "lifter.graph.export",
                  "lifter.batch", "lifter.frontend.explain", "json")  # json: only `--report` writes it (cli.py)


def test_lifting_to_openmp_imports_no_other_backend():
    """`lift k.c -o out.c` (the OpenMP target), in a fresh interpreter, as a user runs it (without
    the tests' checking of every pass, whose validator uses networkx)."""
    code = ("import sys\nfrom lifter.cli import main\n"
            "try:\n    main(['corpus/suite/gemm.c', '-o', sys.argv[1]])\nexcept SystemExit as e:\n    assert not e.code\n"
            "print('\\n'.join(sys.modules))\n")
    out = ROOT.parent / "tests" / "gemm.lifted.c"
    try:
        env = {k: v for k, v in os.environ.items() if k != CHECK_ENV}
        done = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=600,
                              cwd=ROOT.parent, env=env)
        assert done.returncode == 0, done.stderr
        assert "#pragma omp" in out.read_text()
    finally:
        out.unlink(missing_ok=True)
    loaded = done.stdout.split()
    assert "lifter.backend.openmp" in loaded  # the modules are the ones a lift loads
    unwanted = [m for m in loaded if m.startswith(NOT_FOR_OPENMP)]
    assert not unwanted, unwanted


def test_the_command_line_leaves_the_pipeline_to_the_lift():
    """Importing the command (`lift` does first) loads neither the analysis, the transformations,
    the backends nor isl: a lift imports them while the frontend waits on the C compiler
    (driver.py), not before it starts it."""
    code = "import sys\nimport lifter.cli\nprint('\\n'.join(sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT.parent)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "lifter.driver" in loaded
    early = [m for m in loaded if m.startswith(("lifter.analysis", "lifter.transform", "lifter.backend", "islpy"))]
    assert not early, early


def test_no_backend_module_lexes_the_source():
    """Backends read the graph and the frontend's lexical layer of the user's file (`SourceFile.spans`,
    `SourceFile.cfile`, made once for the passes and the backends): none builds its own over the
    file, or walks the file's token list itself."""
    lexing = re.compile(r"\b(Spans|CFile)\(|\.tokens\b|\btoks\[")
    found = {path.name: m.group(0) for path in (ROOT / "backend").glob("*.py")
             if (m := lexing.search(path.read_text(encoding="utf-8")))}
    assert not found, found


def test_no_backend_module_reads_text_with_regular_expressions():
    """Backends read typed facts, not text: C made C++ before lifting is the frontend's
    (frontend/cxx_text.py, from the compiler's notes), a member path's variable name is made of its
    characters; the renaming of C++ keywords in the output is the lexical layer's too
    (frontend/cxx_names.py, run by the driver)."""
    users = set()
    for path in sorted((ROOT / "backend").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Import) and any(a.name == "re" for a in node.names) for node in ast.walk(tree)):
            users.add(path.name)
    assert users == set()


def test_host_effects_are_read_from_records_not_tokens():
    """The CUDA backend's questions about host code (analysis/host_effects.py) are answered from the
    typed records the host-code pass puts on the graphs: neither they nor any backend module read the
    file's tokens for them (only analysis/host_code.py, which makes the records, does)."""
    effects = ast.parse((ROOT / "analysis" / "host_effects.py").read_text(encoding="utf-8"))
    imported = {a.name for node in ast.walk(effects) if isinstance(node, ast.ImportFrom)
                and node.module.startswith("lifter.frontend") for a in node.names}
    assert imported <= {"LoopStatement"}, imported
    for path in sorted((ROOT / "backend").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not any(isinstance(node, ast.ImportFrom) and node.module == "lifter.analysis.host_code"
                       for node in ast.walk(tree)), path.name


# The frontend's readers of a piece of C text (frontend/spans.py), and `lexed` and `c_expr`, which
# lex one. The backends read the facts the graph's nodes carry (graph/nodes.py: trip_words, update, name_words,
# dim_words; their texts with their tokens, `Tasklet.lexed`, `MapScope.header_lexed`, ..., from which
# cuda_kernel_text.py composes a kernel) and the frontend's typed facts about the file
# (cxx_constructs.py) instead; the C the CUDA backend composes for the host carries its words
# (`CExpr`); the C++ keywords of the output are renamed by the driver (frontend/cxx_names.py).
WORD_READERS = {"word_tokens", "called_names", "replace_tokens", "replace_paths", "value_words",
                "compound_update", "without_comments", "parenthesized", "lexed", "c_expr"}


def test_backends_call_no_word_reader():
    """No backend module calls a word reader of the frontend (by name, through an import from
    frontend/spans.py), nor imports one it does not call."""
    found: dict[tuple[str, str], int] = {}
    for path in sorted((ROOT / "backend").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    and node.module == "lifter.frontend.spans" for a in node.names} & WORD_READERS
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported:
                found[(path.name, node.func.id)] = found.get((path.name, node.func.id), 0) + 1
        unused = imported - {name for (file, name) in found if file == path.name}
        assert not unused, f"{path.name} imports {sorted(unused)} without calling them"
    assert not found, found
