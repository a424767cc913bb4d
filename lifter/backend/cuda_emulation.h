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
    dim3(unsigned int lift_x_ = 1, unsigned int lift_y_ = 1, unsigned int lift_z_ = 1) : x(lift_x_), y(lift_y_), z(lift_z_) {}
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

inline const char *cudaGetErrorString(cudaError_t lift_e) {
    switch (lift_e) {
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
    char *lift_base;
    size_t lift_size;
};
inline lift_emu_allocation *lift_emu_allocations = nullptr;
inline size_t lift_emu_allocation_count = 0, lift_emu_allocation_cap = 0;
inline cudaError_t lift_emu_last_error = cudaSuccess;

/* The allocation holding [p, p + n), or -1. */
inline long lift_emu_find(const void *lift_p, size_t lift_n) {
    const char *lift_c = (const char *)lift_p;
    for (size_t lift_i = 0; lift_i < lift_emu_allocation_count; lift_i++) {
        const lift_emu_allocation &lift_a = lift_emu_allocations[lift_i];
        if (lift_c >= lift_a.lift_base && lift_c + lift_n <= lift_a.lift_base + lift_a.lift_size)
            return (long)lift_i;
    }
    return -1;
}

inline bool lift_emu_is_device(const void *lift_p) {
    const char *lift_c = (const char *)lift_p;
    for (size_t lift_i = 0; lift_i < lift_emu_allocation_count; lift_i++)
        if (lift_c >= lift_emu_allocations[lift_i].lift_base && lift_c < lift_emu_allocations[lift_i].lift_base + lift_emu_allocations[lift_i].lift_size)
            return true;
    return false;
}

inline cudaError_t cudaMalloc(void **lift_p, size_t lift_n) {
    char *lift_m = (char *)malloc(lift_n ? lift_n : 1);
    if (!lift_m)
        return cudaErrorMemoryAllocation;
    memset(lift_m, 0xff, lift_n ? lift_n : 1); /* poison: uncopied doubles read as NaN */
    if (lift_emu_allocation_count == lift_emu_allocation_cap) {
        size_t lift_cap = lift_emu_allocation_cap ? 2 * lift_emu_allocation_cap : 64;
        void *lift_grown = realloc(lift_emu_allocations, lift_cap * sizeof(lift_emu_allocation));
        if (!lift_grown) {
            free(lift_m);
            return cudaErrorMemoryAllocation;
        }
        lift_emu_allocations = (lift_emu_allocation *)lift_grown;
        lift_emu_allocation_cap = lift_cap;
    }
    lift_emu_allocations[lift_emu_allocation_count++] = lift_emu_allocation{lift_m, lift_n ? lift_n : 1};
    *lift_p = lift_m;
    return cudaSuccess;
}

template <class lift_T> inline cudaError_t cudaMalloc(lift_T **lift_p, size_t lift_n) { return cudaMalloc((void **)lift_p, lift_n); }

inline cudaError_t cudaFree(void *lift_p) {
    if (!lift_p)
        return cudaSuccess;
    for (size_t lift_i = 0; lift_i < lift_emu_allocation_count; lift_i++)
        if (lift_emu_allocations[lift_i].lift_base == (char *)lift_p) {
            lift_emu_allocations[lift_i] = lift_emu_allocations[--lift_emu_allocation_count];
            free(lift_p);
            return cudaSuccess;
        }
    return cudaErrorInvalidDevicePointer;
}

inline cudaError_t cudaMemcpy(void *lift_dst, const void *lift_src, size_t lift_n, cudaMemcpyKind lift_kind) {
    if (lift_n == 0)
        return cudaSuccess;
    bool lift_dst_dev = lift_emu_find(lift_dst, lift_n) >= 0, lift_src_dev = lift_emu_find(lift_src, lift_n) >= 0;
    switch (lift_kind) {
    case cudaMemcpyHostToDevice:
        if (!lift_dst_dev || lift_emu_is_device(lift_src)) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToHost:
        if (!lift_src_dev || lift_emu_is_device(lift_dst)) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyDeviceToDevice:
        if (!lift_src_dev || !lift_dst_dev) return cudaErrorInvalidValue;
        break;
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
        break;
    default:
        return cudaErrorInvalidMemcpyDirection;
    }
    memmove(lift_dst, lift_src, lift_n);
    return cudaSuccess;
}

inline cudaError_t cudaMemset(void *lift_p, int lift_value, size_t lift_n) {
    if (lift_n && lift_emu_find(lift_p, lift_n) < 0)
        return cudaErrorInvalidValue;
    memset(lift_p, lift_value, lift_n);
    return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }

inline cudaError_t cudaGetLastError(void) {
    cudaError_t lift_e = lift_emu_last_error;
    lift_emu_last_error = cudaSuccess;
    return lift_e;
}

inline cudaError_t cudaPeekAtLastError(void) { return lift_emu_last_error; }

inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }

inline cudaError_t cudaDeviceReset(void) { return cudaSuccess; }

/* ---- events (host time) ----------------------------------------------- */

typedef struct lift_emu_event {
    double lift_ms;
} *cudaEvent_t;

inline cudaError_t cudaEventCreate(cudaEvent_t *lift_e) {
    *lift_e = (cudaEvent_t)calloc(1, sizeof(lift_emu_event));
    return *lift_e ? cudaSuccess : cudaErrorMemoryAllocation;
}

inline cudaError_t cudaEventRecord(cudaEvent_t lift_e, int lift_stream = 0) {
    (void)lift_stream;
    struct timespec lift_ts;
    clock_gettime(CLOCK_MONOTONIC, &lift_ts);
    lift_e->lift_ms = lift_ts.tv_sec * 1e3 + lift_ts.tv_nsec * 1e-6;
    return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

inline cudaError_t cudaEventElapsedTime(float *lift_ms, cudaEvent_t lift_a, cudaEvent_t lift_b) {
    *lift_ms = (float)(lift_b->lift_ms - lift_a->lift_ms);
    return cudaSuccess;
}

inline cudaError_t cudaEventDestroy(cudaEvent_t lift_e) {
    free(lift_e);
    return cudaSuccess;
}

/* ---- atomics: one emulated thread runs at a time ------------------------ */

/* Each read-modify-write returns the old value and stores `update` (of `old` and `v`). */
#define LIFT_EMU_ATOMIC(name, update)          \
    template <class lift_T> inline lift_T name(lift_T *lift_p, lift_T lift_v) { \
        lift_T lift_old = *lift_p;             \
        *lift_p = (update);                    \
        return lift_old;                       \
    }
LIFT_EMU_ATOMIC(atomicAdd, lift_old + lift_v)
LIFT_EMU_ATOMIC(atomicSub, lift_old - lift_v)
LIFT_EMU_ATOMIC(atomicExch, lift_v)
LIFT_EMU_ATOMIC(atomicMin, lift_v < lift_old ? lift_v : lift_old)
LIFT_EMU_ATOMIC(atomicMax, lift_v > lift_old ? lift_v : lift_old)
LIFT_EMU_ATOMIC(atomicAnd, lift_old & lift_v)
LIFT_EMU_ATOMIC(atomicOr, lift_old | lift_v)
LIFT_EMU_ATOMIC(atomicXor, lift_old ^ lift_v)
#undef LIFT_EMU_ATOMIC

template <class lift_T> inline lift_T atomicCAS(lift_T *lift_p, lift_T lift_compare, lift_T lift_v) {
    lift_T lift_old = *lift_p;
    if (lift_old == lift_compare) *lift_p = lift_v;
    return lift_old;
}

inline long long __double_as_longlong(double x) {
    long long lift_r;
    memcpy(&lift_r, &x, sizeof lift_r);
    return lift_r;
}

inline double __longlong_as_double(long long x) {
    double lift_r;
    memcpy(&lift_r, &x, sizeof lift_r);
    return lift_r;
}

inline int __float_as_int(float x) {
    int lift_r;
    memcpy(&lift_r, &x, sizeof lift_r);
    return lift_r;
}

inline float __int_as_float(int x) {
    float lift_r;
    memcpy(&lift_r, &x, sizeof lift_r);
    return lift_r;
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
    unsigned char *lift_bytes;
    size_t lift_capacity;
    void (*lift_finish)(void *lift_buffer, unsigned lift_threads, void *lift_context);
    void *lift_context;
};

inline lift_emu_slot lift_emu_slots[64];

inline unsigned lift_emu_threads_per_block(void) { return blockDim.x * blockDim.y * blockDim.z; }
inline size_t lift_emu_slot_count = 0, lift_emu_next_slot = 0;

inline void *lift_emu_block_buffer(size_t lift_element, void (*lift_finish)(void *, unsigned, void *), void *lift_context) {
    size_t lift_i = lift_emu_next_slot++;
    if (lift_i >= 64) {
        fprintf(stderr, "cuda_emulation.h: more than 64 block reductions in one kernel\n");
        abort();
    }
    if (lift_i == lift_emu_slot_count) {
        size_t lift_bytes = (size_t)blockDim.x * blockDim.y * blockDim.z * lift_element;
        lift_emu_slot &lift_slot = lift_emu_slots[lift_emu_slot_count++];
        if (lift_slot.lift_capacity < lift_bytes) {
            free(lift_slot.lift_bytes);
            lift_slot.lift_bytes = (unsigned char *)malloc(lift_bytes);
            lift_slot.lift_capacity = lift_bytes;
        }
        memset(lift_slot.lift_bytes, 0, lift_bytes);
        lift_slot.lift_finish = lift_finish;
        lift_slot.lift_context = lift_context;
    }
    return lift_emu_slots[lift_i].lift_bytes;
}

inline bool lift_emu_config_ok(dim3 lift_grid, dim3 lift_block) {
    unsigned long lift_threads = (unsigned long)lift_block.x * lift_block.y * lift_block.z;
    return lift_grid.x >= 1 && lift_grid.y >= 1 && lift_grid.z >= 1 && lift_grid.y <= 65535 && lift_grid.z <= 65535 &&
           lift_block.x >= 1 && lift_block.y >= 1 && lift_block.z >= 1 && lift_block.x <= 1024 && lift_block.y <= 1024 &&
           lift_block.z <= 64 && lift_threads <= 1024;
}

/* Blocks and threads run one after the other, in index order; with LIFT_EMU_ORDER=reverse in the
   environment, in reverse order (a kernel whose result depends on the order of its threads, a race
   on a GPU, then gives a different result). */
inline bool lift_emu_reverse(void) {
    const char *lift_order = getenv("LIFT_EMU_ORDER");
    return lift_order && strcmp(lift_order, "reverse") == 0;
}

template <class lift_F, class... lift_Args> void lift_emu_launch(dim3 lift_grid, dim3 lift_block, lift_F lift_run_thread, lift_Args... lift_args) {
    if (!lift_emu_config_ok(lift_grid, lift_block)) {
        lift_emu_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    gridDim = lift_grid;
    blockDim = lift_block;
    const bool lift_reverse = lift_emu_reverse();
    const unsigned long lift_blocks = (unsigned long)lift_grid.x * lift_grid.y * lift_grid.z;
    const unsigned lift_threads = lift_block.x * lift_block.y * lift_block.z;
    for (unsigned long lift_b = 0; lift_b < lift_blocks; lift_b++) {
        unsigned long lift_bi = lift_reverse ? lift_blocks - 1 - lift_b : lift_b;
        blockIdx = uint3{(unsigned)(lift_bi % lift_grid.x), (unsigned)(lift_bi / lift_grid.x % lift_grid.y), (unsigned)(lift_bi / lift_grid.x / lift_grid.y)};
        lift_emu_slot_count = 0;
        for (unsigned lift_t = 0; lift_t < lift_threads; lift_t++) {
            unsigned lift_ti = lift_reverse ? lift_threads - 1 - lift_t : lift_t;
            threadIdx = uint3{lift_ti % lift_block.x, lift_ti / lift_block.x % lift_block.y, lift_ti / lift_block.x / lift_block.y};
            lift_emu_next_slot = 0;
            lift_run_thread(lift_args...);
        }
        for (size_t lift_i = 0; lift_i < lift_emu_slot_count; lift_i++)
            lift_emu_slots[lift_i].lift_finish(lift_emu_slots[lift_i].lift_bytes, lift_threads, lift_emu_slots[lift_i].lift_context);
        lift_emu_slot_count = 0;
    }
}

/* The arguments are evaluated once, on the host, like a real launch's; the lambda captures nothing
   (host variables of variably modified type cannot be captured). */
#define LIFT_EMU_LAUNCH(kernel, grid, block, ...) \
    lift_emu_launch((grid), (block), [](auto... lift_a_) { kernel(lift_a_...); }, __VA_ARGS__)

#endif /* LIFT_CUDA_EMULATION_H */
