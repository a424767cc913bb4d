"""The peers' figures of shared/PEERS.md, to show the best peer beside lift per kernel.

PEERS.md's first table holds, per PolyBench kernel name, the speedups Pluto and PPCG reached
in an earlier run (LARGE data sets, 2 threads); those two tools are not installed here, so
the benchmark cannot run them and takes their figures from that table. Polly and GCC's
auto-parallelizer are measured in the same run as lift and taken from it.
"""
from __future__ import annotations

import re
from pathlib import Path

TABLE_TOOLS = ("pluto", "ppcg")  # the columns read from PEERS.md
_SPEEDUP = re.compile(r"([0-9.]+)x")


def read_peers(path: Path) -> dict[str, dict[str, float]]:
    """{kernel: {tool: speedup}} from the first Markdown table whose header names every TABLE_TOOLS
    column; cells that are not a speedup ('wrong', 'timeout', ...) are left out. {} if no such file."""
    if not path.is_file():
        return {}
    columns: dict[str, int] | None = None
    figures: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            if columns is not None and figures:
                break  # the end of the table
            continue
        if columns is None:
            names = [c.lower() for c in cells]
            if all(t in names for t in TABLE_TOOLS):
                columns = {t: names.index(t) for t in TABLE_TOOLS}
            continue
        kernel = cells[0].strip("*")
        for tool, k in columns.items():
            m = _SPEEDUP.fullmatch(cells[k]) if k < len(cells) else None
            if m:
                figures.setdefault(kernel, {})[tool] = float(m.group(1))
    return figures


def suite_name(stem: str) -> str:
    """The PolyBench name of a corpus/suite program: floyd_warshall.c -> floyd-warshall."""
    return stem.replace("_", "-")


def best_peer(measured: dict[str, float | None], table: dict[str, float]) -> tuple[str, float] | None:
    """The fastest peer (tool, speedup) among this run's measured speedups and the table's figures."""
    candidates = {t: s for t, s in measured.items() if s} | table
    if not candidates:
        return None
    tool = max(candidates, key=candidates.get)
    return tool, candidates[tool]
