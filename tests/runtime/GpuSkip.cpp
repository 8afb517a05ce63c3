//===- GpuSkip.cpp - GPU tests that skip, and say so to ctest -------------===//
#include "tests/runtime/GpuSkip.h"

#include "runtime/Communicator.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace dslc::test {

namespace {
int ran = 0, skipped = 0;
} // namespace

bool haveGpus(int n, const char *test) {
  int have = rt::Communicator::deviceCount();
  if (have >= n) {
    ++ran;
    return true;
  }
  ++skipped;
  WARN(fmt::format("SKIPPED {}: needs {} GPU(s), {} visible", test, n, have));
  return false;
}

int gpuRunStatus(int catchStatus, int argc, char **argv) {
  bool gpuOnly = false;
  for (int i = 1; i < argc; ++i)
    gpuOnly |= std::string(argv[i]).rfind("[gpu]", 0) == 0; // "[gpu]~[x]"
  if (catchStatus != 0 || !gpuOnly || ran > 0 || skipped == 0)
    return catchStatus;
  std::printf("SKIPPED: all %d GPU test(s) need GPUs this machine lacks\n",
              skipped);
  return kSkipStatus;
}

} // namespace dslc::test
