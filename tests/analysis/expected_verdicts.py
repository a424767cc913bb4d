"""Hand-derived loop-analysis facts for the corpus programs.

For each corpus file (path relative to corpus/): the loops of its kernel
functions (every function named kernel_*), all of them, in source order.

  function:  the enclosing kernel function.
  line:      1-based line number of the `for` keyword.
  var:       the loop variable.
  parallel:  True if the iterations of this loop can run in parallel as
             written: no loop-carried dependence other than on privatizable
             scalars and on reductions.  A loop whose only carried
             dependence is a reduction is parallel=True with the reduction
             listed.
  reduction: sorted list of (variable, operator) pairs the loop reduces
             into, operator in C form "+", "*", "min", "max".  Only listed
             when the loop's parallelism needs the reduction.  Conventions:
               - `x -= e` accumulates with "+" (as OpenMP's `-` reduction);
               - `m = fmax(m, e)`, `m = e > m ? e : m`, `if (e > m) m = e;`
                 and a MAX(m, e) macro are "max" (likewise "min");
               - a reduction into array elements names the array, e.g. the
                 k loop of a matmul accumulating into C[i][j] is ("C", "+"),
                 and a loop adding a whole row section (syrk's k loop, the
                 i loop of atax into y[j]) is an array reduction ("y", "+");
               - a scatter increment through an index array
                 (hist[key[i]]++, sums[assign[i]*dim + d] += ...) is an
                 array reduction over the whole array: ("hist", "+").
  private:   sorted list of scalar variables declared OUTSIDE the loop
             (typically inner loop variables declared at the top of a
             PolyBench-style function, `int i, j, k;`) that must be
             privatized to run the loop in parallel.  The loop's own
             variable is never listed; variables declared inside the loop
             body are private anyway and are not listed.

For loops with parallel=False, reduction and private are always [].

Semantic facts that a purely syntactic dependence test cannot see (the
verdicts follow the semantics):
  - dynprog/floyd_warshall.c: the i and j loops are parallel because with
    non-negative weights path[k][k] == 0, so row k and column k are not
    changed during iteration k (the read of path[i][k] / path[k][j] never
    sees a value written in the same k iteration).
  - dynprog/nussinov.c: the table is filled by anti-diagonals d = j - i;
    the i loop of one diagonal only reads earlier diagonals -> parallel.
  - restrict-qualified or distinct malloc'd buffers are assumed not to
    alias (miniapps/heat2d_app.c copies the struct pointers into restrict
    locals; miniapps/kmeans.c and particles.c access disjoint struct
    members/fields: particles' force loop reads p[j].x/.y and writes only
    p[i].fx/.fy).
  - reductions/minmax.c kernel_argmin and miniapps/kmeans.c's centroid loop
    `c` update a (value, index) pair together: not a reduction with a C
    operator, so parallel=False.
  - linearized subscripts (a[i*m + j]) are treated with their 2D meaning
    (m is the row length), e.g. datamining/correlation.c.
"""

EXPECTED = {
    # rows through an array of row pointers, `double *r = a[i];` read as a[i][j], parallel over
    # the rows under the run-time test that they are disjoint (issue 16)
    'linalg/row_pointers.c': [
        dict(function='kernel_fill', line=57, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fill', line=59, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_scale_rows', line=66, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_scale_rows', line=68, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_matvec', line=75, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_matvec', line=78, var='j', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_add', line=86, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_add', line=89, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_prefix', line=97, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_prefix', line=99, var='j', parallel=False, reduction=[], private=[]),
    ],
    'linalg/gemm.c': [
        dict(function='kernel_gemm', line=42, var='i', parallel=True, reduction=[], private=['j', 'k']),
        dict(function='kernel_gemm', line=43, var='j', parallel=True, reduction=[], private=['k']),
        dict(function='kernel_gemm', line=45, var='k', parallel=True, reduction=[('C', '+')], private=[]),
    ],
    'linalg/gemv.c': [
        dict(function='kernel_gemv', line=24, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_gemv', line=26, var='j', parallel=True, reduction=[('t', '+')], private=[]),
    ],
    'linalg/mvt.c': [
        dict(function='kernel_mvt', line=33, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_mvt', line=34, var='j', parallel=True, reduction=[('x1', '+')], private=[]),
        dict(function='kernel_mvt', line=37, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_mvt', line=38, var='j', parallel=True, reduction=[('x2', '+')], private=[]),
    ],
    'linalg/atax.c': [
        dict(function='kernel_atax', line=33, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_atax', line=35, var='i', parallel=True, reduction=[('y', '+')], private=[]),
        dict(function='kernel_atax', line=37, var='j', parallel=True, reduction=[('tmp', '+')], private=[]),
        dict(function='kernel_atax', line=39, var='j', parallel=True, reduction=[], private=[]),
    ],
    'linalg/bicg.c': [
        dict(function='kernel_bicg', line=25, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_bicg', line=27, var='i', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_bicg', line=29, var='j', parallel=True, reduction=[('q', '+')], private=[]),
    ],
    'linalg/two_mm.c': [
        dict(function='kernel_2mm', line=49, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_2mm', line=50, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_2mm', line=52, var='k', parallel=True, reduction=[('acc', '+')], private=[]),
        dict(function='kernel_2mm', line=58, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_2mm', line=59, var='l', parallel=True, reduction=[], private=[]),
        dict(function='kernel_2mm', line=61, var='j', parallel=True, reduction=[('D', '+')], private=[]),
    ],
    'linalg/syrk.c': [
        dict(function='kernel_syrk', line=33, var='i', parallel=True, reduction=[], private=['j', 'k']),
        dict(function='kernel_syrk', line=34, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_syrk', line=36, var='k', parallel=True, reduction=[('C', '+')], private=['j']),
        dict(function='kernel_syrk', line=37, var='j', parallel=True, reduction=[], private=[]),
    ],
    'linalg/trisolv.c': [
        dict(function='kernel_trisolv', line=21, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_trisolv', line=23, var='j', parallel=True, reduction=[('s', '+')], private=[]),
    ],
    'linalg/lu.c': [
        dict(function='kernel_lu', line=27, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_lu', line=29, var='j', parallel=False, reduction=[], private=[]),
        dict(function='kernel_lu', line=30, var='k', parallel=True, reduction=[('A', '+')], private=[]),
        dict(function='kernel_lu', line=35, var='j', parallel=True, reduction=[], private=['k']),
        dict(function='kernel_lu', line=36, var='k', parallel=True, reduction=[('A', '+')], private=[]),
    ],
    'linalg/cholesky.c': [
        dict(function='kernel_cholesky', line=30, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_cholesky', line=31, var='j', parallel=False, reduction=[], private=[]),
        dict(function='kernel_cholesky', line=32, var='k', parallel=True, reduction=[('A', '+')], private=[]),
        dict(function='kernel_cholesky', line=36, var='k', parallel=True, reduction=[('A', '+')], private=[]),
    ],
    'linalg/doitgen.c': [
        dict(function='kernel_doitgen', line=35, var='r', parallel=True, reduction=[], private=[]),
        dict(function='kernel_doitgen', line=36, var='q', parallel=True, reduction=[], private=[]),
        dict(function='kernel_doitgen', line=38, var='p', parallel=True, reduction=[], private=[]),
        dict(function='kernel_doitgen', line=40, var='s', parallel=True, reduction=[('sum', '+')], private=[]),
        dict(function='kernel_doitgen', line=43, var='p', parallel=True, reduction=[], private=[]),
    ],
    'stencils/row_filter.c': [
        # row (malloc'd) and w (fixed size) are rewritten whole before they are read in every i
        dict(function='kernel_row_filter', line=25, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_row_filter', line=26, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_row_filter', line=28, var='t', parallel=True, reduction=[], private=[]),
        dict(function='kernel_row_filter', line=30, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_row_filter', line=32, var='t', parallel=True, reduction=[('s', '+')], private=[]),
    ],
    'stencils/jacobi1d.c': [
        dict(function='kernel_jacobi1d', line=20, var='t', parallel=False, reduction=[], private=[]),
        dict(function='kernel_jacobi1d', line=21, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_jacobi1d', line=23, var='i', parallel=True, reduction=[], private=[]),
    ],
    'stencils/jacobi_conv.c': [
        dict(function='kernel_jacobi_conv', line=28, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_jacobi_conv', line=29, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_jacobi_conv', line=33, var='i', parallel=True, reduction=[('diff', 'max')], private=[]),
        dict(function='kernel_jacobi_conv', line=34, var='j', parallel=True, reduction=[('diff', 'max')], private=[]),
        dict(function='kernel_jacobi_conv', line=36, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_jacobi_conv', line=37, var='j', parallel=True, reduction=[], private=[]),
    ],
    'stencils/jacobi2d.c': [
        dict(function='kernel_jacobi2d', line=29, var='t', parallel=False, reduction=[], private=[]),
        dict(function='kernel_jacobi2d', line=30, var='i', parallel=True, reduction=[], private=['j']),
        dict(function='kernel_jacobi2d', line=31, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_jacobi2d', line=34, var='i', parallel=True, reduction=[], private=['j']),
        dict(function='kernel_jacobi2d', line=35, var='j', parallel=True, reduction=[], private=[]),
    ],
    'stencils/heat3d.c': [
        dict(function='kernel_heat3d', line=31, var='t', parallel=False, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=32, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=33, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=34, var='k', parallel=True, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=39, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=40, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_heat3d', line=41, var='k', parallel=True, reduction=[], private=[]),
    ],
    'stencils/seidel2d.c': [
        dict(function='kernel_seidel2d', line=27, var='t', parallel=False, reduction=[], private=[]),
        dict(function='kernel_seidel2d', line=28, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_seidel2d', line=29, var='j', parallel=False, reduction=[], private=[]),
    ],
    'stencils/fdtd2d.c': [
        dict(function='kernel_fdtd2d', line=36, var='t', parallel=False, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=37, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=39, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=40, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=42, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=43, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=45, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_fdtd2d', line=46, var='j', parallel=True, reduction=[], private=[]),
    ],
    'stencils/conv2d.c': [
        dict(function='kernel_conv2d', line=32, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_conv2d', line=33, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_conv2d', line=35, var='a', parallel=True, reduction=[('acc', '+')], private=[]),
        dict(function='kernel_conv2d', line=36, var='b', parallel=True, reduction=[('acc', '+')], private=[]),
    ],
    'stencils/blur_pipeline.c': [
        dict(function='pipeline', line=22, var='r', parallel=False, reduction=[], private=[]),
        dict(function='pipeline', line=23, var='i', parallel=True, reduction=[], private=[]),
        dict(function='pipeline', line=24, var='j', parallel=True, reduction=[], private=[]),
        dict(function='pipeline', line=26, var='i', parallel=True, reduction=[], private=[]),
        dict(function='pipeline', line=27, var='j', parallel=True, reduction=[], private=[]),
        dict(function='pipeline', line=29, var='i', parallel=True, reduction=[], private=[]),
        dict(function='pipeline', line=30, var='j', parallel=True, reduction=[], private=[]),
    ],
    'reductions/dot.c': [
        dict(function='kernel_dot', line=19, var='i', parallel=True, reduction=[('sum', '+')], private=[]),
        dict(function='kernel_idot', line=27, var='i', parallel=True, reduction=[('acc', '+')], private=[]),
    ],
    'reductions/norm2.c': [
        dict(function='kernel_norm2', line=21, var='i', parallel=True, reduction=[('ss', '+')], private=[]),
        dict(function='kernel_norminf', line=29, var='i', parallel=True, reduction=[('m', 'max')], private=[]),
        dict(function='kernel_norms', line=38, var='i', parallel=True, reduction=[('mx', 'max'), ('ss', '+')], private=[]),
    ],
    'reductions/minmax.c': [
        dict(function='kernel_minmax', line=22, var='i', parallel=True, reduction=[('hi', 'max'), ('lo', 'min')], private=[]),
        dict(function='kernel_argmin', line=35, var='i', parallel=False, reduction=[], private=[]),
    ],
    # accumulators behind output pointers (issue 16): `*result += e` reduces into result[0]
    'reductions/out_pointer.c': [
        dict(function='kernel_dot', line=32, var='i', parallel=True, reduction=[('result', '+')], private=[]),
        dict(function='kernel_norm', line=39, var='i', parallel=True, reduction=[('out', '+')], private=[]),
        dict(function='kernel_peak', line=47, var='i', parallel=True, reduction=[('peak', 'max')], private=[]),
        dict(function='kernel_count', line=55, var='i', parallel=True, reduction=[('count', '+')], private=[]),
        dict(function='kernel_running', line=63, var='i', parallel=False, reduction=[], private=[]),
    ],
    'reductions/histogram.c': [
        dict(function='kernel_histogram', line=28, var='b', parallel=True, reduction=[], private=[]),
        dict(function='kernel_histogram', line=30, var='i', parallel=True, reduction=[('hist', '+')], private=[]),
        dict(function='kernel_prefix', line=37, var='b', parallel=False, reduction=[], private=[]),
        dict(function='kernel_normalize', line=43, var='b', parallel=True, reduction=[], private=[]),
    ],
    'reductions/sum2d.c': [
        dict(function='kernel_rowsum', line=23, var='i', parallel=True, reduction=[('total', '+')], private=[]),
        dict(function='kernel_rowsum', line=25, var='j', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_colsum', line=35, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_colsum', line=37, var='i', parallel=True, reduction=[('col', '+')], private=[]),
    ],
    'datamining/covariance.c': [
        dict(function='kernel_covariance', line=29, var='j', parallel=True, reduction=[], private=['i']),
        dict(function='kernel_covariance', line=31, var='i', parallel=True, reduction=[('mean', '+')], private=[]),
        dict(function='kernel_covariance', line=36, var='i', parallel=True, reduction=[], private=['j']),
        dict(function='kernel_covariance', line=37, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_covariance', line=40, var='i', parallel=True, reduction=[], private=['j', 'k']),
        dict(function='kernel_covariance', line=41, var='j', parallel=True, reduction=[], private=['k']),
        dict(function='kernel_covariance', line=43, var='k', parallel=True, reduction=[('cov', '+')], private=[]),
    ],
    'datamining/correlation.c': [
        dict(function='kernel_correlation', line=28, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=30, var='i', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_correlation', line=36, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=38, var='i', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_correlation', line=47, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=48, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=52, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=54, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_correlation', line=56, var='k', parallel=True, reduction=[('c', '+')], private=[]),
    ],
    'dynprog/floyd_warshall.c': [
        dict(function='kernel_floyd_warshall', line=31, var='k', parallel=False, reduction=[], private=[]),
        dict(function='kernel_floyd_warshall', line=32, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_floyd_warshall', line=33, var='j', parallel=True, reduction=[], private=[]),
    ],
    'dynprog/nussinov.c': [
        dict(function='kernel_nussinov', line=31, var='d', parallel=False, reduction=[], private=[]),
        dict(function='kernel_nussinov', line=32, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_nussinov', line=36, var='k', parallel=True, reduction=[('best', 'max')], private=[]),
    ],
    # interleaved components q[NC*(j*nx + i) + c] read as q[j][NC*i + c] (issue 16)
    'stencils/interleaved.c': [
        dict(function='kernel_smooth', line=38, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_smooth', line=39, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_smooth', line=40, var='c', parallel=True, reduction=[], private=[]),
        dict(function='kernel_velocity', line=49, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_velocity', line=50, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_push', line=59, var='p', parallel=True, reduction=[], private=[]),
        dict(function='kernel_push', line=63, var='d', parallel=True, reduction=[], private=[]),
        dict(function='kernel_shift', line=71, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_shift', line=72, var='i', parallel=False, reduction=[], private=[]),
    ],
    # cells that reach across their row's end (reach17): NC*j*nx + NC*i + c, a right neighbour
    # that is the next row's first cell, faces at i <= nx; each access read in pieces
    'stencils/cell_rows.c': [
        dict(function='kernel_scale', line=33, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_scale', line=34, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_scale', line=35, var='c', parallel=True, reduction=[], private=[]),
        dict(function='kernel_transport', line=42, var='j', parallel=False, reduction=[], private=[]),
        dict(function='kernel_transport', line=43, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_transport', line=44, var='c', parallel=True, reduction=[], private=[]),
        dict(function='kernel_transport_to', line=51, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_faces', line=60, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_faces', line=61, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_density', line=68, var='j', parallel=False, reduction=[], private=[]),
        dict(function='kernel_density', line=69, var='i', parallel=True, reduction=[], private=[]),
    ],
    # a padded grid's sizes as row and column indices: u[(ny + 1)*(nx + 2) + i], the ghost columns
    # parallel where nx >= 0, a test made before the loop (issue 16)
    'stencils/padded_bc.c': [
        dict(function='kernel_ghost_rows', line=30, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_ghost_columns', line=38, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_sweep', line=46, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_sweep', line=47, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_top_flux', line=57, var='i', parallel=True, reduction=[('flux', '+')], private=[]),
    ],
    'sparse/spmv_csr.c': [
        dict(function='kernel_spmv', line=68, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_spmv', line=70, var='p', parallel=True, reduction=[('s', '+')], private=[]),
    ],
    'miniapps/heat2d_app.c': [
        dict(function='kernel_sweep', line=68, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_sweep', line=69, var='j', parallel=True, reduction=[], private=[]),
        dict(function='kernel_maxdiff', line=80, var='k', parallel=True, reduction=[('diff', 'max')], private=[]),
    ],
    'miniapps/particles.c': [
        dict(function='kernel_forces', line=42, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_forces', line=45, var='j', parallel=True, reduction=[('fx', '+'), ('fy', '+')], private=[]),
        dict(function='kernel_integrate', line=62, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_energy', line=73, var='i', parallel=True, reduction=[('ke', '+')], private=[]),
    ],
    'miniapps/cg_dense.c': [
        dict(function='kernel_dot', line=34, var='i', parallel=True, reduction=[('s', '+')], private=[]),
        dict(function='kernel_axpy', line=42, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_xpay', line=49, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_matvec', line=57, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_matvec', line=59, var='j', parallel=True, reduction=[('s', '+')], private=[]),
    ],
    'miniapps/kmeans.c': [
        dict(function='kernel_assign', line=44, var='i', parallel=True, reduction=[('changed', '+')], private=[]),
        dict(function='kernel_assign', line=47, var='c', parallel=False, reduction=[], private=[]),
        dict(function='kernel_assign', line=49, var='d', parallel=True, reduction=[('dist', '+')], private=[]),
        dict(function='kernel_update', line=68, var='t', parallel=True, reduction=[], private=[]),
        dict(function='kernel_update', line=70, var='c', parallel=True, reduction=[], private=[]),
        dict(function='kernel_update', line=72, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_update', line=75, var='d', parallel=True, reduction=[], private=[]),
        dict(function='kernel_update', line=78, var='c', parallel=True, reduction=[], private=[]),
        dict(function='kernel_update', line=80, var='d', parallel=True, reduction=[], private=[]),
    ],
    # pointers that step once per iteration, `*dst++ = *src++`, read as indices (frontend/pointer_steps.py,
    # the `while (n--)` loops become `for (... lift_k ...)`, reported as loops over n); the compaction stays sequential (issue 16)
    # pointers stepped several times an iteration, backwards and before the access, and read after
    # the loop (stepped past it there), a `while (count--)` reported by its counter (reach17)
    'miniapps/pointer_pack.c': [
        dict(function='kernel_pack', line=32, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_interleave', line=44, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_push_weights', line=53, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_unpack', line=61, var='count', parallel=True, reduction=[], private=[]),
        dict(function='main', line=78, var='step', parallel=False, reduction=[], private=[]),
    ],
    # block calls with byte counts and offset pointers: memcpy(d + y*w, s + y*w, w) of bytes,
    # memset(acc + y*w + 1, 0, (w - 2)*sizeof *acc), w * 8 bytes of doubles (reach17)
    'miniapps/frame_blocks.c': [
        dict(function='kernel_copy_frame', line=38, var='y', parallel=True, reduction=[], private=[]),
        dict(function='kernel_clear_interior', line=45, var='y', parallel=True, reduction=[], private=[]),
        dict(function='kernel_accumulate', line=52, var='y', parallel=True, reduction=[], private=[]),
        dict(function='kernel_store_rows', line=60, var='y', parallel=True, reduction=[], private=[]),
        dict(function='main', line=75, var='step', parallel=False, reduction=[], private=[]),
    ],
    # a pointer to an array's struct element, `Particle *q = &parts[i]; q->vx += ...`, read as
    # parts[i].vx (pointer_aliases.py); a pointer to the neighbour carries a recurrence (reach17)
    'miniapps/particle_refs.c': [
        dict(function='kernel_step', line=30, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_energy', line=45, var='i', parallel=True, reduction=[('e', '+')], private=[]),
        dict(function='kernel_chain', line=56, var='i', parallel=False, reduction=[], private=[]),
    ],
    'miniapps/pointer_walk.c': [
        dict(function='kernel_ramp', line=25, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_scale_copy', line=31, var='n', parallel=True, reduction=[], private=[]),
        dict(function='kernel_axpy', line=37, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_mix', line=43, var='n', parallel=True, reduction=[], private=[]),
        dict(function='kernel_compact', line=55, var='i', parallel=False, reduction=[], private=[]),
    ],
    # the scatter (line 43) is sequential as written: each key reads its bucket's running offset
    # (the OpenMP backend runs it as a bucket scatter all the same, transform/bucket_scatter.py)
    'miniapps/bucket_sort.c': [
        dict(function='kernel_place', line=34, var='b', parallel=True, reduction=[], private=[]),
        dict(function='kernel_place', line=36, var='i', parallel=True, reduction=[('count', '+')], private=[]),
        dict(function='kernel_place', line=39, var='b', parallel=False, reduction=[], private=[]),
        dict(function='kernel_place', line=43, var='i', parallel=False, reduction=[], private=[]),
    ],
    # the corner-force scatter (lines 100, 105) adds into the nodes that neighbouring elements share:
    # sequential as written (issue 16's idiom 12: never a race)
    'miniapps/mesh_hydro.c': [
        dict(function='kernel_volume', line=56, var='e', parallel=True, reduction=[], private=[]),
        dict(function='kernel_viscosity', line=69, var='e', parallel=True, reduction=[], private=[]),
        dict(function='kernel_viscosity', line=71, var='k', parallel=True, reduction=[('div', '+')], private=[]),
        dict(function='kernel_eos', line=85, var='e', parallel=True, reduction=[], private=[]),
        dict(function='kernel_force', line=96, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_force', line=100, var='e', parallel=False, reduction=[], private=[]),
        dict(function='kernel_force', line=105, var='k', parallel=False, reduction=[], private=[]),
        dict(function='kernel_nodes', line=118, var='i', parallel=True, reduction=[], private=[]),
        dict(function='kernel_energy', line=130, var='e', parallel=True, reduction=[], private=[]),
    ],
    # scatters with the step a statement of its own, `end[k]--; order[end[k]] = i;` and
    # `col[next[r]] = e; ++next[r];`: sequential as written (run as bucket scatters, reach17)
    'miniapps/cell_bins.c': [
        dict(function='kernel_place', line=36, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_assemble', line=46, var='e', parallel=False, reduction=[], private=[]),
    ],
    # the ranking (line 37) is parallel when every key of a bucket lies in the bucket's own range
    # (a pass over the keys tests it, analysis/owned_rows.py); the placement (line 54) counts its
    # offsets down, sequential as written (run as a bucket scatter); the pairs share their offsets
    'miniapps/bucket_rank.c': [
        dict(function='kernel_rank', line=37, var='b', parallel=True, reduction=[], private=[]),
        dict(function='kernel_place', line=54, var='i', parallel=False, reduction=[], private=[]),
        dict(function='kernel_pairs', line=63, var='i', parallel=False, reduction=[], private=[]),
    ],
}
