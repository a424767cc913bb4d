"""Programs found by scripts/fuzz.py, reduced, each checked differentially.

Every file under cases/ is a complete program that prints what it computed. It is
lifted with every provably parallel loop parallelized (`prepare(...,
min_parallel_work=0)`, as the corpus tests do), built, run at 1, 2 and 8 threads and
compared with the original (a first line `/* lift-options: assume_no_alias` lifts it
under `--assume-no-alias`, for programs that keep that promise). The comment at the top of each file says how it was
found and what went wrong. Bugs not fixed yet are marked xfail with the place
they are in; when one is fixed its test passes and the mark must go (strict).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import have_gcc, prepare

CASES = Path(__file__).parent / "cases"

# file -> (where the bug is, what it is). Each is a miscompile, an output that does
# not compile, or a crash; see the report in the file's header comment.
KNOWN: dict[str, str] = {}  # every bug found so far is fixed

PROGRAMS = sorted(CASES.glob("*.c"))


def _param(path: Path):
    reason = KNOWN.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_reduced_fuzz_program_round_trips(program, tmp_path):
    options = program.read_text().split("\n", 1)[0]
    diff = prepare(program, tmp_path, min_parallel_work=0,
                   assume_no_alias="lift-options:" in options and "assume_no_alias" in options)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_every_known_bug_has_its_program():
    assert set(KNOWN) <= {p.name for p in PROGRAMS}
