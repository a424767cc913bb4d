"""`walk` (analysis/walk.py) visits a node's children as pycparser iterates them: the same nodes
in the same order as `children()` lists them, which every analysis that walks reads in."""
from __future__ import annotations

from pathlib import Path

from lifter.frontend import PreprocessOptions, load
from lifter.frontend.source import read_source
from lifter.frontend.walk import walk

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _preorder(node):
    yield node
    for _, child in node.children():
        yield from _preorder(child)


def test_walk_is_the_preorder_of_children_over_a_file_and_its_headers():
    ast = load(read_source(str(CORPUS / "suite" / "correlation.c")), PreprocessOptions()).ast
    walked = [id(n) for n in walk(ast)]
    assert len(walked) > 1000  # the headers' declarations too
    assert walked == [id(n) for n in _preorder(ast)]
