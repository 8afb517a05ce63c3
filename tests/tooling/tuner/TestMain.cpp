//===- TestMain.cpp - Catch2 main of the tuner tests ----------------------===//
// [gpu] tests skip without GPUs; then the binary exits 77 (ctest: skipped).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "runtime/Communicator.h"
#include "tests/runtime/GpuSkip.h"

int main(int argc, char **argv) {
  // The collectives' virtual-world test may come after a CUDA context.
  dslc::rt::Communicator::reserveVirtualWorldQueues();
  return dslc::test::gpuRunStatus(Catch::Session().run(argc, argv), argc, argv);
}
