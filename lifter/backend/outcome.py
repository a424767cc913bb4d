"""What a backend returns besides the text: per lifted region, what became of it, for the report.

The backends decide things the report must say (whether a nest went to the GPU, how a loop runs
over the MPI ranks) only while emitting. They hand those verdicts back in these records, one per
graph in the order given, and the driver passes them to `report.loop_entries`; the graphs stay the
transformations' output and nothing depends on the backend running before the report reads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, eq=False)
class Offload:
    """The CUDA backend's verdict on one region: offloaded as `kernels`, or kept on the host for `reason`
    (`code`: the report's reason code); `launch_test`, the C test before the nest that its kernels
    launched inside host loops do enough work (backend/cuda_launches.py; '' when none is made)."""

    offloaded: bool
    reason: str = ""
    kernels: tuple[str, ...] = ()
    code: str = "not-offloadable"
    launch_test: str = ""


@dataclass(frozen=True, eq=False)
class RegionOutcome:
    """What the backend made of one region: `offload` from the CUDA backend (None for the others);
    `ranks`, from the MPI backend, how each top-level map (by node id) runs over the ranks."""

    offload: Offload | None = None
    ranks: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Emitted:
    """The output text and one `RegionOutcome` per graph, in the graphs' order. A C++ output (CUDA)
    comes as its `prelude` (lift's runtime support) and `text` (the file's own code, still spelled
    in C), with `cxx_names`, the C names in it that are C++ keywords: the driver makes that text
    C++ (frontend/cxx_names.py) and puts the prelude before it. `cxx_names` is None for C output."""

    text: str
    regions: list[RegionOutcome]
    prelude: str = ""
    cxx_names: frozenset[str] | None = None
