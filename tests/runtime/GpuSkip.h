//===- GpuSkip.h - GPU tests that skip, and say so to ctest -----*- C++ -*-===//
//
// A [gpu] test that lacks GPUs prints "SKIPPED ...: needs N GPU(s)" and
// returns; the test binary's main then exits with kSkipStatus (77, the
// tests' SKIP_RETURN_CODE) when GPU tests were asked for, none ran and
// some skipped, so ctest shows the step as skipped instead of passed.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TESTS_RUNTIME_GPUSKIP_H
#define DSLC_TESTS_RUNTIME_GPUSKIP_H

namespace dslc::test {

inline constexpr int kSkipStatus = 77;

/// True when at least `n` GPUs are visible (the test goes on); otherwise
/// prints why `test` is skipped and counts the skip.
bool haveGpus(int n, const char *test);

/// Catch's status `catchStatus`, or kSkipStatus when it passed, GPU tests
/// were selected (`[gpu]` in the arguments) and every one of them skipped.
int gpuRunStatus(int catchStatus, int argc, char **argv);

} // namespace dslc::test

#endif // DSLC_TESTS_RUNTIME_GPUSKIP_H
