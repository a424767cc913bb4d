"""What a lift keeps instead of asking again (isl, the tokenizer) while the passes rewrite a nest:
the same answers as asking again, and no object shared where a caller may change it."""
from lifter import LiftOptions, lift_source
from lifter.frontend.spans import lexed, replace_paths, word_tokens
from lifter.graph.nodes import Memlet
from lifter.transform.rewrite import refresh_map_memlets

GEMM = """
void gemm(int n, double A[n][n], double B[n][n], double C[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


def _map_memlets(g):
    """(source, target, memlet) of every memlet of a map (the ones with an isl range), in a fixed order."""
    found = [(u, v, d["edge"]) for u, v, d in g.edges(data=True)
             if isinstance(d["edge"], Memlet) and d["edge"].range is not None]
    return sorted(found, key=lambda x: (x[0], x[1], x[2].container))


def test_map_memlets_over_the_same_accesses_are_not_computed_again():
    (g,) = lift_source(GEMM, "k.c", LiftOptions(opt_level=0)).graphs
    before = _map_memlets(g)
    refresh_map_memlets(g, g.nest.scop)  # the tree as built: every map over the accesses it had
    after = _map_memlets(g)
    assert [(u, v, m.container, m.subset, m.volume) for u, v, m in before] \
        == [(u, v, m.container, m.subset, m.volume) for u, v, m in after]
    assert all(a.range is b.range for (_, _, a), (_, _, b) in zip(before, after)), "isl's range, kept"
    assert all(a is not b and a.subset is not b.subset for (_, _, a), (_, _, b) in zip(before, after)), \
        "each memlet has its own subset list (a pass may change one in place)"


def test_word_tokens_hands_out_a_set_of_its_own():
    first = word_tokens("a[i] + b /* c */ + f(x)")
    assert first == {"a", "i", "b", "f", "x"}
    first.add("fresh")  # fresh_name adds the names it takes
    assert word_tokens("a[i] + b /* c */ + f(x)") == {"a", "i", "b", "f", "x"}


def test_renaming_a_statement_again_lexes_it_once():
    """The passes rename the same statements again and again (gemm: 1,270 lexings of 39 texts):
    the word readers share one lexing per text (`lexed`), the tokens frozen, and give the same
    answer as the first time."""
    text, names = "C[i][j] += A[i][k] * s->B[k][j]; /* B */", {"B": "B_t", "k": "kk", "s->B": "sb"}
    first = replace_paths(text, names)
    lexed.cache_clear()
    assert replace_paths(text, names) == first == "C[i][j] += A[i][kk] * sb[kk][j]; /* B */"
    misses = lexed.cache_info().misses
    for _ in range(3):
        assert replace_paths(text, names) == first
    assert lexed.cache_info().misses == misses, "nothing lexed again"
