#!/usr/bin/env bash
# A peer killed in the middle of dslrun's work (issue 15, item 5), end to
# end: `dslrun --launch 2` times the hand-written one-shot all-reduce and
# NCCL's (--nccl) at 64M elements in a long loop; once both ranks run, rank
# 1 is killed with SIGKILL. Passes when rank 0 reports an error naming
# itself and dslrun exits non-zero within LIMIT_S of the kill (host timeout
# 5 s here, kernel spin timeout 5 s), with no dslrun process left behind.
# Needs 2 GPUs (exit 77 with a message otherwise).
#   tests/runtime/kill_peer.sh BUILD_DIR     (run_gpu_tests.sh's step
#                                             dslrun-kill-peer)
set -uo pipefail
BUILD=${1:?usage: kill_peer.sh BUILD_DIR}
LIMIT_S=${LIMIT_S:-40}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${gpus:-0}" -lt 2 ]; then
  echo "kill_peer: SKIPPED: needs 2 GPUs, ${gpus:-0} visible"
  exit 77
fi
export DSLC_HOST_TIMEOUT_MS=5000 DSLC_TIMEOUT_MS=5000
K="$BUILD/tests/runtime/kernels/one_shot_all_reduce.r{rank}.cubin"
log=$(mktemp /tmp/kill_peer.XXXXXX)
setsid "$BUILD/bin/dslrun" --cubin "$K" --launch 2 --nccl --sizes 64M \
  --iters 1000 --graph-replays 0 --repetitions 1000 >"$log" 2>&1 &
launcher=$!
fail() {
  echo "kill_peer: FAILED: $*"
  cat "$log"
  kill -9 -- "-$launcher" 2>/dev/null
  exit 1
}
# Rank 1: the launcher's child whose environment says RANK=1, once both
# ranks have printed their banner and started timing.
victim=""
for _ in $(seq 1 600); do
  if [ "$(grep -c 'dslrun: kernel' "$log")" -ge 2 ]; then
    for pid in $(pgrep -P "$launcher"); do
      if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx RANK=1; then
        victim=$pid
      fi
    done
  fi
  [ -n "$victim" ] && break
  kill -0 "$launcher" 2>/dev/null || fail "dslrun ended before the kill"
  sleep 0.1
done
[ -n "$victim" ] || fail "rank 1 never started"
sleep 2 # well inside the timing loop
kill -9 "$victim"
killed=$(date +%s.%N)
echo "kill_peer: killed rank 1 (pid $victim)"
while kill -0 "$launcher" 2>/dev/null; do
  if awk -v a="$killed" -v b="$(date +%s.%N)" -v l="$LIMIT_S" \
       'BEGIN { exit !(b - a > l) }'; then
    fail "dslrun still running ${LIMIT_S}s after the kill: it hangs"
  fi
  sleep 0.2
done
wait "$launcher"
rc=$?
secs=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$log"
echo "kill_peer: dslrun exited $rc, ${secs}s after the kill"
[ "$rc" -ne 0 ] || fail "dslrun exited 0 although rank 1 died"
grep -q "rank 1 exited with status 137" "$log" ||
  fail "the launcher did not report rank 1's death"
grep -Eq "dslrun: error \((Timeout|KernelTimeout|Nccl|Cuda)\): .*rank 0" "$log" ||
  fail "rank 0 reported no error naming itself"
pgrep -g "$launcher" >/dev/null && fail "a dslrun process is left behind"
rm -f "$log"
echo "kill_peer: PASS"
