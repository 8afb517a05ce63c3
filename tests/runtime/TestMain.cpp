//===- TestMain.cpp - Catch2 main, or a child scenario --------------------===//
// The GPU tests start this binary again as child processes (planted hangs,
// two-process jobs); DSLC_RT_TEST_CHILD selects the scenario.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "runtime/Communicator.h"
#include "tests/runtime/GpuSkip.h"
#include "tests/runtime/TestSupport.h"

#include <cstdlib>

int main(int argc, char **argv) {
  dslc::rt::Communicator::applySafeEnvironment();
  // The virtual-world tests run after others have made the CUDA context.
  dslc::rt::Communicator::reserveVirtualWorldQueues();
  if (const char *child = std::getenv("DSLC_RT_TEST_CHILD"))
    return dslc::test::runChildScenario(child);
  return dslc::test::gpuRunStatus(Catch::Session().run(argc, argv), argc, argv);
}
