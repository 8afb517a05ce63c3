/* The C baseline of benchmarks/dslc_overhead.py: host time per
 * dslcAllReduce call on a 1K-element bf16 buffer, from C, one process per
 * GPU (torchrun's environment, rendezvous file):
 *
 *   torchrun --standalone --nproc-per-node 2 --no-python \
 *       build/bin/dslc-capi-overhead [N] [CALLS] [REPS]
 *
 * Prints rank 0's median over REPS samples of CALLS back-to-back calls
 * (host wall time / CALLS), and of CALLS calls followed by a
 * synchronization (total time / CALLS), and the dispatch choice. */
#include "runtime/CApi.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double nowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    dslcStatus s_ = (call);                                                    \
    if (s_ != DSLC_OK) {                                                       \
      fprintf(stderr, "dslc-capi-overhead: %s failed: %s\n", #call,            \
              dslcGetLastError());                                             \
      return s_ == DSLC_ERROR_NO_DEVICE ? 77 : 1;                              \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
  int calls = argc > 2 ? atoi(argv[2]) : 200;
  int reps = argc > 3 ? atoi(argv[3]) : 21;
  if (n == 0 || calls <= 0 || reps <= 0 || reps > 1000) {
    fprintf(stderr,
            "usage: dslc-capi-overhead [N>0] [CALLS>0] [REPS 1..1000]\n");
    return 2;
  }
  dslcComm comm;
  CHECK(dslcCommCreateFromEnv(NULL, 60000, &comm));
  int rank;
  CHECK(dslcCommRank(comm, 0, &rank));
  dslcCollectives coll;
  CHECK(dslcCollectivesCreate(comm, NULL, NULL, 0, &coll));
  dslcHeap heap;
  CHECK(dslcHeapCreate(comm, 2 * n * 2 + (1 << 20), &heap));
  dslcBuffer buf;
  CHECK(dslcHeapAlloc(heap, n * 2, 256, 1, &buf));
  void *p;
  CHECK(dslcBufferLocal(buf, 0, &p));
  for (int i = 0; i < 10; ++i)
    CHECK(dslcAllReduce(coll, 0, p, p, n, "bfloat16", "sum", NULL));
  CHECK(dslcCommSynchronize(comm));
  double host[1000], total[1000];
  for (int r = 0; r < reps; ++r) {
    CHECK(dslcCommBarrier(comm));
    CHECK(dslcCommSynchronize(comm));
    double t0 = nowUs();
    for (int i = 0; i < calls; ++i)
      CHECK(dslcAllReduce(coll, 0, p, p, n, "bfloat16", "sum", NULL));
    double t1 = nowUs();
    CHECK(dslcCommSynchronize(comm));
    double t2 = nowUs();
    host[r] = (t1 - t0) / calls;
    total[r] = (t2 - t0) / calls;
  }
  qsort(host, reps, sizeof(double), cmp);
  qsort(total, reps, sizeof(double), cmp);
  char choice[256];
  CHECK(dslcCollectivesChoice(coll, "all_reduce", n, "bfloat16", choice,
                              sizeof choice));
  if (rank == 0)
    printf("dslc-capi-overhead: n=%zu bf16, %d calls per sample, median of "
           "%d; dispatch: %s\nC host us/call %.3f, with synchronize %.3f\n",
           n, calls, reps, choice, host[reps / 2], total[reps / 2]);
  CHECK(dslcHeapFree(heap, buf));
  CHECK(dslcHeapDestroy(heap));
  CHECK(dslcCollectivesDestroy(coll));
  CHECK(dslcCommDestroy(comm));
  return 0;
}
