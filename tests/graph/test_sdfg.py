"""The DaCe export (`--emit-graph G.sdfg`).

Structural checks always run: every edge joins existing nodes through connectors they declare,
every memlet names a declared container with its number of dimensions, and a time loop around
parallel sweeps becomes a LoopRegion. With DaCe installed at the pinned version
(`pip install dace==1.0.2`), `SDFG.from_json` must read every corpus program's export and the
SDFG must pass DaCe's own validation.
"""
import json
import re
import subprocess
from collections import Counter
import sys

import pytest

from lifter import lift_file, lift_source
from lifter.graph.sdfg import DACE_VERSION, function_sdfgs, to_sdfg_json
from tests.graph.test_graph import ALTERNATING, DATA_DEPENDENT, JACOBI, NESTED, SKIPPING
from tests.harness import corpus_programs



def _blocks(cfg: dict):
    for block in cfg["nodes"]:
        yield block
        if block["type"] == "LoopRegion":
            yield from _blocks(block)
        elif block["type"] == "ConditionalBlock":
            for _, branch in block["branches"]:
                yield from _blocks(branch)


def _check_structure(sdfg: dict) -> None:
    arrays = sdfg["attributes"]["_arrays"]
    for block in _blocks(sdfg):
        if block["type"] != "SDFGState":
            continue
        nodes = block["nodes"]
        for e in block["edges"]:
            src, dst = nodes[int(e["src"])], nodes[int(e["dst"])]
            if e["src_connector"] is not None:
                assert e["src_connector"] in src["attributes"]["out_connectors"], e
            if e["dst_connector"] is not None:
                assert e["dst_connector"] in dst["attributes"]["in_connectors"], e
            memlet = e["attributes"]["data"]["attributes"]
            if "data" in memlet:
                desc = arrays[memlet["data"]]
                assert len(memlet["subset"]["ranges"]) == len(desc["attributes"]["shape"]), e
        for n in nodes:
            if n["type"] == "AccessNode":
                assert n["attributes"]["data"] in arrays


def test_time_loop_becomes_a_loop_region_around_map_states():
    sdfg = to_sdfg_json(lift_source(JACOBI, "jacobi.c").graphs, "jacobi")
    _check_structure(sdfg)
    (loop,) = sdfg["nodes"]
    assert loop["type"] == "LoopRegion" and loop["attributes"]["loop_variable"] == "t"
    assert loop["attributes"]["loop_condition"]["string_data"] == "(t <= tsteps - 1)"
    assert [b["type"] for b in loop["nodes"]] == ["SDFGState", "SDFGState"]
    assert [e["src"] + "->" + e["dst"] for e in loop["edges"]] == ["0->1"]
    first = loop["nodes"][0]
    entry = next(n for n in first["nodes"] if n["type"] == "MapEntry")
    assert entry["attributes"]["params"] == ["i"] and entry["attributes"]["schedule"] == "Default"
    ranges = entry["attributes"]["range"]["ranges"]
    assert (ranges[0]["start"], ranges[0]["end"]) == ("1", "n - 2")
    # a -> map entry carries the range the whole sweep reads; entry -> tasklet one element each
    nodes = first["nodes"]
    reads = {(nodes[int(e["src"])]["type"], tuple((r["start"], r["end"]) for r in m["subset"]["ranges"]))
             for e in first["edges"] if (m := e["attributes"]["data"]["attributes"]).get("data") == "a"
             and nodes[int(e["dst"])]["type"] in ("MapEntry", "Tasklet")}
    assert ("AccessNode", (("0", "n - 1"),)) in reads
    assert ("MapEntry", (("i - 1", "i - 1"),)) in reads


@pytest.mark.parametrize("program", corpus_programs(), ids=lambda p: p.name)
def test_every_corpus_export_is_well_formed(program):
    graphs = lift_file(str(program)).graphs
    sdfg = to_sdfg_json(graphs, program.stem)
    _check_structure(sdfg)
    json.dumps(sdfg)
    # lift's control layer maps one to one: its states and loop regions are DaCe's
    ours = Counter(type(d["node"]).__name__ for g in graphs for _, d in g.nodes(data=True))
    theirs = Counter(b["type"] for b in _blocks(sdfg))
    assert (theirs["SDFGState"], theirs["LoopRegion"], theirs["ConditionalBlock"]) == (
        (ours["State"], ours["LoopRegion"], ours["ConditionalRegion"]) if graphs else (1, 0, 0))


def test_conditional_regions_become_conditional_blocks():
    sdfg = to_sdfg_json(lift_source(ALTERNATING, "alternate.c").graphs, "alternate")
    _check_structure(sdfg)
    (loop,) = sdfg["nodes"]
    (cond,) = loop["nodes"]
    assert cond["type"] == "ConditionalBlock" and loop["edges"] == []
    (test, then), (otherwise, other) = cond["branches"]
    assert test == {"string_data": "(t % 2) == 0", "language": "Python"} and otherwise is None  # DaCe's else
    assert [b["type"] for b in then["nodes"]] == ["SDFGState"] and then["type"] == "ControlFlowRegion"
    # conditions that Python reads otherwise (a cast, a division) stay C++
    nested = to_sdfg_json(lift_source(NESTED.replace("t > 0", "(double) t / 2 > 0.5"), "nested.c").graphs, "nested")
    _check_structure(nested)
    outer = next(b for b in nested["nodes"][0]["nodes"] if b["type"] == "ConditionalBlock")
    ((test, branch),) = outer["branches"]
    assert test["language"] == "CPP" and "/ 2" in test["string_data"]
    assert [b["type"] for b in branch["nodes"]] == ["ConditionalBlock", "SDFGState"] and branch["edges"]


def test_cli_writes_sdfg(tmp_path):
    src = tmp_path / "j.c"
    src.write_text(JACOBI)
    out = tmp_path / "j.sdfg"
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"),
                           "--emit-graph", str(out), "--function", "jacobi"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    sdfg = json.loads(out.read_text())
    assert sdfg["type"] == "SDFG" and sdfg["attributes"]["name"] == "jacobi"
    # without --function: one SDFG per function, and a message naming the files
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"),
                           "--emit-graph", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "one SDFG per function" in done.stderr, done.stderr
    assert json.loads((tmp_path / "j.jacobi.sdfg").read_text())["attributes"]["name"] == "jacobi"
    # a function without lifted loops is a located error
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"),
                           "--emit-graph", str(out), "--function", "nope"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "error: no lifted loop nest in a function named 'nope'" in done.stderr


ARGMIN = """long argmin(int n, const double *x) {
  double best = x[0];
  long idx = 0;
  for (int i = 1; i < n; i++)
    if (x[i] < best) { best = x[i]; idx = i; }
  return idx;
}
"""


def test_an_if_whose_statements_write_what_it_tests_is_tested_once():
    """C tests `x[i] < best` once for both statements; a tasklet each testing it would test the new best."""
    sdfg = to_sdfg_json(lift_source(ARGMIN, "argmin.c").graphs, "argmin")
    _check_structure(sdfg)
    (state,) = [b for b in _blocks(sdfg) if b["type"] == "SDFGState"]
    codes = {n["label"]: n["attributes"]["code"]["string_data"] for n in state["nodes"] if n["type"] == "Tasklet"}
    assert re.fullmatch(r"__out = __in\d < __in\d;", codes.pop("if (x[i] < best)")), codes
    assert set(codes) == {"best = x[i]", "idx = i"} and all("(__if0)" in c for c in codes.values()), codes
    test = next(n["id"] for n in state["nodes"] if n["type"] == "AccessNode" and n["label"].startswith("if"))
    assert sum(e["src"] == str(test) for e in state["edges"]) == 2


HISTOGRAM = """int hist[256];
int count[64];
void histogram(int n, const unsigned char *key, const int *group, double *sums, const double *x) {
  for (int i = 0; i < n; i++)
    hist[key[i]]++;
  for (int i = 0; i < n; i++) {
    int g = group[i];
    count[g] += 2;
    for (int d = 0; d < 8; d++)
      sums[g * 8 + d] += x[i * 8 + d];
  }
}
"""


def test_a_data_dependent_element_is_reached_through_a_connector_to_the_whole_array():
    """DaCe binds a connector to one element only where the subset says which: `hist[key[i]]` is an
    element of a connector bound to all of hist (dynamic), its reduction DaCe's atomic update."""
    sdfg = to_sdfg_json(lift_source(HISTOGRAM, "histogram.c").graphs, "histogram")
    _check_structure(sdfg)
    tasklets = {n["label"]: (n, state) for state in _blocks(sdfg) if state["type"] == "SDFGState"
                for n in state["nodes"] if n["type"] == "Tasklet"}
    codes = {label: n["attributes"]["code"]["string_data"] for label, (n, _) in tasklets.items()}
    assert codes["hist[key[i]]++"] == "{ dace::wcr_fixed<dace::ReductionType::Sum, " \
        "std::remove_pointer_t<decltype(__arr0)>>::reduce_atomic(&__arr0[__in0], 1); }", codes
    node, state = tasklets["hist[key[i]]++"]
    (edge,) = [e for e in state["edges"] if e["src"] == str(node["id"])]
    memlet = edge["attributes"]["data"]["attributes"]
    assert edge["src_connector"] == "__arr0" and memlet["dynamic"] and memlet["wcr"] == "lambda a, b: a + b"
    assert [(r["start"], r["end"]) for r in memlet["subset"]["ranges"]] == [("0", "256 - 1")]
    assert codes["count[g] += 2"] in ("{ __arr0[__in0] += 2; }", "{ dace::wcr_fixed<dace::ReductionType::Sum, "
                                      "std::remove_pointer_t<decltype(__arr0)>>::reduce_atomic(&__arr0[__in0], 2); }")
    # a flat index into a buffer seen in two dimensions (sums[g][d]) is the offset in the pointer
    assert re.fullmatch(r"\{ __arr0\[\(__in\d \* 8\) \+ d\] \+= __in\d; \}|.*reduce_atomic\(&__arr0\[\(__in\d \* 8\) "
                        r"\+ d\], __in\d\); \}", codes["sums[(g * 8) + d] += x[(i * 8) + d]"]), codes


CALLS = """typedef unsigned char base_t;
#define SCALE 2
static int pairs(base_t a, base_t b) { return a + b == 3; }
static int twice(int v) { return v + v; }
static int scaled(int v) { return SCALE * v; }
static void bump(int *p) { *p += 1; }
void paired(int n, const base_t *s, int *out) {
  for (int i = 0; i < n; i++) out[i] = pairs(s[i], s[n - 1 - i]) + twice(i);
}
void macro(int n, int *out) { for (int i = 0; i < n; i++) out[i] = scaled(i); }
void writes(int n, int *out) { for (int i = 0; i < n; i++) bump(&out[i]); }
"""


def test_called_functions_of_the_file_are_the_global_code(tmp_path):
    """DaCe's C++ defines only the program: the functions the tasklets call come along (with the typedefs
    they name, and as lift analysed them: macros expanded) where they compute from their arguments only;
    otherwise an #error says why."""
    src = tmp_path / "calls.c"
    src.write_text(CALLS)
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    code = {name: s["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
            for name, s in sdfgs.items()}
    assert "typedef unsigned char base_t;" in code["paired"] and "int pairs(base_t a, base_t b)" in code["paired"]
    assert "int twice(int v)" in code["paired"] and "#error" not in code["paired"]
    # the definition lift analysed, its macros expanded as the statements' were (no text read again)
    assert "#error" not in code["macro"] and "return 2 * v;" in code["macro"], code["macro"]
    assert code["writes"].startswith("#error") and "calls.c:11: a statement calls 'bump'" in code["writes"]
    assert "global_code" not in to_sdfg_json(lift_source(JACOBI, "jacobi.c").graphs, "jacobi")["attributes"]


ONE_ITERATION = """void chain(int n, const double *b, double *restrict a, double *restrict c) {
  for (int i = 0; i < n; i++) { a[i] = 2.0 * b[i]; c[i] = a[i] + 1.0; }
}
"""


def test_statements_of_one_iteration_are_ordered():
    """`c[i] = a[i] + 1.0` reads what `a[i] = ...` wrote in the same iteration; through the map's
    connectors both reach `a` outside the map, so an edge of their own orders the reader after the writer
    (no path joined them: DaCe could run the reader first)."""
    sdfg = to_sdfg_json(lift_source(ONE_ITERATION, "chain.c").graphs, "chain")
    (state,) = [b for b in _blocks(sdfg) if b["type"] == "SDFGState"]
    label = {n["label"]: str(n["id"]) for n in state["nodes"] if n["type"] == "Tasklet"}
    writer, reader = label["a[i] = 2.0 * b[i]"], label["c[i] = a[i] + 1.0"]
    assert any(e["src"] == writer and e["dst"] == reader for e in state["edges"]), state["edges"]


AROUND = """#include <stdlib.h>
typedef struct { int n; double *v; } vec_t;
int sweeps(int n, int maxit, double *u) {
  int it = 0;
  while (it < maxit) {
    for (int i = 0; i < n; i++) u[i] = 0.5 * u[i];
    u[it % n] += 1.0;
    it++;
  }
  return it;
}
int vec_init(vec_t *a, int n) {
  a->n = n;
  if (n > 8) a->v = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) a->v[i] = i;
  return 0;
}
void scratch(int n, double *out) {
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) t[i] = 2.0 * i;
  for (int i = 0; i < n; i++) out[i] = t[i] + 1.0;
  free(t);
}
void halve(int n, vec_t *a) {
  for (int i = 0; i < n; i++) a->v[i] = i;
  a->n = n / 2;
  for (int i = 0; i < a->n; i++) a->v[i] += 1.0;
}
"""


def test_work_outside_the_regions_refuses_the_sdfg(tmp_path):
    """The SDFG holds a function's lifted loops, and around them only while loops whose statements are scalar
    assignments (graph/sdfg_host.py): a loop around them that writes an array element outside them would run
    once or not at all, a buffer the function allocates and hands out under an `if` (a->v), which its
    caller could not tell to allocate in its place, and a statement between the loops that writes what the
    caller sees and that the later loop's bound reads (a->n), which the caller could not run after the SDFG;
    the global code is an #error naming each. A local scratch buffer is no such thing."""
    src = tmp_path / "around.c"
    src.write_text(AROUND)
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    code = {name: s["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
            for name, s in sdfgs.items()}
    assert code["sweeps"] == f'#error "lift: {src}:5: sweeps\'s while loop is not lifted, so the SDFG (its ' \
        'lifted loops only) would not run it as C does"\n', code["sweeps"]
    # one line for the function: why, and what to export instead
    assert code["vec_init"].startswith(f'#error "lift: {src}:14: vec_init points a->v at buffers it allocates '
                                       'inside a statement (an if, a loop), which the caller gets back;'), \
        code["vec_init"]
    assert code["vec_init"].count("#error") == 1 and "export that one (--emit-graph F.sdfg --function NAME)" \
        in code["vec_init"], code["vec_init"]
    assert code["scratch"] == ""
    assert code["halve"] == f'#error "lift: {src}:26: a statement between the loops writes what the caller sees, ' \
        'which the SDFG does not run, and a later loop touches what it writes or writes what it reads (or it calls ' \
        'a function), so its caller could not run it after the SDFG either"\n', code["halve"]


def test_cli_warns_of_a_refused_sdfg(tmp_path):
    """The refused SDFG is written (DaCe reads and validates it), and lift says now, line by line, why DaCe will
    not compile it; an SDFG DaCe runs gets no warning."""
    src = tmp_path / "around.c"
    src.write_text(AROUND)
    out = tmp_path / "a.sdfg"
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"), "--emit-graph",
                           str(out), "--function", "vec_init"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and out.exists(), done.stderr
    assert done.stderr.startswith(f"lift: warning: {out} will not compile in DaCe: {src}:14: vec_init points a->v at "
                                  "buffers it allocates inside a statement (an if, a loop), which the caller gets "
                                  "back;"), done.stderr
    assert "cannot tell which to allocate" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"), "--emit-graph",
                           str(out)], capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    assert lines[0].startswith("lift: wrote one SDFG per function") and len(lines) == 4, done.stderr
    assert {line.split(" will not")[0] for line in lines[1:]} == {
        f"lift: warning: {tmp_path / 'a.sweeps.sdfg'}", f"lift: warning: {tmp_path / 'a.vec_init.sdfg'}",
        f"lift: warning: {tmp_path / 'a.halve.sdfg'}"}, lines


BETWEEN = """#include <stdio.h>
void scaled(int n, double *a, double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i];
  double t = s * 2.0;
  for (int i = 0; i < n; i++) b[i] = a[i] * t;
}
int early(int n, double *a, double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i];
  if (s < 0.0) return -1;
  for (int i = 0; i < n; i++) b[i] = a[i] * s;
  return 0;
}
void shout(int n, double *a, double *b) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
  printf("%f\\n", a[0]);
  for (int i = 0; i < n; i++) b[i] = a[i];
}
void element(int n, double *a, double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i];
  b[n] = s;
  for (int i = 0; i < n; i++) b[i] = a[i] * s;
}
void indexed(int n, double *a, double *b) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += a[i];
  int k = (int) s;
  b[k] = 1.0;
  for (int i = 0; i < n; i++) b[i] = a[i] * s;
}
"""


def test_statements_between_loops_run_in_the_sdfg_or_refuse_it(tmp_path):
    """A local declared between two loops (`double t = s * 2.0;`) is a transient that a state between the loops'
    states computes (the SDFG once took it as an argument and never computed it, issue 19), and an array element
    set between them is a state too; a statement between them that the SDFG cannot run, an early return or a call of printf, refuses the SDFG with an #error naming its
    line and text, which lift repeats as a warning (once dropped without a word)."""
    src = tmp_path / "between.c"
    src.write_text(BETWEEN)
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    scaled = sdfgs["scaled"]
    assert "global_code" not in scaled["attributes"], scaled["attributes"]["global_code"]
    t = scaled["attributes"]["_arrays"]["t"]
    assert t["type"] == "Scalar" and t["attributes"]["transient"] is True, t
    codes = [[n["attributes"]["code"]["string_data"] for n in b["nodes"] if n["type"] == "Tasklet"]
             for b in scaled["nodes"]]
    assert codes[1] == ["__out = __in_s * 2.0;"] and len(codes) == 3, codes
    # an element between the loops: a tasklet over b bound whole, b's extent counting it (b[n], past the loops');
    # one whose subscript is read from data (b[k]) is not placed: the assignment refuses the SDFG
    element = sdfgs["element"]
    assert "global_code" not in element["attributes"], element["attributes"]["global_code"]
    (tasklet,) = [n for n in element["nodes"][1]["nodes"] if n["type"] == "Tasklet"]
    assert tasklet["attributes"]["code"]["string_data"] == "__arr_b[n] = __in_s;", tasklet
    assert element["attributes"]["_arrays"]["b"]["attributes"]["shape"] == ["Max(n + 1, n - 1 + 1)"]
    assert f"{src}:30: a statement between the loops writes what the caller sees" in \
        sdfgs["indexed"]["attributes"]["global_code"]["frame"]["string_data"]
    code = {name: sdfgs[name]["attributes"]["global_code"]["frame"]["string_data"] for name in ("early", "shout")}
    assert code["early"] == f'#error "lift: {src}:11: early runs \'if (s < 0.0) return -1;\' between its loops, ' \
        'which the SDFG does not run: it may return early, and the SDFG runs all its loops"\n', code["early"]
    assert code["shout"].startswith(f'#error "lift: {src}:17: shout runs \'printf(') and "it calls 'printf', " \
        "whose effects (I/O, memory) no memlet describes" in code["shout"], code["shout"]
    out = tmp_path / "e.sdfg"
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"), "--emit-graph",
                           str(out), "--function", "early"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and out.exists(), done.stderr
    assert f"lift: warning: {out} will not compile in DaCe: {src}:11: early runs 'if (s < 0.0) return -1;'" \
        in done.stderr, done.stderr


HANDED_OUT = """#include <stdlib.h>
typedef struct { int n, m; double *x; long *count; int *idx; double *w; } set_t;
static int width(int i) { return 2 + i % 3; }
int set_init(set_t *s, int n, int m) {
  s->n = n;
  s->x = malloc((size_t)n * m * sizeof(double));
  s->count = calloc(n, sizeof(long));
  if (!s->x || !s->count) return -1;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < m; d++)
      s->x[i * m + d] = i + 0.5 * d;
  s->m = 2 * n;
  s->idx = malloc(s->m * sizeof(int));
  s->w = malloc(s->m * sizeof(double));
  if (!s->idx || !s->w) return -1;
  for (int i = 0; i < n; i++) {
    s->count[i] = width(i);
    for (int k = 0; k < width(i); k++) {
      s->idx[2 * i + k % 2] = k;
      s->w[2 * i + k % 2] = 0.5 * k;
    }
  }
  return 0;
}
"""


def test_buffers_handed_out_are_arguments_the_caller_allocates(tmp_path):
    """The buffers a function allocates at its top level and hands out through a pointer (s->x = malloc(...)) are
    SDFG arguments the caller allocates, no #error (graph/sdfg_caller.py): of the allocation's element count
    where it comes before the first loop, the caller's part (n * m doubles seen as [n][m]: n x m; calloc's
    n longs: n), the accesses' extents or a size symbol between loops (s->idx, of s->m elements that the function
    computes there). The global code names them with their extents, and lift warns with the same words; and the
    assignment between the loops of the field the caller reads (s->m), which the caller runs after the SDFG, and
    the check between them that the allocations succeeded (C's early return where one fails: the caller's). The
    inner loop whose bound calls a function (width(i)) is one opaque statement, bound to the arrays it writes
    through whole-array connectors: its C text names no container."""
    src = tmp_path / "handed.c"
    src.write_text(HANDED_OUT)
    sdfg = function_sdfgs(lift_file(str(src)).graphs)["set_init"]
    arrays = {name: a["attributes"]["shape"] for name, a in sdfg["attributes"]["_arrays"].items()}
    assert arrays["s__x"] == ["n", "m"] and arrays["s__count"] == ["n"], arrays
    assert arrays["s__idx"] == ["s__idx_size0"] and arrays["s__w"] == ["s__w_size0"], arrays
    code = sdfg["attributes"]["global_code"]["frame"]["string_data"]
    assert "#error" not in code, code
    note = (f"set_init allocates s->x (line 6: n x m), s->count (line 7: n), s->idx (line 13: s__idx_size0), s->w "
            f"(line 14: s__w_size0) and hands them out; the SDFG takes them as arguments")
    assert f"// lift: {note}" in code, code
    # the struct's field it sets between the loops, which no later loop touches: the caller's, after the SDFG
    assert "// lift: after the SDFG, its caller runs line 12: s->m = 2 * n; (set_init does it between its loops" \
        in code, code
    (loop,) = [n["attributes"]["code"]["string_data"] for b in _blocks(sdfg) if b["type"] == "SDFGState"
               for n in b["nodes"] if n["type"] == "Tasklet" and "for (" in n["attributes"]["code"]["string_data"]]
    assert "s->" not in loop and "__arr0[" in loop and "__arr1[" in loop, loop
    out = tmp_path / "s.sdfg"
    done = subprocess.run([sys.executable, "-m", "lifter", str(src), "-o", str(tmp_path / "o.c"), "--emit-graph",
                           str(out), "--function", "set_init"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr.startswith(f"lift: warning: {out}: {note}"), done.stderr


FIELDS = """#include <stdio.h>
typedef struct { double x; float w; } point_t;
void scale(int n, point_t *p) {
  for (int i = 0; i < n; i++) { p[i].x = 2.0 * p[i].x; p[i].w = 0.5f * p[i].w; }
}
void show(int n, const double *v) { for (int i = 0; i < n; i++) printf("%f\\n", v[i]); }
"""


WHILE = """int sweeps(int n, int maxit, double tol, double *u) {
  double diff = 2.0 * tol;
  int it = 0;
  while (diff > tol && it < maxit) {
    for (int i = 0; i < n; i++) u[i] = 0.5 * u[i];
    diff = 0.0;
    for (int i = 0; i < n; i++) diff = diff + u[i];
    it++;
  }
  return it;
}
int grow(int maxit, double u[100]) {
  int m = 1;
  while (m < maxit) {
    m = m + 1;
    for (int i = 0; i < m; i++) u[i] = 0.5 * u[i];
  }
  return m;
}
int shadow(int n, double *u) {
  double s = 0.0;
  while (s < 10.0) {
    for (int i = 0; i < n; i++) { double s = u[i]; u[i] = s + 1.0; }
    s = s + 1.0;
  }
  return 0;
}
"""


def test_a_while_loop_around_regions_is_a_loop_region(tmp_path):
    """A while loop around lifted loops, with scalar assignments between them, is a LoopRegion whose condition
    reads the computed locals' one element (diff[0], it[0]), the parameter tol (a scalar) and maxit (a symbol);
    each assignment is a state of its own, in C's order between the regions' states, and nothing is refused."""
    src = tmp_path / "while.c"
    src.write_text(WHILE)
    sdfg = function_sdfgs(lift_file(str(src)).graphs)["sweeps"]
    assert "global_code" not in sdfg["attributes"], sdfg["attributes"]["global_code"]
    (loop,) = sdfg["nodes"]
    assert loop["type"] == "LoopRegion"
    assert loop["attributes"]["loop_condition"]["string_data"] == "((diff[0] > tol) and (it[0] < maxit))"
    codes = [[n["attributes"]["code"]["string_data"] for n in s["nodes"] if n["type"] == "Tasklet"]
             for s in loop["nodes"]]
    assert codes[1] == ["__out = 0.0;"] and codes[3] == ["__out = __in_it + 1;"], codes
    assert [(e["src"], e["dst"]) for e in loop["edges"]] == [("0", "1"), ("1", "2"), ("2", "3")]
    arrays = sdfg["attributes"]["_arrays"]
    assert arrays["it"]["attributes"]["shape"] == ["1"] and arrays["tol"]["type"] == "Scalar"
    assert sdfg["attributes"]["symbols"]["maxit"] == "int32"
    # m bounds the region's loop (a symbol there), which no tasklet can write; s names two variables: refused
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    for name in ("grow", "shadow"):
        code = sdfgs[name]["attributes"].get("global_code", {}).get("frame", {}).get("string_data", "")
        assert f"{name}'s while loop is not lifted" in code, (name, code)


def test_fields_of_arrays_of_structs_have_their_declared_types(tmp_path):
    """lift's model leaves a field's element type open (`p[i].x`); the struct declares it. A container of
    a type still unknown (`<world>`, what printf writes) refuses the SDFG: DaCe would read it as int8."""
    src = tmp_path / "fields.c"
    src.write_text(FIELDS)
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    arrays = sdfgs["scale"]["attributes"]["_arrays"]
    assert (arrays["p_x"]["attributes"]["dtype"], arrays["p_w"]["attributes"]["dtype"]) == ("float64", "float32")
    assert "global_code" not in sdfgs["scale"]["attributes"]
    code = sdfgs["show"]["attributes"]["global_code"]["frame"]["string_data"]
    assert code.startswith('#error "lift: the element type of') and '<world>' in code.split(':')[1], code


def _dace():
    dace = pytest.importorskip("dace")
    if dace.__version__ != DACE_VERSION:
        pytest.skip(f"the export is checked against DaCe {DACE_VERSION}, found {dace.__version__}")
    return dace


@pytest.mark.parametrize("program", corpus_programs(), ids=lambda p: p.name)
def test_dace_reads_and_validates_every_corpus_export(program, tmp_path, monkeypatch):
    dace = _dace()
    monkeypatch.chdir(tmp_path)  # DaCe saves invalid graphs for inspection in the working directory
    sdfg = dace.SDFG.from_json(to_sdfg_json(lift_file(str(program)).graphs, program.stem))
    sdfg.validate()


@pytest.mark.parametrize("program", [ALTERNATING, DATA_DEPENDENT, NESTED, SKIPPING],
                         ids=["alternating", "data_dependent", "nested", "skipping"])
def test_dace_reads_and_validates_conditional_regions(program, tmp_path, monkeypatch):
    dace = _dace()
    monkeypatch.chdir(tmp_path)
    graphs = lift_source(program, "c.c").graphs
    sdfg = dace.SDFG.from_json(to_sdfg_json(graphs, "c"))
    sdfg.validate()
    ours = Counter(type(d["node"]).__name__ for g in graphs for _, d in g.nodes(data=True))
    assert len(list(sdfg.all_states())) == ours["State"]
    blocks = [b for b in sdfg.all_control_flow_blocks() if isinstance(b, dace.sdfg.state.ConditionalBlock)]
    assert len(blocks) == ours["ConditionalRegion"] and all(b.branches for b in blocks)


NESTED_CALLS = """static double dot(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
static void scale(int n, double a, double *x) { for (int i = 0; i < n; i++) x[i] = a * x[i]; }
static void addto(int n, const double *x, double *y) { for (int i = 0; i < n; i++) y[i] += x[i]; }
typedef struct { int maxit; double tol; } opts_t;
int iterate(const opts_t *o, int n, double *u, double *v) {
  for (int i = 0; i < n; i++) v[i] = u[i] + 1.0;
  double norm = dot(n, v, v);
  int it = 0;
  while (it < o->maxit && norm > o->tol) {
    scale(n, 0.5, v);
    norm = dot(n, v, u) / n;
    it++;
  }
  return it;
}
void doubled(int n, int steps, double *u) {
  for (int t = 0; t < steps; t++) addto(n, u, u);
}
static void smooth(int n, int steps, double *u) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++) u[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
}
void relax(int n, double *u, double *v) {
  for (int i = 0; i < n; i++) v[i] = 2.0 * u[i];
  smooth(n, 3, v);
}
void between(int n, double *u) {
  for (int i = 0; i < n; i++) u[i] = i;
  addto(n, u, u);
  for (int i = 0; i < n; i++) u[i] = 2.0 * u[i];
}
"""


def _nested(block: dict) -> list[str]:
    """The callees of the nested SDFGs in a control region, in order."""
    out = []
    for node in block.get("nodes", []):
        out += [n["label"] for n in node.get("nodes", []) if n["type"] == "NestedSDFG"] \
            if node["type"] == "SDFGState" else _nested(node)
    return out


def test_calls_of_the_files_functions_are_nested_sdfgs(tmp_path):
    """Calls of functions lift exported itself run their SDFGs nested (graph/sdfg_calls.py): between the
    regions, in a while loop whose condition reads a struct's fields and a local declared between the loops (a
    transient scalar), inside an expression (its value a transient first). A call passing one buffer for two pointers the callee writes through (addto(n, u, u):
    its SDFG assumed two) stays refused, in a loop of calls and between two regions (where the SDFG once
    skipped it without a word)."""
    src = tmp_path / "calls.c"
    src.write_text(NESTED_CALLS)
    sdfgs = function_sdfgs(lift_file(str(src)).graphs)
    iterate = sdfgs["iterate"]
    assert "global_code" not in iterate["attributes"], iterate["attributes"]["global_code"]
    assert _nested(iterate) == ["dot", "scale", "dot"]
    (loop,) = [b for b in iterate["nodes"] if b["type"] == "LoopRegion"]
    assert loop["attributes"]["loop_condition"]["string_data"] == "((it[0] < o__maxit) and (norm > o__tol))"
    arrays = iterate["attributes"]["_arrays"]
    # norm, declared between the loops, a transient scalar of the SDFG; it, which the function returns, an argument
    assert arrays["__ret2"]["attributes"]["transient"] and arrays["norm"]["type"] == "Scalar" \
        and arrays["norm"]["attributes"]["transient"] and not arrays["it"]["attributes"]["transient"]
    # a callee with a loop region of its own (smooth's time loop: its variable is no symbol to bind)
    assert _nested(sdfgs["relax"]) == ["smooth"] and "global_code" not in sdfgs["relax"]["attributes"]
    doubled = sdfgs["doubled"]["attributes"]["global_code"]["frame"]["string_data"]
    assert "a statement calls 'addto'" in doubled and not _nested(sdfgs["doubled"])
    between = sdfgs["between"]["attributes"]["global_code"]["frame"]["string_data"]
    assert between == f'#error "lift: {src}:33: between calls \'addto\' between its regions, which the SDFG does ' \
        'not run (the callee is not exported, or the call does not bind to its SDFG), so it would skip what the ' \
        'call moves"\n', between


def test_a_loop_bound_dace_cannot_read_refuses_the_sdfg():
    """A bound with no DaCe form would be a free symbol of lift's (`R0_L0_end`) that nothing sets and
    the caller could not know: the SDFG is refused, naming the loop and the bound, instead."""
    graphs = lift_source(JACOBI, "jacobi.c").graphs
    assert "#error" not in json.dumps(to_sdfg_json(graphs, "jacobi"))
    inner = [d["node"] for g in graphs for _, d in g.nodes(data=True)
             if type(d["node"]).__name__ == "MapScope" and d["node"].var == "i"]
    for m in inner:  # the maps over i, inside the time loop's states
        m.end = "(n >> 1) - 1"  # a shift: no DaCe form (graph/symbolic.py)
    code = to_sdfg_json(graphs, "jacobi")["attributes"]["global_code"]["frame"]["string_data"]
    assert "#error \"lift: the last index of the loop over 'i' ((n >> 1) - 1) has no form DaCe reads\"" in code, code
