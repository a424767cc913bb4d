"""lift: lifting sequential C loop nests into parallel OpenMP and CUDA C through a dataflow graph.

Python API: `lift_file(path, options)` and `lift_source(text, path, options)`
return a LiftResult (output text, per-loop report entries, remarks, graphs).

The API's names are loaded from `lifter.driver` when first asked for (PEP 562), not when the
package is: every `lifter.*` import runs this file first, and the `lift` command (cli.py) sets
its cycle collector's thresholds before it imports the pipeline and its libraries, which it
could not do if importing the package had imported them already.
"""
from lifter.version import __version__

_DRIVER_NAMES = ("LiftOptions", "LiftResult", "lift_file", "lift_source")


def __getattr__(name: str):
    if name in _DRIVER_NAMES:
        from lifter import driver
        return getattr(driver, name)
    raise AttributeError(f"module 'lifter' has no attribute '{name}'")


__all__ = ["LiftOptions", "LiftResult", "lift_file", "lift_source", "__version__"]
