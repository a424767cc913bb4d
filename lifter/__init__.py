"""lift: lifting sequential C loop nests into parallel OpenMP and CUDA C through a dataflow graph.

Python API: `lift_file(path, options)` and `lift_source(text, path, options)`
return a LiftResult (output text, per-loop report entries, remarks, graphs).
"""
from lifter.driver import LiftOptions, LiftResult, lift_file, lift_source
from lifter.version import __version__

__all__ = ["LiftOptions", "LiftResult", "lift_file", "lift_source", "__version__"]
