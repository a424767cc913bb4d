/* sparse.h - a sparse matrix in compressed sparse row form. */
#ifndef CGCSR_SPARSE_H
#define CGCSR_SPARSE_H

typedef struct {
    int nrows;
    int nnz;
    int *rowptr; /* nrows + 1 offsets into col and val */
    int *col;
    double *val;
} CsrMatrix;

CsrMatrix *poisson3d(int nx, int ny, int nz);
void csr_free(CsrMatrix *a);
void spmv(const CsrMatrix *a, const double *x, double *y);

#endif
