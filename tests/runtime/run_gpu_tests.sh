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
# DSLC_VIRTUAL_WORLD=2,4,8 also runs every multi-rank step (the examples,
# their 10,000-call repeats, the differential and reference checks, the
# planted hang, the fused examples, and the hand-written kernel at 2) in a
# virtual world of each size: every rank on GPU 0, one process, no NCCL
# (docs/runtime.md, "Virtual world"); steps ...-vwW. The cubins of worlds
# other than 2 come from `cmake --build BUILD --target
# dslc_virtual_world_kernels` (kernels/wW/) and, for the fused steps, a
# build configured with -DDSLC_FUSED_WORLDS='1;2;4;8'. With fewer GPUs than
# a step needs and no virtual world, the step is SKIP with the reason.
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
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
NGPU=${NGPU:-0}
# The virtual worlds to run (DSLC_VIRTUAL_WORLD=2,4,8): every rank of a
# world in one process on GPU 0 (dslrun --virtual-world W), for the checks
# that need more GPUs than the machine has. The cubins of world W are in
# kernels/ for W = 2 (the build's world) and kernels/wW/ for the others
# (cmake --build BUILD --target dslc_virtual_world_kernels).
VWORLDS=$(echo "${DSLC_VIRTUAL_WORLD:-}" | tr ',' ' ')
kdir_of() { # W: the folder of world W's cubins
  if [ "$1" = 2 ]; then echo "$KD"; else echo "$KD/w$1"; fi
}
# gpus_for NAME N: true when N GPUs are visible, else a SKIP naming the way
# to run it on this machine anyway.
gpus_for() {
  if [ "$NGPU" -lt "$2" ]; then
    record "$1" SKIP "needs $2 GPUs, $NGPU visible (DSLC_VIRTUAL_WORLD=2,4,8 runs it in a virtual world)"
    return 1
  fi
}
step unit 60 "$BUILD/bin/dslc-runtime-tests" "~[gpu]"
# The [multinode] test runs as the teams-* steps below, with NCCL's logs.
step gpu 420 "$BUILD/bin/dslc-runtime-tests" "[gpu]~[multinode]" --durations yes
# The hand-written kernel is compiled for two ranks.
if gpus_for dslrun-1proc 2; then
  step dslrun-1proc 90 "$BUILD/bin/dslrun" --cubin "$K" \
    --sizes 1,7,8191,8192,8193,65539,1M,4M,16M,64M --iters 20 --graph-replays 100
  step dslrun-2proc 90 "$BUILD/bin/dslrun" --cubin "$K" --launch 2 \
    --sizes 1,8193,1M,16M --iters 20 --graph-replays 100
  # A peer killed while dslrun times the all-reduce: the survivor reports
  # and exits within the host timeout (kill_peer.sh, issue 15).
  step dslrun-kill-peer 90 bash "$ROOT/tests/runtime/kill_peer.sh" "$BUILD"
fi
for W in $VWORLDS; do
  [ "$W" = 2 ] || continue
  step dslrun-vw2 120 "$BUILD/bin/dslrun" --cubin "$K" --virtual-world 2 \
    --sizes 1,7,8191,8192,8193,65539,1M,4M,16M --iters 20 --graph-replays 100
done

# Teams: two processes as two hosts (a different NCCL_HOSTID each, NCCL over
# loopback sockets: the LSA team is one rank, peer tables naming the other
# rank are refused, the collectives run through NCCL or, with
# DSLC_HIERARCHICAL=on, the hierarchical path), four processes as two hosts
# of two GPUs (hierarchical with the world-2 kernels inside each host), then
# two as one node (the tuned kernels run). tests/runtime/teams_two_nodes.sh.
# They need NCCL across processes: a virtual world cannot stand in.
for mode in two-hosts two-hosts-x2 one-node; do
  if [ "$mode" = two-hosts ] && [ "$NGPU" -eq 1 ]; then
    # Both processes on the one GPU (NCCL accepts it across host ids).
    step "teams-$mode-one-gpu" 400 env ONE_GPU=1 \
      "$ROOT/tests/runtime/teams_two_nodes.sh" "$BUILD" "$mode"
  elif [ "$NGPU" -lt 2 ]; then
    record "teams-$mode" SKIP "needs 2 GPUs and NCCL across processes, $NGPU visible"
  else
    step "teams-$mode" 400 "$ROOT/tests/runtime/teams_two_nodes.sh" \
      "$BUILD" "$mode"
  fi
done

# The dslc-compiled examples (tests/runtime/CMakeLists.txt builds each for
# every element type: kernels/dslc_NAME.r{rank}.cubin is bfloat16,
# dslc_NAME.float16.r{rank}.cubin and dslc_NAME.float32.r{rank}.cubin the
# others). Per example and dtype: one process (with NCCL side by side) and
# two processes over the sizes below, and each virtual world; per example
# and world: 10,000 calls and 1,000 graph replays at one size, the result
# checked after each phase. DTYPES='bfloat16' (say) narrows the dtypes;
# ONLY selects steps by name (dslc-NAME-DTYPE-1proc|2proc|vwW,
# dslc-NAME-repeat[-vwW]).
DTYPES=${DTYPES:-bfloat16 float16 float32}
# N = total elements, for all-reduce; reduce-scatter and all-gather take
# these per rank (N a multiple of the world size).
AR_SIZES=1,7,1K,4099,65536,1M,16M,64M
PER_RANK_SIZES="1 7 1024 4099 65536 1048576 8388608 33554432"
# A virtual world's ranks share one GPU: sizes up to 16M in all.
VW_AR_SIZES=1,7,1K,4099,65536,1M,16M
VW_PER_RANK_MAX=2097152
rs_ag_sizes() { # W MAX_PER_RANK: the per-rank sizes times W, comma-separated
  local out="" n
  for n in $PER_RANK_SIZES; do
    [ "$n" -le "$2" ] || continue
    out="$out${out:+,}$((n * $1))"
  done
  echo "$out"
}
# example NAME COLLECTIVE REPEAT_SIZE (REPEAT_SIZE: total elements at world 2)
example() {
  local name=$1 coll=$2 repeat=$3 sizes=$AR_SIZES
  [ "$coll" = all_reduce ] || sizes=$(rs_ag_sizes 2 33554432)
  local dt sfx W kd vsizes vrepeat
  for dt in $DTYPES; do
    sfx=""
    [ "$dt" = bfloat16 ] || sfx=".$dt"
    local first="$KD/dslc_${name}${sfx}.r0.cubin"
    local pattern="$KD/dslc_${name}${sfx}.r{rank}.cubin"
    if [ ! -f "$first" ]; then
      record "dslc-$name-$dt" SKIP "no $first (configure with the compiler)"
      continue
    fi
    if gpus_for "dslc-$name-$dt-1proc" 2; then
      step "dslc-$name-$dt-1proc" 300 "$BUILD/bin/dslrun" --cubin "$pattern" \
        --collective "$coll" --sizes "$sizes" --iters 20 --graph-replays 100 \
        --repetitions 3 --nccl
      step "dslc-$name-$dt-2proc" 300 "$BUILD/bin/dslrun" --cubin "$pattern" \
        --launch 2 --collective "$coll" --sizes "$sizes" --iters 20 \
        --graph-replays 100 --repetitions 3
    fi
    for W in $VWORLDS; do
      kd=$(kdir_of "$W")
      vsizes=$VW_AR_SIZES
      [ "$coll" = all_reduce ] || vsizes=$(rs_ag_sizes "$W" "$VW_PER_RANK_MAX")
      if [ ! -f "$kd/dslc_${name}${sfx}.r0.cubin" ]; then
        record "dslc-$name-$dt-vw$W" FAIL "no $kd/dslc_${name}${sfx}.r0.cubin (cmake --build BUILD --target dslc_virtual_world_kernels)"
        continue
      fi
      step "dslc-$name-$dt-vw$W" 300 "$BUILD/bin/dslrun" \
        --cubin "$kd/dslc_${name}${sfx}.r{rank}.cubin" --virtual-world "$W" \
        --collective "$coll" --sizes "$vsizes" --iters 10 --graph-replays 40 \
        --repetitions 2
    done
  done
  [ -f "$KD/dslc_${name}.r0.cubin" ] || return 0
  if gpus_for "dslc-$name-repeat" 2; then
    step "dslc-$name-repeat" 300 "$BUILD/bin/dslrun" \
      --cubin "$KD/dslc_${name}.r{rank}.cubin" --collective "$coll" \
      --sizes "$repeat" --iters 10000 --graph-replays 1000 --repetitions 1
  fi
  for W in $VWORLDS; do
    kd=$(kdir_of "$W")
    [ -f "$kd/dslc_${name}.r0.cubin" ] || continue
    vrepeat=$repeat
    [ "$coll" = all_reduce ] || vrepeat=$((repeat / 2 * W))
    step "dslc-$name-repeat-vw$W" 300 "$BUILD/bin/dslrun" \
      --cubin "$kd/dslc_${name}.r{rank}.cubin" --virtual-world "$W" \
      --collective "$coll" --sizes "$vrepeat" --iters 10000 \
      --graph-replays 1000 --repetitions 1
  done
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

# The runs of one world (world 2 on two GPUs in one and two processes, or a
# virtual world): MODES lists "MODE:DSLRUN-FLAGS:KERNEL-DIR:WORLD" entries.
MODES=()
if [ "$NGPU" -ge 2 ]; then
  MODES+=("1proc::$KD:2" "2proc:--launch 2:$KD:2")
fi
for W in $VWORLDS; do
  MODES+=("vw$W:--virtual-world $W:$(kdir_of "$W"):$W")
done
[ "$NGPU" -ge 2 ] || [ -n "$VWORLDS" ] ||
  record "differential, reference, planted hang (world 2)" SKIP \
    "needs 2 GPUs, $NGPU visible (DSLC_VIRTUAL_WORLD=2,4,8 runs them in a virtual world)"

for entry in "${MODES[@]}"; do
  IFS=: read -r mode flags kd W <<<"$entry"
  read -ra extra <<<"$flags"
  # Differential check (issue 6): the simulator's dump of the example
  # (--world-size W --size 100003 --seed 7, made at build time) run on the
  # GPUs; every rank's output must equal the simulator's (floats: within 1
  # ulp, or the whole output within the contract's tolerance model).
  D="$kd/dslc_one_shot_all_reduce.r{rank}.cubin"
  SIM="$kd/dslc_one_shot_all_reduce.sim"
  if [ -f "$SIM/manifest.json" ] && [ -f "$kd/dslc_one_shot_all_reduce.r0.cubin" ]; then
    if step "differential-$mode" 120 "$BUILD/bin/dslrun" --cubin "$D" \
      --inputs-from "$SIM" "${extra[@]}"; then
      # dslrun's status already covers the verdicts; make sure every rank
      # printed its own.
      for ((r = 0; r < W; r++)); do
        if ! grep -q "rank $r: output 'out' (bfloat16\[100003\]): .*ok$" \
          "$OUT/differential-$mode.log"; then
          echo "=== differential-$mode: FAILED: no passing verdict for rank $r"
          record "differential-$mode-verdicts" FAIL "no verdict for rank $r"
        fi
      done
      grep -q "bitwise equal to the simulator" "$OUT/differential-$mode.log" ||
        echo "=== differential-$mode: note: not bitwise equal (within 1 ulp)"
    fi
  else
    record "differential-$mode" FAIL "no $SIM/manifest.json (configure with the compiler)"
  fi

  # Any kernel (issue 12): the example bound from its roles alone and
  # checked against its DSL reference (references.py:all_reduce_ref,
  # compiled at build time) over the stacked inputs; a wrong reference must
  # fail.
  R="$kd/dslc_ref_all_reduce_ref.cubin"
  WR="$kd/dslc_ref_forgets_last_rank.cubin"
  if [ -f "$R" ] && [ -f "$kd/dslc_one_shot_all_reduce.r0.cubin" ]; then
    step "reference-$mode" 120 "$BUILD/bin/dslrun" --cubin "$D" \
      --size a_shared=100003 --reference-cubin "$R" --iters 20 \
      --graph-replays 100 "${extra[@]}"
    if selected "reference-wrong-$mode"; then
      echo "=== reference-wrong-$mode: must fail"
      timeout 120 "$BUILD/bin/dslrun" --cubin "$D" --size a_shared=100003 \
        --reference-cubin "$WR" "${extra[@]}" >"$OUT/reference-wrong-$mode.log" 2>&1
      rc=$?
      tail -n 8 "$OUT/reference-wrong-$mode.log"
      if [ $rc -eq 1 ] && grep -q "output 'out' .*: FAILED" "$OUT/reference-wrong-$mode.log"; then
        record "reference-wrong-$mode" PASS "failed as it must"
      else
        record "reference-wrong-$mode" FAIL "exit $rc without a FAILED verdict"
      fi
    fi
  else
    record "reference-$mode" FAIL "no $R (configure with the compiler)"
  fi

  # Planted hang in a dslc-compiled kernel (issue 3): rank 0 from the
  # example, the others from missing-signal.py; the compiler's bounded waits
  # must turn the deadlock into an error naming the DSL wait, quickly.
  H="$kd/dslc_missing_signal.r{rank}.cubin"
  if [ -f "$kd/dslc_missing_signal.r0.cubin" ]; then
    hang_step "dslc-planted-hang-$mode" "$BUILD/bin/dslrun" --cubin "$H" \
      --sizes 65536 --iters 1 --graph-replays 0 --timeout-ms 1000 "${extra[@]}"
  else
    record "dslc-planted-hang-$mode" FAIL "no $kd/dslc_missing_signal.r0.cubin"
  fi
done

# The fused examples (issue 12; cubins and references from the target
# dslc_fused_kernels, tests/runtime/FusedKernels.cmake): every example at
# FUSED_TOKENS x FUSED_HIDDEN in bf16 and f16, each shape one dslrun run
# checked against the example's float64 DSL reference (fused_sweep.sh): in
# world 1 on one GPU, in world 2 in one and two processes when two GPUs are
# present, and in every virtual world of DSLC_VIRTUAL_WORLD compiled into
# DSLC_FUSED_WORLDS (mode vw). Then 10,000 calls and 1,000 graph replays on
# a subset (FUSED_REPEAT_TOKENS x hidden 5120, bf16), and the fp8 kernel's
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
SWEEP="$ROOT/tests/runtime/fused_sweep.sh"
if [ ! -d "$FD" ]; then
  record fused SKIP "no $FD (cmake --build BUILD --target dslc_fused_kernels)"
else
  # The worlds: 1 and 2 on real GPUs, each virtual world once (mode vw).
  for W in $(echo 1 2 $VWORLDS | tr ' ' '\n' | sort -nu); do
    modes=""
    [ "$NGPU" -ge "$W" ] && modes="1proc"
    [ "$NGPU" -ge "$W" ] && [ "$W" -gt 1 ] && modes="$modes 2proc"
    [[ " $VWORLDS " == *" $W "* ]] && modes="$modes vw"
    if [ -z "$modes" ]; then
      record "fused-w$W" SKIP "needs $W GPUs, $NGPU visible (DSLC_VIRTUAL_WORLD=2,4,8 runs it in a virtual world)"
      continue
    fi
    if [ ! -f "$FD/fused_all_reduce_rmsnorm.h5120.bfloat16.w$W.r0.cubin" ]; then
      record "fused-w$W" FAIL "no world-$W fused cubins in $FD (configure with -DDSLC_FUSED_WORLDS='1;2;4;8')"
      continue
    fi
    for mode in $modes; do
      for name in $FUSED_NAMES; do
        for dt in $FUSED_DTYPES; do
          s="fused-$name-$dt-w$W-$mode"
          selected "$s" || continue
          step "$s" 600 "$SWEEP" "$BUILD" "$name" "$dt" "$W" "$mode" 20 100 \
            "$FUSED_TOKENS" "$FUSED_HIDDEN"
        done
      done
    done
    rmode=${modes%% *}
    [ -n "$rmode" ] || rmode=vw
    for name in $FUSED_NAMES; do
      s="fused-repeat-$name-w$W"
      selected "$s" || continue
      step "$s" 600 "$SWEEP" "$BUILD" "$name" bfloat16 "$W" "$rmode" 10000 1000 \
        "$FUSED_REPEAT_TOKENS" 5120
    done
    # fp8 differential: the simulator's inputs (33 x 5120, seed 7) on the
    # GPU, every output compared element by element with the simulator's.
    SIM="$FD/fused_all_reduce_rmsnorm_fp8.w$W.sim"
    C="$FD/fused_all_reduce_rmsnorm_fp8.h5120.bfloat16.w$W.r{rank}.cubin"
    for mode in $modes; do
      s="fused-fp8-differential-w$W-$mode"
      selected "$s" || continue
      if [ ! -f "$SIM/manifest.json" ] || [ ! -f "${C/\{rank\}/0}" ]; then
        record "$s" FAIL "no $SIM/manifest.json or ${C/\{rank\}/0}"
        continue
      fi
      extra=(--devices "$(seq -s, 0 $((W - 1)))")
      [ "$mode" = 2proc ] && extra=(--launch "$W")
      [ "$mode" = vw ] && extra=(--virtual-world "$W")
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
npass=$(printf '%s\n' "${summary[@]}" | grep -c '^PASS' || true)
nfail=$(printf '%s\n' "${summary[@]}" | grep -c '^FAIL' || true)
nskip=$(printf '%s\n' "${summary[@]}" | grep -c '^SKIP' || true)
for W in $VWORLDS; do
  echo "virtual world $W: $(printf '%s\n' "${summary[@]}" | grep -E "^PASS .*(vw$W|-w$W-vw)" | wc -l) passed, $(printf '%s\n' "${summary[@]}" | grep -E "^FAIL .*(vw$W|-w$W-vw)" | wc -l) failed"
done
echo "steps: $npass passed, $nfail failed, $nskip skipped"
echo "overall: $status"
exit $status
