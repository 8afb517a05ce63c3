// Bounded spins and signals for the hand-written test kernels, as
// docs/kernel-abi.md and docs/compiler.md "Memory semantics" spell them.
#pragma once

#include "runtime/ErrorRecord.h"

#include <stdint.h>

namespace dslc_test {

__device__ __forceinline__ uint64_t globalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Claims the error record (first thread wins), fills it and traps.
__device__ __noinline__ void timeoutTrap(DslcErrorRecord *err, uint32_t line,
                                         int64_t slot, int64_t expected,
                                         int64_t seen, const void *addr) {
  if (err &&
      atomicCAS(&err->status, 0u, (unsigned)DSLC_RECORD_WAIT_TIMEOUT) == 0u) {
    err->line = line;
    err->column = 1;
    err->cta = blockIdx.x;
    err->slot = slot;
    err->expected = expected;
    err->seen = seen;
    err->address = reinterpret_cast<uint64_t>(addr);
    asm volatile("fence.sc.sys;" ::: "memory");
  }
  __trap();
}

__device__ __forceinline__ int32_t casAcquireSys(int32_t *p, int32_t cmp,
                                                 int32_t val) {
  int32_t old;
  asm volatile("atom.acquire.sys.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old)
               : "l"(p), "r"(cmp), "r"(val)
               : "memory");
  return old;
}

__device__ __forceinline__ int32_t casReleaseSys(int32_t *p, int32_t cmp,
                                                 int32_t val) {
  int32_t old;
  asm volatile("atom.release.sys.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old)
               : "l"(p), "r"(cmp), "r"(val)
               : "memory");
  return old;
}

__device__ __forceinline__ uint32_t ldAcquireSys(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(v)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void stReleaseSys(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

/// CAS `from` -> `to` until it succeeds (Helion's signal with wait_for and
/// wait with update), bounded by timeoutNs (0: unbounded).
__device__ __forceinline__ void casSpin(int32_t *p, int32_t from, int32_t to,
                                        bool release, int64_t timeoutNs,
                                        DslcErrorRecord *err, uint32_t line,
                                        int64_t slot) {
  uint64_t start = 0;
  for (uint32_t it = 0;; ++it) {
    int32_t old =
        release ? casReleaseSys(p, from, to) : casAcquireSys(p, from, to);
    if (old == from)
      return;
    if (timeoutNs > 0 && (it & 63) == 0) {
      uint64_t now = globalTimer();
      if (start == 0)
        start = now;
      else if (now - start > static_cast<uint64_t>(timeoutNs))
        timeoutTrap(err, line, slot, from, old, p);
    }
  }
}

} // namespace dslc_test
