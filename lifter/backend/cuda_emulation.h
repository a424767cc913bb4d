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
 *   its end. Launch configurations are checked like a GPU does (at most 1024
 *   threads per block, grid y and z at most 65535, no empty dimension).
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

#include <chrono>
#include <functional>
#include <map>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <vector>

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

inline std::map<const char *, size_t> lift_emu_allocations;
inline cudaError_t lift_emu_last_error = cudaSuccess;

/* The allocation holding [p, p + n), or null. */
inline const char *lift_emu_device_block(const void *p, size_t n) {
    const char *c = (const char *)p;
    auto it = lift_emu_allocations.upper_bound(c);
    if (it == lift_emu_allocations.begin())
        return nullptr;
    --it;
    if (c >= it->first && c + n <= it->first + it->second)
        return it->first;
    return nullptr;
}

inline bool lift_emu_is_device(const void *p) {
    return lift_emu_device_block(p, 0) != nullptr || lift_emu_allocations.count((const char *)p);
}

inline cudaError_t cudaMalloc(void **p, size_t n) {
    char *m = (char *)malloc(n ? n : 1);
    if (!m)
        return cudaErrorMemoryAllocation;
    memset(m, 0xff, n ? n : 1); /* poison: uncopied doubles read as NaN */
    lift_emu_allocations[m] = n ? n : 1;
    *p = m;
    return cudaSuccess;
}

template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }

inline cudaError_t cudaFree(void *p) {
    if (!p)
        return cudaSuccess;
    auto it = lift_emu_allocations.find((const char *)p);
    if (it == lift_emu_allocations.end())
        return cudaErrorInvalidDevicePointer;
    lift_emu_allocations.erase(it);
    free(p);
    return cudaSuccess;
}

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
    if (n == 0)
        return cudaSuccess;
    bool dst_dev = lift_emu_device_block(dst, n) != nullptr, src_dev = lift_emu_device_block(src, n) != nullptr;
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
    if (n && !lift_emu_device_block(p, n))
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
    std::chrono::steady_clock::time_point at;
} *cudaEvent_t;

inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
    *e = new lift_emu_event();
    return cudaSuccess;
}

inline cudaError_t cudaEventRecord(cudaEvent_t e, int stream = 0) {
    (void)stream;
    e->at = std::chrono::steady_clock::now();
    return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
    return cudaSuccess;
}

inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
    delete e;
    return cudaSuccess;
}

/* ---- atomics: one emulated thread runs at a time ------------------------ */

template <class T> inline T atomicAdd(T *p, T v) {
    T old = *p;
    *p = old + v;
    return old;
}

template <class T> inline T atomicSub(T *p, T v) {
    T old = *p;
    *p = old - v;
    return old;
}

template <class T> inline T atomicExch(T *p, T v) {
    T old = *p;
    *p = v;
    return old;
}

template <class T> inline T atomicMin(T *p, T v) {
    T old = *p;
    if (v < old) *p = v;
    return old;
}

template <class T> inline T atomicMax(T *p, T v) {
    T old = *p;
    if (v > old) *p = v;
    return old;
}

template <class T> inline T atomicAnd(T *p, T v) {
    T old = *p;
    *p = old & v;
    return old;
}

template <class T> inline T atomicOr(T *p, T v) {
    T old = *p;
    *p = old | v;
    return old;
}

template <class T> inline T atomicXor(T *p, T v) {
    T old = *p;
    *p = old ^ v;
    return old;
}

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

/* Block-level buffers for lift_block_reduce: a thread's n-th call uses slot n; the
   slot's finish step (the reduction tree and its atomic) runs when the block ends. */
struct lift_emu_slot {
    std::vector<unsigned char> bytes;
    std::function<void()> finish;
};

inline std::vector<lift_emu_slot> lift_emu_slots;
inline size_t lift_emu_next_slot = 0;

inline unsigned lift_emu_threads_per_block(void) { return blockDim.x * blockDim.y * blockDim.z; }

template <class T, class Finish> T *lift_emu_block_buffer(Finish finish) {
    size_t i = lift_emu_next_slot++;
    if (i == lift_emu_slots.size()) {
        unsigned n = lift_emu_threads_per_block();
        lift_emu_slots.emplace_back();
        lift_emu_slot &slot = lift_emu_slots.back();
        slot.bytes.assign(n * sizeof(T), 0);
        T *buffer = (T *)slot.bytes.data();
        slot.finish = [buffer, n, finish]() { finish(buffer, n); };
    }
    return (T *)lift_emu_slots[i].bytes.data();
}

inline bool lift_emu_config_ok(dim3 grid, dim3 block) {
    unsigned long threads = (unsigned long)block.x * block.y * block.z;
    return grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && grid.y <= 65535 && grid.z <= 65535 &&
           block.x >= 1 && block.y >= 1 && block.z >= 1 && block.x <= 1024 && block.y <= 1024 &&
           block.z <= 64 && threads <= 1024;
}

template <class F> void lift_emu_launch(dim3 grid, dim3 block, F &&run_thread) {
    if (!lift_emu_config_ok(grid, block)) {
        lift_emu_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = uint3{bx, by, bz};
                lift_emu_slots.clear();
                for (unsigned tz = 0; tz < block.z; tz++)
                    for (unsigned ty = 0; ty < block.y; ty++)
                        for (unsigned tx = 0; tx < block.x; tx++) {
                            threadIdx = uint3{tx, ty, tz};
                            lift_emu_next_slot = 0;
                            run_thread();
                        }
                for (lift_emu_slot &slot : lift_emu_slots)
                    slot.finish();
                lift_emu_slots.clear();
            }
}

#define LIFT_EMU_LAUNCH(kernel, grid, block, ...) lift_emu_launch((grid), (block), [&]() { kernel(__VA_ARGS__); })

#endif /* LIFT_CUDA_EMULATION_H */
