/*
 * cuda_emulation.h - run lift's CUDA output on the CPU, without a GPU or nvcc.
 *
 *     g++ -O2 -x c++ -include lifter/backend/cuda_emulation.h prog.cu -o prog -lm
 *
 * Part of lift (the CUDA backend's test harness), not of NVIDIA's toolkit. It
 * covers exactly what lift's generated code uses:
 *
 * - the execution space keywords (__global__, __device__, __host__, __shared__),
 *   dim3/uint3 and the built-in variables blockIdx, threadIdx, blockDim, gridDim;
 * - kernel launches: lift writes LIFT_LAUNCH(kernel, grid, block, args...), which
 *   the generated file expands to kernel<<<grid, block>>>(args) under nvcc and this
 *   header to lift_emu_launch(): every block of the grid, one after the other, and
 *   in each block every thread, one after the other, each running the kernel to
 *   its end; LIFT_EMU_ORDER=reverse in the environment runs them in reverse order,
 *   which exposes kernels whose result depends on the order of their threads.
 *   Launch configurations are checked like a GPU does (at most 1024 threads per
 *   block, grid y and z at most 65535, no empty dimension).
 * - __syncthreads is not emulated: a block's threads run one at a time, so a
 *   barrier inside a kernel cannot be honoured. lift's kernels use none outside
 *   lift_block_reduce (in the generated file), which under emulation splits the
 *   block-level tree reduction into its phases: every thread stores its partial
 *   in the block's buffer, and when the block's last thread has finished the tree
 *   runs over the buffer in the same order as on the GPU (lift_emu_block_buffer).
 * - device memory: cudaMalloc hands out poisoned (all bytes 0xff, so doubles are
 *   NaN) host memory and records it; cudaMemcpy checks that its device side lies
 *   inside one allocation and its host side does not, so a missing or misplaced
 *   copy shows up as a wrong result or an error instead of passing by accident.
 * - atomics (atomicAdd, atomicCAS, atomicMin, atomicMax, ...): plain updates,
 *   since only one emulated thread runs at a time.
 * - events (cudaEventRecord/ElapsedTime) measure host time, for LIFT_PROFILE.
 */
#ifndef LIFT_CUDA_EMULATION_H
#define LIFT_CUDA_EMULATION_H 1
#define LIFT_CUDA_EMULATION 1

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

struct uint3 {
    unsigned int x, y, z;
};

struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline uint3 threadIdx = {0, 0, 0};
inline uint3 blockIdx = {0, 0, 0};
inline dim3 blockDim;
inline dim3 gridDim;
inline const int warpSize = 32;

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

inline const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument (emulation: a copy outside a device allocation?)";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction";
    }
    return "unknown error";
}

/* ---- device memory ---------------------------------------------------- */

/* Live device allocations (few: a linear table is enough). */
struct lift_emu_allocation {
    char *base;
    size_t size;
};
inline lift_emu_allocation *lift_emu_allocations = nullptr;
inline size_t lift_emu_allocation_count = 0, lift_emu_allocation_cap = 0;
inline cudaError_t lift_emu_last_error = cudaSuccess;

/* The allocation holding [p, p + n), or -1. */
inline long lift_emu_find(const void *p, size_t n) {
    const char *c = (const char *)p;
    for (size_t i = 0; i < lift_emu_allocation_count; i++) {
        const lift_emu_allocation &a = lift_emu_allocations[i];
        if (c >= a.base && c + n <= a.base + a.size)
            return (long)i;
    }
    return -1;
}

inline bool lift_emu_is_device(const void *p) {
    const char *c = (const char *)p;
    for (size_t i = 0; i < lift_emu_allocation_count; i++)
        if (c >= lift_emu_allocations[i].base && c < lift_emu_allocations[i].base + lift_emu_allocations[i].size)
            return true;
    return false;
}

inline cudaError_t cudaMalloc(void **p, size_t n) {
    char *m = (char *)malloc(n ? n : 1);
    if (!m)
        return cudaErrorMemoryAllocation;
    memset(m, 0xff, n ? n : 1); /* poison: uncopied doubles read as NaN */
    if (lift_emu_allocation_count == lift_emu_allocation_cap) {
        size_t cap = lift_emu_allocation_cap ? 2 * lift_emu_allocation_cap : 64;
        void *grown = realloc(lift_emu_allocations, cap * sizeof(lift_emu_allocation));
        if (!grown) {
            free(m);
            return cudaErrorMemoryAllocation;
        }
        lift_emu_allocations = (lift_emu_allocation *)grown;
        lift_emu_allocation_cap = cap;
    }
    lift_emu_allocations[lift_emu_allocation_count++] = lift_emu_allocation{m, n ? n : 1};
    *p = m;
    return cudaSuccess;
}

template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }

inline cudaError_t cudaFree(void *p) {
    if (!p)
        return cudaSuccess;
    for (size_t i = 0; i < lift_emu_allocation_count; i++)
        if (lift_emu_allocations[i].base == (char *)p) {
            lift_emu_allocations[i] = lift_emu_allocations[--lift_emu_allocation_count];
            free(p);
            return cudaSuccess;
        }
    return cudaErrorInvalidDevicePointer;
}

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
    if (n == 0)
        return cudaSuccess;
    bool dst_dev = lift_emu_find(dst, n) >= 0, src_dev = lift_emu_find(src, n) >= 0;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        if (!dst_dev || lift_emu_is_device(src)) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToHost:
        if (!src_dev || lift_emu_is_device(dst)) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToDevice:
        if (!src_dev || !dst_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
        break;
    default:
        return cudaErrorInvalidMemcpyDirection;
    }
    memmove(dst, src, n);
    return cudaSuccess;
}

inline cudaError_t cudaMemset(void *p, int value, size_t n) {
    if (n && lift_emu_find(p, n) < 0)
        return cudaErrorInvalidValue;
    memset(p, value, n);
    return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

inline cudaError_t cudaGetLastError(void) {
    cudaError_t e = lift_emu_last_error;
    lift_emu_last_error = cudaSuccess;
    return e;
}

inline cudaError_t cudaPeekAtLastError(void) { return lift_emu_last_error; }

inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }

inline cudaError_t cudaDeviceReset(void) { return cudaSuccess; }

/* ---- events (host time) ----------------------------------------------- */

typedef struct lift_emu_event {
    double ms;
} *cudaEvent_t;

inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
    *e = (cudaEvent_t)calloc(1, sizeof(lift_emu_event));
    return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

inline cudaError_t cudaEventRecord(cudaEvent_t e, int stream = 0) {
    (void)stream;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->ms = ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
    return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    *ms = (float)(b->ms - a->ms);
    return cudaSuccess;
}

inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
    free(e);
    return cudaSuccess;
}

/* ---- atomics: one emulated thread runs at a time ------------------------ */

/* Each read-modify-write returns the old value and stores `update` (of `old` and `v`). */
#define LIFT_EMU_ATOMIC(name, update)          \
    template <class T> inline T name(T *p, T v) { \
        T old = *p;                            \
        *p = (update);                         \
        return old;                            \
    }
LIFT_EMU_ATOMIC(atomicAdd, old + v)
LIFT_EMU_ATOMIC(atomicSub, old - v)
LIFT_EMU_ATOMIC(atomicExch, v)
LIFT_EMU_ATOMIC(atomicMin, v < old ? v : old)
LIFT_EMU_ATOMIC(atomicMax, v > old ? v : old)
LIFT_EMU_ATOMIC(atomicAnd, old & v)
LIFT_EMU_ATOMIC(atomicOr, old | v)
LIFT_EMU_ATOMIC(atomicXor, old ^ v)
#undef LIFT_EMU_ATOMIC

template <class T> inline T atomicCAS(T *p, T compare, T v) {
    T old = *p;
    if (old == compare) *p = v;
    return old;
}

inline long long __double_as_longlong(double x) {
    long long r;
    memcpy(&r, &x, sizeof r);
    return r;
}

inline double __longlong_as_double(long long x) {
    double r;
    memcpy(&r, &x, sizeof r);
    return r;
}

inline int __float_as_int(float x) {
    int r;
    memcpy(&r, &x, sizeof r);
    return r;
}

inline float __int_as_float(int x) {
    float r;
    memcpy(&r, &x, sizeof r);
    return r;
}

inline void __syncthreads(void) {
    fprintf(stderr, "cuda_emulation.h: __syncthreads() cannot be emulated (threads run one at a time)\n");
    abort();
}

inline void __threadfence(void) {}

/* ---- launches ----------------------------------------------------------- */

/* Block-level buffers for lift_block_reduce: a thread's n-th call uses slot n; the slot's
   finish step (the reduction tree and its atomic) runs when the block's last thread is done. */
struct lift_emu_slot {
    unsigned char *bytes;
    size_t capacity;
    void (*finish)(void *buffer, unsigned threads, void *context);
    void *context;
};

inline lift_emu_slot lift_emu_slots[64];

inline unsigned lift_emu_threads_per_block(void) { return blockDim.x * blockDim.y * blockDim.z; }
inline size_t lift_emu_slot_count = 0, lift_emu_next_slot = 0;

inline void *lift_emu_block_buffer(size_t element, void (*finish)(void *, unsigned, void *), void *context) {
    size_t i = lift_emu_next_slot++;
    if (i >= 64) {
        fprintf(stderr, "cuda_emulation.h: more than 64 block reductions in one kernel\n");
        abort();
    }
    if (i == lift_emu_slot_count) {
        size_t bytes = (size_t)blockDim.x * blockDim.y * blockDim.z * element;
        lift_emu_slot &slot = lift_emu_slots[lift_emu_slot_count++];
        if (slot.capacity < bytes) {
            free(slot.bytes);
            slot.bytes = (unsigned char *)malloc(bytes);
            slot.capacity = bytes;
        }
        memset(slot.bytes, 0, bytes);
        slot.finish = finish;
        slot.context = context;
    }
    return lift_emu_slots[i].bytes;
}

inline bool lift_emu_config_ok(dim3 grid, dim3 block) {
    unsigned long threads = (unsigned long)block.x * block.y * block.z;
    return grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.y <= 65535 && grid.z <= 65535 &&
           block.x >= 1 && block.y >= 1 && block.z >= 1 && block.x <= 1024 && block.y <= 1024 &&
           block.z <= 64 && threads <= 1024;
}

/* Blocks and threads run one after the other, in index order; with LIFT_EMU_ORDER=reverse in the
   environment, in reverse order (a kernel whose result depends on the order of its threads, a race
   on a GPU, then gives a different result). */
inline bool lift_emu_reverse(void) {
    const char *order = getenv("LIFT_EMU_ORDER");
    return order && strcmp(order, "reverse") == 0;
}

template <class F, class... Args> void lift_emu_launch(dim3 grid, dim3 block, F run_thread, Args... args) {
    if (!lift_emu_config_ok(grid, block)) {
        lift_emu_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    gridDim = grid;
    blockDim = block;
    const bool reverse = lift_emu_reverse();
    const unsigned long blocks = (unsigned long)grid.x * grid.y * grid.z;
    const unsigned threads = block.x * block.y * block.z;
    for (unsigned long b = 0; b < blocks; b++) {
        unsigned long bi = reverse ? blocks - 1 - b : b;
        blockIdx = uint3{(unsigned)(bi % grid.x), (unsigned)(bi / grid.x % grid.y), (unsigned)(bi / grid.x / grid.y)};
        lift_emu_slot_count = 0;
        for (unsigned t = 0; t < threads; t++) {
            unsigned ti = reverse ? threads - 1 - t : t;
            threadIdx = uint3{ti % block.x, ti / block.x % block.y, ti / block.x / block.y};
            lift_emu_next_slot = 0;
            run_thread(args...);
        }
        for (size_t i = 0; i < lift_emu_slot_count; i++)
            lift_emu_slots[i].finish(lift_emu_slots[i].bytes, threads, lift_emu_slots[i].context);
        lift_emu_slot_count = 0;
    }
}

/* The arguments are evaluated once, on the host, like a real launch's; the lambda captures nothing
   (host variables of variably modified type cannot be captured). */
#define LIFT_EMU_LAUNCH(kernel, grid, block, ...) \
    lift_emu_launch((grid), (block), [](auto... lift_a_) { kernel(lift_a_...); }, __VA_ARGS__)

#endif /* LIFT_CUDA_EMULATION_H */
