"""The facts about names that the graph's nodes carry for the backends (which read no C text
themselves): what a trip count, a container's name and extents use, and a statement as an update."""
from lifter import LiftOptions, lift_source
from lifter.graph.nodes import AccessNode, MapScope, Tasklet

CODE = """
struct grid { int n; double *u; };
void k(int n, int m, double a[n][m], double *h, struct grid *g, int *idx) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      a[i][j] += 2.0 * a[j][i];
      h[idx[j]]++;
      g->u[j] = g->u[j] * 0.5;
    }
}
"""


def _nodes(kind):
    (g,) = lift_source(CODE, "k.c", LiftOptions(opt_level=0)).graphs
    return [d["node"] for _, d in g.nodes(data=True) if isinstance(d["node"], kind)]


def test_maps_carry_the_names_of_their_trip_counts():
    maps = {m.var: m for m in _nodes(MapScope)}
    assert maps["i"].trip_count == "(long)n" and maps["i"].trip_words == {"long", "n"}  # words, keywords too
    assert maps["j"].trip_words == {"long", "i"}
    bounds_only = MapScope(**{**vars(maps["j"]), "trip_count": None, "begin": "0", "end": "min(i, m) - 1"})
    assert bounds_only.trip_words == {"i", "m"}  # isl's `min` is no name of the program


def test_statements_carry_their_updates_and_containers_their_names():
    updates = sorted(t.update for t in _nodes(Tasklet))
    assert updates == [("a[i][j]", "+", "2.0 * a[j][i]"), ("g->u[j]", "*", "0.5"), ("h[idx[j]]", "+", "1")]
    assert Tasklet("s", "", 1, text="x = y;").update is None and Tasklet("s", "", 1).update is None
    nodes = {n.name: n for n in _nodes(AccessNode)}
    assert nodes["g->u"].name_words == {"g", "u"}
    assert nodes["a"].dim_words == [{"n"}, {"m"}] and nodes["h"].dim_words == [set()]
