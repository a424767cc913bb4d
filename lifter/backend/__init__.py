"""Backends: transformed dataflow graphs -> C text (OpenMP C or CUDA C)."""
from __future__ import annotations

from lifter.backend.cuda import emit_cuda
from lifter.backend.openmp import emit_openmp
from lifter.frontend.source import SourceFile


def emit(source: SourceFile, graphs, target: str, notes=()) -> str:
    """The output text; `notes`, the C compiler's warnings on the input, name the C++ keywords
    a CUDA output renames."""
    if target == "openmp":
        return emit_openmp(source, graphs)
    return emit_cuda(source, graphs, notes)
