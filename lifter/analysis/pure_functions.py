"""The C library functions lift treats as pure: one list for every stage.

A function is pure when it reads no memory but its arguments and writes none, so a call to it is
a computation: the effect analysis (effects.py) gives it no effect of its own, host code between
offloaded nests may call it without touching a device array (host_effects.py), and the CUDA
backend may call it in a kernel (backend/cuda_kernels.py's `DEVICE_FUNCTIONS`, which drops the
long double versions CUDA does not have).

What is left out, and why: `frexp`, `modf`, `remquo`, `sincos` and `nan` read or write through a
pointer argument; `lgamma` writes the global `signgam`. Like the C compilers with
`-fno-math-errno`, lift does not count `errno` as memory these functions write (no program reads
it after a math call), nor the floating-point rounding mode as memory `rint`, `nearbyint` and
the conversions read (a program changes it only by calling `fesetround`, which is no pure function).
"""
from __future__ import annotations

# every one of these with its `float` (`f`) and `long double` (`l`) version
_MATH = ("sqrt", "cbrt", "hypot", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs", "sin",
         "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc",
         "rint", "nearbyint", "lround", "llround", "fmod", "fmin", "fmax", "fma", "erf", "erfc", "copysign")
_INTEGER = ("abs", "labs", "llabs")
# <math.h>'s classification macros, as the user writes them (host_effects.py and the CUDA backend read
# the exact text), and glibc's functions they expand to in the preprocessed text effects.py reads
# (frontend/preprocess.py hides `__GNUC__`, so glibc picks these over gcc's builtins)
_CLASSIFICATION = ("isnan", "isinf", "isfinite", "signbit")
_GLIBC_CLASSIFICATION = ("__isnan", "__isinf", "__finite", "__signbit")

# the versions for `double` and `float`, and the integer and classification functions, as written
WITHOUT_LONG_DOUBLE = frozenset({f + suffix for f in _MATH for suffix in ("", "f")} | set(_INTEGER)
                                | set(_CLASSIFICATION))
PURE_FUNCTIONS = WITHOUT_LONG_DOUBLE | {f + "l" for f in _MATH} \
    | {f + suffix for f in _GLIBC_CLASSIFICATION for suffix in ("", "f", "l")}

# Calls that end the program (glibc's assert fails through `__assert_fail`): no data effect a
# dependence could see, since nothing after them runs; their arguments (messages) are not data.
NORETURN_FUNCTIONS = {"abort", "exit", "_Exit", "quick_exit", "__assert_fail", "__assert_perror_fail",
                      "__assert", "__assert_rtn"}
