"""The pass manager: passes the options ask for, rollback of a failed pass, control layer rebuilt after a
reshaping pass, validation after every pass when checking; and whole-graph checkpoints."""
import pytest

from lifter import LiftOptions, lift_file, lift_source
from lifter.frontend.source import SourceFile
from lifter.graph.control import CONTROL
from lifter.graph.nodes import LoopRegion, MapScope, Memlet
from lifter.graph.validate import validate
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.manager import CHECK_ENV, DroppedPass, Pass, PassContext, PassFailed, PassManager
from lifter.transform.passes import passes_for
from tests.cli_runner import lift
from tests.harness import CORPUS

JACOBI = """
#define N 64
double A[N][N], B[N][N];
void kernel(int steps) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = B[i][j];
  }
}
"""


def _graph():
    (g,) = lift_source(JACOBI, "jacobi.c", LiftOptions(opt_level=0)).graphs
    return g


def _state(g):
    """Everything a pass can change, in iteration order: adjacency both ways, every object's fields,
    and the graph's attributes with its nest record's fields (the polyhedral model by identity)."""
    def fields(obj):
        return repr(sorted(vars(obj).items())) if hasattr(obj, "__dict__") else repr(obj)

    record = {k: id(v) if k == "scop" else repr(v) for k, v in vars(g.nest).items()}
    return ([(n, fields(d["node"])) for n, d in g.nodes(data=True)],
            [(u, v, k, fields(d["edge"])) for u, v, k, d in g.edges(keys=True, data=True)],
            [(v, list(g.pred[v])) for v in g], sorted(g.graph), sorted(record.items()))


def _maps(g):
    return [d["node"] for _, d in g.nodes(data=True) if isinstance(d["node"], MapScope)]


class Breaks(Pass):
    """Changes every kind of thing a pass can change, then (optionally) raises."""

    name = "breaks"
    reshapes = True

    def __init__(self, raises=True):
        self.raises = raises

    def run(self, g, context):
        m = _maps(g)[0]
        m.schedule, m.reductions, m.var = "parallel", [("+", "s")], "q"
        m.private.append("p")  # in place: the checkpoint must hold a copy, not the list
        u, v, k = next((u, v, k) for u, v, k, d in g.edges(keys=True, data=True) if isinstance(d["edge"], Memlet))
        g.remove_edge(u, v, k)
        g.add_node("extra", node=m)
        g.nest.restructured = True
        if self.raises:
            raise RuntimeError("a bug in the pass")
        return True


class DropsControl(Pass):
    """Removes the control layer (a stale one is what a forgotten rebuild leaves)."""

    name = "drops-control"

    def __init__(self, reshapes):
        self.reshapes = reshapes

    def run(self, g, context):
        g.remove_nodes_from([n for n, d in g.nodes(data=True) if isinstance(d["node"], CONTROL)])
        return True


def _context():
    return PassContext(LiftOptions(), SourceFile("jacobi.c", JACOBI), None)


def test_checkpoint_restores_every_field_memlet_and_order():
    g = _graph()
    before = _state(g)
    maps = _maps(g)
    saved = checkpoint(g)
    Breaks(raises=False).run(g, None)
    assert _state(g) != before
    rollback(g, saved)
    assert _state(g) == before
    assert _maps(g) == maps and all(a is b for a, b in zip(_maps(g), maps)), "the same node objects"
    Breaks(raises=False).run(g, None)
    rollback(g, saved)  # a checkpoint can be rolled back to more than once
    assert _state(g) == before
    validate(g)
    u, v, k = next((u, v, k) for u, v, k, d in g.edges(keys=True, data=True) if isinstance(d["edge"], Memlet))
    g.remove_edge(u, v, k)  # the restored adjacency is one structure, as networkx keeps it
    assert (u, v, k) not in list(g.in_edges(v, keys=True)) and (u, v, k) not in list(g.out_edges(u, keys=True))


def test_checkpoint_shares_immutable_tuples_and_copies_the_others():
    """A tuple of strings and numbers (a memlet's bounds) cannot change: the checkpoint keeps it as it
    is; a tuple that holds a list is copied down to the list, which a pass may change in place."""
    g = _graph()
    m = _maps(g)[0]
    bounds, holder = ("0", "n - 1"), (["a"], "b")
    m.reductions = [bounds, holder]
    saved = checkpoint(g)
    holder[0].append("changed")
    m.reductions.append(("+", "t"))
    rollback(g, saved)
    assert m.reductions == [("0", "n - 1"), (["a"], "b")]
    assert m.reductions[0] is bounds, "shared, not copied"
    assert m.reductions[1] is not holder and m.reductions[1][0] is not holder[0]


def test_failing_pass_is_rolled_back_and_the_next_runs():
    g = _graph()
    before = _state(g)
    ran = []

    class After(Pass):
        name = "after"

        def run(self, g, context):
            ran.append(_state(g))
            return False

    graphs = PassManager([Breaks(), After()], check=False).run([g], _context())
    assert graphs == [g] and _state(g) == before and ran == [before]


def test_one_checkpoint_per_graph_and_a_failure_undone_to_the_pass_before_it(monkeypatch):
    """The manager checkpoints each graph once, where its graph passes start, not before every pass;
    a pass that fails leaves the graph as the passes before it left it (the checkpoint, and those
    passes run again), a graph one of them replaced included."""
    import copy

    import lifter.transform.manager as manager

    graphs = [_graph(), _graph()]
    taken = []
    monkeypatch.setattr(manager, "checkpoint", lambda g: taken.append(g) or checkpoint(g))
    seen = []

    class Marks(Pass):
        name = "marks"

        def run(self, g, context):
            m = _maps(g)[0]
            m.transformations.append("marked")
            m.reason = m.reason + "+"
            return False

    class Replaces(Pass):
        name = "replaces"

        def run(self, g, context):
            context.replace(copy.deepcopy(g))
            return False

    class Sees(Pass):
        name = "sees"

        def run(self, g, context):
            seen.append(_state(g)[:4])  # all but the model's identity: a replacement copies it
            return False

    out = PassManager([Marks(), Replaces(), Marks(), Sees(), Breaks(), Sees(), Breaks(), Sees()],
                      check=False).run(list(graphs), _context())
    assert taken == graphs, "one checkpoint per graph"
    assert len(seen) > 6 and all(state == seen[0] for state in seen), "undone to what the passes before left"
    assert all(_state(g)[:4] == seen[0] for g in out)
    assert [m.transformations for g in out for m in _maps(g)[:1]] == [["marked", "marked"]] * 2


def test_failing_pass_is_recorded_and_lift_v_says_so(tmp_path, monkeypatch):
    """A rolled-back pass is not silent: the manager records it, and `lift -v` prints one warning
    naming the pass and the exception, at the nest's first line (without -v, nothing)."""
    manager = PassManager([Breaks()], check=False)
    g = _graph()
    manager.run([g], _context())
    assert manager.dropped == [DroppedPass("breaks", g.name, "RuntimeError('a bug in the pass')")]

    import lifter.transform as transform
    monkeypatch.setattr(transform, "passes_for", lambda options: [Breaks()])
    monkeypatch.setenv(CHECK_ENV, "0")
    source = tmp_path / "jacobi.c"
    source.write_text(JACOBI)
    loud = lift(source, "-o", tmp_path / "out.c", "-v")
    assert loud.code == 0, loud.stderr
    warnings = [line for line in loud.stderr.splitlines() if ": warning: " in line]
    assert warnings == [f"{source}:5: warning: pass 'breaks' failed and was undone: RuntimeError('a bug in the pass')"]
    quiet = lift(source, "-o", tmp_path / "out.c")
    assert quiet.code == 0 and "warning" not in quiet.stderr
    for run in ("lifted", "cached"):  # a batch says it too, also when the result comes from its cache
        batch = lift(source, "-d", tmp_path / "out", "-v")
        assert batch.code == 0 and [line for line in batch.stderr.splitlines() if ": warning: " in line] == \
            warnings, run


def test_failing_pass_raises_when_checking():
    with pytest.raises(PassFailed, match="'breaks'"):
        PassManager([Breaks()], check=True).run([_graph()], _context())


def test_control_layer_rebuilt_after_a_reshaping_pass_only():
    g = _graph()
    PassManager([DropsControl(reshapes=True)], check=True).run([g], _context())
    validate(g)
    assert any(isinstance(d["node"], CONTROL) for _, d in g.nodes(data=True))
    with pytest.raises(PassFailed, match="'drops-control' left .* invalid"):
        PassManager([DropsControl(reshapes=False)], check=True).run([_graph()], _context())


def _names(**options):
    return [p.name for p in passes_for(LiftOptions(**options))]


def test_passes_follow_the_options():
    everything = ["source-text", "fuse-regions", "reorder-guard", "interchange", "rotate", "fuse", "sweeps",
                  "tile", "strip-mine", "contract", "parallelize", "parallel-regions", "wavefront", "vectorize",
                  "unroll", "accumulate", "jam-outer", "bucket-scatter"]
    assert _names() == everything
    assert _names(tile=False) == [n for n in everything if n not in ("sweeps", "tile", "strip-mine", "wavefront")]
    assert _names(fuse=False) == [n for n in everything if n not in ("fuse-regions", "fuse", "contract")]
    assert _names(unroll=False) == everything[:-4] + everything[-1:]
    assert _names(opt_level=1) == ["source-text", "parallelize", "parallel-regions", "bucket-scatter"]
    assert _names(opt_level=0) == ["source-text"]
    assert _names(target="cuda") == ["source-text", "parallelize", "host-code"]


GEMM = """
#define N 300
double A[N][N], B[N][N], C[N][N];
void kernel(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


def test_cuda_graphs_carry_the_records_of_the_host_code():
    """The CUDA backend learns what host code does from the graphs (the host-code pass): one record
    of the file for all its graphs, made for the CUDA target only."""
    other = GEMM[GEMM.index("void"):].replace("kernel", "other")
    graphs = lift_source(GEMM + other, "g.c", LiftOptions(target="cuda")).graphs
    assert len(graphs) == 2 and graphs[0].nest.host_code is graphs[1].nest.host_code
    code = graphs[0].nest.host_code
    assert [loop.where.kind for loop in code.loops.values()] == ["for"] * 6 and code.statements
    assert all(g.nest.host_code is None for g in lift_source(GEMM, "g.c", LiftOptions()).graphs)


def test_a_failing_pass_costs_only_its_own_rewrite(monkeypatch):
    """Outside the tests a pass that raises is rolled back: the output is the one without that pass."""
    import lifter.transform.manager as manager
    from lifter.transform.passes import Tile

    tiled = lift_source(GEMM, "gemm.c").output
    monkeypatch.setattr(Tile, "enabled", lambda self, options: False)
    untiled = lift_source(GEMM, "gemm.c").output
    assert untiled != tiled, "tiling must change this program for the test to mean anything"
    monkeypatch.undo()

    def fails(self, g, context):
        from lifter.transform.tiling import tile_bands
        tile_bands(g, g.nest.scop, ())  # the whole rewrite done, then a failure
        raise RuntimeError("a bug after the rewrite")

    monkeypatch.setattr(Tile, "run", fails)
    monkeypatch.setenv(manager.CHECK_ENV, "0")
    assert lift_source(GEMM, "gemm.c").output == untiled
    monkeypatch.setenv(manager.CHECK_ENV, "1")
    with pytest.raises(PassFailed, match="'tile'"):
        lift_source(GEMM, "gemm.c")


@pytest.mark.parametrize("opt_level", [1, 2])
def test_control_layer_follows_parallelization_under_a_value_test(opt_level):
    """floyd_warshall's k loop is sequential around a j loop parallel only under a test of values;
    parallelization makes that loop parallel, so k becomes a loop over states. At -O1 no later
    pass rebuilt the control layer, and the graph kept k as one state."""
    # (no profitability test: at the program's own size, which the call passes, the loop is too small)
    graphs = lift_file(str(CORPUS / "dynprog" / "floyd_warshall.c"),
                       LiftOptions(opt_level=opt_level, min_parallel_work=0)).graphs
    for g in graphs:
        validate(g)
    assert any(isinstance(d["node"], LoopRegion) for g in graphs for _, d in g.nodes(data=True))
