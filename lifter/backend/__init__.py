"""Backends: transformed dataflow graphs -> C text (OpenMP C, MPI + OpenMP C or CUDA C).

`emit` imports the MPI and CUDA backends only when the target asks for them: together they are
about a third of lift's start-up, and an OpenMP run (the default) never needs them.
"""
from __future__ import annotations

from lifter.backend.openmp import emit_openmp
from lifter.backend.outcome import Emitted, RegionOutcome
from lifter.frontend.source import SourceFile


def emit(source: SourceFile, graphs, target: str, notes=()) -> Emitted:
    """The output text and what became of each graph's region (for the report); `notes`, the C
    compiler's warnings on the input, name the C++ keywords a CUDA output renames."""
    if target == "openmp":
        return Emitted(emit_openmp(source, graphs), [RegionOutcome() for _ in graphs])
    if target == "mpi":
        from lifter.backend.mpi import emit_mpi
        return emit_mpi(source, graphs)
    from lifter.backend.cuda import emit_cuda
    return emit_cuda(source, graphs, notes)
