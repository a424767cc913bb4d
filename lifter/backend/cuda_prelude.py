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
struct lift_prof_entry { const char *lift_name; long lift_launches; double lift_ms; };
static lift_prof_entry lift_prof_table[256];
static int lift_prof_count = 0;
static void lift_prof_report(void) {
    for (int lift_i = 0; lift_i < lift_prof_count; lift_i++)
        fprintf(stderr, "lift-profile: %s launches %ld time_ms %.3f\n", lift_prof_table[lift_i].lift_name,
                lift_prof_table[lift_i].lift_launches, lift_prof_table[lift_i].lift_ms);
}
static void lift_prof_add(const char *lift_name, float lift_ms) {
    int lift_i = 0;
    while (lift_i < lift_prof_count && strcmp(lift_prof_table[lift_i].lift_name, lift_name) != 0) lift_i++;
    if (lift_i == lift_prof_count) {
        if (lift_prof_count == 256) return;
        if (lift_prof_count == 0) atexit(lift_prof_report);
        lift_prof_table[lift_prof_count++] = lift_prof_entry{lift_name, 0, 0.0};
    }
    lift_prof_table[lift_i].lift_launches++;
    lift_prof_table[lift_i].lift_ms += lift_ms;
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
struct lift_pool_entry { char *lift_p; size_t lift_n; };
inline lift_pool_entry lift_pool[LIFT_POOL_SLOTS];
inline cudaError_t lift_pool_flush(void) {
    for (int lift_i = 0; lift_i < LIFT_POOL_SLOTS; lift_i++)
        if (lift_pool[lift_i].lift_p) {
            cudaError_t lift_e = cudaFree(lift_pool[lift_i].lift_p);
            lift_pool[lift_i].lift_p = 0;
            if (lift_e != cudaSuccess) return lift_e;
        }
    return cudaSuccess;
}
inline cudaError_t lift_malloc(char **lift_p, size_t lift_n) {
    for (int lift_i = 0; lift_i < LIFT_POOL_SLOTS; lift_i++)
        if (lift_pool[lift_i].lift_p && lift_pool[lift_i].lift_n >= lift_n && lift_pool[lift_i].lift_n / 2 <= lift_n) {
            *lift_p = lift_pool[lift_i].lift_p;
            lift_pool[lift_i].lift_p = 0;
#ifdef LIFT_CUDA_EMULATION
            memset(*lift_p, 0xff, lift_n); /* poisoned like a fresh allocation */
#endif
            return cudaSuccess;
        }
    cudaError_t lift_e = cudaMalloc((void **)lift_p, lift_n);
    if (lift_e == cudaErrorMemoryAllocation) { /* pooled buffers may be what is missing */
        (void)cudaGetLastError();
        lift_e = lift_pool_flush();
        if (lift_e == cudaSuccess) lift_e = cudaMalloc((void **)lift_p, lift_n);
    }
    return lift_e;
}
inline cudaError_t lift_free(char *lift_p, size_t lift_n) {
    if (!lift_p) return cudaSuccess;
    for (int lift_i = 0; lift_i < LIFT_POOL_SLOTS; lift_i++)
        if (!lift_pool[lift_i].lift_p) {
            lift_pool[lift_i].lift_p = lift_p;
            lift_pool[lift_i].lift_n = lift_n;
            return cudaSuccess;
        }
    return cudaFree(lift_p);
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
struct lift_bytes_entry { const char *lift_site; long lift_runs; double lift_in, lift_out, lift_min_in, lift_min_out; };
static lift_bytes_entry lift_bytes_table[256];
static int lift_bytes_count = 0;
static void lift_bytes_report(void) {
    for (int lift_i = 0; lift_i < lift_bytes_count; lift_i++)
        fprintf(stderr, "lift-bytes: %s runs %ld copied_in %.0f copied_out %.0f min_in %.0f min_out %.0f\n",
                lift_bytes_table[lift_i].lift_site, lift_bytes_table[lift_i].lift_runs, lift_bytes_table[lift_i].lift_in,
                lift_bytes_table[lift_i].lift_out, lift_bytes_table[lift_i].lift_min_in, lift_bytes_table[lift_i].lift_min_out);
}
static void lift_bytes_add(const char *lift_site, size_t lift_in, size_t lift_out, size_t lift_min_in, size_t lift_min_out) {
    int lift_i = 0;
    while (lift_i < lift_bytes_count && strcmp(lift_bytes_table[lift_i].lift_site, lift_site) != 0) lift_i++;
    if (lift_i == lift_bytes_count) {
        if (lift_bytes_count == 256) return;
        if (lift_bytes_count == 0) atexit(lift_bytes_report);
        lift_bytes_table[lift_bytes_count++] = lift_bytes_entry{lift_site, 0, 0, 0, 0, 0};
    }
    lift_bytes_entry *lift_e = &lift_bytes_table[lift_i];
    lift_e->lift_runs++;
    lift_e->lift_in += (double)lift_in;
    lift_e->lift_out += (double)lift_out;
    lift_e->lift_min_in += (double)lift_min_in;
    lift_e->lift_min_out += (double)lift_min_out;
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
struct lift_present_entry { const char *lift_lo, *lift_hi; char *lift_dev; int lift_at, lift_busy, lift_owner; };
inline lift_present_entry lift_present[LIFT_PRESENT_MAX];
inline int lift_present_count = 0;
inline int lift_region_depth = 0;
inline size_t lift_present_in = 0, lift_present_out = 0; /* bytes the table's own copies moved */
inline void lift_present_check(cudaError_t lift_e, const char *lift_what) {
    if (lift_e != cudaSuccess) {
        fprintf(stderr, "lift: CUDA error: %s (%s)\n", cudaGetErrorString(lift_e), lift_what);
        exit(1);
    }
}
/* An entry's newer device values back to the host. */
inline void lift_present_back(lift_present_entry *lift_e) {
    if (lift_e->lift_at != LIFT_AT_DEVICE) return;
    lift_present_check(cudaMemcpy((void *)lift_e->lift_lo, lift_e->lift_dev, (size_t)(lift_e->lift_hi - lift_e->lift_lo), cudaMemcpyDeviceToHost),
                       "copy back of device data kept across calls");
    lift_present_out += (size_t)(lift_e->lift_hi - lift_e->lift_lo);
    lift_e->lift_at = LIFT_AT_BOTH;
}
inline void lift_present_drop(int lift_i) {
    lift_present_check(lift_free(lift_present[lift_i].lift_dev, (size_t)(lift_present[lift_i].lift_hi - lift_present[lift_i].lift_lo)),
                       "free of device data kept across calls");
    lift_present[lift_i] = lift_present[--lift_present_count];
}
/* Host code is about to read (and, if `writes`, write) host bytes [lo, lo + n), or any memory (lo 0). */
inline void lift_present_host(const void *lift_lo, size_t lift_n, int lift_writes) {
    const char *lift_a = (const char *)lift_lo, *lift_b = lift_a + lift_n;
    for (int lift_i = 0; lift_i < lift_present_count; lift_i++) {
        lift_present_entry *lift_e = &lift_present[lift_i];
        if (lift_lo && !(lift_e->lift_lo < lift_b && lift_a < lift_e->lift_hi)) continue;
        lift_present_back(lift_e);
        if (lift_writes) lift_e->lift_at = LIFT_AT_HOST;
    }
}
/* Host code wrote host bytes [lo, lo + n) (after lift_present_host(lo, n, 0)): an entry that holds
   them and the rest of its bytes as the host does gets them too, so a small write (`x[r % n] += 1`
   between calls) does not make the next call copy the whole entry in again. */
inline void lift_present_wrote(const void *lift_lo, size_t lift_n) {
    const char *lift_a = (const char *)lift_lo, *lift_b = lift_a + lift_n;
    for (int lift_i = 0; lift_i < lift_present_count; lift_i++) {
        lift_present_entry *lift_e = &lift_present[lift_i];
        if (!(lift_e->lift_lo < lift_b && lift_a < lift_e->lift_hi)) continue;
        if (lift_e->lift_at == LIFT_AT_BOTH && lift_e->lift_lo <= lift_a && lift_b <= lift_e->lift_hi) {
            lift_present_check(cudaMemcpy(lift_e->lift_dev + (lift_a - lift_e->lift_lo), lift_a, lift_n, cudaMemcpyHostToDevice),
                               "copy of a host write to device data kept across calls");
            lift_present_in += lift_n;
        } else {
            lift_e->lift_at = LIFT_AT_HOST;
        }
    }
}
struct lift_region_mark { int lift_depth; size_t lift_in, lift_out; };
inline lift_region_mark lift_region_begin(void) {
    lift_region_mark lift_m = {lift_region_depth++, lift_present_in, lift_present_out};
    return lift_m;
}
inline void lift_region_end(lift_region_mark lift_m, const char *lift_site) {
    for (int lift_i = lift_present_count - 1; lift_i >= 0; lift_i--)
        if (lift_present[lift_i].lift_owner > lift_m.lift_depth) {
            lift_present_back(&lift_present[lift_i]);
            lift_present_drop(lift_i);
        }
    lift_region_depth = lift_m.lift_depth;
#ifdef LIFT_PROFILE
    lift_bytes_add(lift_site, lift_present_in - lift_m.lift_in, lift_present_out - lift_m.lift_out, 0, 0);
#else
    (void)lift_site;
#endif
}
/* A data scope's buffer for host bytes [lo, lo + n): inside a region, the entry that holds them (*e,
   busy until the scope releases it), else a new buffer, registered as an entry when a region runs and
   no entry in use overlaps it; *at points at where its values are (the entry's, or *own). Entries that
   overlap it without holding it are copied back and dropped first. */
inline cudaError_t lift_present_acquire(char **lift_dev, const void *lift_host, size_t lift_n, lift_present_entry **lift_e, int *lift_own,
                                        int **lift_at) {
    const char *lift_lo = (const char *)lift_host, *lift_hi = lift_lo + lift_n;
    *lift_e = 0;
    *lift_own = LIFT_AT_HOST;
    *lift_at = lift_own;
    if (lift_present_count == 0 && lift_region_depth == 0) return lift_malloc(lift_dev, lift_n ? lift_n : 1);
    int lift_shared = 0;
    for (int lift_i = lift_present_count - 1; lift_i >= 0; lift_i--) {
        lift_present_entry *lift_p = &lift_present[lift_i];
        if (lift_n && lift_region_depth && lift_p->lift_lo <= lift_lo && lift_hi <= lift_p->lift_hi) {
            *lift_dev = lift_p->lift_dev + (lift_lo - lift_p->lift_lo);
            *lift_e = lift_p;
            *lift_at = &lift_p->lift_at;
            lift_p->lift_busy++;
            return cudaSuccess;
        }
        if (lift_p->lift_lo < lift_hi && lift_lo < lift_p->lift_hi) {
            lift_present_back(lift_p);
            if (lift_p->lift_busy) {
                lift_p->lift_at = LIFT_AT_HOST; /* this scope's own buffer may write the bytes back */
                lift_shared = 1;
            } else {
                lift_present_drop(lift_i);
            }
        }
    }
    cudaError_t lift_err = lift_malloc(lift_dev, lift_n ? lift_n : 1);
    if (lift_err == cudaSuccess && lift_n && lift_region_depth && !lift_shared && lift_present_count < LIFT_PRESENT_MAX) {
        lift_present_entry *lift_p = &lift_present[lift_present_count++];
        lift_p->lift_lo = lift_lo;
        lift_p->lift_hi = lift_hi;
        lift_p->lift_dev = *lift_dev;
        lift_p->lift_at = LIFT_AT_HOST;
        lift_p->lift_busy = 1;
        lift_p->lift_owner = lift_region_depth;
        *lift_e = lift_p;
        *lift_at = &lift_p->lift_at;
    }
    return lift_err;
}
/* Guarded copies of a scope's buffer that may be an entry: an entry moves whole. */
#define LIFT_PRESENT_IN(e, at, ...)                                                             \
    do {                                                                                        \
        if (*(at) == LIFT_AT_HOST) {                                                            \
            if (e) LIFT_TO_DEVICE((e)->lift_dev, (e)->lift_lo, (size_t)((e)->lift_hi - (e)->lift_lo)); \
            else __VA_ARGS__;                                                                   \
            *(at) = LIFT_AT_BOTH;                                                               \
        }                                                                                       \
    } while (0)
#define LIFT_PRESENT_OUT(e, at, ...)                                                            \
    do {                                                                                        \
        if (*(at) == LIFT_AT_DEVICE) {                                                          \
            if (e) LIFT_TO_HOST((char *)(e)->lift_lo, (e)->lift_dev, (size_t)((e)->lift_hi - (e)->lift_lo)); \
            else __VA_ARGS__;                                                                   \
            *(at) = LIFT_AT_BOTH;                                                               \
        }                                                                                       \
    } while (0)

/* Grid sizes: enough blocks for n iterations, capped (kernels loop grid-stride). */
#define LIFT_GRID_X_MAX 2147483647L
#define LIFT_GRID_YZ_MAX 65535L
#define LIFT_REDUCTION_GRID_MAX 1024L
inline unsigned lift_blocks(long lift_n, long lift_per_block, long lift_max_blocks) {
    long lift_b = (lift_n + lift_per_block - 1) / lift_per_block;
    return (unsigned)(lift_b < 1 ? 1 : lift_b > lift_max_blocks ? lift_max_blocks : lift_b);
}

/* Integer helpers for loop bounds printed by isl. */
LIFT_HD inline long lift_imin(long lift_a, long lift_b) { return lift_a < lift_b ? lift_a : lift_b; }
LIFT_HD inline long lift_imax(long lift_a, long lift_b) { return lift_a > lift_b ? lift_a : lift_b; }
LIFT_HD inline long lift_floord(long lift_a, long lift_b) { return lift_a >= 0 ? lift_a / lift_b : -((-lift_a + lift_b - 1) / lift_b); }
/* The hull [*lo, *hi] of row ranges, leaving out empty ones (hi < lo). */
inline void lift_hull(long *lift_lo, long *lift_hi, long lift_a, long lift_b) {
    if (lift_b < lift_a) return;
    if (*lift_hi < *lift_lo) { *lift_lo = lift_a; *lift_hi = lift_b; return; }
    if (lift_a < *lift_lo) *lift_lo = lift_a;
    if (lift_b > *lift_hi) *lift_hi = lift_b;
}

/* Types taken from the host's declarations (kernels are templates over them). */
template <class lift_T> struct lift_noref { typedef lift_T lift_type; };
template <class lift_T> struct lift_noref<lift_T &> { typedef lift_T lift_type; };
#define LIFT_T(e) lift_noref<decltype(e)>::lift_type
template <class lift_T> struct lift_tag {};

/* Device views of multi-dimensional arrays, indexed like the host's A[i][j]. */
template <class lift_T> struct lift_view2 {
    lift_T *lift_p;
    long lift_s1;
    LIFT_HD lift_T *operator[](long lift_i) const { return lift_p + lift_i * lift_s1; }
};
template <class lift_T> struct lift_view3 {
    lift_T *lift_p;
    long lift_s1, lift_s2;
    LIFT_HD lift_view2<lift_T> operator[](long lift_i) const { lift_view2<lift_T> lift_v = {lift_p + lift_i * lift_s1 * lift_s2, lift_s2}; return lift_v; }
};
template <class lift_T> struct lift_view4 {
    lift_T *lift_p;
    long lift_s1, lift_s2, lift_s3;
    LIFT_HD lift_view3<lift_T> operator[](long lift_i) const { lift_view3<lift_T> lift_v = {lift_p + lift_i * lift_s1 * lift_s2 * lift_s3, lift_s2, lift_s3}; return lift_v; }
};
template <class lift_T> inline lift_T *lift_ptr_of(lift_T &, char *lift_d) { return (lift_T *)lift_d; }
template <class lift_T> inline lift_view2<lift_T> lift_view2_of(lift_T &, char *lift_d, long lift_s1) {
    lift_view2<lift_T> lift_v = {(lift_T *)lift_d, lift_s1};
    return lift_v;
}
template <class lift_T> inline lift_view3<lift_T> lift_view3_of(lift_T &, char *lift_d, long lift_s1, long lift_s2) {
    lift_view3<lift_T> lift_v = {(lift_T *)lift_d, lift_s1, lift_s2};
    return lift_v;
}
template <class lift_T> inline lift_view4<lift_T> lift_view4_of(lift_T &, char *lift_d, long lift_s1, long lift_s2, long lift_s3) {
    lift_view4<lift_T> lift_v = {(lift_T *)lift_d, lift_s1, lift_s2, lift_s3};
    return lift_v;
}

/* Reductions: operators, atomics (native where CUDA has one, else a compare-and-swap loop). */
struct lift_op_add { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_a + lift_b; } };
struct lift_op_mul { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_a * lift_b; } };
struct lift_op_and { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_a & lift_b; } };
struct lift_op_or { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_a | lift_b; } };
struct lift_op_xor { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_a ^ lift_b; } };
struct lift_op_min { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_b < lift_a ? lift_b : lift_a; } };
struct lift_op_max { template <class lift_T> LIFT_HD static lift_T lift_apply(lift_T lift_a, lift_T lift_b) { return lift_b > lift_a ? lift_b : lift_a; } };

#ifdef LIFT_CUDA_EMULATION
template <class lift_Op, class lift_T> inline void lift_atomic(lift_Op, lift_T *lift_p, lift_T lift_v) { *lift_p = lift_Op::lift_apply(*lift_p, lift_v); }
#else
template <int lift_N> struct lift_word;
template <> struct lift_word<4> { typedef unsigned int lift_type; };
template <> struct lift_word<8> { typedef unsigned long long lift_type; };
template <class lift_Op, class lift_T> __device__ inline void lift_atomic(lift_Op, lift_T *lift_p, lift_T lift_v) {
    typedef typename lift_word<sizeof(lift_T)>::lift_type lift_W;
    lift_W *lift_wordp = (lift_W *)lift_p;
    lift_W lift_old = *lift_wordp, lift_assumed;
    do {
        lift_assumed = lift_old;
        lift_T lift_cur, lift_next;
        memcpy(&lift_cur, &lift_assumed, sizeof(lift_T));
        lift_next = lift_Op::lift_apply(lift_cur, lift_v);
        lift_W lift_desired;
        memcpy(&lift_desired, &lift_next, sizeof(lift_T));
        if (lift_desired == lift_assumed) break;
        lift_old = atomicCAS(lift_wordp, lift_assumed, lift_desired);
    } while (lift_old != lift_assumed);
}
__device__ inline void lift_atomic(lift_op_add, double *lift_p, double lift_v) { atomicAdd(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_add, float *lift_p, float lift_v) { atomicAdd(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_add, int *lift_p, int lift_v) { atomicAdd(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_add, unsigned *lift_p, unsigned lift_v) { atomicAdd(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_add, unsigned long long *lift_p, unsigned long long lift_v) { atomicAdd(lift_p, lift_v); }
/* 64-bit signed sums add as unsigned (two's complement): native, not a contended compare-and-swap loop
   (a histogram of 256 longs took over a minute through the loop on an H200). */
__device__ inline void lift_atomic(lift_op_add, long long *lift_p, long long lift_v) {
    atomicAdd((unsigned long long *)lift_p, (unsigned long long)lift_v);
}
#if defined(__LP64__) || defined(_LP64) /* long is 64 bits */
__device__ inline void lift_atomic(lift_op_add, long *lift_p, long lift_v) {
    atomicAdd((unsigned long long *)lift_p, (unsigned long long)lift_v);
}
__device__ inline void lift_atomic(lift_op_add, unsigned long *lift_p, unsigned long lift_v) {
    atomicAdd((unsigned long long *)lift_p, (unsigned long long)lift_v);
}
#endif
__device__ inline void lift_atomic(lift_op_min, long long *lift_p, long long lift_v) { atomicMin(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_max, long long *lift_p, long long lift_v) { atomicMax(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_min, unsigned *lift_p, unsigned lift_v) { atomicMin(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_max, unsigned *lift_p, unsigned lift_v) { atomicMax(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_min, int *lift_p, int lift_v) { atomicMin(lift_p, lift_v); }
__device__ inline void lift_atomic(lift_op_max, int *lift_p, int lift_v) { atomicMax(lift_p, lift_v); }
#endif

/* An update of an array element that several threads may update: y[j] += e. */
template <class lift_Op, class lift_T, class lift_V> __device__ inline void lift_atomic_update(lift_Op lift_op, lift_T *lift_p, lift_V lift_v) {
    lift_atomic(lift_op, lift_p, (lift_T)lift_v);
}

/* Block-level tree reduction in shared memory, then one atomic per block.
   Blocks of reduction kernels have LIFT_BLOCK_THREADS threads (a power of two). */
#define LIFT_BLOCK_THREADS 256
__device__ inline unsigned lift_thread_rank(void) {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
/* The thread's rank in the whole grid: its slice of a scratch buffer (per-thread arrays). */
__device__ inline size_t lift_global_rank(void) {
    size_t lift_block = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    return lift_block * (blockDim.x * blockDim.y * blockDim.z) + lift_thread_rank();
}
template <class lift_Op, class lift_T> inline void lift_tree(lift_Op, lift_T *lift_buf, unsigned lift_n) {
    for (unsigned lift_s = lift_n / 2; lift_s > 0; lift_s >>= 1)
        for (unsigned lift_tid = 0; lift_tid < lift_s; lift_tid++)
            lift_buf[lift_tid] = lift_Op::lift_apply(lift_buf[lift_tid], lift_buf[lift_tid + lift_s]);
}
#ifdef LIFT_CUDA_EMULATION
template <class lift_Op, class lift_T> void lift_emu_finish(void *lift_buf, unsigned lift_n, void *lift_acc) {
    lift_tree(lift_Op(), (lift_T *)lift_buf, lift_n);
    lift_atomic(lift_Op(), (lift_T *)lift_acc, ((lift_T *)lift_buf)[0]);
}
#endif
template <class lift_Op, class lift_T> __device__ inline void lift_block_reduce(lift_Op lift_op, lift_T *lift_acc, lift_T lift_v) {
#ifdef LIFT_CUDA_EMULATION
    /* Threads run one at a time: each stores its partial, and when the block is done the
       same tree as on the GPU runs over the buffer (see cuda_emulation.h). */
    (void)lift_op;
    lift_T *lift_buf = (lift_T *)lift_emu_block_buffer(sizeof(lift_T), lift_emu_finish<lift_Op, lift_T>, lift_acc);
    lift_buf[lift_thread_rank()] = lift_v;
#else
    __shared__ lift_T lift_buf[LIFT_BLOCK_THREADS];
    unsigned lift_tid = lift_thread_rank(), lift_n = blockDim.x * blockDim.y * blockDim.z;
    __syncthreads();
    lift_buf[lift_tid] = lift_v;
    __syncthreads();
    for (unsigned lift_s = lift_n / 2; lift_s > 0; lift_s >>= 1) {
        if (lift_tid < lift_s) lift_buf[lift_tid] = lift_Op::lift_apply(lift_buf[lift_tid], lift_buf[lift_tid + lift_s]);
        __syncthreads();
    }
    if (lift_tid == 0) lift_atomic(lift_op, lift_acc, lift_buf[0]);
#endif
}
#endif /* LIFT_CUDA_PRELUDE */
"""

END_MARK = "/* ---- end of lift's CUDA runtime support ---- */\n"
