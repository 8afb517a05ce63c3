#!/usr/bin/env bash
# Runs every runtime GPU test on a machine with GPUs: the Catch2 [gpu] tests
# (both process models, planted hang, dead peer, the harness's references
# against NCCL), dslrun on the hand-written one-shot all-reduce in one
# process and in two processes, two processes as two hosts and as one node
# (teams_two_nodes.sh; skipped with fewer than 2 GPUs), and, when the build holds them (compiler
# configured), every dslc-compiled collective example in bf16/f16/f32 (one
# and two processes, 10,000-call repeats), the simulator/GPU differential
# check (dslrun --inputs-from the build's dump) and the planted hang in a
# dslc-compiled kernel.
# Usage: tests/runtime/run_gpu_tests.sh [BUILD_DIR]   (logs under $OUT)
# Every path is relative to BUILD_DIR (bin/, tests/runtime/kernels/), so a
# carried copy of those folders works; no dslc is needed here.
# The last line is "overall: 0" only when every step that ran passed; a
# summary before it lists each step as PASS, FAIL or SKIP.
# ONLY=REGEX runs only the steps whose names match (e.g.
# ONLY='differential|planted-hang'); the others are listed as SKIP.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BUILD=${1:-build-rt}
OUT=${OUT:-/tmp/dslc-runtime-gpu-logs}
# Bound on a planted hang's whole dslrun run (startup, 1 s spin, report).
HANG_LIMIT_S=${HANG_LIMIT_S:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT"
status=0
summary=()
record() { # NAME PASS|FAIL|SKIP DETAIL
  summary+=("$2 $1${3:+ ($3)}")
  [ "$2" != FAIL ] || status=1
}
selected() { # NAME: false (and SKIP recorded) when ONLY excludes it
  if [ -n "${ONLY:-}" ] && ! [[ $1 =~ $ONLY ]]; then
    record "$1" SKIP "not in ONLY=$ONLY"
    return 1
  fi
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# step NAME LIMIT_S CMD...: passes when CMD exits 0 within LIMIT_S; returns
# CMD's status (200 when ONLY skips it).
step() {
  local name=$1 limit=$2
  shift 2
  selected "$name" || return 200 # skipped: neither passed nor failed
  echo "=== $name: $*"
  local t0
  t0=$(now)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local secs
  secs=$(elapsed "$t0")
  tail -n 25 "$OUT/$name.log"
  echo "=== $name: exit $rc after ${secs}s"
  if [ $rc -eq 0 ]; then
    record "$name" PASS "${secs}s"
  else
    record "$name" FAIL "exit $rc after ${secs}s"
  fi
  return $rc
}

# hang_step NAME CMD...: a planted hang. Passes only when CMD fails (not
# killed) within HANG_LIMIT_S and its output holds a kernel error record for
# a DSL wait: "wait at FILE.py:LINE:COL timed out after 1000 ms: slot S
# expected 1, saw 0", where FILE.py:LINE:COL is an hl.wait( in that source.
hang_step() {
  local name=$1
  shift
  selected "$name" || return 0
  echo "=== $name: $*"
  local t0
  t0=$(now)
  timeout $((HANG_LIMIT_S + 20)) "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  local secs
  secs=$(elapsed "$t0")
  tail -n 25 "$OUT/$name.log"
  echo "=== $name: exit $rc after ${secs}s"
  local why=""
  local re='wait at [^ ]*(one_shot_all_reduce|missing-signal)\.py:[0-9]+:[0-9]+ timed out after 1000 ms: slot [0-9]+ expected 1, saw 0'
  if [ $rc -eq 0 ]; then
    why="dslrun succeeded on a kernel that must hang"
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    why="dslrun did not finish within $((HANG_LIMIT_S + 20))s: it hung"
  elif awk -v s="$secs" -v l="$HANG_LIMIT_S" 'BEGIN { exit !(s > l) }'; then
    why="dslrun failed, but only after ${secs}s (limit ${HANG_LIMIT_S}s)"
  elif ! grep -Eq "$re" "$OUT/$name.log"; then
    why="no error record of a DSL wait in the output (expected /$re/)"
  else
    # Each location named must be an hl.wait( in the DSL source.
    local loc file line col src text
    while read -r loc; do
      file=${loc%%:*}
      line=$(echo "$loc" | cut -d: -f2)
      col=$(echo "$loc" | cut -d: -f3)
      case $file in
      one_shot_all_reduce.py) src=$ROOT/examples/one_shot_all_reduce.py ;;
      missing-signal.py) src=$ROOT/tests/compiler/Simulator/Inputs/missing-signal.py ;;
      esac
      if [ ! -f "$src" ]; then
        echo "=== $name: note: $src not here; $loc not checked against the source"
        continue
      fi
      text=$(sed -n "${line}p" "$src")
      if [ "${text:$((col - 1)):8}" != "hl.wait(" ]; then
        why="$loc is not an hl.wait( in $src (line $line: '$text')"
        break
      fi
      echo "=== $name: $loc is the hl.wait( of $src:$line"
    done < <(grep -Eo "$re" "$OUT/$name.log" | grep -Eo '(one_shot_all_reduce|missing-signal)\.py:[0-9]+:[0-9]+' | sort -u)
  fi
  if [ -z "$why" ]; then
    record "$name" PASS "failed as planted after ${secs}s"
  else
    echo "=== $name: FAILED: $why"
    record "$name" FAIL "$why"
  fi
}

nvidia-smi -L
ldd "$BUILD/bin/dslrun" | grep -i nccl
KD="$BUILD/tests/runtime/kernels"
K="$KD/one_shot_all_reduce.r{rank}.cubin"
step unit 60 "$BUILD/bin/dslc-runtime-tests" "~[gpu]"
# The [multinode] test runs as the teams-* steps below, with NCCL's logs.
step gpu 420 "$BUILD/bin/dslc-runtime-tests" "[gpu]~[multinode]" --durations yes
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
# The hand-written kernel is compiled for two ranks.
if [ "${NGPU:-0}" -lt 2 ]; then
  for s in dslrun-1proc dslrun-2proc dslrun-kill-peer; do
    record "$s" SKIP "the kernel is compiled for 2 ranks, ${NGPU:-0} GPU(s) visible"
  done
else
  step dslrun-1proc 90 "$BUILD/bin/dslrun" --cubin "$K" \
    --sizes 1,7,8191,8192,8193,65539,1M,4M,16M,64M --iters 20 --graph-replays 100
  step dslrun-2proc 90 "$BUILD/bin/dslrun" --cubin "$K" --launch 2 \
    --sizes 1,8193,1M,16M --iters 20 --graph-replays 100
  # A peer killed while dslrun times the all-reduce: the survivor reports
  # and exits within the host timeout (kill_peer.sh, issue 15).
  step dslrun-kill-peer 90 bash "$ROOT/tests/runtime/kill_peer.sh" "$BUILD"
fi

# Teams: two processes as two hosts (a different NCCL_HOSTID each, NCCL over
# loopback sockets: the LSA team is one rank, peer tables naming the other
# rank are refused, the collectives run through NCCL or, with
# DSLC_HIERARCHICAL=on, the hierarchical path), four processes as two hosts
# of two GPUs (hierarchical with the world-2 kernels inside each host), then
# two as one node (the tuned kernels run). tests/runtime/teams_two_nodes.sh.
for mode in two-hosts two-hosts-x2 one-node; do
  if [ "$mode" = two-hosts ] && [ "${NGPU:-0}" -eq 1 ]; then
    # Both processes on the one GPU (NCCL accepts it across host ids).
    step "teams-$mode-one-gpu" 400 env ONE_GPU=1 \
      "$ROOT/tests/runtime/teams_two_nodes.sh" "$BUILD" "$mode"
  elif [ "${NGPU:-0}" -lt 2 ]; then
    record "teams-$mode" SKIP "needs 2 GPUs, ${NGPU:-0} visible"
  else
    step "teams-$mode" 400 "$ROOT/tests/runtime/teams_two_nodes.sh" \
      "$BUILD" "$mode"
  fi
done

# The dslc-compiled examples (tests/runtime/CMakeLists.txt builds each for
# every element type: kernels/dslc_NAME.r{rank}.cubin is bfloat16,
# dslc_NAME.float16.r{rank}.cubin and dslc_NAME.float32.r{rank}.cubin the
# others). Per example and dtype: one process (with NCCL side by side) and
# two processes over the sizes below; per example: 10,000 calls and 1,000
# graph replays at one size, the result checked after each phase.
# DTYPES='bfloat16' (say) narrows the dtypes; ONLY selects steps by name
# (dslc-NAME-DTYPE-1proc, dslc-NAME-DTYPE-2proc, dslc-NAME-repeat).
DTYPES=${DTYPES:-bfloat16 float16 float32}
# N = total elements; reduce_scatter / all_gather need multiples of the
# world size (2): the same sizes per rank.
AR_SIZES=1,7,1K,4099,65536,1M,16M,64M
RS_AG_SIZES=2,14,2K,8198,131072,2M,16M,64M
# example NAME COLLECTIVE REPEAT_SIZE
example() {
  local name=$1 coll=$2 repeat=$3 sizes=$AR_SIZES
  [ "$coll" = all_reduce ] || sizes=$RS_AG_SIZES
  local dt sfx
  for dt in $DTYPES; do
    sfx=""
    [ "$dt" = bfloat16 ] || sfx=".$dt"
    local first="$KD/dslc_${name}${sfx}.r0.cubin"
    local pattern="$KD/dslc_${name}${sfx}.r{rank}.cubin"
    if [ ! -f "$first" ]; then
      record "dslc-$name-$dt" SKIP "no $first (configure with the compiler)"
      continue
    fi
    step "dslc-$name-$dt-1proc" 300 "$BUILD/bin/dslrun" --cubin "$pattern" \
      --collective "$coll" --sizes "$sizes" --iters 20 --graph-replays 100 \
      --repetitions 3 --nccl
    step "dslc-$name-$dt-2proc" 300 "$BUILD/bin/dslrun" --cubin "$pattern" \
      --launch 2 --collective "$coll" --sizes "$sizes" --iters 20 \
      --graph-replays 100 --repetitions 3
  done
  if [ -f "$KD/dslc_${name}.r0.cubin" ]; then
    step "dslc-$name-repeat" 300 "$BUILD/bin/dslrun" \
      --cubin "$KD/dslc_${name}.r{rank}.cubin" --collective "$coll" \
      --sizes "$repeat" --iters 10000 --graph-replays 1000 --repetitions 1
  fi
}
example one_shot_all_reduce all_reduce 1048581
example ll_one_shot_all_reduce all_reduce 65539
example two_shot_all_reduce all_reduce 1048581
example ll_two_shot_all_reduce all_reduce 65539
example multicast_one_shot_all_reduce all_reduce 1048581
example multicast_two_shot_all_reduce all_reduce 1048581
example reduce_scatter reduce_scatter 1048582
example all_gather all_gather 1048582
example all_gather_multicast all_gather 1048582

# Differential check (issue 6): the simulator's dump of the example
# (--world-size 2 --size 100003 --seed 7, made at build time) run on the GPUs;
# every rank's output must equal the simulator's (floats: within 1 ulp, or
# the whole output within the contract's tolerance model).
D="$KD/dslc_one_shot_all_reduce.r{rank}.cubin"
SIM="$KD/dslc_one_shot_all_reduce.sim"
if [ -f "$SIM/manifest.json" ] && [ -f "$KD/dslc_one_shot_all_reduce.r0.cubin" ]; then
  for mode in 1proc 2proc; do
    extra=()
    [ $mode = 2proc ] && extra=(--launch 2)
    if step "differential-$mode" 120 "$BUILD/bin/dslrun" --cubin "$D" \
      --inputs-from "$SIM" "${extra[@]}"; then
      # dslrun's status already covers the verdicts; make sure both ranks
      # printed theirs.
      for r in 0 1; do
        if ! grep -q "rank $r: output 'out' (bfloat16\[100003\]): .*ok$" \
          "$OUT/differential-$mode.log"; then
          echo "=== differential-$mode: FAILED: no passing verdict for rank $r"
          record "differential-$mode-verdicts" FAIL "no verdict for rank $r"
        fi
      done
      grep -q "bitwise equal to the simulator" "$OUT/differential-$mode.log" ||
        echo "=== differential-$mode: note: not bitwise equal (within 1 ulp)"
    fi
  done
else
  echo "=== no simulation dump in $SIM (configure with the compiler)"
  record differential SKIP "no $SIM/manifest.json"
fi

# Any kernel (issue 12): the example bound from its roles alone and checked
# against its DSL reference (references.py:all_reduce_ref, compiled at build
# time) on one GPU over the stacked inputs; a wrong reference must fail.
R="$KD/dslc_ref_all_reduce_ref.cubin"
W="$KD/dslc_ref_forgets_last_rank.cubin"
if [ -f "$R" ] && [ -f "$KD/dslc_one_shot_all_reduce.r0.cubin" ]; then
  for mode in 1proc 2proc; do
    extra=()
    [ $mode = 2proc ] && extra=(--launch 2)
    step "reference-$mode" 120 "$BUILD/bin/dslrun" --cubin "$D" \
      --size a_shared=100003 --reference-cubin "$R" --iters 20 \
      --graph-replays 100 "${extra[@]}"
    if selected "reference-wrong-$mode"; then
      echo "=== reference-wrong-$mode: must fail"
      timeout 120 "$BUILD/bin/dslrun" --cubin "$D" --size a_shared=100003 \
        --reference-cubin "$W" "${extra[@]}" >"$OUT/reference-wrong-$mode.log" 2>&1
      rc=$?
      tail -n 8 "$OUT/reference-wrong-$mode.log"
      if [ $rc -eq 1 ] && grep -q "output 'out' .*: FAILED" "$OUT/reference-wrong-$mode.log"; then
        record "reference-wrong-$mode" PASS "failed as it must"
      else
        record "reference-wrong-$mode" FAIL "exit $rc without a FAILED verdict"
      fi
    fi
  done
else
  record reference SKIP "no $R (configure with the compiler)"
fi

# Planted hang in a dslc-compiled kernel (issue 3): rank 0 from the example,
# rank 1 from missing-signal.py; the compiler's bounded waits must turn the
# deadlock into an error naming the DSL wait, quickly.
H="$KD/dslc_missing_signal.r{rank}.cubin"
if [ -f "$KD/dslc_missing_signal.r0.cubin" ]; then
  hang_step dslc-planted-hang-1proc "$BUILD/bin/dslrun" --cubin "$H" \
    --sizes 65536 --iters 1 --graph-replays 0 --timeout-ms 1000
  hang_step dslc-planted-hang-2proc "$BUILD/bin/dslrun" --cubin "$H" \
    --launch 2 --sizes 65536 --iters 1 --graph-replays 0 --timeout-ms 1000
else
  echo "=== no planted-hang pair in $KD (configure with the compiler)"
  record dslc-planted-hang SKIP "no $KD/dslc_missing_signal.r0.cubin"
fi

# The fused examples (issue 12; cubins and references from the target
# dslc_fused_kernels, tests/runtime/FusedKernels.cmake): every example at
# FUSED_TOKENS x FUSED_HIDDEN in bf16 and f16, each shape one dslrun run
# checked against the example's float64 DSL reference (fused_sweep.sh): in
# world 1 on one GPU, and when two GPUs are present in world 2 driven by one
# process and by two. Then 10,000 calls and 1,000 graph replays on a subset
# (FUSED_REPEAT_TOKENS x hidden 5120, bf16), and the fp8 kernel's
# differential check against the simulator's dump (every output of every
# rank within 1 ulp of the simulator's, fp8 included, or within the
# tolerance model). Steps: fused-NAME-DTYPE-wW-MODE, fused-repeat-NAME-wW,
# fused-fp8-differential-wW-MODE. About 2 s per dslrun run; world 1 is 120
# runs (4-5 min), world 2 twice that per process model: select with ONLY.
FD="$KD/fused"
FUSED_NAMES=${FUSED_NAMES:-fused_all_reduce_rmsnorm fused_all_reduce_rmsnorm_two_shot fused_all_reduce_rmsnorm_fp8 rmsnorm}
FUSED_TOKENS=${FUSED_TOKENS:-1 7 128 1024 8192}
FUSED_HIDDEN=${FUSED_HIDDEN:-1000 4096 8192 5120}
FUSED_DTYPES=${FUSED_DTYPES:-bfloat16 float16}
FUSED_REPEAT_TOKENS=${FUSED_REPEAT_TOKENS:-7 1024}
NGPU=${NGPU:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
SWEEP="$ROOT/tests/runtime/fused_sweep.sh"
fused_world_ok() { # NAME WORLD: true when this machine has WORLD GPUs
  if [ "$NGPU" -lt "$2" ]; then
    record "$1" SKIP "needs $2 GPU(s), $NGPU present"
    return 1
  fi
}
if [ ! -d "$FD" ]; then
  record fused SKIP "no $FD (cmake --build BUILD --target dslc_fused_kernels)"
else
  for W in 1 2; do
    modes=1proc
    [ "$W" -gt 1 ] && modes="1proc 2proc"
    for mode in $modes; do
      for name in $FUSED_NAMES; do
        for dt in $FUSED_DTYPES; do
          s="fused-$name-$dt-w$W-$mode"
          selected "$s" || continue
          fused_world_ok "$s" "$W" || continue
          step "$s" 600 "$SWEEP" "$BUILD" "$name" "$dt" "$W" "$mode" 20 100 \
            "$FUSED_TOKENS" "$FUSED_HIDDEN"
        done
      done
    done
    for name in $FUSED_NAMES; do
      s="fused-repeat-$name-w$W"
      selected "$s" || continue
      fused_world_ok "$s" "$W" || continue
      step "$s" 600 "$SWEEP" "$BUILD" "$name" bfloat16 "$W" 1proc 10000 1000 \
        "$FUSED_REPEAT_TOKENS" 5120
    done
    # fp8 differential: the simulator's inputs (33 x 5120, seed 7) on the
    # GPU, every output compared element by element with the simulator's.
    SIM="$FD/fused_all_reduce_rmsnorm_fp8.w$W.sim"
    C="$FD/fused_all_reduce_rmsnorm_fp8.h5120.bfloat16.w$W.r{rank}.cubin"
    for mode in $modes; do
      s="fused-fp8-differential-w$W-$mode"
      selected "$s" || continue
      fused_world_ok "$s" "$W" || continue
      if [ ! -f "$SIM/manifest.json" ] || [ ! -f "${C/\{rank\}/0}" ]; then
        record "$s" FAIL "no $SIM/manifest.json or ${C/\{rank\}/0}"
        continue
      fi
      extra=(--devices "$(seq -s, 0 $((W - 1)))")
      [ "$mode" = 2proc ] && extra=(--launch "$W")
      if step "$s" 120 "$BUILD/bin/dslrun" --cubin "$C" --inputs-from "$SIM" \
        "${extra[@]}"; then
        for ((r = 0; r < W; r++)); do
          for o in out residual_out out_fp8; do
            if ! grep -Eq "rank $r: output '$o' .*: ok$" "$OUT/$s.log"; then
              echo "=== $s: FAILED: no passing verdict for rank $r output '$o'"
              record "$s-verdicts" FAIL "no verdict for rank $r output '$o'"
            fi
          done
        done
      fi
    done
  done
fi

echo "=== summary"
printf '  %s\n' "${summary[@]}"
echo "overall: $status"
exit $status
