"""The CUDA backend: kernels, launches, data movement and checked calls in the emitted text,
and the emitted programs run (on the CPU, with lifter/backend/cuda_emulation.h) like the originals."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import lifter.backend
from lifter import LiftOptions, lift_source
from lifter.backend.cuda_cxx import CXX_SHIMS
from lifter.backend.cuda_prelude import END_MARK, PRELUDE
from tests.harness import needs_nvcc, nvcc_compiles, outputs_match

EMULATION = Path(lifter.backend.__file__).parent / "cuda_emulation.h"
CXX = os.environ.get("CXX", "g++")

pytestmark = pytest.mark.skipif(shutil.which(CXX) is None or shutil.which("gcc") is None,
                                reason="needs g++ (emulated CUDA) and gcc (the original)")


def lift_cuda(text: str, name: str = "k.c"):
    return lift_source(text, name, LiftOptions(target="cuda", min_parallel_work=0))


def host_part(output: str) -> str:
    """The emitted file without the prelude (the fixed support code and the C-as-C++ shims)."""
    assert output.startswith(PRELUDE) and END_MARK in output
    return output[output.index(END_MARK) + len(END_MARK):]


def function_text(output: str, signature: str) -> str:
    """From a function's definition to the next function (kernels for it come before it)."""
    start = output.index(signature)
    rest = output[start + len(signature):]
    end = re.search(r"\n(?:static |int |void |double |template )", rest)
    return output[start:start + len(signature) + (end.start() if end else len(rest))]


def run_original(text: str, tmp_path: Path) -> str:
    src = tmp_path / "orig.c"
    src.write_text(text)
    exe = tmp_path / "orig"
    subprocess.run(["gcc", "-O1", str(src), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout


def build_emulated(output: str, tmp_path: Path) -> Path:
    src = tmp_path / "lifted.cu"
    src.write_text(output)
    exe = tmp_path / "lifted"
    done = subprocess.run([CXX, "-O1", "-Wall", "-x", "c++", "-include", str(EMULATION), str(src), "-o", str(exe),
                           "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return exe


def run_exe(exe: Path, order: str = "", expect_rc: int = 0) -> subprocess.CompletedProcess:
    env = dict(os.environ, LIFT_EMU_ORDER=order)
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert ran.returncode == expect_rc, ran.stderr
    return ran


def run_emulated(output: str, tmp_path: Path, expect_rc: int = 0) -> subprocess.CompletedProcess:
    return run_exe(build_emulated(output, tmp_path), expect_rc=expect_rc)


def same_results(text: str, tmp_path: Path, rtol: float = 0.0) -> str:
    """The lifted program, emulated with its threads in order and in reverse, prints what the original does."""
    result = lift_cuda(text)
    expected = run_original(text, tmp_path)
    exe = build_emulated(result.output, tmp_path)
    for order in ("", "reverse"):
        got = run_exe(exe, order).stdout
        assert outputs_match(expected, got, rtol), f"--- original\n{expected}--- emulated CUDA {order}\n{got}"
    return result.output


STENCIL = """#include <stdio.h>
#include <stdlib.h>
#define N 300
#define TSTEPS 25

static void kernel_heat(int n, int tsteps, double *restrict a, double *restrict b)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}

int main(void)
{
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i * 37 % 101) / 101.0;
        b[i] = 0.0;
    }
    kernel_heat(N, TSTEPS, a, b);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    free(a);
    free(b);
    return 0;
}
"""


def test_time_loop_copies_each_array_in_once_before_and_out_once_after():
    out = host_part(lift_cuda(STENCIL).output)
    body = function_text(out, "static void kernel_heat(")
    loop = body.index("for (int t = 0; t < tsteps; t++)")
    loop_end = loop + body[loop:].index("\n        }\n")  # the host loop's closing brace
    copies_in = [m.start() for m in re.finditer(r"LIFT_TO_DEVICE\(", body)]
    copies_out = [m.start() for m in re.finditer(r"LIFT_TO_HOST\(", body)]
    assert len(copies_in) == 2 and len(copies_out) == 2, body
    assert all(c < loop for c in copies_in), "copies in must come before the time loop"
    assert all(c > loop_end for c in copies_out), "copies out must come after the time loop"
    for array in ("a", "b"):
        assert len(re.findall(rf"LIFT_TO_DEVICE\(lift_r_{array}, ", body)) == 1
        assert len(re.findall(rf"LIFT_TO_HOST\(\(char \*\)\({array}\)", body)) == 1
    launches = [m.start() for m in re.finditer(r"LIFT_LAUNCH\(kernel_heat_i_L\d+", body)]
    assert len(launches) == 2 and all(loop < p < loop_end for p in launches)
    assert body.count("LIFT_CHECK(lift_malloc(") == 2 and body.count("LIFT_CHECK(lift_free(") == 2


def test_time_stepped_stencil_computes_the_same(tmp_path):
    same_results(STENCIL, tmp_path)


def test_fully_overwritten_arrays_are_not_copied_in():
    out = host_part(lift_cuda(STENCIL).output)
    main = out[out.index("int main(void)"):]
    init = main[:main.index("kernel_heat(N")]
    assert "LIFT_TO_DEVICE(" not in init, "a and b are only written there: nothing to copy in"
    assert init.count("LIFT_TO_HOST(") == 2


def test_kernels_are_named_after_function_and_loop_and_keep_the_users_names():
    src = """#define N 64
static double A[N][N], B[N][N];
void gemm_like(int n, double alpha)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = alpha * B[j][i] + A[i][j];
}
"""
    out = lift_cuda(src).output
    assert re.search(r"static __global__ void kernel_gemm_like_i_L5\(", out)
    kernel = out[out.index("__global__ void kernel_gemm_like_i_L5"):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert "A[i][j] = alpha * B[j][i] + A[i][j];" in kernel
    # i and j both map to the grid; j, the innermost, on x (consecutive threads, consecutive A[i][j])
    assert re.search(r"int i = .*lift_t0;", kernel) and re.search(r"int j = .*lift_t1;", kernel)
    assert "lift_t1 = (long)blockIdx.x * blockDim.x + threadIdx.x" in kernel
    assert "lift_t0 = (long)blockIdx.y * blockDim.y + threadIdx.y" in kernel
    assert "lift_t1 < lift_n1" in kernel  # bounds guard
    launch = re.search(r"LIFT_LAUNCH\(kernel_gemm_like_i_L5, dim3\((.*?)\), dim3\(32, 8\)", out)
    assert launch, "2-D blocks of 32 x 8 threads"


REDUCTIONS = """#include <stdio.h>
#include <stdlib.h>
#define N 5000

static double dot(int n, const double *x, const double *y)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

static void extremes(int n, const double *x, double *lo_out, double *hi_out)
{
    double lo = x[0], hi = x[0];
    for (int i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    *lo_out = lo;
    *hi_out = hi;
}

static long isum(int n, const int *a)
{
    long total = 7;
    for (int i = 0; i < n; i++)
        total += a[i];
    return total;
}

int main(void)
{
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    int *a = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) {
        x[i] = (double)((i * 7919L) % 1009) / 1009.0 - 0.5;
        y[i] = (double)(i % 13) / 13.0;
        a[i] = (i * 31) % 97 - 40;
    }
    double lo, hi;
    extremes(N, x, &lo, &hi);
    printf("dot: %.12e\\nlo: %.12e\\nhi: %.12e\\nisum: %ld\\n", dot(N, x, y), lo, hi, isum(N, a));
    free(x);
    free(y);
    free(a);
    return 0;
}
"""


def test_scalar_reductions_are_block_trees_with_one_atomic_per_block(tmp_path):
    out = same_results(REDUCTIONS, tmp_path, rtol=1e-9)
    host = host_part(out)
    assert "lift_block_reduce(lift_op_add(), lift_acc0, sum);" in host
    assert "lift_block_reduce(lift_op_min(), " in host and "lift_block_reduce(lift_op_max(), " in host
    assert "lift_block_reduce(lift_op_add(), lift_acc0, total);" in host
    # The prelude: shared-memory tree, then atomicAdd (native for double) or a CAS loop (min/max).
    assert "__shared__ lift_T lift_buf[LIFT_BLOCK_THREADS]" in PRELUDE
    assert "if (lift_tid == 0) lift_atomic(lift_op, lift_acc, lift_buf[0]);" in PRELUDE
    assert "atomicAdd(lift_p, lift_v)" in PRELUDE and "atomicCAS(lift_wordp, lift_assumed, lift_desired)" in PRELUDE


def test_every_cuda_call_and_launch_is_checked():
    for text in (STENCIL, REDUCTIONS):
        host = host_part(lift_cuda(text).output)
        for m in re.finditer(r"\b(?:cuda[A-Z]\w*|lift_malloc|lift_free)\s*\(", host):
            line_start = host.rfind("\n", 0, m.start()) + 1
            assert "LIFT_CHECK(" in host[line_start:m.start()], host[line_start:m.end() + 40]
        assert "<<<" not in host, "kernels are launched through LIFT_LAUNCH only"
        for name in re.findall(r"__global__ void (\w+)\(", host):
            assert re.search(rf"LIFT_LAUNCH\({name},", host)
    assert 'fprintf(stderr, "%s:%d: CUDA error: %s (%s)\\n", __FILE__, __LINE__' in PRELUDE
    assert "LIFT_CHECK(cudaGetLastError());" in PRELUDE


# Names a build may define on the command line (-DN=2000 sizes a problem) that neither CUDA's headers
# nor the C library's break on: lift's support code must not use them as its own names.
USER_MACROS = [*"ABCDEFGHIJKLMNOPQRSVWXYZijkmoqu", "at", "buf", "apply", "old", "grid", "block", "Op", "order",
               "threads", "cap", "slot", "Args", "run_thread", "finish", "element", "update", "word", "desired",
               "assumed", "cur", "acc", "tid", "own", "owner", "busy", "dev", "row", "call", "counter", "runs",
               "site", "writes"]
MACRO_SAFE = """#include <stdio.h>
static void smooth_rows(int rows, int cols, double grid_in[rows][cols], double grid_out[rows][cols], double *total)
{
    double sum_all = 0.0;
    for (int r0 = 1; r0 < rows - 1; r0++)
        for (int c0 = 0; c0 < cols; c0++) {
            grid_out[r0][c0] = 0.5 * grid_in[r0][c0] + 0.25 * (grid_in[r0 - 1][c0] + grid_in[r0 + 1][c0]);
            sum_all += grid_out[r0][c0];
        }
    *total = sum_all;
}
int main(void)
{
    static double first[64][48], second[64][48];
    double total = 0.0;
    for (int r0 = 0; r0 < 64; r0++)
        for (int c0 = 0; c0 < 48; c0++)
            first[r0][c0] = (double)((r0 * 7 + c0 * 3) % 11);
    smooth_rows(64, 48, first, second, &total);
    printf("total: %.6f\\n", total);
    return 0;
}
"""


def test_the_support_code_compiles_under_the_users_command_line_macros(tmp_path):
    """-DN=2000 -DW=100 on the command line reach lift's support code too (a template parameter N
    became `template <int 2000>`): every name it declares is lift_-prefixed."""
    out = lift_cuda(MACRO_SAFE).output
    assert "__global__" in out
    defines = [f"-D{name}=1" for name in USER_MACROS]
    src = tmp_path / "lifted.cu"
    src.write_text(out)
    done = subprocess.run([CXX, "-O1", "-x", "c++", *defines, "-include", str(EMULATION), str(src),
                           "-o", str(tmp_path / "lifted"), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert run_exe(tmp_path / "lifted").stdout == run_original(MACRO_SAFE, tmp_path)
    if shutil.which(os.environ.get("NVCC", "nvcc")) and os.environ.get("LIFT_TEST_NVCC") != "0":
        for profile in ([], ["-DLIFT_PROFILE"]):
            done = subprocess.run([os.environ.get("NVCC", "nvcc"), "-arch=sm_80", *defines, *profile, "-c", str(src),
                                   "-o", str(tmp_path / "lifted.o")], capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]


def test_a_failing_cuda_call_reports_file_and_line_and_exits(tmp_path):
    bad = PRELUDE + """
int main(void)
{
    char *d = 0;
    char host[16] = {0};
    LIFT_CHECK(cudaMalloc((void **)&d, 8));
    LIFT_CHECK(cudaMemcpy(d, host, 16, cudaMemcpyHostToDevice)); /* 16 bytes into 8 */
    puts("not reached");
    return 0;
}
"""
    ran = run_emulated(bad, tmp_path, expect_rc=1)
    assert "not reached" not in ran.stdout
    assert re.search(r"lifted\.cu:\d+: CUDA error: .*cudaMemcpy", ran.stderr), ran.stderr


def test_a_bad_launch_configuration_is_reported(tmp_path):
    bad = PRELUDE + """
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main(void)
{
    int *d = 0;
    LIFT_CHECK(cudaMalloc((void **)&d, 4096 * sizeof(int)));
    LIFT_LAUNCH(k, dim3(1), dim3(2048), d); /* more than 1024 threads per block */
    return 0;
}
"""
    ran = run_emulated(bad, tmp_path, expect_rc=1)
    assert "invalid configuration" in ran.stderr


SERIAL = """#include <stdio.h>
#define N 200
static double a[N], b[N];

static void kernel_ring(int n, int tsteps)
{
    for (int t = 0; t < tsteps; t++) {
        a[0] = a[n - 1];
        for (int i = 1; i < n; i++)
            b[i] = 0.5 * (a[i - 1] + a[i]);
        for (int i = 1; i < n; i++)
            a[i] = b[i];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (double)(i % 17) / 17.0;
    kernel_ring(N, 30);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_code_between_kernels_runs_on_one_gpu_thread_instead_of_copying(tmp_path):
    out = same_results(SERIAL, tmp_path, rtol=1e-9)
    body = function_text(host_part(out), "static void kernel_ring(")
    loop = body.index("for (int t = 0; t < tsteps; t++)")
    assert re.search(r"LIFT_LAUNCH\(kernel_ring_S8, dim3\(1\), dim3\(1\)", body), body
    assert all(m.start() < loop for m in re.finditer(r"LIFT_TO_DEVICE\(", body))
    assert len(re.findall(r"LIFT_TO_DEVICE\(", body)) == 2


ALIAS = """#include <stdio.h>
#define N 100
static double buf[2 * N];

static void shift(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0 * x[i] + 1.0;
}

int main(void)
{
    for (int i = 0; i < 2 * N; i++)
        buf[i] = (double)(i % 9);
    shift(N, buf, buf + N);      /* disjoint: on the GPU */
    shift(N, buf, buf + 1);      /* overlapping: the original loop, on the host */
    double s = 0.0;
    for (int i = 0; i < 2 * N; i++)
        s += buf[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_possibly_aliasing_pointers_get_a_run_time_check_and_the_original_code(tmp_path):
    out = same_results(ALIAS, tmp_path)
    body = function_text(host_part(out), "static void shift(")
    guard = next(l for l in body.splitlines() if l.strip().startswith("if ("))
    assert "(const char *)(x) + lift_lo_x" in guard and "(const char *)(y) + lift_lo_y" in guard
    assert "} else { /* too little work, or the arrays overlap: the original code, on the host */" in body
    assert "y[i] = 2.0 * x[i] + 1.0;" in body.split("} else {")[1]


VLA = """#include <stdio.h>
#include <stdlib.h>
static void fill(int n, int m, double A[n][m]);

static void fill(int n, int m, double A[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (double)(i * m + j) / (n * m);
}

int main(void)
{
    int n = 30, m = 40;
    double (*A)[40] = malloc(sizeof(double[30][40]));
    fill(n, m, A);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += A[i][j] * (1 + (i + j) % 5);
    printf("s: %.12e\\n", s);
    free(A);
    return 0;
}
"""


def test_c_only_constructs_become_valid_cxx(tmp_path):
    out = same_results(VLA, tmp_path, rtol=1e-9)
    host = host_part(out)
    # variable-length array parameters: void * in every declaration, a VLA pointer in the body
    assert host.count("static void fill(int n, int m, void *lift_vla_A)") == 2
    assert "{ double (*A)[m] = (double (*)[m])lift_vla_A;" in host
    assert "double (*A)[40] = malloc(sizeof(double[30][40]));" in host, "host code stays as written"
    assert "#define malloc(...) (lift_void_ptr{malloc(__VA_ARGS__)})" in CXX_SHIMS
    assert "#define restrict __restrict__" in CXX_SHIMS
    # the file's own system headers come before the allocator macros
    head = out[:out.index(END_MARK)]
    assert head.index("#include <stdlib.h>", len(PRELUDE)) < head.index("#define malloc(...)")


KEYWORDS = """#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#define N 500
static void step(int n, const double *old, double *new)
{
    for (int i = 1; i < n - 1; i++)
        new[i] = (old[i - 1] + old[i] + old[i + 1]) / 3.0;
}
int main(void)
{
    double *old = malloc(N * sizeof(double)), *new = malloc(N * sizeof(double));
    for (int class = 0; class < N; class++)
        old[class] = new[class] = (double)(class % 10);
    for (int t = 0; t < 10; t++) {
        step(N, old, new);
        double *this = old;
        old = new;
        new = this;
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += old[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    free(old);
    free(new);
    return 0;
}
"""


def test_names_that_are_cxx_keywords_are_renamed(tmp_path):
    out = same_results(KEYWORDS, tmp_path, rtol=1e-9)
    host = host_part(out)
    assert "double *lift_cxx_this = old;" in host and "old = lift_cxx_new;" in host
    assert "for (int lift_cxx_class = 0; lift_cxx_class < N; lift_cxx_class++)" in host
    assert "lift_cxx_delete" not in out


HISTOGRAM = """#include <stdio.h>
#define N 1000
#define B 16
static int key[N];
static long hist[B];

static void kernel_hist(int n)
{
    for (int i = 0; i < n; i++)
        hist[key[i]] += 1;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        key[i] = (i * 7) % B;
    kernel_hist(N);
    long s = 0;
    for (int b = 0; b < B; b++)
        s += hist[b] * (b + 1);
    printf("s: %ld\\n", s);
    return 0;
}
"""


def test_array_reductions_become_atomic_updates(tmp_path):
    out = same_results(HISTOGRAM, tmp_path)
    body = function_text(host_part(out), "static void kernel_hist(")
    assert "LIFT_LAUNCH(kernel_hist_i_L9" in body
    assert "lift_atomic_update(lift_op_add(), &(hist[key[i]]), 1);" in host_part(out)


SCRATCH = """#include <stdio.h>
#define N 40
static double A[N][N];

static void kernel_rows(int n)
{
    for (int i = 0; i < n; i++) {
        double tmp[n];
        for (int j = 0; j < n; j++)
            tmp[j] = A[i][j] * 2.0;
        for (int j = 0; j < n; j++)
            A[i][j] = tmp[n - 1 - j];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i * 3 + j) % 11);
    kernel_rows(N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_a_per_iteration_variable_length_array_becomes_a_slice_of_a_scratch_buffer(tmp_path):
    out = same_results(SCRATCH, tmp_path)
    host = host_part(out)
    kernel = host[host.index("static __global__ void kernel_rows_i_L7("):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert "double *tmp = (double *)lift_scratch0 + lift_global_rank() * (long)(n);" in kernel
    assert "double tmp[n];" not in kernel
    body = function_text(host, "static void kernel_rows(")
    # the launch allocates one slice per thread of the (capped) grid, and gives it back after
    assert "LIFT_CHECK(lift_malloc(&lift_s0, lift_threads * (size_t)lift_imax(1L, (long)(n)) * sizeof(double)));" in body
    assert re.search(r"LIFT_LAUNCH\(kernel_rows_i_L7, lift_grid, lift_block, .*lift_s0, lift_n0\);", body)
    assert "lift_blocks(lift_n0, 256, 256L)" in body
    assert "LIFT_TO_DEVICE(lift_r_tmp" not in body, "the array is the kernel's own: no copies"


def test_a_nest_that_cannot_be_offloaded_stays_as_written_with_the_reason(tmp_path):
    src = SCRATCH.replace("double tmp[n];", "double tmp[n][2];").replace("tmp[j] =", "tmp[j][1] =") \
        .replace("tmp[n - 1 - j]", "tmp[n - 1 - j][1]")
    result = lift_cuda(src)
    body = function_text(host_part(result.output), "static void kernel_rows(")
    assert "LIFT_LAUNCH" not in body
    assert "/* lift: loop nest not offloaded to the GPU: 'tmp' is a variable-length array" in body
    assert "double tmp[n][2];" in body
    verdicts = [o.offload for g, o in zip(result.graphs, result.outcomes) if g.function == "kernel_rows"]
    assert verdicts and not verdicts[0].offloaded and "variable-length" in verdicts[0].reason
    same_results(src, tmp_path, rtol=1e-9)


def test_the_emulation_exposes_kernels_that_depend_on_thread_order(tmp_path):
    racy = PRELUDE + CXX_SHIMS + """
__global__ void chain(double *a, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i + 1] = a[i] + 1.0; /* a recurrence: wrong as a kernel */
}
int main(void)
{
    double h[1001] = {0}, *d = 0;
    LIFT_CHECK(cudaMalloc((void **)&d, sizeof h));
    LIFT_CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    LIFT_LAUNCH(chain, dim3(4), dim3(256), d, 1000L);
    LIFT_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("%g\\n", h[1000]);
    return 0;
}
"""
    exe = build_emulated(racy, tmp_path)
    assert run_exe(exe).stdout.strip() == "1000"
    assert run_exe(exe, "reverse").stdout.strip() == "1"


FIELDS = """#include <stdio.h>
#include <stdlib.h>
#define N 700
typedef struct { double x, y, v; } pt;
static void kernel_move(int n, pt *a, double dt)
{
    for (int t = 0; t < 5; t++)
        for (int i = 0; i < n; i++) {
            a[i].x = a[i].x + dt * a[i].v;
            a[i].v = a[i].v * 0.99 + a[i].y;
        }
}
int main(void)
{
    pt *a = malloc(N * sizeof(pt));
    for (int i = 0; i < N; i++) { a[i].x = i; a[i].y = (i % 5) * 0.1; a[i].v = 1.0; }
    kernel_move(N, a, 0.01);
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i].x * (1 + i % 7) + a[i].v;
    printf("s: %.12e\\n", s);
    free(a);
    return 0;
}
"""


def test_fields_of_an_array_of_structs_share_one_device_buffer(tmp_path):
    out = same_results(FIELDS, tmp_path)
    body = function_text(host_part(out), "static void kernel_move(")
    assert body.count("LIFT_CHECK(lift_malloc(") == 1 and "lift_ptr_of((a)[0], lift_d_a)" in body
    assert body.count("LIFT_TO_DEVICE(") == 1 and body.count("LIFT_TO_HOST(") == 1


def test_small_work_stays_on_the_host_when_the_planner_says_so(tmp_path):
    result = lift_source(ALIAS, "k.c", LiftOptions(target="cuda"))  # the default profitability guard
    body = function_text(host_part(result.output), "static void shift(")
    plan = [d["node"].plan for g in result.graphs for _, d in g.nodes(data=True)
            if getattr(d["node"], "plan", None) is not None and g.function == "shift"]
    assert plan and plan[0].condition, "the planner asks for enough work at run time"
    assert f"if (({plan[0].condition})" in body
    expected = run_original(ALIAS, tmp_path)
    assert run_emulated(result.output, tmp_path).stdout == expected


def test_profiled_builds_report_every_kernel(tmp_path):
    src = tmp_path / "p.cu"
    src.write_text(lift_cuda(STENCIL).output)
    exe = tmp_path / "p"
    done = subprocess.run([CXX, "-O1", "-DLIFT_PROFILE", "-x", "c++", "-include", str(EMULATION), str(src), "-o",
                           str(exe), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ran = run_exe(exe)
    lines = [l for l in ran.stderr.splitlines() if l.startswith("lift-profile: ")]
    assert any(re.match(r"lift-profile: kernel_heat_i_L\d+ launches 25 time_ms [\d.]+$", l) for l in lines), ran.stderr


def test_without_parallel_loops_the_file_is_the_input_after_the_prelude():
    src = """int f(int n, int *a) { int s = 0; for (int i = 1; i < n; i++) a[i] += a[i - 1]; return s; }\n"""
    assert host_part(lift_cuda(src).output) == "\n" + src


@needs_nvcc
def test_nvcc_compiles_the_emitted_file(tmp_path):
    nvcc_compiles(tmp_path / "stencil.cu", lift_cuda(STENCIL + REDUCTIONS.replace("int main(void)", "int main2(void)")
                                                     .replace("#include <stdio.h>\n#include <stdlib.h>\n", "")
                                                     .replace("#define N 5000", "")).output)


PIPELINE = """#include <stdio.h>
#include <stdlib.h>
#define N 400

static void kernel_pipeline(int n, double *restrict x, double *restrict y, double *restrict z)
{
    for (int i = 0; i < n; i++)          /* producer: y from x */
        y[i] = 2.0 * x[i] + 1.0;
    for (int i = 1; i < n - 1; i++)      /* consumer: z from y */
        z[i] = y[i - 1] + y[i] + y[i + 1];
    for (int i = 0; i < n; i++)          /* and y again */
        y[i] = y[i] * 0.5;
}

int main(void)
{
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double)), *z = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        x[i] = (double)(i * 37 % 101) / 101.0;
        z[i] = 1.0;
    }
    kernel_pipeline(N, x, y, z);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += (y[i] + 3.0 * z[i]) * (1 + i % 7);
    printf("s: %.12e\\n", s);
    free(x);
    free(y);
    free(z);
    return 0;
}
"""


def copies(body: str, array: str) -> tuple[int, int]:
    return (len(re.findall(rf"LIFT_TO_DEVICE\(lift_r_{array}, ", body)),
            len(re.findall(rf"LIFT_TO_HOST\(\(char \*\)\({array}\)", body)))


def test_consecutive_nests_share_device_data_without_copies_between_them(tmp_path):
    out = same_results(PIPELINE, tmp_path)
    body = function_text(host_part(out), "static void kernel_pipeline(")
    launches = [body.index(f"LIFT_LAUNCH({k}") for k in re.findall(r"LIFT_LAUNCH\((kernel_pipeline_i_L\d+)", body)]
    assert len(launches) == 3
    assert body.count("lift: 3 loop nests share their device data") == 1
    for a in launches[1:]:
        between = body[launches[0]:a]
        assert "LIFT_TO_HOST(" not in between and "LIFT_TO_DEVICE(" not in between, between
    # each array moves once: x in (z is only written, rows 1..n-2: the rows its buffer holds), y and z out; y is produced on the
    # GPU: its copy in is skipped when the producer writes every row the buffer holds (checked at run time)
    assert copies(body, "x") == (1, 0) and copies(body, "y") == (1, 1) and copies(body, "z") == (0, 1), body
    assert re.search(r"if \(!\(lift_lo_y == \(0L\) && lift_lo_y_end == \(\(long\)n - 1L\)\)\) "
                     r"/\* unless every element is overwritten \*/\n\s*LIFT_TO_DEVICE\(lift_r_y, ", body), body
    # at run time: the bytes moved are the minimum (x in; y, z out)
    stats = byte_counts(out, tmp_path)["kernel_pipeline_i_L7"]
    assert stats["copied_in"] == stats["min_in"] == 400 * 8
    assert stats["copied_out"] == stats["min_out"] == (400 + 398) * 8
    assert body.count("LIFT_CHECK(lift_malloc(") == 3 and body.count("LIFT_CHECK(lift_free(") == 3
    assert all(c < launches[0] for c in (m.start() for m in re.finditer(r"LIFT_TO_DEVICE\(", body)))
    assert all(c > launches[-1] for c in (m.start() for m in re.finditer(r"LIFT_TO_HOST\(", body)))


HOST_BETWEEN = """#include <stdio.h>
#include <stdlib.h>
#define N 300

static double probe;

static void kernel_steps(int n, double *restrict a, double *restrict b)
{
    for (int i = 0; i < n; i++)
        a[i] = (double)(i % 13) * 0.5;
    probe = a[n / 2] + a[1];             /* host code reads what the GPU wrote */
    for (int i = 1; i < n; i++)
        b[i] = a[i] - a[i - 1] + probe;
    a[0] = -1.0;                          /* host code writes a device array */
    for (int i = 0; i < n; i++)
        b[i] += a[i];
}

int main(void)
{
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        b[i] = 0.25;
    kernel_steps(N, a, b);
    double s = probe;
    for (int i = 0; i < N; i++)
        s += (a[i] + 2.0 * b[i]) * (1 + i % 5);
    printf("s: %.12e\\n", s);
    free(a);
    free(b);
    return 0;
}
"""


def test_host_code_between_nests_gets_the_device_results_first(tmp_path):
    out = same_results(HOST_BETWEEN, tmp_path)
    body = function_text(host_part(out), "static void kernel_steps(")
    assert body.count("lift: 3 loop nests share their device data") == 1
    read = body.index("probe = a[n / 2] + a[1];")
    write = body.index("a[0] = -1.0;")
    back = [m.start() for m in re.finditer(r"LIFT_TO_HOST\(\(char \*\)\(a\)", body)]
    to_dev = [m.start() for m in re.finditer(r"LIFT_TO_DEVICE\(lift_r_a, ", body)]
    first, second, third = [m.start() for m in re.finditer(r"LIFT_LAUNCH\(kernel_steps_i_L\d+", body)]
    # a: written by the first nest, read by the host: copied back right before the read
    assert any(first < c < read for c in back), body
    # a: written by the host, used by the third nest: copied to the device again between them
    assert any(write < c < third for c in to_dev), body
    # b, which the host code does not touch, stays on the device: in before its first nest, out at the end
    assert not re.search(r"LIFT_TO_HOST\([^;]*\bb\b", body[first:third]), body
    assert copies(body, "b") == (1, 1)
    assert len(back) == 1, "a comes back before the host reads it; the nests after only read it"


def test_a_call_between_nests_ends_the_data_scope(tmp_path):
    src = HOST_BETWEEN.replace("    a[0] = -1.0;                          /* host code writes a device array */\n",
                               "    touch(a);\n").replace("static double probe;\n", """static double probe;
static void touch(double *p) { p[0] = -1.0; }
""")
    out = same_results(src, tmp_path)
    body = function_text(host_part(out), "static void kernel_steps(")
    assert body.count("lift: 2 loop nests share their device data") == 1
    assert body.count("lift: loop nest offloaded to the GPU") == 1  # the third nest, after the call
    call = body.index("touch(a);")
    assert all(m.start() < call for m in re.finditer(r"LIFT_TO_HOST\(\(char \*\)\(a\)", body[:call]))
    assert body.count("touch(a);") == 1 + body.count("touch(a);") - 1  # the call is host code, outside scopes
    scope_end = body.rindex("LIFT_CHECK(cudaDeviceSynchronize());", 0, call)
    assert scope_end < call


def byte_counts(output: str, tmp_path: Path) -> dict[str, dict[str, int]]:
    """The lift-bytes lines a profiled build prints: first kernel of the data scope -> counts."""
    src = tmp_path / "p.cu"
    src.write_text(output)
    exe = tmp_path / "p"
    done = subprocess.run([CXX, "-O1", "-DLIFT_PROFILE", "-x", "c++", "-include", str(EMULATION), str(src), "-o",
                           str(exe), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = {}
    for line in run_exe(exe).stderr.splitlines():
        if line.startswith("lift-bytes: "):
            words = line.split()
            out[words[1]] = {k: int(v) for k, v in zip(words[-10::2], words[-9::2])}
    return out


def test_the_time_stepped_stencil_moves_the_minimum_of_bytes(tmp_path):
    stats = byte_counts(lift_cuda(STENCIL).output, tmp_path)
    heat = [v for k, v in stats.items() if k.startswith("kernel_heat_")]
    assert len(heat) == 1, stats
    # in once: a's rows 0..299 and b's 1..298; out once: the rows both are written, 1..298
    assert heat[0]["runs"] == 1 and heat[0]["copied_in"] == heat[0]["min_in"] == (300 + 298) * 8
    assert heat[0]["copied_out"] == heat[0]["min_out"] == 2 * 298 * 8


LU = """#include <stdio.h>
#define N 90
static double A[N][N];

static void kernel_lu(int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {          /* sequential: on the host, between the kernels */
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (int j = i; j < n; j++)            /* parallel: a kernel per i */
            for (int k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i + 2 * j) % N) / N;
        A[i][i] += N;
    }
    kernel_lu(N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_long_host_code_between_kernels_stays_on_the_host_with_the_rows_it_needs(tmp_path):
    out = same_results(LU, tmp_path)
    body = function_text(host_part(out), "static void kernel_lu(")
    loop = body.index("for (int i = 0; i < n; i++) {")
    host = body.index("A[i][j] /= A[j][j];")
    launch = body.index("LIFT_LAUNCH(kernel_lu_j_L13")
    # the rows the kernels wrote since the host last saw them come back before the host loop ...
    back = body.index("LIFT_DIRTY_TO_HOST(A, lift_d_A, lift_dirty_lo_A, lift_dirty_hi_A, sizeof((A)[0]));")
    # ... and the row it wrote goes to the device after it, before the kernel
    to_dev = body.index("LIFT_ROWS_TO_DEVICE(lift_d_A, A, (long)i, (long)i, lift_lo_A, lift_rows_A, sizeof((A)[0]));")
    assert loop < back < host < to_dev < launch, body
    # each launch marks the row it writes as newer on the GPU
    assert re.search(r"lift_hull\(&lift_dirty_lo_A, &lift_dirty_hi_A, lift_imax\(\(long\)i, lift_lo_A\), ", body)
    assert copies(body, "A") == (1, 1), "the whole matrix moves once each way, around the loop"
    # the bytes moved: the matrix in and out once, plus two rows per step (one back, one in)
    stats = byte_counts(out, tmp_path)["kernel_lu_j_L13"]
    row = 90 * 8
    assert stats["min_in"] == 90 * row and stats["copied_in"] <= stats["min_in"] + 90 * row
    assert stats["copied_out"] <= stats["min_out"] + 90 * row


CALL_IN_LOOP = """#include <stdio.h>
#define N 500
static double x[N], b[N];
static int solves;

static void solve(int n, double *out, const double *in)   /* not lifted: an unknown call for the nest */
{
    double s = 0.0;
    solves++;  /* a global scalar written: no effect summary, so the call stays unknown */
    for (int i = 0; i < n; i++) {
        s = 0.5 * s + in[i];
        out[i] = s;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        b[i] = (double)(i % 13) / 13.0;
    double total = 0.0;
    for (int r = 0; r < 4; r++) {
        solve(N, x, b);
        for (int i = 0; i < N; i++)
            b[i] = 0.5 * b[i] + 0.25 * x[i];
        total += x[N - 1];
    }
    printf("total: %.12e\\nb: %.12e\\n", total, b[7] + b[N - 1]);
    return 0;
}
"""


def test_a_call_inside_a_loop_with_kernels_sees_the_device_results(tmp_path):
    out = same_results(CALL_IN_LOOP, tmp_path)
    body = function_text(host_part(out), "int main(void)")
    call = body.index("solve(N, x, b);")
    assert body.rindex("LIFT_DIRTY_TO_HOST(b, lift_d_b", 0, call) < call
    after = body[call:body.index("LIFT_LAUNCH(kernel_main_i_L23")]
    assert "LIFT_ROWS_TO_DEVICE(lift_d_b, b," in after and "LIFT_ROWS_TO_DEVICE(lift_d_x, x," in after


@pytest.mark.parametrize("code, expected", [
    ("s = A[n / 2] + A[1];", ({"A"}, set(), False, {"s"})),
    ("A[0] = -1.0;", ({"A"}, {"A"}, False, set())),
    ("B[i][j] += 2.0; i++;", ({"B"}, {"B"}, False, {"i"})),
    ("g->u[3] = 1.0;", ({"g->u"}, {"g->u"}, False, set())),
    ('printf("%f\\n", A[0] + sqrt(t));', ({"A"}, set(), False, set())),
    ("t = q[3];", (set(), set(), True, {"t"})),       # an unknown array: may be any of them
    ("if (t > 0.5) t = 0.5;", (set(), set(), False, {"t"})),
    ("q[3] = 1.0;", None),                              # a write lift cannot tell apart
    ("*p = 1.0;", None),
    ("t = (double)*p;", None),
    ("A = B;", None),                                   # the pointer changes: its buffer would be stale
    ("g->u = 0;", None),
    ("A++;", None),
    ("double t = A[0];", None),                         # a declaration: the scope would hide it
    ("foo(A);", None),                                  # an unknown function
    ("return;", None),
    ('printf("%s", name);', ({"A", "B", "g->u"} & set(), set(), True, set())),
])
def test_host_code_between_nests_is_read_conservatively(code, expected):
    eff = _gap_effects(code, {"A", "B", "g->u"})
    if expected is None:
        assert eff is None
    else:
        assert eff is not None and (eff.reads, eff.writes, eff.reads_all, eff.assigned) == expected


@needs_nvcc
@pytest.mark.parametrize("name", ["PIPELINE", "HOST_BETWEEN", "LU", "CALL_IN_LOOP", "SCRATCH"])
def test_nvcc_compiles_shared_scopes_host_code_in_nests_and_scratch_arrays(name, tmp_path):
    nvcc_compiles(tmp_path / f"{name.lower()}.cu", lift_cuda(globals()[name]).output, warnings=False)


HELPER = """#include <stdio.h>
#include <stdlib.h>
#define N 60
static inline size_t at(int i, int j, int n) { return (size_t)i * n + j; }

static void kernel_scale(int n, const double *restrict in, double *restrict out)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 0; j < n; j++)
            out[i * n + j] = 2.0 * in[at(i - 1, j, n)] + in[at(i, j, n)];
}

int main(void)
{
    double *in = malloc(N * N * sizeof(double)), *out = malloc(N * N * sizeof(double));
    for (int k = 0; k < N * N; k++) {
        in[k] = (double)(k % 17);
        out[k] = -1.0;
    }
    kernel_scale(N, in, out);
    double s = 0.0;
    for (int k = 0; k < N * N; k++)
        s += out[k] * (1 + k % 5);
    printf("s: %.12e\\n", s);
    free(in);
    free(out);
    return 0;
}
"""


def test_subscripts_through_an_index_helper_are_bounded(tmp_path):
    out = same_results(HELPER, tmp_path)
    body = function_text(host_part(out), "static void kernel_scale(")
    assert "LIFT_LAUNCH(kernel_scale_i_L8" in body
    # in: elements (i - 1) * n + j .. i * n + j over 1 <= i <= n - 2, 0 <= j < n, through at(): 0 .. 3539;
    # out: 60 .. 3539, every element written (j covers its rows): not copied in
    assert re.search(r"if \(!\(\(0L\) == 0L && \(\(long\)n - 1L\) \+ 1L == \(long\)\(\(n\) / \(1\)\)\)\) "
                     r"/\* unless every element is overwritten \*/\n\s*LIFT_TO_DEVICE\(lift_r_out, ", body), body
    stats = byte_counts(out, tmp_path)["kernel_scale_i_L8"]
    assert stats["copied_in"] == stats["min_in"] == 3540 * 8
    assert stats["copied_out"] == stats["min_out"] == 3480 * 8


C99_ARRAY_PARAMETERS = """#include <stdio.h>
static double a[10][10];
static void f(int n, double b[restrict static 10][10], const double c[const 10])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 10; j++)
            b[i][j] = c[j] * i;
}
int main(void)
{
    double c[10];
    for (int j = 0; j < 10; j++)
        c[j] = j;
    f(10, a, c);
    printf("%g %g\\n", a[9][9], a[3][4]);
    return 0;
}
"""


def test_c99_qualifiers_in_array_parameters_become_cxx(tmp_path):
    # `b[restrict static 10]` is C only (found by fuzz.py --target cuda): the brackets lose them.
    out = same_results(C99_ARRAY_PARAMETERS, tmp_path)
    assert "double b[ 10][10], const double c[ 10]" in out.replace("  ", " ")


ONE_ITERATION = """#include <stdio.h>
static unsigned A2[1][2];
int main(void)
{
    unsigned x = 12345u;
    unsigned long h = 0;
    for (int i = 0; i < 1; i++)
        for (int j = 0; j < 2; j++)
            { x = x * 1103515245u + 12345u; A2[i][j] = (x >> 8) % 1000u; }
    for (int i = 0; i < 1; i++)
        for (int j = 0; j < 2; j++)
            { h = h * 31u + A2[i][j]; }
    printf("%lu %u\\n", h, x);
    return 0;
}
"""


def test_scalars_a_one_iteration_loop_writes_stay_on_the_host(tmp_path):
    # A loop of one iteration carries nothing, so it is parallel while `x` and `h` are shared,
    # not private: a thread-local copy lost their values (found by fuzz.py --target cuda).
    out = same_results(ONE_ITERATION, tmp_path)
    assert "offloaded to the GPU (" not in out.split("int main(void)")[1]
    assert "'x' is written in the loop but is not private to it" in out


EARLIER_NEST_THEN_HOST_CODE = """#include <stdio.h>
#define N 40
static double a[N][N];
int main(void)
{
    double t = 0.0, s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = (i * 7 + j) % 11;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = a[i][j] * 2.0 + 1.0;
    for (int r = 1; r < 5; r++) {
        for (int j = 0; j < r; j++)
            a[r][j] += 1.0;
        for (int j = 0; j < N; j++) {
            t = t * 0.5 + a[j][r + 10];
            a[r + 20][j] = t;
        }
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += a[i][j] * (i + 2 * j + 1);
    printf("%.6f %.6f\\n", s, t);
    return 0;
}
"""


def test_host_code_sees_rows_an_earlier_nest_wrote_on_the_device(tmp_path):
    # The first nest's kernel writes every row; the host code inside the next nest reads them.
    # Rows newer on the GPU were only counted for the nest with host code (fuzz.py --target cuda).
    out = same_results(EARLIER_NEST_THEN_HOST_CODE, tmp_path)
    assert "any row may be newer on the GPU" in out


HOST_CODE_READS_ANOTHER_NESTS_ARRAY = """#include <stdio.h>
#define N 40
static double a[N][N], b[N][N];
int main(void)
{
    double t = 0.0, s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = b[i][j] = (i * 7 + j) % 11;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            b[i][j] = b[i][j] * 2.0 + 1.0;
    for (int r = 1; r < 5; r++) {
        for (int j = 0; j < r; j++)
            a[r][j] += 1.0;
        for (int j = 0; j < N; j++)
            t = t * 0.5 + b[j][r];
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += a[i][j] * (i + 2 * j + 1) + b[i][j];
    printf("%.6f %.6f\\n", s, t);
    return 0;
}
"""


def test_host_code_reads_an_array_only_an_earlier_nest_holds_on_the_device(tmp_path):
    # `b` is not among the second nest's device arrays, but its host code reads what the first
    # nest's kernel wrote: the two nests do not share a data scope (fuzz.py --target cuda).
    same_results(HOST_CODE_READS_ANOTHER_NESTS_ARRAY, tmp_path)


# --------------------------------------------------------------------------------------
# Sequential loops around offloaded nests (while, do, for loops lift does not lift): the data
# scope holds the loop whole, so the arrays stay on the device across its iterations.

WHILE_SOLVER = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 300

static int solve(int n, int maxit, double tol, double *restrict u, double *restrict v)
{
    double err = 1.0;
    int it = 0;
    while (err > tol && it < maxit) {
        for (int i = 1; i < n - 1; i++)
            v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.001 * u[i];
        err = 0.0;
        for (int i = 1; i < n - 1; i++)
            err = fmax(err, fabs(v[i] - u[i]));
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i];
        it++;
    }
    return it;
}

int main(void)
{
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (double)(i % 17) / 17.0;
        v[i] = -1.0;
    }
    int it = solve(N, 2000, 1e-7, u, v);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += (u[i] + 0.5 * v[i]) * (1 + i % 7);
    printf("it %d s %.12e\\n", it, s);
    free(u);
    free(v);
    return 0;
}
"""
LOOP_KINDS = {
    "while": (WHILE_SOLVER, "while (err > tol && it < maxit) {"),
    "do": (WHILE_SOLVER.replace("while (err > tol && it < maxit) {", "do {")
           .replace("        it++;\n    }\n", "        it++;\n    } while (err > tol && it < maxit);\n"), "do {"),
    "for": (WHILE_SOLVER.replace("while (err > tol && it < maxit) {", "for (it = 0; err > tol && it < maxit; it++) {")
            .replace("        it++;\n", ""), "for (it = 0; err > tol && it < maxit; it++) {"),
}


def loop_text(body: str, head: str) -> tuple[int, int]:
    """Where the emitted loop whose header ends with `{` is: from its header to its closing brace."""
    start = body.index(head)
    depth = 0
    for k in range(start + len(head) - 1, len(body)):
        depth += {"{": 1, "}": -1}.get(body[k], 0)
        if depth == 0:
            return start, k + 1
    raise AssertionError("unbalanced braces")


@pytest.mark.parametrize("kind", sorted(LOOP_KINDS))
def test_a_solver_loop_copies_each_array_in_once_before_it_and_out_once_after_it(kind, tmp_path):
    src, head = LOOP_KINDS[kind]
    out = same_results(src, tmp_path)
    body = function_text(host_part(out), "static int solve(")
    assert "kept on the device across the iterations of the loop around them" in body, body
    start, end = loop_text(body, head)
    inside = body[start:end]
    assert len(re.findall(r"LIFT_LAUNCH\(kernel_solve_i_L\d+", inside)) == 3
    assert not re.search(r"LIFT_TO_(HOST|DEVICE)|LIFT_ROWS_TO_DEVICE|LIFT_DIRTY_TO_HOST", inside), inside
    assert copies(body, "u") == (1, 1) and copies(body, "v") == (1, 1), body
    assert all(m.start() < start for m in re.finditer(r"LIFT_TO_DEVICE\(", body))
    assert all(m.start() > end for m in re.finditer(r"LIFT_TO_HOST\(", body))
    # at run time: one scope run, the bytes moved are the minimum (u, v in once, out once)
    stats = byte_counts(out, tmp_path)
    solve = [v for k, v in stats.items() if k.startswith("kernel_solve_")]
    assert len(solve) == 1 and solve[0]["runs"] == 1, stats
    assert solve[0]["copied_in"] == solve[0]["min_in"] == (300 + 298) * 8
    assert solve[0]["copied_out"] == solve[0]["min_out"] == 2 * 298 * 8


HOST_IN_LOOP = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 300

static double probe;

static int solve(int n, int maxit, double tol, double *restrict u, double *restrict v, double *restrict w)
{
    double err = 1.0;
    int it = 0;
    while (u[n / 2] < 100.0 && it < maxit) {      /* the condition reads u */
        for (int i = 1; i < n - 1; i++)
            v[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.01 + w[i];
        err = 0.0;
        for (int i = 1; i < n - 1; i++)
            err = fmax(err, fabs(v[i] - u[i]));
        double mid = v[n / 3];                      /* host code reads v */
        probe += mid;
        if (err < tol)
            break;                                  /* an early exit */
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i];
        u[0] = u[1] * 0.5;                          /* host code writes u */
        it++;
        if (it % 7 == 3)
            continue;
        for (int i = 0; i < n; i++)
            w[i] = 0.999 * w[i];
    }
    return it;
}

int main(void)
{
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double)), *w = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (double)(i % 17) / 17.0;
        v[i] = 0.0;
        w[i] = 0.001 * (i % 3);
    }
    int it = solve(N, 400, 1e-9, u, v, w);
    double s = 0.0, t = 0.0;
    for (int i = 0; i < N; i++) {
        s += u[i] * (1 + i % 7) + w[i];
        t += v[i] * (1 + i % 5);
    }
    printf("it %d s %.12e t %.12e probe %.12e\\n", it, s, t, probe);
    free(u);
    free(v);
    free(w);
    return 0;
}
"""


def test_host_code_in_a_loop_body_and_its_condition_get_exactly_the_copies_they_need(tmp_path):
    out = same_results(HOST_IN_LOOP, tmp_path)
    body = function_text(host_part(out), "static int solve(")
    assert "kept on the device across the iterations of the loop around them" in body, body
    start, end = loop_text(body, "while (u[n / 2] < 100.0 && it < maxit) {")
    inside = body[start:end]
    # v comes back right before the host code that reads it, u right before the host code that writes it
    read, write = inside.index("double mid = v[n / 3];"), inside.index("u[0] = u[1] * 0.5;")
    assert [m.start() for m in re.finditer(r"LIFT_TO_HOST\(\(char \*\)\(v\)", inside)] and \
        all(m.start() < read for m in re.finditer(r"LIFT_TO_HOST\(\(char \*\)\(v\)", inside))
    assert len(re.findall(r"LIFT_TO_HOST\(\(char \*\)\(v\)", inside)) == 1
    back_u = [m.start() for m in re.finditer(r"LIFT_TO_HOST\(\(char \*\)\(u\)", inside)]
    assert len(back_u) == 1 and read < back_u[0] < write, inside
    # u is written on the host every iteration: it goes to the device once per iteration (the
    # condition reads it on the host: it cannot stay on the device only); w, which host code never
    # touches, stays on the device: in before the loop, out after it
    assert len(re.findall(r"LIFT_TO_DEVICE\(lift_r_u, ", inside)) == 1
    assert "lift_r_w" not in inside.replace("LIFT_LAUNCH", "") or copies(inside, "w") == (0, 0)
    assert copies(inside, "w") == (0, 0) and copies(body, "w") == (1, 1), body


EARLY_EXIT = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 200

static int run(int n, double *restrict u, double *restrict v)
{
    int it = 0;
    double err;
    for (;;) {
        for (int i = 1; i < n - 1; i++)
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        err = 0.0;
        for (int i = 1; i < n - 1; i++)
            err = fmax(err, fabs(v[i] - u[i]));
        it++;
        if (err < 1e-4 || it > 5000) {
            v[0] = -it;                 /* written on the host, right before leaving */
            break;
        }
        if (it % 4 == 1)
            continue;                   /* skips the copy of v into u */
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i];
    }
    return it;
}

int main(void)
{
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (double)(i % 23) / 23.0;
        v[i] = 1.0;
    }
    int it = run(N, u, v);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += (u[i] + 3.0 * v[i]) * (1 + i % 7);
    printf("it %d s %.12e\\n", it, s);
    free(u);
    free(v);
    return 0;
}
"""


def test_break_and_continue_leave_the_loop_with_the_arrays_where_the_code_after_expects_them(tmp_path):
    out = same_results(EARLY_EXIT, tmp_path)
    body = function_text(host_part(out), "static int run(")
    assert "kept on the device across the iterations of the loop around them" in body, body
    # v was written on the host before the break: it goes back to the device on that path, where
    # the loop's exit expects it
    assert re.search(r"\{ LIFT_TO_DEVICE\(lift_r_v, [^\n]*break; \}", body), body


@pytest.mark.parametrize("change, why", [
    ("        return it;\n", "return"),                       # leaves the scope past its copies out
    ("        n = n - (it % 2);\n", "bounds"),                 # the nests' bounds change in the loop
    ("        touch(u);\n", "call"),                           # an unknown function
])
def test_a_loop_the_scope_cannot_hold_keeps_per_iteration_scopes(change, why, tmp_path):
    src = EARLY_EXIT.replace("        if (it % 4 == 1)\n", change + "        if (it % 4 == 1)\n")
    src = src.replace("        return it;\n        if", "        if (it == 7)\n            return it;\n        if")
    src = src.replace("#define N 200\n", "#define N 200\nstatic void touch(double *p) { p[0] += 1e-9; }\n")
    out = same_results(src, tmp_path)
    body = function_text(host_part(out), "static int run(")
    assert "kept on the device across the iterations" not in body, (why, body)


NESTED_LOOPS = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 250

int main(void)
{
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double)), *w = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        u[i] = (double)(i % 19) / 19.0;
        v[i] = w[i] = 0.0;
    }
    double change = 1.0;
    int sweeps = 0;
    while (change > 1e-6 && sweeps < 40) {
        for (int i = 0; i < N; i++)
            w[i] = u[i];
        int k = 0;
        do {
            for (int i = 1; i < N - 1; i++)
                v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
            for (int i = 1; i < N - 1; i++)
                u[i] = v[i];
            k++;
        } while (k < 3 + sweeps % 2);
        change = 0.0;
        for (int i = 0; i < N; i++)
            change = fmax(change, fabs(u[i] - w[i]));
        sweeps++;
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += (u[i] + v[i] + w[i]) * (1 + i % 7);
    printf("sweeps %d s %.12e\\n", sweeps, s);
    free(u);
    free(v);
    free(w);
    return 0;
}
"""


def test_nested_sequential_loops_keep_the_arrays_on_the_device(tmp_path):
    out = same_results(NESTED_LOOPS, tmp_path)
    body = function_text(host_part(out), "int main(void)")
    start, end = loop_text(body, "while (change > 1e-6 && sweeps < 40) {")
    inside = body[start:end]
    assert "do {" in inside and len(re.findall(r"LIFT_LAUNCH\(kernel_main_i_L\d+", inside)) == 4
    assert not re.search(r"LIFT_TO_(HOST|DEVICE)", inside), inside
    scope = body[body.rindex("{ /* lift:", 0, start):]
    for a in ("u", "v", "w"):
        assert copies(scope[:scope.index("LIFT_BYTES(")], a) in ((1, 1), (0, 1)), scope


@pytest.mark.parametrize("code, exits, assigned", [
    ("double t = A[0];", [], {"t"}),                         # a declaration: the loop's braces keep it
    ("if (t > 0.5) break;", ["break"], set()),
    ("if (t > 0.5) { A[0] = 1.0; continue; }", ["continue"], set()),
    ("for (k = 0; k < 3; k++) if (k == t) break;", [], {"k"}),   # the host loop's own break
    ("switch (k) { case 1: t = 2; break; }", None, None),   # case labels: not bounded
    ("return;", None, None),
    ("lab: t = 1;", None, None),
])
def test_host_code_in_a_loop_body_may_declare_and_leave_the_loop(code, exits, assigned):
    eff = _gap_effects(code, {"A", "B"}, in_loop=True)
    if exits is None:
        assert eff is None
    else:
        assert eff is not None and [e[0] for e in eff.exits] == exits and eff.assigned == assigned
    if exits:  # outside a loop the scope holds, a jump out of the host code ends the scope
        assert _gap_effects(code, {"A", "B"}) is None


def _gap_effects(code: str, hosts: set[str], in_loop: bool = False):
    """`gap_effects` of the line `code` in a function body, from the records of the file's host code."""
    from lifter.analysis.host_code import host_code
    from lifter.analysis.host_effects import gap_effects
    from lifter.frontend.source import SourceFile
    text = "void f(void) { x;\n" + code + "\n}"
    return gap_effects(host_code(SourceFile("t.c", text)), text.index("\n"), text.rindex("\n"), hosts, in_loop)


@needs_nvcc
@pytest.mark.parametrize("name", ["WHILE_SOLVER", "HOST_IN_LOOP", "EARLY_EXIT", "NESTED_LOOPS"])
def test_nvcc_compiles_data_scopes_around_loops(name, tmp_path):
    nvcc_compiles(tmp_path / f"{name.lower()}.cu", lift_cuda(globals()[name]).output, warnings=False)


# --------------------------------------------------------------------------------------
# Regions: a loop that calls the file's functions with offloaded nests keeps their device data
# from one call to the next (a run-time table of host ranges, cuda_prelude.py).

CALLS_IN_LOOP = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 80

typedef struct { int maxit; double tol; } params;
static double trace;

static double kernel_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static void kernel_axpy(int n, double a, const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

static void kernel_xpay(int n, const double *restrict r, double beta, double *restrict p)
{
    for (int i = 0; i < n; i++)
        p[i] = r[i] + beta * p[i];
}

static void kernel_matvec(int n, const double *restrict A, const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

static void kernel_shift(int n, const double *x, double *y)   /* may overlap: checked at run time */
{
    for (int i = 0; i < n; i++)
        y[i] = 0.5 * x[i];
}

static int solve(const params *prm, int n, const double *A, double *x, double *r, double *p, double *q)
{
    double rr = kernel_dot(n, r, r);
    int it = 0;
    while (it < prm->maxit && rr > prm->tol) {
        kernel_matvec(n, A, p, q);
        double alpha = rr / kernel_dot(n, p, q);
        kernel_axpy(n, alpha, p, x);
        kernel_axpy(n, -alpha, q, r);
        double rr_new = kernel_dot(n, r, r);
        if (it % 4 == 1)
            trace += x[it % n] + q[0];              /* host code reads the device's results */
        if (rr_new < 1e-30)
            break;
        kernel_xpay(n, r, rr_new / rr, p);
        rr = rr_new;
        it++;
    }
    return it;
}

int main(void)
{
    params prm = {200, 1e-20};
    double *A = malloc(N * N * sizeof(double)), *x = malloc(N * sizeof(double)), *r = malloc(N * sizeof(double));
    double *p = malloc(N * sizeof(double)), *q = malloc(N * sizeof(double)), *w = malloc((N + 1) * sizeof(double));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i * N + j] = i == j ? N + 1.0 : 1.0 / (1 + abs(i - j));
    int total = 0;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < N; i++) {
            x[i] = 0.0;
            r[i] = p[i] = 1.0 + (i * (k + 2)) % 5;
        }
        total += solve(&prm, N, A, x, r, p, q);
    }
    for (int i = 0; i <= N; i++)
        w[i] = i % 3;
    for (int t = 0; t < 3 && w[1] < 1e9; t++)
        kernel_shift(N, w, w + 1);                  /* overlapping: the original code runs */
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += x[i] * (1 + i % 7) + w[i];
    printf("it %d s %.10e trace %.10e\\n", total, s, trace);
    return 0;
}
"""


def test_a_loop_calling_functions_with_offloaded_nests_keeps_their_data_on_the_device(tmp_path):
    out = same_results(CALLS_IN_LOOP, tmp_path, rtol=1e-9)
    body = function_text(host_part(out), "static int solve(")
    assert "lift_region_begin()" in body and "lift_region_end(" in body, body
    loop = body[body.index("while ("):body.index("lift_region_end(")]
    # the condition reads prm->maxit and prm->tol: just those bytes are checked against the table
    assert "lift_present_host(&(prm->maxit), sizeof(prm->maxit), 0), lift_present_host(&(prm->tol)" in loop
    # host code that reads x and q (through subscripts lift cannot bound) gets every newer value first
    read = loop.index("trace += x[it % n] + q[0];")
    assert loop.rindex("lift_present_host(0, 0, 0);", 0, read) < read
    for f in ("kernel_dot", "kernel_axpy", "kernel_xpay", "kernel_matvec"):
        assert "lift_present_acquire(" in function_text(host_part(out), f"static {'double' if f == 'kernel_dot' else 'void'} {f}(")
    stats = byte_counts(out, tmp_path)
    matvec = next(v for k, v in stats.items() if k.startswith("kernel_matvec_"))
    # A (80 x 80 doubles) moves once per solve, not once per call; so do the vectors
    assert matvec["runs"] >= 10 and matvec["copied_in"] <= 2 * (80 * 80 + 2 * 80) * 8, matvec
    moved = sum(v["copied_in"] + v["copied_out"] for k, v in stats.items() if k.startswith(("kernel_", "region_"))
                and not k.startswith("kernel_main"))
    minimum = sum(v["min_in"] + v["min_out"] for k, v in stats.items() if k.startswith("kernel_")
                  and not k.startswith("kernel_main"))
    assert moved * 4 < minimum, stats  # the per-call minimum is what every call moved before


@pytest.mark.parametrize("change", [
    ("        kernel_xpay(n, r, rr_new / rr, p);\n", "        kernel_xpay(n, r, rr_new / rr, p);\n        touch(&rr);\n"),
    ("        kernel_xpay(n, r, rr_new / rr, p);\n", "        kernel_xpay(n, r, rr_new / rr, p);\n        if (it > 500) return -1;\n"),
    # a called function that writes memory outside its data scope
    ("    for (int i = 0; i < n; i++)\n        y[i] += a * x[i];\n",
     "    for (int i = 0; i < n; i++)\n        y[i] += a * x[i];\n    y[0] += trace;\n"),
])
def test_a_loop_whose_calls_cannot_keep_device_data_is_no_region(change, tmp_path):
    src = CALLS_IN_LOOP.replace(*change).replace("static double trace;\n",
                                                 "static double trace;\nstatic void touch(double *v) { *v += 0.0; }\n")
    out = same_results(src, tmp_path, rtol=1e-9)
    assert "lift_region_begin()" not in function_text(host_part(out), "static int solve(")


def test_a_called_function_that_reads_its_device_data_after_its_scope_syncs_first(tmp_path):
    """Host code of a called function outside its data scope may read memory the table holds on the
    device: the table's newer values come back right before it (here all of them: `y[0]`)."""
    src = CALLS_IN_LOOP.replace("    for (int i = 0; i < n; i++)\n        y[i] += a * x[i];\n",
                                "    for (int i = 0; i < n; i++)\n        y[i] += a * x[i];\n    trace += y[0];\n")
    out = same_results(src, tmp_path, rtol=1e-9)
    assert "lift_region_begin()" in function_text(host_part(out), "static int solve(")
    axpy = function_text(host_part(out), "static void kernel_axpy(")
    assert axpy.index("lift_present_host(0, 0, 0);") < axpy.index("trace += y[0];")


@needs_nvcc
def test_nvcc_compiles_regions(tmp_path):
    nvcc_compiles(tmp_path / "regions.cu", lift_cuda(CALLS_IN_LOOP).output, warnings=False)


def test_a_nest_that_is_not_offloaded_does_not_make_the_functions_it_calls_host_device():
    # cg_dense's main loop calls kernel_matvec but stays on the host (the rows of A, which it only
    # hands to calls, cannot be bounded; those of q that a one-thread kernel's statement writes are
    # that statement's own, `_node_rows`): kernel_matvec is not called from GPU code, so its own
    # nest is offloaded.
    path = Path(__file__).resolve().parents[2] / "corpus" / "miniapps" / "cg_dense.c"
    out = lift_cuda(path.read_text(), "cg_dense.c").output
    assert "LIFT_HD static void kernel_matvec" not in out
    assert "LIFT_LAUNCH(kernel_matvec_i_L" in out
    assert "loop nest not offloaded to the GPU: the rows of 'A'" in out


def test_do_loops_with_and_without_braces_are_regions(tmp_path):
    src = CALLS_IN_LOOP.replace("""    for (int t = 0; t < 3 && w[1] < 1e9; t++)
        kernel_shift(N, w, w + 1);                  /* overlapping: the original code runs */""", """    int t = 0;
    do
        kernel_axpy(N, 0.5, x, w);
    while (++t < 3);
    do {
        t--;
        kernel_shift(N - 1, w + 1, w);              /* overlapping: the original code runs */
        kernel_axpy(N, 0.25, w + 1, x);
    } while (t > 0 && x[2] < 1e9);""")
    out = same_results(src, tmp_path, rtol=1e-9)
    assert host_part(out).count("lift_region_begin()") == 3


SWAP_JACOBI = """#include <stdio.h>
#include <stdlib.h>
#define N 300

static void jacobi(int n, int tsteps, double *u, double *v, double *w)
{
    int t = 0;
    double *tmp;
    while (t < tsteps) {
        for (int i = 1; i < n - 1; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] - 0.01 * w[i];
        SWAP
        t++;
    }
    printf("u: %.9f %.9f\\n", u[1], v[2]);
}

int main(void)
{
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double)), *c = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        a[i] = (double)(i * 37 % 101) / 101.0;
        b[i] = (double)(i % 3);
        c[i] = 1.0 / (1 + i);
    }
    jacobi(N, 25, a, b, c);
    double s = 0.0, r = 0.0, q = 0.0;
    for (int i = 0; i < N; i++) {
        s += a[i] * (1 + i % 7);
        r += b[i] * (1 + i % 5);
        q += c[i] * (1 + i % 3);
    }
    printf("s: %.12e %.12e %.12e\\n", s, r, q);
    free(a);
    free(b);
    free(c);
    return 0;
}
"""
SWAPS = {
    "declared tmp": "double *p = u;\n        u = v;\n        v = p;",
    "tmp declared before": "tmp = u;\n        u = v;\n        v = tmp;",
    "rotation of three": "tmp = u;\n        u = v;\n        v = w;\n        w = tmp;",
}


def _jacobi_loop_copies(output: str) -> tuple[str, int, int, list[int], list[int]]:
    body = function_text(host_part(output), "static void jacobi(")
    loop = body.index("while (t < tsteps) {")
    loop_end = loop + body[loop:].index("\n            }\n")
    copies_in = [m.start() for m in re.finditer(r"LIFT_TO_DEVICE\(", body)]
    copies_out = [m.start() for m in re.finditer(r"LIFT_TO_HOST\(", body)]
    return body, loop, loop_end, copies_in, copies_out


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_time_loop_that_swaps_array_pointers_keeps_them_on_the_device(swap):
    text = SWAP_JACOBI.replace("SWAP", SWAPS[swap])
    body, loop, loop_end, copies_in, copies_out = _jacobi_loop_copies(lift_cuda(text).output)
    rotated = ["u", "v", "w"] if "w = " in SWAPS[swap] else ["u", "v"]
    assert "the device buffers rotate with them" in body, body
    assert len(copies_in) == 3 and len(copies_out) == len(rotated), body  # w is only read when not rotated
    assert all(c < loop for c in copies_in) and all(c > loop_end for c in copies_out), body
    for array in rotated:
        assert len(re.findall(rf"LIFT_TO_DEVICE\(lift_r_{array}, \(const char \*\)\({array}\)", body)) == 1
        assert len(re.findall(rf"LIFT_TO_HOST\(\(char \*\)\({array}\)", body)) == 1


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_time_loop_that_swaps_array_pointers_computes_the_same(swap, tmp_path):
    same_results(SWAP_JACOBI.replace("SWAP", SWAPS[swap]), tmp_path)


REFUSED_SWAPS = {
    # only on some iterations: the scope would have to follow it at run time
    "conditional": "if (t % 2 == 0) {\n            tmp = u;\n            u = v;\n            v = tmp;\n        }",
    # not a rotation: v keeps its pointer, u gets v's
    "not exact": "tmp = u;\n        u = v;\n        v = u;",
    # tmp never comes back: w's pointer would be in two names
    "open chain": "tmp = u;\n        u = v;\n        v = w;",
}


@pytest.mark.parametrize("swap", sorted(REFUSED_SWAPS))
def test_other_pointer_assignments_still_end_the_data_scope(swap, tmp_path):
    text = SWAP_JACOBI.replace("SWAP", REFUSED_SWAPS[swap])
    output = same_results(text, tmp_path)
    body = function_text(host_part(output), "static void jacobi(")
    assert "rotate with them" not in body
    loop = body.index("while (t < tsteps) {")
    assert body.index("LIFT_TO_DEVICE(") > loop, "the copies stay in the loop: the pointers change under the scope"


def test_rotated_buffers_hold_the_same_rows_and_elements(tmp_path):
    """u and v trade places: both buffers hold the hull of both arrays' rows (v's own rows are 1..n-2,
    u's 0..n-1), and a run-time check (else the original code) that their elements have one size."""
    text = SWAP_JACOBI.replace("SWAP", SWAPS["declared tmp"])
    body = function_text(host_part(lift_cuda(text).output), "static void jacobi(")
    assert "sizeof((u)[0]) == sizeof((v)[0])" in body
    for array in ("u", "v"):
        assert body.count(f"lift_hull(&lift_lo_{array}, &lift_lo_{array}_end") == 2, body


def test_host_code_reading_a_rotated_array_in_the_loop_sees_the_right_values(tmp_path):
    swap = "if (t % 7 == 0)\n            printf(\"%.9f %.9f\\n\", u[3], v[4]);\n        " + \
        SWAPS["declared tmp"] + "\n        printf(\"%.9f\\n\", u[5]);"
    output = same_results(SWAP_JACOBI.replace("SWAP", swap), tmp_path)
    assert "rotate with them" in output


def test_a_pointer_swapping_time_loop_moves_each_array_once(tmp_path):
    text = SWAP_JACOBI.replace("SWAP", SWAPS["declared tmp"]).replace("25, a, b, c", "25, a, b, c")
    stats = byte_counts(lift_cuda(text).output, tmp_path)
    jac = [v for k, v in stats.items() if k.startswith("kernel_jacobi_")]
    assert len(jac) == 1 and jac[0]["runs"] == 1, stats
    # in once: the hull of u's and v's rows (0..299) for each, and w's rows 1..298; out once: u and v
    assert jac[0]["copied_in"] == (2 * 300 + 298) * 8 and jac[0]["copied_out"] == 2 * 300 * 8, stats


HEAT2D = Path(__file__).resolve().parents[2] / "corpus" / "miniapps" / "heat2d_app.c"


def test_a_struct_swap_between_calls_keeps_the_grids_on_the_device(tmp_path):
    """heat2d_app's time loop calls the sweep and the difference, then swaps the two grid structs
    (`*cur = *next`): that copies pointers and sizes, not the grids, so the region keeps them on the
    device (the copies check the bytes they touch against the table at run time)."""
    text = "#define N 300\n#define MAXIT 40\n" + HEAT2D.read_text()
    output = same_results(text, tmp_path)
    solve = function_text(host_part(output), "static int solve(")
    assert "lift_region_begin()" in solve and "lift_present_host(cur, sizeof(*cur), 1)" in solve
    stats = byte_counts(output, tmp_path)
    for name in ("kernel_sweep_", "kernel_maxdiff_"):
        scope = next(v for k, v in stats.items() if k.startswith(name))
        assert scope["runs"] == 40 and scope["copied_out"] == 0, stats
        # each grid comes in about once, not once per call
        assert scope["copied_in"] <= 2 * 300 * 300 * 8 < scope["min_in"] // 10, stats
    region = next(v for k, v in stats.items() if k.startswith("region_solve_"))
    assert 0 < region["copied_out"] <= 3 * 300 * 300 * 8, stats


POINTED_WRITE = """#include <stdio.h>
#define N 50000
static double A[N];

static void kernel_scale(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.5 * x[i] + 1.0;
}

int main(void)
{
    double *p = A, *q = A + 7, first;
    for (int i = 0; i < N; i++)
        A[i] = (double)(i % 13);
    for (int t = 0; t < 6; t++) {
        kernel_scale(A, N);
        first = *q;   /* reads the device's newer value of A[7] */
        *p = first;   /* writes A[0]: the next call must see it */
    }
    printf("%.9f %.9f %.9f\\n", A[0], A[7], A[N - 1]);
    return 0;
}
"""


def test_copies_through_pointers_in_a_region_sync_with_the_device_data(tmp_path):
    output = same_results(POINTED_WRITE, tmp_path)
    assert "lift_region_begin()" in output and "lift_present_host(p, sizeof(*p), 1)" in output


def test_a_pointer_swapping_time_loop_in_a_function_a_region_calls(tmp_path):
    """The scope's buffers are then entries of the run-time table: the entries rotate with the pointers."""
    text = SWAP_JACOBI.replace("SWAP", SWAPS["tmp declared before"]).replace(
        "    jacobi(N, 25, a, b, c);", "    for (int r = 0; r < 3; r++)\n        jacobi(N, 5 + r, a, b, c);")
    output = same_results(text, tmp_path)
    assert "lift_region_begin()" in output and "lift_t = lift_e_u; lift_e_u = lift_e_v;" in output
    stats = byte_counts(output, tmp_path)
    jac = next(v for k, v in stats.items() if k.startswith("kernel_jacobi_"))
    assert jac["runs"] == 3 and jac["copied_in"] == (2 * 300 + 298) * 8 and jac["copied_out"] == 0, stats
