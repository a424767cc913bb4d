/* hand_omp.h - the hand-written OpenMP baseline of the mini-applications.
 *
 * An app marks the loops a user would parallelize by hand with OMP(omp ...) on the line
 * before them.  `make OMP=1` (app.mk) compiles with -DHAND_OMP -fopenmp and the marks become
 * pragmas; every other build (plain, and the input lift sees) expands them to nothing, so lift
 * is given the sequential program and the same sources give the baseline it is compared with.
 * A macro rather than #ifdef around each pragma keeps the sources readable. */
#ifndef HAND_OMP_H
#define HAND_OMP_H

#ifdef HAND_OMP
#define OMP(directive) _Pragma(#directive)
#else
#define OMP(directive)
#endif

#endif
