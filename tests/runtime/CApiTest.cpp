//===- CApiTest.cpp - The C interface without a GPU -----------------------===//
#include "runtime/CApi.h"
#include "contract/MetadataJson.h"
#include "contract/TuningCache.h"
#include "tests/runtime/MetadataBuilder.h"
#include "tests/runtime/TestSupport.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <stdlib.h>
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

namespace {
/// Writes `md` as dslc would beside a cubin; returns the path.
std::string writeMd(const dslc::rt::KernelMetadata &md) {
  char tmpl[] = "/tmp/dslc-capi-test-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  std::string path = std::string(tmpl) + "/k.cubin.json";
  std::ofstream(path) << dslc::contract::writeMetadata(md);
  return path;
}
} // namespace

TEST_CASE("C API: specialized sizes and fill shapes from metadata", "[capi]") {
  using namespace dslc::test;
  KernelMetadata md =
      makeMd("ll",
             json::array({tensor("x", "input", "bfloat16", 2, "read"), pad(),
                          scratch(1, 4096)}),
             json::array(), {{"param", "x"}, {"dim", 0}}, 1);
  md.constraints = {{"x", 1, "==", int64_t(2048)},
                    {"pad", 0, ">=", dslc::contract::NumTiles{}},
                    {"pad", 1, "==", int64_t(2)}};
  std::string path = writeMd(md);
  char buf[128];
  REQUIRE(dslcMetadataSpecializedSizes(path.c_str(), buf, sizeof buf) ==
          DSLC_OK);
  CHECK(std::string(buf) == R"([["x", 1, 2048], ["pad", 1, 2]])");
  char tiny[8];
  CHECK(dslcMetadataSpecializedSizes(path.c_str(), tiny, sizeof tiny) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) ==
        "the specialized sizes need 32 bytes, 8 given");
  CHECK(dslcMetadataSpecializedSizes("/nonexistent/k.json", buf, sizeof buf) ==
        DSLC_ERROR_IO);

  int64_t sizes[4] = {0};
  int rank = -1;
  REQUIRE(dslcMetadataFillShape(path.c_str(), "pad", 2, 7, sizes, 4, &rank) ==
          DSLC_OK);
  CHECK(rank == 2);
  CHECK((sizes[0] == 7 && sizes[1] == 2));
  // 2 parities x 1 put x 4 ranks x 7 tiles x 4096 bytes, as int64s
  REQUIRE(dslcMetadataFillShape(path.c_str(), "scratch", 4, 7, sizes, 4,
                                &rank) == DSLC_OK);
  CHECK(rank == 1);
  CHECK(sizes[0] == 2 * 4 * 7 * 4096 / 8);
  CHECK(dslcMetadataFillShape(path.c_str(), "x", 2, 7, sizes, 4, &rank) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()) ==
        "kernel ll: 'x' is a input, not a signal pad or an LL scratch (whose "
        "sizes the contract gives)");
  CHECK(dslcMetadataFillShape(path.c_str(), "pad", 2, 7, sizes, 1, &rank) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(dslcMetadataFillShape(path.c_str(), "pad", 0, 7, sizes, 4, &rank) ==
        DSLC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("C API: is a kernel in the tuning cache", "[capi]") {
  char tmpl[] = "/tmp/dslc-capi-tune-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  int found = -1;
  REQUIRE(dslcTuningCacheHas(tmpl, "k", "abc", 2, "bfloat16", 4096, &found) ==
          DSLC_OK);
  CHECK(found == 0); // no file: nothing tuned
  dslc::contract::TuningRecord r;
  r.key = {"all_reduce", "set:k", "NVIDIA H200", "cuda", 2, "bfloat16", 12, ""};
  r.value.pick.kernel = "k";
  r.value.pick.sha256 = "abc";
  r.value.pick.config.blockSizes = {1024};
  r.value.pick.config.numWarps = 4;
  r.value.perKernel = {r.value.pick};
  std::ofstream(std::string(tmpl) + "/tuning.json")
      << dslc::contract::serializeTuningCache({r});
  auto has = [&](const char *sha, int world, const char *dtype, int64_t n) {
    int f = -1;
    REQUIRE(dslcTuningCacheHas(tmpl, "k", sha, world, dtype, n, &f) == DSLC_OK);
    return f;
  };
  CHECK(has("abc", 2, "bfloat16", 4096) == 1);
  CHECK(has("abc", 2, "bfloat16", 8191) == 1); // same bucket
  CHECK(has("abc", 2, "bfloat16", 8192) == 0);
  CHECK(has("abd", 2, "bfloat16", 4096) == 0); // another source
  CHECK(has("abc", 4, "bfloat16", 4096) == 0);
  CHECK(has("abc", 2, "float32", 4096) == 0);

  // Per shape (a kernel tuned with a reference): only the entry of the
  // call's shapes counts; no shapes: any entry of the bucket.
  dslc::contract::TuningRecord square = r, skinny = r;
  square.key.shape = dslc::contract::shapeKey({{"x", {64, 64}}});
  skinny.key.shape = "x=b9xb3"; // not the same buckets
  std::ofstream(std::string(tmpl) + "/tuning.json")
      << dslc::contract::serializeTuningCache({skinny, square});
  auto hasShape = [&](const char *shapes) {
    int f = -1;
    REQUIRE(dslcTuningCacheHasShape(tmpl, "k", "abc", 2, "bfloat16", 4096,
                                    shapes, &f) == DSLC_OK);
    return f;
  };
  CHECK(hasShape(R"({"x": [64, 64]})") == 1);
  CHECK(hasShape(R"({"x": [127, 127]})") == 1); // the same buckets
  CHECK(hasShape(R"({"x": [16, 256]})") == 0);
  CHECK(hasShape(R"({"x": [64, 64], "w": [64]})") == 0);
  CHECK(hasShape(nullptr) == 1);
  CHECK(hasShape("") == 1);
  int f = -1;
  CHECK(dslcTuningCacheHasShape(tmpl, "k", "abc", 2, "bfloat16", 4096,
                                R"({"x": [-1]})",
                                &f) == DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()).find("are not sizes") !=
        std::string::npos);
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

TEST_CASE("C API: the binding plan from metadata text", "[capi]") {
  using namespace dslc::test;
  KernelMetadata md =
      makeMd("k",
             json::array({table("tbl", "pad"), pad(),
                          tensor("x", "input", "bfloat16", 1, "read")}),
             json::array({{{"name", "out"},
                           {"dtype", "bfloat16"},
                           {"rank", 1},
                           {"access", "write"}}}),
             {{"param", "x"}, {"dim", 0}}, 256);
  md.constraints = {{"pad", 0, ">=", dslc::contract::NumTiles{}},
                    {"pad", 1, "==", int64_t(2)}};
  std::string text = dslc::contract::writeMetadata(md);
  std::string buf(1 << 16, '\0');
  REQUIRE(dslcBindingPlan(text.c_str(),
                          R"({"world": 2, "shapes": {"x": [1000]},
                              "from_data": true, "collective": "all_gather"})",
                          buf.data(), buf.size()) == DSLC_OK);
  json plan = json::parse(buf.c_str());
  CHECK(plan["tiles"] == 4); // 1000 / 256, rounded up
  CHECK(plan["args"][1]["name"] == "pad");
  CHECK(plan["args"][1]["shape"] == json::array({4, 2}));
  CHECK(plan["args"][1]["symmetric"] == true);
  CHECK(plan["args"][0]["table_of"] == "pad");
  CHECK(plan["args"][3]["shape"] == json::array({2000}));
  CHECK(plan["args"][3]["fill"] == "poison");
  CHECK(plan["problems"] == json::array());

  // problems are data; bad metadata, a bad request or a short buffer fail
  REQUIRE(dslcBindingPlan(text.c_str(), R"({"world": 2})", buf.data(),
                          buf.size()) == DSLC_OK);
  plan = json::parse(buf.c_str());
  CHECK(plan["problems"][0]["kind"] == "no_size");
  CHECK(plan["problems"][0]["arg"] == "x");
  CHECK(dslcBindingPlan("{}", "{}", buf.data(), buf.size()) ==
        DSLC_ERROR_METADATA);
  CHECK(dslcBindingPlan(text.c_str(), R"({"collective": "bcast"})", buf.data(),
                        buf.size()) == DSLC_ERROR_INVALID_ARGUMENT);
  char tiny[8];
  CHECK(dslcBindingPlan(text.c_str(), "{}", tiny, sizeof tiny) ==
        DSLC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(dslcGetLastError()).rfind("the binding plan need", 0) == 0);
  CHECK(dslcBindingPlan(nullptr, "{}", buf.data(), buf.size()) ==
        DSLC_ERROR_INVALID_ARGUMENT);
}
