//===- CApiTest.cpp - The C interface without a GPU -----------------------===//
#include "runtime/CApi.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("C API: errors are codes plus a message, never exceptions",
          "[capi]") {
  CHECK(dslcKernelLaunch(nullptr, 0, nullptr, nullptr) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) == "kernel is NULL");
  CHECK(dslcCommWorldSize(nullptr, nullptr) == DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcStatusName(DSLC_ERROR_KERNEL_TIMEOUT)) ==
        "kernel wait timed out");
  CHECK(dslcCommDestroy(nullptr) == DSLC_OK);
}

TEST_CASE("C API: no GPU is reported, not crashed on", "[capi]") {
  if (dslc::test::gpuCount() > 0) {
    WARN("a GPU is visible: the no-GPU path is not exercised here");
    return;
  }
  CHECK(dslcDeviceCount() == 0);
  dslcComm comm = nullptr;
  CHECK(dslcCommCreateAll(0, nullptr, &comm) == DSLC_ERROR_NO_DEVICE);
  CHECK(comm == nullptr);
  CHECK(std::string(dslcGetLastError()).find("cudaGetDeviceCount") !=
        std::string::npos);
}

TEST_CASE("C API: the NCCL library the runtime resolves to", "[capi]") {
  char path[512] = {0};
  int version = 0;
  REQUIRE(dslcNcclLibrary(path, sizeof path, &version) == DSLC_OK);
  // dladdr names the file that defines ncclGetVersion (no GPU needed).
  CHECK(std::string(path).find("libnccl") != std::string::npos);
  CHECK(version >= 22800); // 2.28: windows, LSA teams
  char tiny[4] = {'x', 'x', 'x', 'x'};
  REQUIRE(dslcNcclLibrary(tiny, sizeof tiny, nullptr) == DSLC_OK);
  CHECK(std::string(tiny).size() == 3); // truncated, terminated
}

TEST_CASE("C API: Python-package additions reject NULL handles", "[capi]") {
  int64_t tiles = -1;
  CHECK(dslcArgsNumTiles(nullptr, &tiles) == DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) == "args is NULL");
  CHECK(tiles == -1);
  CHECK(dslcKernelCheckErrors(nullptr) == DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) == "kernel is NULL");
}

TEST_CASE("C API: the contract's cache rule and size bucket", "[capi]") {
  char dir[64] = {0};
  REQUIRE(dslcCacheDir("/given/dir", dir, sizeof dir) == DSLC_OK);
  CHECK(std::string(dir) == "/given/dir");
  char tiny[4] = {0};
  CHECK(dslcCacheDir("/given/dir", tiny, sizeof tiny) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) ==
        "the cache directory /given/dir needs 11 bytes, 4 given");
  CHECK(dslcSizeBucket(65536) == 16);
  CHECK(dslcSizeBucket(65535) == 15);
  CHECK(dslcSizeBucket(0) == 0);
}

TEST_CASE("C API: teams and the last call reject NULL handles", "[capi]") {
  int size = -1;
  CHECK(dslcCommTeams(nullptr, 0, &size, nullptr, nullptr) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) == "comm is NULL");
  CHECK(size == -1);
  char buf[64] = "untouched";
  CHECK(dslcCollectivesLastCall(nullptr, buf, sizeof buf) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) == "collectives is NULL");
  CHECK(std::string(buf) == "untouched");
}
