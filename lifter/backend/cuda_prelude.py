"""The fixed part of every CUDA output file: checked calls and launches, the buffer pool, copies
that count bytes, array views, atomics and the block-level reduction."""
# --------------------------------------------------------------------------------------
# The fixed part of every output file (compiles under nvcc, and under g++ with
# cuda_emulation.h force-included, which defines LIFT_CUDA_EMULATION).

PRELUDE = r"""/* ---- lift: CUDA runtime support (generated; see lift's docs/architecture.md) ----
 * nvcc -O3 -arch=native FILE.cu -o prog        build for the GPU
 * -DLIFT_PROFILE                                print each kernel's launches and time at exit
 * g++ -x c++ -include cuda_emulation.h FILE.cu  run the kernels on the CPU (lift's tests)
 */
#ifndef LIFT_CUDA_PRELUDE
#define LIFT_CUDA_PRELUDE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#ifndef LIFT_CUDA_EMULATION
#include <cuda_runtime.h>
#define LIFT_HD __host__ __device__
#else
#define LIFT_HD
#endif

/* Every CUDA call and every launch is checked: file, line and the error, then exit(1). */
#define LIFT_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t lift_err_ = (call);                                                         \
        if (lift_err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(lift_err_), #call);                                      \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

#ifdef LIFT_CUDA_EMULATION
#define LIFT_KERNEL_CALL(kernel, grid, block, ...) LIFT_EMU_LAUNCH(kernel, grid, block, __VA_ARGS__)
#else
#define LIFT_KERNEL_CALL(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#endif

#ifdef LIFT_PROFILE
/* Kernel time from CUDA events around every launch (synchronizes after each). */
struct lift_prof_entry { const char *name; long launches; double ms; };
static lift_prof_entry lift_prof_table[256];
static int lift_prof_count = 0;
static void lift_prof_report(void) {
    for (int i = 0; i < lift_prof_count; i++)
        fprintf(stderr, "lift-profile: %s launches %ld time_ms %.3f\n", lift_prof_table[i].name,
                lift_prof_table[i].launches, lift_prof_table[i].ms);
}
static void lift_prof_add(const char *name, float ms) {
    int i = 0;
    while (i < lift_prof_count && strcmp(lift_prof_table[i].name, name) != 0) i++;
    if (i == lift_prof_count) {
        if (lift_prof_count == 256) return;
        if (lift_prof_count == 0) atexit(lift_prof_report);
        lift_prof_table[lift_prof_count++] = lift_prof_entry{name, 0, 0.0};
    }
    lift_prof_table[i].launches++;
    lift_prof_table[i].ms += ms;
}
#define LIFT_LAUNCH(kernel, grid, block, ...)                                                   \
    do {                                                                                        \
        cudaEvent_t lift_e0_, lift_e1_;                                                         \
        float lift_ms_ = 0;                                                                     \
        LIFT_CHECK(cudaEventCreate(&lift_e0_));                                                 \
        LIFT_CHECK(cudaEventCreate(&lift_e1_));                                                 \
        LIFT_CHECK(cudaEventRecord(lift_e0_, 0));                                               \
        LIFT_KERNEL_CALL(kernel, grid, block, __VA_ARGS__);                                     \
        LIFT_CHECK(cudaGetLastError());                                                         \
        LIFT_CHECK(cudaEventRecord(lift_e1_, 0));                                               \
        LIFT_CHECK(cudaEventSynchronize(lift_e1_));                                             \
        LIFT_CHECK(cudaEventElapsedTime(&lift_ms_, lift_e0_, lift_e1_));                        \
        lift_prof_add(#kernel, lift_ms_);                                                       \
        LIFT_CHECK(cudaEventDestroy(lift_e0_));                                                 \
        LIFT_CHECK(cudaEventDestroy(lift_e1_));                                                 \
    } while (0)
#else
#define LIFT_LAUNCH(kernel, grid, block, ...)                                                   \
    do {                                                                                        \
        LIFT_KERNEL_CALL(kernel, grid, block, __VA_ARGS__);                                     \
        LIFT_CHECK(cudaGetLastError());                                                         \
    } while (0)
#endif

/* Device buffers: a nest's buffers go back to a small pool when it ends, so a nest in a function
   called again and again does not pay cudaMalloc and cudaFree (which synchronizes) every time. */
#define LIFT_POOL_SLOTS 32
struct lift_pool_entry { char *p; size_t n; };
inline lift_pool_entry lift_pool[LIFT_POOL_SLOTS];
inline cudaError_t lift_pool_flush(void) {
    for (int i = 0; i < LIFT_POOL_SLOTS; i++)
        if (lift_pool[i].p) {
            cudaError_t e = cudaFree(lift_pool[i].p);
            lift_pool[i].p = 0;
            if (e != cudaSuccess) return e;
        }
    return cudaSuccess;
}
inline cudaError_t lift_malloc(char **p, size_t n) {
    for (int i = 0; i < LIFT_POOL_SLOTS; i++)
        if (lift_pool[i].p && lift_pool[i].n >= n && lift_pool[i].n / 2 <= n) {
            *p = lift_pool[i].p;
            lift_pool[i].p = 0;
#ifdef LIFT_CUDA_EMULATION
            memset(*p, 0xff, n); /* poisoned like a fresh allocation */
#endif
            return cudaSuccess;
        }
    cudaError_t e = cudaMalloc((void **)p, n);
    if (e == cudaErrorMemoryAllocation) { /* pooled buffers may be what is missing */
        (void)cudaGetLastError();
        e = lift_pool_flush();
        if (e == cudaSuccess) e = cudaMalloc((void **)p, n);
    }
    return e;
}
inline cudaError_t lift_free(char *p, size_t n) {
    if (!p) return cudaSuccess;
    for (int i = 0; i < LIFT_POOL_SLOTS; i++)
        if (!lift_pool[i].p) {
            lift_pool[i].p = p;
            lift_pool[i].n = n;
            return cudaSuccess;
        }
    return cudaFree(p);
}

/* Copies between host and device; with -DLIFT_PROFILE each data scope counts its bytes and adds
   them, with the minimum (what its nests read copied in once, what they write copied out once),
   to a table printed at exit: "lift-bytes: SITE runs R copied_in B copied_out B min_in B min_out B". */
#define LIFT_TO_DEVICE(dst, src, n)                                                             \
    do {                                                                                        \
        LIFT_CHECK(cudaMemcpy((dst), (src), (n), cudaMemcpyHostToDevice));                      \
        LIFT_COUNT(lift_bytes_in, n);                                                           \
    } while (0)
#define LIFT_TO_HOST(dst, src, n)                                                               \
    do {                                                                                        \
        LIFT_CHECK(cudaMemcpy((dst), (src), (n), cudaMemcpyDeviceToHost));                      \
        LIFT_COUNT(lift_bytes_out, n);                                                          \
    } while (0)
/* Host code inside an offloaded nest: rows [lo, hi] the GPU made newer come back before it (then
   none are), rows [lo, hi] it writes go to the device after it (clipped to the buffer's rows). */
#define LIFT_DIRTY_TO_HOST(host, dev, lo, hi, row)                                              \
    do {                                                                                        \
        if ((hi) >= (lo))                                                                       \
            LIFT_TO_HOST((char *)(host) + (lo) * (long)(row), (dev) + (lo) * (long)(row),       \
                         (size_t)((hi) - (lo) + 1) * (row));                                    \
        (lo) = 0;                                                                               \
        (hi) = -1;                                                                              \
    } while (0)
#define LIFT_ROWS_TO_DEVICE(dev, host, lo, hi, buf_lo, buf_rows, row)                           \
    do {                                                                                        \
        long lift_a_ = lift_imax((lo), (buf_lo)), lift_b_ = lift_imin((hi), (buf_lo) + (buf_rows) - 1); \
        if (lift_b_ >= lift_a_)                                                                 \
            LIFT_TO_DEVICE((dev) + lift_a_ * (long)(row), (const char *)(host) + lift_a_ * (long)(row), \
                           (size_t)(lift_b_ - lift_a_ + 1) * (row));                            \
    } while (0)
#ifdef LIFT_PROFILE
struct lift_bytes_entry { const char *site; long runs; double in, out, min_in, min_out; };
static lift_bytes_entry lift_bytes_table[256];
static int lift_bytes_count = 0;
static void lift_bytes_report(void) {
    for (int i = 0; i < lift_bytes_count; i++)
        fprintf(stderr, "lift-bytes: %s runs %ld copied_in %.0f copied_out %.0f min_in %.0f min_out %.0f\n",
                lift_bytes_table[i].site, lift_bytes_table[i].runs, lift_bytes_table[i].in,
                lift_bytes_table[i].out, lift_bytes_table[i].min_in, lift_bytes_table[i].min_out);
}
static void lift_bytes_add(const char *site, size_t in, size_t out, size_t min_in, size_t min_out) {
    int i = 0;
    while (i < lift_bytes_count && strcmp(lift_bytes_table[i].site, site) != 0) i++;
    if (i == lift_bytes_count) {
        if (lift_bytes_count == 256) return;
        if (lift_bytes_count == 0) atexit(lift_bytes_report);
        lift_bytes_table[lift_bytes_count++] = lift_bytes_entry{site, 0, 0, 0, 0, 0};
    }
    lift_bytes_entry *e = &lift_bytes_table[i];
    e->runs++;
    e->in += (double)in;
    e->out += (double)out;
    e->min_in += (double)min_in;
    e->min_out += (double)min_out;
}
#define LIFT_BYTES_START size_t lift_bytes_in = 0, lift_bytes_out = 0
#define LIFT_COUNT(counter, n) ((counter) += (n))
#define LIFT_BYTES(site, in, out, min_in, min_out) lift_bytes_add(site, in, out, min_in, min_out)
#else
#define LIFT_BYTES_START do {} while (0)
#define LIFT_COUNT(counter, n) ((void)0)
#define LIFT_BYTES(site, in, out, min_in, min_out) ((void)0)
#endif

/* Device data kept across calls. A *region* is a loop that calls the file's functions with offloaded
   nests; while one runs, their data scopes take their buffers from this table (one entry per host
   byte range, with where its current values are) instead of copying in, out and freeing at every
   call, and the region's end copies back what the device made newer and frees them. Entries never
   overlap; `at` describes the whole entry. */
#define LIFT_AT_HOST 0   /* the host holds the current values (the device copy may be stale) */
#define LIFT_AT_BOTH 1
#define LIFT_AT_DEVICE 2 /* the device holds them (the host copy may be stale) */
#define LIFT_PRESENT_MAX 64
struct lift_present_entry { const char *lo, *hi; char *dev; int at, busy, owner; };
inline lift_present_entry lift_present[LIFT_PRESENT_MAX];
inline int lift_present_count = 0;
inline int lift_region_depth = 0;
inline size_t lift_present_in = 0, lift_present_out = 0; /* bytes the table's own copies moved */
inline void lift_present_check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "lift: CUDA error: %s (%s)\n", cudaGetErrorString(e), what);
        exit(1);
    }
}
/* An entry's newer device values back to the host. */
inline void lift_present_back(lift_present_entry *e) {
    if (e->at != LIFT_AT_DEVICE) return;
    lift_present_check(cudaMemcpy((void *)e->lo, e->dev, (size_t)(e->hi - e->lo), cudaMemcpyDeviceToHost),
                       "copy back of device data kept across calls");
    lift_present_out += (size_t)(e->hi - e->lo);
    e->at = LIFT_AT_BOTH;
}
inline void lift_present_drop(int i) {
    lift_present_check(lift_free(lift_present[i].dev, (size_t)(lift_present[i].hi - lift_present[i].lo)),
                       "free of device data kept across calls");
    lift_present[i] = lift_present[--lift_present_count];
}
/* Host code is about to read (and, if `writes`, write) host bytes [lo, lo + n), or any memory (lo 0). */
inline void lift_present_host(const void *lo, size_t n, int writes) {
    const char *a = (const char *)lo, *b = a + n;
    for (int i = 0; i < lift_present_count; i++) {
        lift_present_entry *e = &lift_present[i];
        if (lo && !(e->lo < b && a < e->hi)) continue;
        lift_present_back(e);
        if (writes) e->at = LIFT_AT_HOST;
    }
}
struct lift_region_mark { int depth; size_t in, out; };
inline lift_region_mark lift_region_begin(void) {
    lift_region_mark m = {lift_region_depth++, lift_present_in, lift_present_out};
    return m;
}
inline void lift_region_end(lift_region_mark m, const char *site) {
    for (int i = lift_present_count - 1; i >= 0; i--)
        if (lift_present[i].owner > m.depth) {
            lift_present_back(&lift_present[i]);
            lift_present_drop(i);
        }
    lift_region_depth = m.depth;
#ifdef LIFT_PROFILE
    lift_bytes_add(site, lift_present_in - m.in, lift_present_out - m.out, 0, 0);
#else
    (void)site;
#endif
}
/* A data scope's buffer for host bytes [lo, lo + n): inside a region, the entry that holds them (*e,
   busy until the scope releases it), else a new buffer, registered as an entry when a region runs and
   no entry in use overlaps it; *at points at where its values are (the entry's, or *own). Entries that
   overlap it without holding it are copied back and dropped first. */
inline cudaError_t lift_present_acquire(char **dev, const void *host, size_t n, lift_present_entry **e, int *own,
                                        int **at) {
    const char *lo = (const char *)host, *hi = lo + n;
    *e = 0;
    *own = LIFT_AT_HOST;
    *at = own;
    if (lift_present_count == 0 && lift_region_depth == 0) return lift_malloc(dev, n ? n : 1);
    int shared = 0;
    for (int i = lift_present_count - 1; i >= 0; i--) {
        lift_present_entry *p = &lift_present[i];
        if (n && lift_region_depth && p->lo <= lo && hi <= p->hi) {
            *dev = p->dev + (lo - p->lo);
            *e = p;
            *at = &p->at;
            p->busy++;
            return cudaSuccess;
        }
        if (p->lo < hi && lo < p->hi) {
            lift_present_back(p);
            if (p->busy) {
                p->at = LIFT_AT_HOST; /* this scope's own buffer may write the bytes back */
                shared = 1;
            } else {
                lift_present_drop(i);
            }
        }
    }
    cudaError_t err = lift_malloc(dev, n ? n : 1);
    if (err == cudaSuccess && n && lift_region_depth && !shared && lift_present_count < LIFT_PRESENT_MAX) {
        lift_present_entry *p = &lift_present[lift_present_count++];
        p->lo = lo;
        p->hi = hi;
        p->dev = *dev;
        p->at = LIFT_AT_HOST;
        p->busy = 1;
        p->owner = lift_region_depth;
        *e = p;
        *at = &p->at;
    }
    return err;
}
/* Guarded copies of a scope's buffer that may be an entry: an entry moves whole. */
#define LIFT_PRESENT_IN(e, at, ...)                                                             \
    do {                                                                                        \
        if (*(at) == LIFT_AT_HOST) {                                                            \
            if (e) LIFT_TO_DEVICE((e)->dev, (e)->lo, (size_t)((e)->hi - (e)->lo));              \
            else __VA_ARGS__;                                                                   \
            *(at) = LIFT_AT_BOTH;                                                               \
        }                                                                                       \
    } while (0)
#define LIFT_PRESENT_OUT(e, at, ...)                                                            \
    do {                                                                                        \
        if (*(at) == LIFT_AT_DEVICE) {                                                          \
            if (e) LIFT_TO_HOST((char *)(e)->lo, (e)->dev, (size_t)((e)->hi - (e)->lo));        \
            else __VA_ARGS__;                                                                   \
            *(at) = LIFT_AT_BOTH;                                                               \
        }                                                                                       \
    } while (0)

/* Grid sizes: enough blocks for n iterations, capped (kernels loop grid-stride). */
#define LIFT_GRID_X_MAX 2147483647L
#define LIFT_GRID_YZ_MAX 65535L
#define LIFT_REDUCTION_GRID_MAX 1024L
inline unsigned lift_blocks(long n, long per_block, long max_blocks) {
    long b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > max_blocks ? max_blocks : b);
}

/* Integer helpers for loop bounds printed by isl. */
LIFT_HD inline long lift_imin(long a, long b) { return a < b ? a : b; }
LIFT_HD inline long lift_imax(long a, long b) { return a > b ? a : b; }
LIFT_HD inline long lift_floord(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
/* The hull [*lo, *hi] of row ranges, leaving out empty ones (hi < lo). */
inline void lift_hull(long *lo, long *hi, long a, long b) {
    if (b < a) return;
    if (*hi < *lo) { *lo = a; *hi = b; return; }
    if (a < *lo) *lo = a;
    if (b > *hi) *hi = b;
}

/* Types taken from the host's declarations (kernels are templates over them). */
template <class T> struct lift_noref { typedef T type; };
template <class T> struct lift_noref<T &> { typedef T type; };
#define LIFT_T(e) lift_noref<decltype(e)>::type
template <class T> struct lift_tag {};

/* Device views of multi-dimensional arrays, indexed like the host's A[i][j]. */
template <class T> struct lift_view2 {
    T *p;
    long s1;
    LIFT_HD T *operator[](long i) const { return p + i * s1; }
};
template <class T> struct lift_view3 {
    T *p;
    long s1, s2;
    LIFT_HD lift_view2<T> operator[](long i) const { lift_view2<T> v = {p + i * s1 * s2, s2}; return v; }
};
template <class T> struct lift_view4 {
    T *p;
    long s1, s2, s3;
    LIFT_HD lift_view3<T> operator[](long i) const { lift_view3<T> v = {p + i * s1 * s2 * s3, s2, s3}; return v; }
};
template <class T> inline T *lift_ptr_of(T &, char *d) { return (T *)d; }
template <class T> inline lift_view2<T> lift_view2_of(T &, char *d, long s1) {
    lift_view2<T> v = {(T *)d, s1};
    return v;
}
template <class T> inline lift_view3<T> lift_view3_of(T &, char *d, long s1, long s2) {
    lift_view3<T> v = {(T *)d, s1, s2};
    return v;
}
template <class T> inline lift_view4<T> lift_view4_of(T &, char *d, long s1, long s2, long s3) {
    lift_view4<T> v = {(T *)d, s1, s2, s3};
    return v;
}

/* Reductions: operators, atomics (native where CUDA has one, else a compare-and-swap loop). */
struct lift_op_add { template <class T> LIFT_HD static T apply(T a, T b) { return a + b; } };
struct lift_op_mul { template <class T> LIFT_HD static T apply(T a, T b) { return a * b; } };
struct lift_op_and { template <class T> LIFT_HD static T apply(T a, T b) { return a & b; } };
struct lift_op_or { template <class T> LIFT_HD static T apply(T a, T b) { return a | b; } };
struct lift_op_xor { template <class T> LIFT_HD static T apply(T a, T b) { return a ^ b; } };
struct lift_op_min { template <class T> LIFT_HD static T apply(T a, T b) { return b < a ? b : a; } };
struct lift_op_max { template <class T> LIFT_HD static T apply(T a, T b) { return b > a ? b : a; } };

#ifdef LIFT_CUDA_EMULATION
template <class Op, class T> inline void lift_atomic(Op, T *p, T v) { *p = Op::apply(*p, v); }
#else
template <int N> struct lift_word;
template <> struct lift_word<4> { typedef unsigned int type; };
template <> struct lift_word<8> { typedef unsigned long long type; };
template <class Op, class T> __device__ inline void lift_atomic(Op, T *p, T v) {
    typedef typename lift_word<sizeof(T)>::type W;
    W *word = (W *)p;
    W old = *word, assumed;
    do {
        assumed = old;
        T cur, next;
        memcpy(&cur, &assumed, sizeof(T));
        next = Op::apply(cur, v);
        W desired;
        memcpy(&desired, &next, sizeof(T));
        if (desired == assumed) break;
        old = atomicCAS(word, assumed, desired);
    } while (old != assumed);
}
__device__ inline void lift_atomic(lift_op_add, double *p, double v) { atomicAdd(p, v); }
__device__ inline void lift_atomic(lift_op_add, float *p, float v) { atomicAdd(p, v); }
__device__ inline void lift_atomic(lift_op_add, int *p, int v) { atomicAdd(p, v); }
__device__ inline void lift_atomic(lift_op_add, unsigned *p, unsigned v) { atomicAdd(p, v); }
__device__ inline void lift_atomic(lift_op_add, unsigned long long *p, unsigned long long v) { atomicAdd(p, v); }
__device__ inline void lift_atomic(lift_op_min, int *p, int v) { atomicMin(p, v); }
__device__ inline void lift_atomic(lift_op_max, int *p, int v) { atomicMax(p, v); }
#endif

/* An update of an array element that several threads may update: y[j] += e. */
template <class Op, class T, class V> __device__ inline void lift_atomic_update(Op op, T *p, V v) {
    lift_atomic(op, p, (T)v);
}

/* Block-level tree reduction in shared memory, then one atomic per block.
   Blocks of reduction kernels have LIFT_BLOCK_THREADS threads (a power of two). */
#define LIFT_BLOCK_THREADS 256
__device__ inline unsigned lift_thread_rank(void) {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
/* The thread's rank in the whole grid: its slice of a scratch buffer (per-thread arrays). */
__device__ inline size_t lift_global_rank(void) {
    size_t block = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    return block * (blockDim.x * blockDim.y * blockDim.z) + lift_thread_rank();
}
template <class Op, class T> inline void lift_tree(Op, T *buf, unsigned n) {
    for (unsigned s = n / 2; s > 0; s >>= 1)
        for (unsigned tid = 0; tid < s; tid++)
            buf[tid] = Op::apply(buf[tid], buf[tid + s]);
}
#ifdef LIFT_CUDA_EMULATION
template <class Op, class T> void lift_emu_finish(void *buf, unsigned n, void *acc) {
    lift_tree(Op(), (T *)buf, n);
    lift_atomic(Op(), (T *)acc, ((T *)buf)[0]);
}
#endif
template <class Op, class T> __device__ inline void lift_block_reduce(Op op, T *acc, T v) {
#ifdef LIFT_CUDA_EMULATION
    /* Threads run one at a time: each stores its partial, and when the block is done the
       same tree as on the GPU runs over the buffer (see cuda_emulation.h). */
    (void)op;
    T *buf = (T *)lift_emu_block_buffer(sizeof(T), lift_emu_finish<Op, T>, acc);
    buf[lift_thread_rank()] = v;
#else
    __shared__ T buf[LIFT_BLOCK_THREADS];
    unsigned tid = lift_thread_rank(), n = blockDim.x * blockDim.y * blockDim.z;
    __syncthreads();
    buf[tid] = v;
    __syncthreads();
    for (unsigned s = n / 2; s > 0; s >>= 1) {
        if (tid < s) buf[tid] = Op::apply(buf[tid], buf[tid + s]);
        __syncthreads();
    }
    if (tid == 0) lift_atomic(op, acc, buf[0]);
#endif
}
#endif /* LIFT_CUDA_PRELUDE */
"""

END_MARK = "/* ---- end of lift's CUDA runtime support ---- */\n"
