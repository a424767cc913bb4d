"""DaCe runs the exported SDFGs and computes what the C functions compute.

For each function below: lift the corpus file (-O2: tiled, unrolled, skewed), export the
function's SDFG, and let DaCe (the pinned version, an optional extra) read, validate, compile
and run it on random inputs; compile the same C function into a shared library, call it through
ctypes on the same inputs, and compare every array argument and global afterwards, and the
returned value with the returned expression over the locals the SDFG computes (not the other
locals: the caller never sees them). Something the SDFG writes must be among what is compared.
Skipped without DaCe or a C compiler.
"""
from __future__ import annotations

import copy
import ctypes
import functools
import math
import os
import re
import subprocess
from pathlib import Path

import pytest
from pycparser import c_ast, c_generator

from lifter import lift_file
from lifter.frontend import load
from lifter.frontend.preprocess import PreprocessOptions
from lifter.frontend.source import read_source
from lifter.graph.sdfg import DACE_VERSION, function_sdfgs
from tests.graph.test_sdfg import HANDED_OUT, NESTED_CALLS
from tests.harness import have_gcc

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
SIZE = 70  # every integer parameter: above one tile of 64, so main tiles and remainders both run
STEPS = 3  # time-step counts
# parameters of other values: jacobi_conv's tolerance, which the largest change of a sweep reaches after 32 of
# its at most 70 (SIZE) sweeps, so that both tests of its while loop matter (at SIZE, one sweep reaches it)
VALUES = {"kernel_jacobi_conv": {"tol": 10.0}}
# (file, function), one or two of each kind, which LIFT_DACE_QUICK=1 runs alone for a quick local check (CI runs
# ALL below). Measured with -n 1 on a loaded 2-core machine (user + sys CPU): these (36 then) and the small programs
# below 48 s; ALL 115 s. Kinds: matrix products (tiled and unrolled), stencils with time loops (skewed wavefronts), reductions and an
# array reduction, a triangular solve and factorization, a stencil reading a global array, a sparse product
# (pointer parameters of inferred extents), conditional statements, containers private to a parallel loop, and
# those named below.
QUICK = [
    ("linalg/gemm.c", "kernel_gemm"),
    ("linalg/two_mm.c", "kernel_2mm"),
    ("linalg/gemv.c", "kernel_gemv"),
    ("stencils/jacobi2d.c", "kernel_jacobi2d"),
    ("stencils/seidel2d.c", "kernel_seidel2d"),
    ("stencils/heat3d.c", "kernel_heat3d"),
    ("reductions/dot.c", "kernel_dot"),
    ("reductions/sum2d.c", "kernel_rowsum"),
    ("reductions/sum2d.c", "kernel_colsum"),
    ("linalg/trisolv.c", "kernel_trisolv"),
    ("suite/cholesky.c", "kernel_cholesky"),
    ("stencils/conv2d.c", "kernel_conv2d"),
    ("sparse/spmv_csr.c", "kernel_spmv"),
    ("dynprog/floyd_warshall.c", "kernel_floyd_warshall"),  # a statement under an if inside the maps
    ("linalg/doitgen.c", "kernel_doitgen"),  # an array declared in the parallel loop's body
    ("suite/ludcmp.c", "kernel_ludcmp"),  # an OpenMP-private scalar, a decreasing loop
    ("dynprog/nussinov.c", "kernel_nussinov"),  # a call of the file's function pairs() (the global code)
    ("reductions/minmax.c", "kernel_argmin"),  # an if around statements that write what it tests
    ("reductions/histogram.c", "kernel_histogram"),  # hist[key[i]]++: a data-dependent element, atomically
    ("stencils/jacobi_conv.c", "kernel_jacobi_conv"),  # a while loop around regions, scalar statements between
    ("miniapps/heat2d_app.c", "kernel_sweep"),  # a pointer to a struct of sizes and buffers (g->nx, g->u)
    ("miniapps/particles.c", "kernel_forces"),  # an array of structs (p[i].x: an array per field)
    ("miniapps/kmeans.c", "kernel_assign"),  # a struct's flat buffers seen in two dimensions, a helper (sq)
    ("miniapps/kmeans.c", "kernel_update"),  # one buffer indexed flat and delinearized in different regions
    ("miniapps/heat2d_app.c", "kernel_maxdiff"),  # a max reduction into a returned local
    ("miniapps/heat2d_app.c", "mean_temperature"),  # a returned expression over a computed sum
    ("reductions/norm2.c", "kernel_norms"),  # several reductions in one loop
    ("reductions/minmax.c", "kernel_minmax"),  # min and max reductions
    ("datamining/correlation.c", "kernel_correlation"),  # reductions, sqrt, a conditional statement
    ("stencils/fdtd2d.c", "kernel_fdtd2d"),  # several stencils in a time loop
    ("stencils/blur_pipeline.c", "pipeline"),  # a pipeline of stencils through a temporary
    ("suite/adi.c", "kernel_adi"),  # sweeps forwards and backwards in a time loop
    ("suite/durbin.c", "kernel_durbin"),  # scalar recurrences between inner loops
    ("suite/gramschmidt.c", "kernel_gramschmidt"),  # a norm per column, divided by
    ("suite/symm.c", "kernel_symm"),  # a triangular matrix product with a scalar temporary
    ("suite/deriche.c", "kernel_deriche"),  # recursive filters (sequential maps), many scalars
    ("miniapps/particles.c", "simulate"),  # a loop of calls of the file's functions: nested SDFGs
    ("miniapps/kmeans.c", "kmeans_init"),  # buffers it allocates and hands out: arguments the caller allocates
    ("sparse/spmv_csr.c", "csr_build"),  # the same, between its loops; an inner loop kept as C text (opaque)
]
# Every corpus function with a lifted region but the drivers (main, init_*, dump*, checksum: they print or
# fill from formulas, nothing to compare on random inputs): what CI runs.
ALL = [
    ("datamining/correlation.c", "kernel_correlation"),
    ("datamining/covariance.c", "kernel_covariance"),
    ("dynprog/floyd_warshall.c", "kernel_floyd_warshall"),
    ("dynprog/nussinov.c", "kernel_nussinov"),
    ("linalg/atax.c", "kernel_atax"),
    ("linalg/bicg.c", "kernel_bicg"),
    ("linalg/cholesky.c", "kernel_cholesky"),
    ("linalg/doitgen.c", "kernel_doitgen"),
    ("linalg/gemm.c", "kernel_gemm"),
    ("linalg/gemv.c", "kernel_gemv"),
    ("linalg/lu.c", "kernel_lu"),
    ("linalg/mvt.c", "kernel_mvt"),
    ("linalg/syrk.c", "kernel_syrk"),
    ("linalg/trisolv.c", "kernel_trisolv"),
    ("linalg/two_mm.c", "kernel_2mm"),
    ("miniapps/cg_dense.c", "kernel_dot"),
    ("miniapps/cg_dense.c", "kernel_axpy"),
    ("miniapps/cg_dense.c", "kernel_xpay"),
    ("miniapps/cg_dense.c", "kernel_matvec"),
    ("miniapps/cg_dense.c", "cg_solve"),
    ("miniapps/heat2d_app.c", "set_boundary"),
    ("miniapps/heat2d_app.c", "kernel_sweep"),
    ("miniapps/heat2d_app.c", "kernel_maxdiff"),
    ("miniapps/heat2d_app.c", "mean_temperature"),
    ("miniapps/kmeans.c", "kernel_assign"),
    ("miniapps/kmeans.c", "kernel_update"),
    ("miniapps/kmeans.c", "kmeans_init"),
    ("miniapps/particles.c", "kernel_forces"),
    ("miniapps/particles.c", "kernel_integrate"),
    ("miniapps/particles.c", "kernel_energy"),
    ("miniapps/particles.c", "simulate"),
    ("reductions/dot.c", "kernel_dot"),
    ("reductions/dot.c", "kernel_idot"),
    ("reductions/histogram.c", "kernel_histogram"),
    ("reductions/histogram.c", "kernel_prefix"),
    ("reductions/histogram.c", "kernel_normalize"),
    ("reductions/minmax.c", "kernel_minmax"),
    ("reductions/minmax.c", "kernel_argmin"),
    ("reductions/norm2.c", "kernel_norm2"),
    ("reductions/norm2.c", "kernel_norminf"),
    ("reductions/norm2.c", "kernel_norms"),
    ("reductions/sum2d.c", "kernel_rowsum"),
    ("reductions/sum2d.c", "kernel_colsum"),
    ("sparse/spmv_csr.c", "csr_build"),
    ("sparse/spmv_csr.c", "kernel_spmv"),
    ("stencils/blur_pipeline.c", "pipeline"),
    ("stencils/conv2d.c", "kernel_conv2d"),
    ("stencils/conv2d.c", "copy_border"),
    ("stencils/fdtd2d.c", "kernel_fdtd2d"),
    ("stencils/heat3d.c", "kernel_heat3d"),
    ("stencils/jacobi1d.c", "kernel_jacobi1d"),
    ("stencils/jacobi2d.c", "kernel_jacobi2d"),
    ("stencils/jacobi_conv.c", "kernel_jacobi_conv"),
    ("stencils/row_filter.c", "kernel_row_filter"),
    ("stencils/seidel2d.c", "kernel_seidel2d"),
    ("stencils/smooth1d.c", "kernel_smooth1d"),
    ("suite/2mm.c", "kernel_2mm"),
    ("suite/3mm.c", "kernel_3mm"),
    ("suite/adi.c", "kernel_adi"),
    ("suite/atax.c", "kernel_atax"),
    ("suite/bicg.c", "kernel_bicg"),
    ("suite/cholesky.c", "kernel_cholesky"),
    ("suite/correlation.c", "kernel_correlation"),
    ("suite/covariance.c", "kernel_covariance"),
    ("suite/deriche.c", "kernel_deriche"),
    ("suite/doitgen.c", "kernel_doitgen"),
    ("suite/durbin.c", "kernel_durbin"),
    ("suite/fdtd_2d.c", "kernel_fdtd_2d"),
    ("suite/floyd_warshall.c", "kernel_floyd_warshall"),
    ("suite/gemm.c", "kernel_gemm"),
    ("suite/gemver.c", "kernel_gemver"),
    ("suite/gesummv.c", "kernel_gesummv"),
    ("suite/gramschmidt.c", "kernel_gramschmidt"),
    ("suite/heat_3d.c", "kernel_heat_3d"),
    ("suite/jacobi_1d.c", "kernel_jacobi_1d"),
    ("suite/jacobi_2d.c", "kernel_jacobi_2d"),
    ("suite/lu.c", "kernel_lu"),
    ("suite/ludcmp.c", "kernel_ludcmp"),
    ("suite/mvt.c", "kernel_mvt"),
    ("suite/nussinov.c", "kernel_nussinov"),
    ("suite/seidel_2d.c", "kernel_seidel_2d"),
    ("suite/symm.c", "kernel_symm"),
    ("suite/syr2k.c", "kernel_syr2k"),
    ("suite/syrk.c", "kernel_syrk"),
    ("suite/trisolv.c", "kernel_trisolv"),
    ("suite/trmm.c", "kernel_trmm"),
]
# The statements before a function's first loop run on the test's side (`_prelude`): the locals they set are
# SDFG arguments, which the caller computes as the C does. So do the statements after its last loop
# (`_epilogue`, `*lo_out = lo;`), over what the SDFG computed: the results they write are compared too. The
# buffers a function allocates and hands out (km->x = malloc(...)) are SDFG arguments the caller allocates
# (graph/sdfg_caller.py): the test's buffers, compared with those C allocated (`_ALLOCATIONS`); the assignments
# between its loops that the export notes the caller runs after the SDFG (A->nnz = A->rowptr[n]) are part of the
# epilogue, and a struct's numbers are compared with C's.
CASES = QUICK if os.environ.get("LIFT_DACE_QUICK") else ALL


def _dace():
    dace = pytest.importorskip("dace")
    if dace.__version__ != DACE_VERSION:
        pytest.skip(f"the export is checked against DaCe {DACE_VERSION}, found {dace.__version__}")
    if not have_gcc():
        pytest.skip("no C compiler")
    return dace


class _Returns(c_ast.NodeVisitor):
    def __init__(self):
        self.texts = set()

    def visit_Return(self, node):
        if node.expr is not None:
            self.texts.add(c_generator.CGenerator().visit(node.expr))


def _epilogue(body: c_ast.Compound, lines: set[int]) -> list[c_ast.Node]:
    """The assignments after the function's last loop (results it writes from the locals the regions
    computed: `*lo_out = lo;`), after those between its loops on the given lines (the export's notes: the caller
    runs them after the SDFG, `A->nnz = A->rowptr[n];`)."""
    items = body.block_items or []
    loops = [k for k, item in enumerate(items) if isinstance(item, (c_ast.For, c_ast.While, c_ast.DoWhile))]
    between = [item for item in items if item.coord is not None and item.coord.line in lines]
    return between + ([item for item in items[loops[-1] + 1:] if isinstance(item, c_ast.Assignment)] if loops else [])


def _allocation_check(item: c_ast.Node, body: c_ast.Compound) -> bool:
    """Whether a statement of the function's top level is an `if` testing only the pointers the function sets
    to fresh allocations at its top level (`if (!km->x || !km->cent) return -1;`): the caller's part where the
    SDFG takes those buffers (graph/sdfg_caller.py), which returns C's failure value only where malloc fails."""
    generator = c_generator.CGenerator()
    allocated = {generator.visit(i.lvalue) for i in body.block_items or [] if isinstance(i, c_ast.Assignment)
                 and isinstance(i.rvalue, (c_ast.FuncCall, c_ast.Cast)) and "alloc(" in generator.visit(i.rvalue)}
    if not isinstance(item, c_ast.If) or item.iffalse is not None:
        return False
    tested, todo = [], [item.cond]
    while todo:
        e = todo.pop()
        if isinstance(e, c_ast.BinaryOp) and e.op == "||":
            todo += [e.left, e.right]
        elif isinstance(e, c_ast.UnaryOp) and e.op == "!":
            tested.append(generator.visit(e.expr))
        else:
            return False
    return set(tested) <= allocated


def _prelude(body: c_ast.Compound) -> list[c_ast.Node]:
    """The statements before the function's first loop: declarations and assignments (locals the
    lifted regions read, which the SDFG takes as arguments: its caller computes them, as C does)."""
    out = []
    for item in body.block_items or []:
        if isinstance(item, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            break
        if isinstance(item, (c_ast.Decl, c_ast.Assignment)):
            out.append(item)
    return out


_MATH = {"exp": math.exp, "sqrt": math.sqrt, "fabs": abs, "pow": math.pow, "log": math.log}


def _evaluate(e: c_ast.Node, env: dict):
    """A C expression of a prelude in Python (C's truncating integer division); KeyError on anything else."""
    if isinstance(e, c_ast.Constant):
        text = e.value.rstrip("uUlLfF")
        return float(text) if e.type in ("double", "float") else int(text, 0)
    if isinstance(e, c_ast.ID):
        return env[e.name]
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        return -_evaluate(e.expr, env) if e.op == "-" else _evaluate(e.expr, env)
    if isinstance(e, c_ast.Cast):
        value = _evaluate(e.expr, env)
        return float(value) if e.to_type.type.type.names[-1] in ("double", "float") else int(value)
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*", "/"):
        a, b = _evaluate(e.left, env), _evaluate(e.right, env)
        if e.op == "/":
            return int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b
        return {"+": a + b, "-": a - b, "*": a * b}[e.op]
    if isinstance(e, c_ast.FuncCall):
        return _MATH[e.name.name](*(_evaluate(x, env) for x in e.args.exprs))
    if isinstance(e, (c_ast.ArrayRef, c_ast.UnaryOp)) and (e.op == "*" if isinstance(e, c_ast.UnaryOp) else True):
        array, index = _element(e, env)
        return array[index]
    if isinstance(e, c_ast.StructRef) and e.type == "->" and isinstance(e.name, c_ast.ID):  # g->nx: a dict's
        return env[e.name.name][e.field.name]
    if isinstance(e, c_ast.Assignment) and e.op == "=":  # a1 = a5 = k
        value = _evaluate(e.rvalue, env)
        if isinstance(e.lvalue, c_ast.ID):
            env[e.lvalue.name] = value
        elif isinstance(e.lvalue, c_ast.StructRef):
            env[e.lvalue.name.name][e.lvalue.field.name] = value
        else:
            array, index = _element(e.lvalue, env)
            array[index] = value
        return value
    raise KeyError(type(e).__name__)


def _element(e: c_ast.Node, env: dict):
    """An array element as (NumPy array, index): `*out` (its first), `r[k]` (a flat index into the array),
    `c[i][j]` (one index per dimension), `A->rowptr[0]` (of the SDFG's array of the field, `A__rowptr`: a
    prelude's write into a buffer the caller allocates for it)."""
    if isinstance(e, c_ast.UnaryOp) and isinstance(e.expr, c_ast.ID):
        return env[e.expr.name].reshape(-1), 0
    subscripts = []
    while isinstance(e, c_ast.ArrayRef):
        subscripts.insert(0, _evaluate(e.subscript, env))
        e = e.name
    array = env[f"{e.name.name}__{e.field.name}"] if isinstance(e, c_ast.StructRef) and e.type == "->" \
        and isinstance(e.name, c_ast.ID) else env[e.name]
    return (array.reshape(-1), subscripts[0]) if len(subscripts) == 1 else (array, tuple(subscripts))


def _records(unit_ast: c_ast.FileAST) -> dict[str, list[tuple[str, str]]]:
    """The typedef'd structs of plain numbers: name -> its fields (name, type) in order."""
    out = {}
    for node in unit_ast.ext:
        if isinstance(node, c_ast.Typedef) and isinstance(node.type.type, c_ast.Struct) and node.type.type.decls:
            fields = [(d.name, " ".join(d.type.type.names)) for d in node.type.type.decls
                      if isinstance(d.type, c_ast.TypeDecl) and isinstance(d.type.type, c_ast.IdentifierType)]
            if len(fields) == len(node.type.type.decls):
                out[node.name] = fields
    return out


def _struct_fields(unit_ast: c_ast.FileAST) -> dict[str, list[tuple[str, str, bool]]]:
    """The typedef'd structs of numbers and pointers to numbers: name -> its fields (name, type, a pointer?)."""
    out = {}
    for node in unit_ast.ext:
        if isinstance(node, c_ast.Typedef) and isinstance(node.type.type, c_ast.Struct) and node.type.type.decls:
            fields = []
            for d in node.type.type.decls:
                t, pointer = d.type, isinstance(d.type, c_ast.PtrDecl)
                t = t.type if pointer else t
                if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                        and " ".join(t.type.names) in _CTYPES:
                    fields.append((d.name, " ".join(t.type.names), pointer))
            if len(fields) == len(node.type.type.decls):
                out[node.name] = fields
    return out


def _signature(path: Path, function: str, after: set[int]) -> tuple[list[tuple[str, bool, str]], str, str | None,
                                                                    list, list, dict, dict]:
    """The C function's parameters (name, is an array or pointer, element type), return type, the
    expression it returns as C text (None unless every `return` returns the same one, but those of the caller's
    checks of the buffers it allocates, `_allocation_check`), its prelude and epilogue (with the statements on
    the lines `after`), the structs of plain numbers of the file and those of numbers and pointers
    (_struct_fields)."""
    unit = load(read_source(str(path)), PreprocessOptions())
    (fundef,) = [n for n in unit.ast.ext if isinstance(n, c_ast.FuncDef) and n.decl.name == function]
    params = []
    for p in fundef.decl.type.args.params if fundef.decl.type.args else []:
        if p.name is None:  # f(void)
            continue
        t, array = p.type, False
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            t, array = t.type, True
        params.append((p.name, array, " ".join(t.type.names)))
    result = fundef.decl.type.type.type
    returns = _Returns()
    for item in fundef.body.block_items or []:
        if not _allocation_check(item, fundef.body):
            returns.visit(item)
    returned = next(iter(returns.texts)) if len(returns.texts) == 1 else None
    kind = " ".join(result.names) if isinstance(result, c_ast.IdentifierType) else "void"
    return params, kind, returned, _prelude(fundef.body), _epilogue(fundef.body, after), _records(unit.ast), \
        _struct_fields(unit.ast)


_CTYPES = {"double": ctypes.c_double, "float": ctypes.c_float, "int": ctypes.c_int, "long": ctypes.c_long,
           "unsigned": ctypes.c_uint, "unsigned int": ctypes.c_uint, "void": None}


@functools.lru_cache(maxsize=None)
def _shared_library(path: Path, folder: Path) -> ctypes.CDLL:
    """The C file as a shared library, compiled once for all its functions (their tests read its globals
    before each call, so one function's run leaves the next one's inputs consistent on both sides)."""
    lib = folder / f"c{len(list(folder.glob('c*.so')))}.so"
    recorder = folder / "allocations.c"
    recorder.write_text(_ALLOCATIONS)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-Dstatic=", "-Dmain=lift_unused_main", "-Dmalloc=lift_malloc",
                    "-Dcalloc=lift_calloc", "-o", str(lib), str(path), str(recorder), "-lm"], check=True,
                   capture_output=True, timeout=120)
    return ctypes.CDLL(str(lib))


# C's malloc and calloc, recording the size of each buffer (the last 4096): a buffer C allocates and hands out is
# compared with the SDFG's over as many elements as C allocated (the SDFG's may be larger: a size symbol's)
_ALLOCATIONS = """#include <stdlib.h>
#undef malloc
#undef calloc
static void *pointers[4096];
static size_t sizes[4096];
static unsigned count;
static void *record(void *p, size_t size) {
    pointers[count % 4096] = p;
    sizes[count++ % 4096] = size;
    return p;
}
void *lift_malloc(size_t size) { return record(malloc(size), size); }
void *lift_calloc(size_t n, size_t size) { return record(calloc(n, size), n * size); }
size_t lift_allocated(void *p) {
    for (unsigned k = count; k-- > 0 && count - k <= 4096;)
        if (pointers[k % 4096] == p)
            return sizes[k % 4096];
    return 0;
}
"""


def _global(lib: ctypes.CDLL, name: str, like):
    """The C global `name` of the library as a NumPy array shaped like `like` (a view), or None."""
    import numpy as np

    try:
        buffer = (ctypes.c_char * like.nbytes).in_dll(lib, name)
    except ValueError:  # no such symbol: a local of the function
        return None
    return np.frombuffer(buffer, dtype=like.dtype).reshape(like.shape)


@pytest.fixture(scope="session")
def build(tmp_path_factory) -> Path:
    """The folder every SDFG of this test process is built in (`_compile`): one per session, which xdist's
    workers each have, so a worker that runs other modules in between keeps its configured build."""
    return tmp_path_factory.mktemp("dace")


# DaCe's C++ build, made cheaper: without -O3, -march=native and -ffast-math (C's rounding, and the quickest
# compile; the programs run on 70x70 inputs), no CMake build type's flags (RelWithDebInfo adds -O2 -g).
_CXX = "-std=c++14 -fPIC -O0 -Wno-unused-parameter -Wno-unused-label"


def _compile(dace, sdfg, folder: Path):
    """DaCe's compiled program of the SDFG, built in `folder` under one name for every SDFG: DaCe runs CMake's
    configure step only when its command line changes (the name is part of it), and make rebuilds only the
    program's source, so a test process configures and builds DaCe's runtime stub once."""
    sdfg.name = "lifted"
    sdfg.build_folder = str(folder)
    with dace.config.set_temporary("compiler", "cpu", "args", value=_CXX), \
            dace.config.set_temporary("compiler", "build_type", value="None"):
        return sdfg.compile()


@functools.lru_cache(maxsize=None)
def _lifted(path: str) -> dict:
    """The SDFGs of a corpus file's functions (lifted once for all its functions)."""
    return function_sdfgs(lift_file(path).graphs)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[1]}")
def test_dace_runs_the_function_like_c(case, tmp_path, monkeypatch, build):
    _runs_like_c(CORPUS / case[0], case[1], tmp_path, monkeypatch, build)


# Small programs for what the corpus shows only among other things: a data-dependent element reduced into
# (count[g] += 2: DaCe's atomic update) and a flat index into a buffer seen in two dimensions elsewhere
# (sums[g * 8 + d], sums[t] = 0), and an if around an inner map inside a parallel one (if (count[c] > 0));
# calls of the file's functions as nested SDFGs, one inside an expression, in a while loop testing a struct's
# fields (`iterate`), one of a function with a time loop (`relax`); tests/graph/test_sdfg.py's NESTED_CALLS; a
# chained assignment kept as C text over connectors (`chained`: its tasklet once lacked the `;` C++ needs); buffers
# allocated and handed out before and between the loops, a calloc, an inner loop bound by a call (`set_init`); a
# local computed between two loops from what the first computed (`scaled`: the SDFG once took it as an argument and
# never computed it, issue 19); a local one loop computes and the next reads (`handed_on`: the reader's was an
# argument of its own, `s_R1`); array elements set between two loops (`elements`: a state each, the arrays bound
# whole, a two-dimensional one indexed through its strides).
SMALL = {"groups": """void groups(int n, int k, const int *group, const double *x, int *count, double *sums,
                                 double *mean) {
    for (int t = 0; t < k * 8; t++)
        sums[t] = 0.0;
    for (int c = 0; c < k; c++)
        count[c] = 0;
    for (int i = 0; i < n; i++) {
        int g = group[i];
        count[g] += 2;
        for (int d = 0; d < 8; d++)
            sums[g * 8 + d] += x[i * 8 + d];
    }
    for (int c = 0; c < k; c++)
        if (count[c] > 0)
            for (int d = 0; d < 8; d++)
                mean[c * 8 + d] = sums[c * 8 + d] / count[c];
}
""", "iterate": NESTED_CALLS, "relax": NESTED_CALLS,
         "chained": """void chained(int n, double *restrict a, double *restrict b, const double *c) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] = 2.0 * c[i];
}
""", "set_init": HANDED_OUT, "scaled": """void scaled(int n, double *a, double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    double t = s * 2.0;
    for (int i = 0; i < n; i++)
        b[i] = a[i] * t;
}
""", "halved": """void halved(int n, const double *a, double *b)
{
    int m = n / 2; /* the loop's last index is isl's floord(n, 2) - 1: a symbol of n, not a free one */
    for (int i = 0; i < m; i++)
        b[i] = a[2 * i] + a[2 * i + 1];
}
""", "handed_on": """void handed_on(int n, double *a, double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    for (int i = 0; i < n; i++)
        b[i] = a[i] * s;
}
""", "elements": """void elements(int n, double a[n][n], double *b, double *c)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i][i];
    b[0] = s * 2.0;
    b[n - 2] += a[n - 1][0] + b[0];
    c[n - 1]++;
    for (int i = 1; i < n; i++)
        c[i] = a[i][1] * b[i - 1] + s;
}
"""}


@pytest.mark.parametrize("function", sorted(SMALL))
def test_dace_runs_small_programs_like_c(function, tmp_path, monkeypatch, build):
    path = tmp_path / f"{function}.c"
    path.write_text(SMALL[function])
    _runs_like_c(path, function, tmp_path, monkeypatch, build)


AROUND_INNER_MAP = """void around(int n, double a[n][n], double x[n], double t[n], double y[n], double z[n]) {
    for (int i = 0; i < n; i++) {
        t[i] = x[i] * 2.0;
        for (int j = 0; j < n; j++)
            y[i] = y[i] + a[i][j] * t[i];
        z[i] = y[i] + t[i];
    }
}
"""


def test_dace_orders_statements_around_an_inner_map(tmp_path, monkeypatch, build):
    """In one iteration of the parallel map over i, the inner map over j reads the t[i] that the first
    statement writes and writes the y[i] that the last one reads: in DaCe's graph a path leads from the
    first statement into the inner map and out of its exit to the last (without one, only the order DaCe's
    code generator happens to visit them in keeps C's), and DaCe (which takes an empty edge out of a map
    exit only into a data node) runs it like C."""
    dace = _dace()
    import networkx as nx

    path = tmp_path / "around.c"
    path.write_text(AROUND_INNER_MAP)
    sdfg = dace.SDFG.from_json(function_sdfgs(lift_file(str(path)).graphs)["around"])
    (state,) = sdfg.all_states()
    scopes = state.scope_dict()
    inner = [n for n in state.nodes() if isinstance(n, dace.nodes.MapEntry) and scopes[n] is not None]
    assert len(inner) == 1, inner
    outer = scopes[inner[0]]
    first, last = sorted((n for n in state.nodes() if isinstance(n, dace.nodes.Tasklet) and scopes[n] is outer),
                         key=lambda n: n.label)  # R0_S0, R0_S2: in the statements' order
    assert nx.has_path(state.nx, first, inner[0])
    assert nx.has_path(state.nx, state.exit_node(inner[0]), last)
    _runs_like_c(path, "around", tmp_path, monkeypatch, build)


def _runs_like_c(path: Path, function: str, tmp_path: Path, monkeypatch, build: Path) -> None:
    """DaCe runs the SDFG of the C file's function on random inputs, and the results equal C's."""
    dace = _dace()
    import numpy as np

    monkeypatch.chdir(tmp_path)
    case = (str(path), function)
    exported = copy.deepcopy(_lifted(str(path))[case[1]])
    sdfg = dace.SDFG.from_json(exported)
    sdfg.validate()
    code = exported["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
    after = {int(line) for line in re.findall(r"^// lift: after the SDFG, its caller runs line (\d+):", code, re.M)}
    params, returns, returned, prelude, epilogue, records, struct_fields = _signature(path, case[1], after)
    values = {name: (STEPS if "step" in name else SIZE) for name, array, _ in params if not array}
    values |= VALUES.get(function, {})
    # a pointer parameter's extent the export could not infer is a symbol the caller passes: a buffer of SIZE^2
    values |= {str(s): SIZE * SIZE for s in sdfg.free_symbols if re.search(r"_size\d+$", str(s))}
    lib = _shared_library(path, build)
    program = _compile(dace, sdfg, build)  # before C runs: an SDFG DaCe refuses to compile must not cost a C call
    rng = np.random.default_rng(0)
    # a pointer to one struct of sizes and buffers (grid_t *g): the SDFG reads its number fields as symbols or
    # scalars named g__nx, its buffers as arrays g__u or through locals the prelude points at them (a = g->u);
    # the test holds the struct as a dict (the prelude's g->nx), C gets one of the same numbers pointing at
    # copies of the buffers, read back after the call through the struct's pointers
    held = {}
    for name, array, element in params:
        if array and element in struct_fields and not any(k.startswith(f"{name}_") and not k.startswith(
                f"{name}__") for k in sdfg.arrays):
            held[name] = {}
            for f, t, pointer in struct_fields[element]:
                dtype = np.dtype(_CTYPES[t])
                if pointer:
                    held[name][f] = (rng.integers(0, 5, SIZE ** 3) if dtype.kind in "iu"
                                     else rng.random(SIZE ** 3)).astype(dtype)
                else:
                    held[name][f] = SIZE if dtype.kind in "iu" else float(rng.random())
                    values[f"{name}__{f}"] = held[name][f]
    held_c = {name: {f: v.copy() if isinstance(v, np.ndarray) else v for f, v in fields.items()}
              for name, fields in held.items()}
    early = {**values, **{name: dict(fields) for name, fields in held.items()}}
    for statement in prelude:  # the sizes it reads from a held struct (npts = km->npts), for the shapes
        try:
            if isinstance(statement, c_ast.Decl) and statement.init is not None:
                early[statement.name] = _evaluate(statement.init, early)
        except (KeyError, AttributeError, TypeError):
            continue
    values |= {s: early[s] for s in sdfg.free_symbols if isinstance(early.get(s), int) and s not in values}

    def view(buffer, shape):  # the SDFG's array of a held buffer's first elements (DaCe takes no NumPy view)
        size = int(np.prod(shape))
        assert size <= buffer.size, (size, buffer.size)
        return buffer[:size].reshape(shape).copy()

    inputs, globals_, members = {}, {}, {}
    for name, desc in sdfg.arrays.items():
        if desc.transient:
            continue
        shape = [int(dace.symbolic.evaluate(s, values)) for s in desc.shape]
        dtype = desc.dtype.as_numpy_dtype()
        member = next(((p, f) for p in held for f in held[p] if name == f"{p}__{f}"), None)
        if member is not None:  # a struct's field: its buffer, or its number
            value = held[member[0]][member[1]]
            scalar = isinstance(desc, dace.data.Scalar)
            inputs[name] = view(value, shape) if isinstance(value, np.ndarray) else \
                dtype.type(value) if scalar else np.full(shape, value, dtype)
            members[name] = member
            continue
        inputs[name] = (rng.integers(0, 5, shape) if dtype.kind in "iu" else rng.random(shape)).astype(dtype)
        if dtype.kind == "f" and len(shape) == 2 and shape[0] == shape[1]:
            # diagonally dominant: factorizations without pivoting stay stable, so a different (parallel)
            # order of the same sums differs from C's only by rounding
            inputs[name] += SIZE * np.eye(shape[0], dtype=dtype)
        if not any(p[0] == name for p in params):  # a global the function uses (its C value), or a result
            globals_[name] = _global(lib, name, inputs[name])
            inputs[name] = np.zeros(shape, dtype) if globals_[name] is None else globals_[name].copy()
    for name, array, _ in params:
        if not array and name in sdfg.arrays:
            inputs[name] = sdfg.arrays[name].dtype.as_numpy_dtype().type(values[name])
    # an array of structs (p[i].x): the SDFG has one array per field (p_x), C the records (NumPy's aligned
    # record dtype has C's layout)
    structs, fields = {}, {}
    for name, array, element in params:
        mine = [(f, t) for f, t in records.get(element, []) if f"{name}_{f}" in inputs] if array else []
        if mine:
            length = max(inputs[f"{name}_{f}"].size for f, _ in mine)
            dtype = np.dtype([(f, np.dtype(_CTYPES[t])) for f, t in records[element]], align=True)
            structs[name] = np.zeros(length, dtype)
            for f, t in mine:
                # the SDFG's array of the field holds C's type (a field exported as int8 once computed
                # kernel_forces in bytes); the inputs are drawn for the SDFG's type, so say it before comparing
                field = inputs[f"{name}_{f}"]
                assert field.dtype == np.dtype(_CTYPES[t]), f"{name}[i].{f} is {t} in C, {field.dtype} in the SDFG"
                # random like the arrays (the loop above took p_x, no parameter's name, for a result: zeros, on
                # which bytes and doubles computed the same)
                field[...] = rng.integers(0, 5, field.shape) if field.dtype.kind in "iu" else rng.random(field.shape)
                structs[name][f] = field.reshape(-1)[:length]
                fields[f"{name}_{f}"] = (name, f)
                globals_.pop(f"{name}_{f}")
    expected = {name: a.copy() for name, a in inputs.items()}
    function = getattr(lib, case[1])
    function.restype = _CTYPES[returns]
    # an array the lifted regions do not touch: a buffer all the same (an epilogue may write it), one each side
    spare = {name: np.zeros(SIZE * SIZE, np.dtype(_CTYPES.get(element) or ctypes.c_double))
             for name, array, element in params if array and name not in structs | held and name not in expected}
    spare_c = {name: a.copy() for name, a in spare.items()}
    args, c_structs = [], {}
    for name, array, element in params:
        if name in held:
            layout = [(f, ctypes.c_void_p if pointer else _CTYPES[t]) for f, t, pointer in struct_fields[element]]
            record = type(f"_{element}", (ctypes.Structure,), {"_fields_": layout})
            c_structs[name] = record(**{f: v.ctypes.data if isinstance(v, np.ndarray) else v
                                        for f, v in held_c[name].items()})
            args.append(ctypes.cast(ctypes.pointer(c_structs[name]), ctypes.c_void_p))
        elif array:
            buffer = structs.get(name, expected.get(name, spare_c.get(name)))
            args.append(buffer.ctypes.data_as(ctypes.c_void_p))
        else:
            args.append(_CTYPES[element](values[name]))
    result = function(*args)
    for name, c_global in globals_.items():
        if c_global is not None:
            expected[name] = c_global.copy()
    for name, (struct, f) in fields.items():
        expected[name] = structs[struct][f].copy()
    env = {**values, **inputs, **held}  # the prelude, on the SDFG's side: the caller's part
    for statement in prelude:  # one it cannot evaluate (a call to malloc) sets nothing the SDFG reads
        try:
            if isinstance(statement, c_ast.Decl) and statement.init is not None:
                env[statement.name] = _evaluate(statement.init, env)
            elif isinstance(statement, c_ast.Assignment):
                _evaluate(statement, env)
        except (KeyError, AttributeError, TypeError):
            continue
    for name, c_global in globals_.items():
        if c_global is None and name in env:  # a local the prelude sets
            dtype = inputs[name].dtype
            scalar = isinstance(sdfg.arrays[name], dace.data.Scalar)
            member = next(((p, f) for p in held for f, v in held[p].items() if v is env[name]), None)
            if member is not None:  # a local pointing at a held struct's buffer (a = g->u)
                inputs[name] = view(env[name], inputs[name].shape)
                members[name] = member
            elif env[name] is not inputs[name]:
                inputs[name] = dtype.type(env[name]) if scalar else np.full(inputs[name].shape, env[name], dtype)
    values |= {s: env[s] for s in sdfg.free_symbols if s in env and s not in values}
    symbols = {s: values[s] for s in sdfg.free_symbols if s in values}
    program(**inputs, **symbols)
    compared = []
    # the epilogue over the SDFG's results (its locals as scalars), writing into the arrays compared below
    env |= {name: a.reshape(-1)[0] if a.size == 1 and globals_.get(name, 0) is None else a
            for name, a in inputs.items()} | spare
    for statement in epilogue:
        try:
            _evaluate(statement, env)
        except (KeyError, AttributeError, TypeError):
            continue
        compared += re.findall(r"[A-Za-z_]\w*", c_generator.CGenerator().visit(statement))
    if result is not None:  # the returned expression (plain C arithmetic: Python's) over the SDFG's results
        names = {name: a.reshape(-1)[0] for name, a in inputs.items() if a.size == 1} | values
        got = eval(returned.replace("->", "__"), {"sqrt": np.sqrt, "fabs": np.abs}, names)  # g->nx: g__nx
        np.testing.assert_allclose(got, result, rtol=1e-10, err_msg=returned)
        compared += re.findall(r"[A-Za-z_]\w*", returned)
    for name, (struct, f) in members.items():  # what C's struct points at after the call, over the SDFG's array
        if isinstance(inputs[name], np.ndarray):
            element = ctypes.POINTER(np.ctypeslib.as_ctypes_type(inputs[name].dtype))
            size = inputs[name].size
            if getattr(c_structs[struct], f) != held_c[struct][f].ctypes.data:  # a buffer C allocated, handed out
                lib.lift_allocated.restype = ctypes.c_size_t
                size = lib.lift_allocated(ctypes.c_void_p(getattr(c_structs[struct], f))) // inputs[name].itemsize
                assert 0 < size <= inputs[name].size, f"C allocated {size} elements for {struct}->{f}, the SDFG " \
                    f"{inputs[name].size}"
                inputs[name] = inputs[name].reshape(-1)[:size]  # what C's holds
            pointer = ctypes.cast(getattr(c_structs[struct], f), element)
            expected[name] = np.ctypeslib.as_array(pointer, shape=(size,)).copy()
    for name, _, element in params:  # a struct's numbers: C's after the call, the caller's after prelude and epilogue
        for f, _, pointer in struct_fields[element] if name in held else []:
            if not pointer:
                np.testing.assert_allclose(held[name][f], getattr(c_structs[name], f), rtol=1e-10,
                                           err_msg=f"{name}->{f}")
    for name, array in inputs.items():
        if name in globals_ and globals_[name] is None and name not in members:
            continue  # a local of the function the C caller never sees (a returned one compared above)
        # element-wise to 1e-10, or to 1e-10 of the array's largest value: DaCe compiles with -march=native
        # (a * b + c contracted into one rounding) and reduces in parallel, so an element that cancels (durbin's
        # recurrence, adi's sweeps) differs from C's in the last bits of the array's scale
        finite = expected[name][np.isfinite(expected[name])]  # C's NaN must be NaN here too (equal_nan)
        scale = float(np.max(np.abs(finite), initial=0.0))
        np.testing.assert_allclose(array.reshape(-1), expected[name].reshape(-1), rtol=1e-10, atol=1e-10 * scale,
                                   err_msg=name)
        compared.append(name)
    for name, array in spare.items():
        np.testing.assert_allclose(array, spare_c[name], rtol=1e-10, err_msg=name)
    # something the SDFG computes reached the comparison (not only inputs it leaves alone)
    written = {e.data.data for state in sdfg.all_states() for e in state.edges()
               if isinstance(e.dst, dace.nodes.AccessNode) and e.data.data is not None}
    assert set(compared) & written, (compared, written)
