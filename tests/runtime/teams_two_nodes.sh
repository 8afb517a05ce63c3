#!/usr/bin/env bash
# Processes, one GPU each, as two "hosts" or as one node: the runtime's
# teams, the bind-time refusal of peer tables naming a rank of another node,
# and the collectives' paths (tests/runtime/GpuTeams.cpp, child scenario
# mp-teams, checks every result and prints RESULT lines).
#
# Usage: tests/runtime/teams_two_nodes.sh BUILD_DIR two-hosts|two-hosts-x2|one-node
#   two-hosts: each process gets its own NCCL_HOSTID, NCCL's P2P and SHM
#     transports are off and NCCL talks over sockets on loopback, so NCCL
#     sees two hosts: the LSA team is one rank, all-reduce / reduce-scatter /
#     all-gather run through NCCL (DSLC_HIERARCHICAL auto, off) or the
#     hierarchical path (on). Checked here too: NCCL's INFO lines show the
#     network transport (via NET/Socket) and no P2P/SHM connection.
#     ONE_GPU=1 runs both processes on GPU 0 (NCCL does not see one GPU
#     twice across hosts), for a machine with one GPU.
#   two-hosts-x2: four processes, ranks 0, 1 on GPUs 0, 1 of "host" 0 and
#     ranks 2, 3 on GPUs 0, 1 of host 1 (P2P stays on; NCCL never uses it
#     between host ids): the LSA teams are {0, 1} and {2, 3}, and the
#     collectives run hierarchically with the tuned world-2 kernels inside
#     each node (the dslc-compiled reduce-scatter and all-gather examples,
#     when the build has them) and NCCL across.
#   one-node: two processes as one node: the LSA team is both ranks, the
#     tuned collectives run the kernels (one-shot all-reduce, and the
#     dslc-compiled reduce-scatter / all-gather when built).
# Exit: 0 passed, 1 failed, 77 skipped (not enough GPUs). Logs under $OUT.
set -uo pipefail
BUILD=${1:?usage: teams_two_nodes.sh BUILD_DIR two-hosts|one-node}
MODE=${2:?usage: teams_two_nodes.sh BUILD_DIR two-hosts|one-node}
OUT=${OUT:-/tmp/dslc-runtime-gpu-logs}
LIMIT_S=${LIMIT_S:-300}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BIN=$BUILD/bin/dslc-runtime-tests
case $MODE in two-hosts | two-hosts-x2 | one-node) ;; *)
  echo "teams_two_nodes.sh: mode '$MODE' is not two-hosts, two-hosts-x2 or one-node" >&2
  exit 2 ;;
esac
[ -x "$BIN" ] || { echo "teams_two_nodes.sh: no $BIN" >&2; exit 2; }
mkdir -p "$OUT"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
need=2
[ "$MODE" = two-hosts ] && [ "${ONE_GPU:-0}" = 1 ] && need=1
if [ "${ngpu:-0}" -lt "$need" ]; then
  echo "SKIPPED teams $MODE: needs $need GPU(s), ${ngpu:-0} visible"
  exit 77
fi
dir=$(mktemp -d /tmp/dslc-teams-XXXXXX)
trap 'rm -rf "$dir"' EXIT
world=2
[ "$MODE" = two-hosts-x2 ] && world=4
ranks=$(seq 0 $((world - 1)))
pids=()
for r in $ranks; do
  vars=(DSLC_RT_TEST_CHILD=mp-teams RANK=$r WORLD_SIZE=$world LOCAL_RANK=$r
        DSLC_RENDEZVOUS="$dir/rendezvous.id" NCCL_DEBUG=INFO
        NCCL_DEBUG_SUBSYS=INIT,NET,ENV)
  if [ "$MODE" = two-hosts ]; then
    vars+=(DSLC_TEST_EXPECT_NODES=2 NCCL_HOSTID=dslc-fake-host-$r
           NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket
           NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
    [ "${ONE_GPU:-0}" = 1 ] && vars+=(CUDA_VISIBLE_DEVICES=0)
  elif [ "$MODE" = two-hosts-x2 ]; then
    # LOCAL_RANK modulo the visible GPUs picks GPU r % 2.
    vars+=(DSLC_TEST_EXPECT_NODES=2 NCCL_HOSTID=dslc-fake-host-$((r / 2))
           NCCL_NET=Socket NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo)
  else
    vars+=(DSLC_TEST_EXPECT_NODES=1)
  fi
  env "${vars[@]}" timeout "$LIMIT_S" "$BIN" >"$OUT/teams-$MODE.r$r.log" 2>&1 &
  pids+=($!)
done
fail=0
for r in $ranks; do
  wait "${pids[$r]}"
  rc=$?
  log=$OUT/teams-$MODE.r$r.log
  echo "--- rank $r ($MODE): exit $rc; $log"
  grep -E '^RESULT:|^dslc: ' "$log"
  if [ $rc -ne 0 ]; then
    echo "FAILED: rank $r exited $rc"; fail=1
  fi
  if ! grep -q '^RESULT: all checks passed' "$log"; then
    echo "FAILED: rank $r did not pass every check"; fail=1
  fi
  if [ "$MODE" != one-node ]; then
    if ! grep -q 'via NET/Socket' "$log"; then
      echo "FAILED: rank $r: NCCL did not connect through NET/Socket"; fail=1
    fi
    if [ "$MODE" = two-hosts ] && grep -Eq 'via (P2P|SHM)' "$log"; then
      echo "FAILED: rank $r: NCCL connected through P2P/SHM: not two hosts"
      fail=1
    fi
  fi
done
echo "teams $MODE: $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
