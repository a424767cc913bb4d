"""Every corpus program, lifted to OpenMP, prints what the original prints at 1, 2 and 8 threads.

8 threads on this 2-core machine oversubscribes on purpose, to expose races;
the oversubscribed run is repeated.
"""
import pytest

from tests.harness import corpus_programs, prepare

PROGRAMS = corpus_programs()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_corpus_program_round_trips(program, tmp_path):
    diff = prepare(program, tmp_path)
    for threads in (1, 2, 8, 8, 8):
        diff.check(threads)


def test_corpus_has_enough_programs():
    assert len(PROGRAMS) >= 25
