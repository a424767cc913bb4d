/* hand_omp.h - the hand-written OpenMP baseline of the mini-applications.
 *
 * An app marks the loops a user would parallelize by hand with OMP(omp ...) on the line
 * before them.  `make OMP=1` (app.mk) compiles with -DHAND_OMP -fopenmp and the marks become
 * pragmas; every other build (plain, and the input lift sees) expands them to nothing, so lift
 * is given the sequential program and the same sources give the baseline it is compared with.
 * A macro rather than #ifdef around each pragma keeps the sources readable.  OMP_THREADS()
 * and OMP_THREAD() size and pick per-thread scratch buffers, as hand-parallelized codes do
 * (1 and 0 in the sequential build). */
#ifndef HAND_OMP_H
#define HAND_OMP_H

#ifdef HAND_OMP
#include <omp.h>
#define OMP(directive) _Pragma(#directive)
#define OMP_THREADS() omp_get_max_threads()
#define OMP_THREAD() omp_get_thread_num()
#else
#define OMP(directive)
#define OMP_THREADS() 1
#define OMP_THREAD() 0
#endif

#endif
