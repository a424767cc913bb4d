#!/usr/bin/env bash
# gpu_check.sh - lift every corpus program to CUDA, build it with nvcc, run it on the GPU,
# compare its output with the sequential original, and time the kernels and the whole runs.
#
#   scripts/gpu_check.sh                    benchmark sizes (the lift-bench line of each file)
#   scripts/gpu_check.sh --small            the programs' default sizes, every parallel loop offloaded
#   scripts/gpu_check.sh gemm suite-lu      only these programs (file stems, or folder-stem)
#   scripts/gpu_check.sh --arch sm_90       nvcc -arch (default: native; sm_80 when no GPU is visible)
#   scripts/gpu_check.sh --compile-only     build, do not run (also the default when no GPU is visible)
#   scripts/gpu_check.sh --repeat 5         runs per binary; the median wall time counts (default 3)
#   scripts/gpu_check.sh --out DIR          where builds and results go (default gpu-results)
#   scripts/gpu_check.sh --lift-only        only lift: write DIR/<stem>/prog.cu and stop
#   scripts/gpu_check.sh --lifted           do not lift: build the DIR/<stem>/prog.cu already there
#                                           (without names: every program lifted into DIR)
#   scripts/gpu_check.sh -j 16              programs built at once (default: the number of cores)
#
# The GPU machine need not have lift's dependencies: lift with --lift-only where lift is
# installed, take DIR to the GPU machine and run --lifted there (outputs are compared by
# tests/outputs.py, which needs Python alone).
#
# Per program, in DIR/<folder>-<stem>/: serial (gcc -O3 -march=native), prog.cu (lift), cuda (nvcc -O3),
# cuda_profile (nvcc -O3 -DLIFT_PROFILE: every launch timed with CUDA events, printed at exit).
# DIR/results.tsv has one row per program:
#   program  status  serial_s  cuda_s  speedup  kernel_ms  launches  kernels  bytes_moved  bytes_min
# bytes_moved is what the profiled run copied between host and device, bytes_min the minimum (each
# array the offloaded nests read copied in once, each one they write copied out once), summed over
# the data scopes; DIR/<program>/bytes.txt has them per data scope (launch site).
# status is ok, wrong (output differs beyond a relative 1e-8: nvcc contracts a*b+c into FMAs and
# reductions sum in another order), lift-error, build-error, crash, timeout or compiled (compile only).
# Exit status: 0 when every program is ok (or compiled), 1 otherwise.
set -u

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="gpu-results"
ARCH=""
SIZES="bench"
REPEAT=3
COMPILE_ONLY=0
LIFT_ONLY=0
LIFTED=0
JOBS="$(nproc 2>/dev/null || echo 2)"
TIMEOUT=600
ONLY=()
while [ $# -gt 0 ]; do
    case "$1" in
        --small) SIZES="small" ;;
        --arch) ARCH="$2"; shift ;;
        --compile-only) COMPILE_ONLY=1 ;;
        --lift-only) LIFT_ONLY=1 ;;
        --lifted) LIFTED=1 ;;
        -j) JOBS="$2"; shift ;;
        --repeat) REPEAT="$2"; shift ;;
        --out) OUT="$2"; shift ;;
        --timeout) TIMEOUT="$2"; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "gpu_check.sh: unknown option $1" >&2; exit 2 ;;
        *) ONLY+=("$1") ;;
    esac
    shift
done

NVCC="${NVCC:-nvcc}"
PYTHON="${PYTHON:-python3}"
if [ "$LIFT_ONLY" = 0 ]; then
    command -v "$NVCC" >/dev/null 2>&1 || { echo "gpu_check.sh: nvcc not found (set NVCC)" >&2; exit 2; }
    command -v gcc >/dev/null 2>&1 || { echo "gpu_check.sh: gcc not found" >&2; exit 2; }
fi

HAVE_GPU=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    HAVE_GPU=1
fi
if [ -z "$ARCH" ]; then
    if [ "$HAVE_GPU" = 1 ]; then ARCH="native"; else ARCH="sm_80"; fi
fi
if [ "$HAVE_GPU" = 0 ] && [ "$COMPILE_ONLY" = 0 ] && [ "$LIFT_ONLY" = 0 ]; then
    echo "gpu_check.sh: no GPU visible (nvidia-smi): building only (-arch=$ARCH)" >&2
    COMPILE_ONLY=1
fi
[ "$HAVE_GPU" = 1 ] && nvidia-smi -L >&2

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
RESULTS="$OUT/results.tsv"

# Median wall time (seconds) of REPEAT runs of a binary; its stdout (last run) goes to $2.
time_runs() {
    local exe="$1" stdout="$2" stderr="$3" times=() t0 t1 rc
    for _ in $(seq "$REPEAT"); do
        t0=$(date +%s.%N)
        timeout "$TIMEOUT" "$exe" > "$stdout" 2> "$stderr"
        rc=$?
        t1=$(date +%s.%N)
        [ $rc -ne 0 ] && { echo "rc=$rc"; return; }
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.4f\n", a[int((NR+1)/2)]}'
}

# Lift with the Python API (so that --small can turn the profitability guard off).
lift_to() {
    local src="$1" dst="$2" minwork="$3"; shift 3
    "$PYTHON" - "$src" "$dst" "$minwork" "$@" <<'EOF'
import sys
sys.path.insert(0, ".")
from lifter import LiftOptions, lift_file
from lifter.frontend.preprocess import PreprocessOptions
src, dst, minwork, flags = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
defines = [f[2:] for f in flags if f.startswith("-D")]
options = LiftOptions(target="cuda", preprocess=PreprocessOptions(defines=defines))
if minwork >= 0:
    options.min_parallel_work = minwork
result = lift_file(src, options)
open(dst, "w", encoding="utf-8", errors="surrogateescape").write(result.output)
for g, outcome in zip(result.graphs, result.outcomes):
    off = outcome.offload
    if off is not None and off.kernels:
        test = f" (when {off.launch_test})" if off.launch_test else ""
        print("offloaded:", g.function, " ".join(off.kernels) + test, file=sys.stderr)
    elif off is not None and off.reason and off.reason != "no loop of the nest was parallelized":
        print("not offloaded:", g.function, "-", off.reason, file=sys.stderr)
EOF
}

# The -D flags and minimum work of a program at the chosen sizes.
program_flags() {
    if [ "$SIZES" = "bench" ]; then
        sed -n '1s|/\* lift-bench: \(.*\) \*/|\1|p' "$1"
    fi
}

# corpus/suite/gemm.c -> suite-gemm (two folders may hold programs of the same name).
program_name() {
    local name="${1#corpus/}"
    name="${name%.c}"
    echo "${name//\//-}"
}

# Lift (unless --lifted) and build one program; DIR/<stem>/build.status says how it went.
build_one() {
    local src="$1" dir flags minwork=-1
    dir="$OUT/$(program_name "$src")"
    mkdir -p "$dir"
    read -r -a flags <<< "$(program_flags "$src")"
    [ "$SIZES" = "small" ] && minwork=0
    if [ "$LIFTED" = 0 ]; then
        if ! lift_to "$src" "$dir/prog.cu" "$minwork" "${flags[@]}" 2> "$dir/lift.log"; then
            echo lift-error > "$dir/build.status"; return
        fi
    elif [ ! -s "$dir/prog.cu" ]; then
        echo lift-error > "$dir/build.status"; echo "no $dir/prog.cu (--lifted)" > "$dir/lift.log"; return
    fi
    if [ "$LIFT_ONLY" = 1 ]; then
        echo lifted > "$dir/build.status"; return
    fi
    if ! gcc -O3 -march=native "${flags[@]}" "$src" -o "$dir/serial" -lm 2> "$dir/serial.log"; then
        echo build-error > "$dir/build.status"; return
    fi
    if ! "$NVCC" -O3 "-arch=$ARCH" "${flags[@]}" "$dir/prog.cu" -o "$dir/cuda" 2> "$dir/nvcc.log" ||
       ! "$NVCC" -O3 "-arch=$ARCH" -DLIFT_PROFILE "${flags[@]}" "$dir/prog.cu" -o "$dir/cuda_profile" 2>> "$dir/nvcc.log"; then
        echo build-error > "$dir/build.status"; return
    fi
    echo built > "$dir/build.status"
}

cd "$ROOT" || exit 2
PROGRAMS=()
while IFS= read -r src; do
    stem="$(basename "$src" .c)"
    if [ ${#ONLY[@]} -gt 0 ] && [[ ! " ${ONLY[*]} " =~ " $stem " ]] &&
       [[ ! " ${ONLY[*]} " =~ " $(program_name "$src") " ]]; then
        continue
    fi
    # --lifted without names: the programs lifted into DIR (a --lift-only run may have named some).
    if [ ${#ONLY[@]} -eq 0 ] && [ "$LIFTED" = 1 ] && [ ! -s "$OUT/$(program_name "$src")/prog.cu" ]; then
        continue
    fi
    PROGRAMS+=("$src")
done < <(find corpus -name '*.c' -not -path 'corpus/apps/*' | sort)

# Phase 1: lift and build, JOBS programs at once.
for src in "${PROGRAMS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    build_one "$src" &
done
wait
if [ "$LIFT_ONLY" = 1 ]; then
    bad=$(grep -L '^lifted$' "$OUT"/*/build.status 2>/dev/null)
    echo "lifted ${#PROGRAMS[@]} programs into $OUT${bad:+; failed: $bad}"
    [ -z "$bad" ]; exit $?
fi

# Phase 2: run one program at a time (timings need the GPU and the host to themselves).
printf 'program\tstatus\tserial_s\tcuda_s\tspeedup\tkernel_ms\tlaunches\tkernels\tbytes_moved\tbytes_min\n' > "$RESULTS"
FAILED=0
for src in "${PROGRAMS[@]}"; do
    stem="$(program_name "$src")"
    dir="$OUT/$stem"
    row() {
        local f=("$@")
        while [ ${#f[@]} -lt 9 ]; do f+=(-); done
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$stem" "${f[@]}" >> "$RESULTS"
        printf '%-24s %s\n' "$stem" "${f[*]}"
    }
    status="$(cat "$dir/build.status" 2>/dev/null || echo build-error)"
    kernels=$(grep -c '^static __global__ void ' "$dir/prog.cu" 2>/dev/null)
    if [ "$status" != built ]; then
        row "$status" - - - - - "${kernels:--}"; FAILED=1; continue
    fi
    if [ "$COMPILE_ONLY" = 1 ]; then
        row compiled - - - - - "$kernels"; continue
    fi

    serial_s=$(time_runs "$dir/serial" "$dir/serial.out" "$dir/serial.err")
    cuda_s=$(time_runs "$dir/cuda" "$dir/cuda.out" "$dir/cuda.err")
    case "$serial_s$cuda_s" in
        *rc=124*) row timeout "$serial_s" "$cuda_s" - - - "$kernels"; FAILED=1; continue ;;
        *rc=*) row crash "$serial_s" "$cuda_s" - - - "$kernels"; FAILED=1; continue ;;
    esac
    timeout "$TIMEOUT" "$dir/cuda_profile" > "$dir/profile.out" 2> "$dir/profile.err"
    kernel_ms=$(awk '/^lift-profile:/ {ms += $6} END {printf "%.3f", ms}' "$dir/profile.err")
    launches=$(awk '/^lift-profile:/ {n += $4} END {print n + 0}' "$dir/profile.err")
    # lift-bytes: SITE... runs R copied_in A copied_out B min_in C min_out D (per data scope)
    grep '^lift-bytes:' "$dir/profile.err" > "$dir/bytes.txt"
    bytes_moved=$(awk '{m += $(NF-6) + $(NF-4)} END {printf "%.0f", m}' "$dir/bytes.txt")
    bytes_min=$(awk '{m += $(NF-2) + $NF} END {printf "%.0f", m}' "$dir/bytes.txt")
    speedup=$(awk -v s="$serial_s" -v c="$cuda_s" 'BEGIN {printf "%.2f", s / c}')
    if "$PYTHON" tests/outputs.py "$dir/serial.out" "$dir/cuda.out" 1e-8; then
        row ok "$serial_s" "$cuda_s" "$speedup" "$kernel_ms" "$launches" "$kernels" "$bytes_moved" "$bytes_min"
    else
        row wrong "$serial_s" "$cuda_s" "$speedup" "$kernel_ms" "$launches" "$kernels" "$bytes_moved" "$bytes_min"; FAILED=1
        diff "$dir/serial.out" "$dir/cuda.out" | head -5 | sed 's/^/    /'
    fi
done

echo
column -t -s $'\t' "$RESULTS" 2>/dev/null || cat "$RESULTS"
echo "results: $RESULTS (per-kernel times: $OUT/<program>/profile.err, bytes per data scope: $OUT/<program>/bytes.txt)"
exit $FAILED
