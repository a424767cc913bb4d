"""A small fixed-seed sample of scripts/fuzz.py's two generators, for CI.

The full runs (`python3 scripts/fuzz.py loops|csmith --count 1000 -j 2`) take long; this
runs a few dozen random loop nests and a handful of Csmith programs through the same
pipeline (build, run, lift with every parallel loop parallelized, build, run at 1 and 8
threads, compare) and expects no failure of any kind. The Csmith part needs
`apt-get install -y csmith libcsmith-dev` and is skipped without it.
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from tests.harness import REPO, have_gcc

SCRIPTS = REPO / "scripts"
LOOP_PROGRAMS = 24
CSMITH_PROGRAMS = 6


def _load(name: str):
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


fuzz = _load("fuzz")
loopgen = _load("loopgen")
needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")


def _failures(summary: dict) -> str:
    return "\n".join(f"{f['outcome']} seed {f['seed']}: {f['detail']}" for f in summary["failures"])


def test_loop_generator_is_deterministic_and_varied():
    assert loopgen.generate(7) == loopgen.generate(7)
    programs = {loopgen.generate(s) for s in range(20)}
    assert len(programs) == 20
    text = "".join(programs)
    for feature in ("+=", "if (", "for (int", "restrict", "double", "unsigned", "#define"):
        assert feature in text, feature


@needs_gcc
def test_random_loop_nests(tmp_path):
    cfg = fuzz.Config(mode="loops", seed=20240611, count=LOOP_PROGRAMS, jobs=2, keep=str(tmp_path / "kept"),
                      run_timeout=10, lift_timeout=60)
    summary = fuzz.fuzz(cfg)
    assert summary["tried"] == LOOP_PROGRAMS
    assert summary["parallel_loops"] > LOOP_PROGRAMS, "the sample should parallelize loops"
    assert not summary["failures"], _failures(summary)


@needs_gcc
@pytest.mark.skipif(shutil.which("csmith") is None or not (Path(fuzz.CSMITH_INCLUDE) / "csmith.h").exists(),
                    reason="Csmith is not installed (apt-get install -y csmith libcsmith-dev)")
def test_csmith_programs(tmp_path):
    cfg = fuzz.Config(mode="csmith", seed=20240611, count=CSMITH_PROGRAMS, jobs=2, keep=str(tmp_path / "kept"),
                      run_timeout=5, lift_timeout=60, max_funcs=3, max_block_depth=3)
    summary = fuzz.fuzz(cfg)
    assert summary["tried"] >= CSMITH_PROGRAMS // 2, summary["discards"]
    assert not summary["failures"], _failures(summary)
