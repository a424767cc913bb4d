"""A kernel's text as pieces (backend/cuda_kernel_text.py) says what the frontend's readers would
read in the text it makes, without the backend lexing that text: the same renamed member paths,
names, calls, jumps and array declarators as the frontend's readers over the whole kernel text
(`replace_paths`, `free_words`, `called_names`, `words`, `array_declarators`, which the backend
called on it until session 16)."""
from __future__ import annotations

from lifter.backend.cuda_kernel_text import KernelText, Own, Src, dedent_drops, line_of
from lifter.frontend.spans import Spans, lexed, replace_paths

SUBST = {"g->u": "g_u", "g->n": "g_n", "p.x": "p_x"}


def _old_dedent(text: str) -> str:
    """cuda_text._dedent as it was: the text dedent_drops must cut the same blanks from."""
    lines = text.split("\n")
    rest = [l for l in lines[1:] if l.strip()]
    if not rest:
        return text
    common = min(len(l) - len(l.lstrip(" \t")) for l in rest)
    last = lines[-1].lstrip(" \t")
    if last.startswith("}"):
        common = min(common, len(lines[-1]) - len(last))
    return "\n".join([lines[0]] + [l[common:] if l.strip() else l for l in lines[1:]])


def _body() -> KernelText:
    """Lines as cuda._tree_parts makes them: a header, a declaration, statements, an atomic update."""
    return KernelText.join([
        line_of("", lexed("double t[g->n];")),
        KernelText([Own(""), Src(lexed("for (int j = 0; j < g->n; j++)")), Own(" {")]),
        line_of("    ", lexed("t[j] = g->u[i][j] * p.x + f(q->g->u);")),
        line_of("    ", lexed("if (t[j] < 0) break;")),
        line_of("", "}"),
        KernelText([Own("lift_atomic_update(lift_op_add(), &("), Src(lexed("s[g->n]")), Own("), "),
                    Src(lexed("h(g->u[i][0])")), Own(");")]),
    ])


def test_pieces_read_what_the_readers_read_in_the_whole_text():
    body = _body()
    plain = body.text()
    renamed = replace_paths(plain, SUBST)
    assert body.text(SUBST) == renamed
    assert "q->g->u" in renamed and "g_u[i][j]" in renamed  # a member of something else stays
    # lift's own text names only its prelude's helpers (none of the program's names): the rest are the same
    helpers = {"lift_atomic_update", "lift_op_add"}
    assert body.free_words(SUBST) == Spans(renamed).free_words() - helpers
    assert body.called_names() == Spans(renamed).called_names() - helpers
    assert [w for w in body.words() if w in ("break", "for", "return", "goto")] == \
        [w for w in Spans(renamed).words_between(0, len(renamed)) if w in ("break", "for", "return", "goto")]


def test_declarators_sizes_are_read_after_renaming():
    """`double t[g->n];` sizes a per-thread array by a name the kernel gets as `g_n` (a parameter
    bound by value): its size words are the renamed text's, as the scratch check needs them."""
    body = _body()
    [(i, d)] = body.declarators({"t"}, SUBST)
    [old] = Spans(body.text(SUBST)).array_declarators({"t"})
    assert (d.name, d.size, d.size_words, d.type_words) == (old.name, old.size, old.size_words, old.type_words)
    assert d.size == "g_n" and d.statement_end is not None
    body.edits = {i: [(d.start, d.statement_end, "double *t = lift_slice;")]}
    assert body.text(SUBST).startswith("double *t = lift_slice;\nfor (int j = 0; j < g_n; j++) {")


def test_a_body_cut_from_the_file_is_dedented_by_its_blanks():
    """A loop body cut from the file (`Spans.piece`, the file's tokens) keeps its first line and moves
    the others left; a member path broken over lines is renamed whole, its blanks with it."""
    file = "void f(void) {\n  for (i = 0; i < n; i++) {\n      a[i] = g->\n          u[i];\n      b[i] = 0;\n    }\n}\n"
    spans = Spans(file)
    start, end = file.index("{\n      a"), file.index("}\n}") + 1
    piece = spans.piece(start, end)
    assert piece.text == file[start:end]
    body = KernelText([Src(piece, dedent_drops(piece.text))])
    assert body.text() == _old_dedent(piece.text)
    assert body.text(SUBST) == replace_paths(_old_dedent(piece.text), SUBST)
    assert body.free_words(SUBST) == {"a", "i", "g_u", "b"}


def test_a_container_says_whether_its_name_is_a_member_path():
    """A kernel renames the containers whose names are member paths (`g->u`) and checks that the
    variable a path starts from is named nowhere else in it: both facts are read off the name's
    tokens by the graph (graph/nodes.py), not by the backend."""
    from lifter.analysis.model import Kind
    from lifter.graph.nodes import AccessNode

    def node(name):
        return AccessNode(name, name, 1, "double", Kind.ARRAY, False, "", False, False)

    assert node("u").plain_name and node("u").path_head == "u"
    assert not node("g->u").plain_name and node("g->u").path_head == "g"
    assert not node("s.a").plain_name and node("s.a").path_head == "s"
    assert not node("<memory>").plain_name and node("<memory>").path_head is None
