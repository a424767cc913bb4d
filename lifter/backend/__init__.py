"""Backends: transformed dataflow graphs -> C text (OpenMP C, MPI + OpenMP C or CUDA C)."""
from __future__ import annotations

from lifter.backend.cuda import emit_cuda
from lifter.backend.mpi import emit_mpi
from lifter.backend.openmp import emit_openmp
from lifter.backend.outcome import Emitted, RegionOutcome
from lifter.frontend.source import SourceFile


def emit(source: SourceFile, graphs, target: str, notes=()) -> Emitted:
    """The output text and what became of each graph's region (for the report); `notes`, the C
    compiler's warnings on the input, name the C++ keywords a CUDA output renames."""
    if target == "openmp":
        return Emitted(emit_openmp(source, graphs), [RegionOutcome() for _ in graphs])
    if target == "mpi":
        return emit_mpi(source, graphs)
    return emit_cuda(source, graphs, notes)
