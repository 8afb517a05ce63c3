//===- SimulationDumpTest.cpp - Reading dslc --simulate dumps -------------===//
//
// The CPU half of the simulator/GPU differential check (dslrun
// --inputs-from): a real dump made at build time by the built dslc
// (kernels/dslc_one_shot_all_reduce.sim, see CMakeLists.txt) is parsed and
// checked against the dslc-compiled metadata; damaged copies of it must give
// precise errors; the output comparison counts ulps correctly. Without the
// compiler in the build the dump tests say why they are skipped.
//
//===----------------------------------------------------------------------===//
#include "tooling/simdump/SimulationDump.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/harness/CollectiveHarness.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace dslc::rt;
using namespace dslc::run;
using Catch::Matchers::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

#ifdef DSLC_TEST_HAVE_DSLC
constexpr bool kHaveDslc = true;
#else
constexpr bool kHaveDslc = false;
#endif

std::string dumpDir() {
  return dslc::test::kernelPath("dslc_one_shot_all_reduce.sim");
}

/// True when the build made the dump (dslc configured); otherwise says why
/// the test is skipped.
bool haveDump(const char *test) {
  if (kHaveDslc)
    return true; // then the dump must exist: a missing one is a failure
  WARN("SKIPPED " << test
                  << ": the build has no dslc (configure with the compiler "
                     "to generate kernels/dslc_one_shot_all_reduce.sim)");
  return false;
}

/// A fresh copy of the dump in a temporary directory, removed at scope end.
struct DumpCopy {
  std::string dir;
  DumpCopy() {
    char tmpl[] = "/tmp/dslc-dump-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    fs::copy(dumpDir(), dir, fs::copy_options::recursive);
  }
  ~DumpCopy() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string &file) const { return dir + "/" + file; }
  json manifest() const { return json::parse(readFile(path("manifest.json"))); }
  void writeManifest(const std::string &text) const {
    std::ofstream(path("manifest.json"), std::ios::trunc) << text;
  }
};

std::string loadError(const std::string &dir, ErrorCode code) {
  try {
    loadSimulationDump(dir);
  } catch (const Error &e) {
    CHECK(errorCodeName(e.code()) == std::string(errorCodeName(code)));
    return e.what();
  }
  return "(loaded)";
}

std::string parseError(const json &j) {
  try {
    parseSimulationManifest(j.dump(), "/d");
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::Metadata);
    return e.what();
  }
  return "(parsed)";
}

std::string matchError(const SimulationDump &d, const KernelMetadata &md,
                       int world) {
  try {
    checkDumpMatchesKernel(d, md, world);
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    return e.what();
  }
  return "(matches)";
}

void setParam(json &m, const std::string &name, const char *key, json value) {
  for (json &p : m["params"])
    if (p["name"] == name) {
      p[key] = std::move(value);
      return;
    }
  FAIL("no parameter " << name);
}

uint16_t bf16At(const std::vector<char> &v, size_t i) {
  uint16_t h;
  std::memcpy(&h, &v[i * 2], 2);
  return h;
}

} // namespace

TEST_CASE("simulation dump: the dslc-generated dump of the example",
          "[simdump]") {
  if (!haveDump("simulation dump: the dslc-generated dump"))
    return;
  SimulationDump d = loadSimulationDump(dumpDir());
  CHECK(d.kernel == "one_shot_all_reduce_kernel");
  CHECK(d.worldSize == 2);
  CHECK(d.seed == 7);
  CHECK(d.launches == 1);
  CHECK(d.reference == "all-reduce");
  REQUIRE(d.params.size() == 5);
  const DumpParam *in = d.find("a_shared");
  const DumpParam *out = d.find("out");
  const DumpParam *pad = d.find("local_signal_pad");
  const DumpParam *table = d.find("signal_pad_addrs");
  REQUIRE(in);
  REQUIRE(out);
  REQUIRE(pad);
  REQUIRE(table);
  CHECK(in->role == DumpParam::Role::Input);
  CHECK(in->dtype == DType::BFloat16);
  CHECK(in->sizes == std::vector<int64_t>{100003});
  CHECK(out->role == DumpParam::Role::Output);
  CHECK(out->bytes() == 200006);
  CHECK(pad->role == DumpParam::Role::SignalPad);
  CHECK(pad->sizes == std::vector<int64_t>{13, 2}); // ceil(100003 / 8192)
  CHECK(table->role == DumpParam::Role::PeerTable);
  CHECK(table->tableOf == "local_signal_pad");
  REQUIRE(d.find("a_shared.peers"));
  CHECK(d.find("a_shared.peers")->tableOf == "a_shared");

  // The simulator's output is the sum of the ranks' inputs in rank order,
  // rounded to bf16 once per addition: what the GPU computes, bit for bit.
  std::vector<char> a0 = d.readInput(0, 0, *in), a1 = d.readInput(1, 0, *in);
  std::vector<char> o0 = d.readOutput(0, 0, *out),
                    o1 = d.readOutput(1, 0, *out);
  REQUIRE(a0.size() == 200006);
  CHECK(a0 != a1);
  CHECK(o0 == o1);
  int64_t wrong = 0, nonzero = 0, outOfRange = 0;
  for (int64_t k = 0; k < 100003; ++k) {
    float x = bf16ToFloat(bf16At(a0, k)), y = bf16ToFloat(bf16At(a1, k));
    outOfRange += !(std::fabs(x) <= 1.0f); // [-1, 1) rounded to bf16
    nonzero += x != 0.0f;
    // acc = 0 + x is exact; acc + y is an f32 add rounded to bf16.
    if (floatToBf16(x + y) != bf16At(o0, k))
      ++wrong;
  }
  CHECK(outOfRange == 0);
  CHECK(nonzero > 90000);
  CHECK(wrong == 0);
}

TEST_CASE("simulation dump: fits the dslc-compiled kernel, not others",
          "[simdump]") {
  if (!haveDump("simulation dump: fits the dslc-compiled kernel"))
    return;
  SimulationDump d = loadSimulationDump(dumpDir());
  KernelMetadata md = loadMetadataFile(
      dslc::test::kernelPath("dslc_one_shot_all_reduce.r0.cubin.json"));
  CHECK(matchError(d, md, 2) == "(matches)");
  // The hand-written CUDA kernel has the same interface.
  CHECK(matchError(d,
                   loadMetadataFile(dslc::test::kernelPath(
                       "one_shot_all_reduce.r1.cubin.json")),
                   2) == "(matches)");

  CHECK_THAT(matchError(d, md, 4),
             Contains("the dump was simulated for world size 2, this run has "
                      "4 rank(s)"));
  KernelMetadata other = md;
  other.kernel = "two_shot";
  CHECK_THAT(matchError(d, other, 2),
             Contains("the dump is of kernel 'one_shot_all_reduce_kernel', "
                      "the cubin's metadata is of kernel 'two_shot'"));
  other = md;
  other.worldSize = 4;
  CHECK_THAT(matchError(d, other, 2),
             Contains("the kernel was compiled for world size 4, the dump "
                      "was simulated for 2"));
  other = md;
  other.args[other.findArg("a_shared")].dtype = DType::Float32;
  CHECK_THAT(matchError(d, other, 2),
             Contains("'a_shared': dtype float32 in the kernel, bfloat16 in "
                      "the manifest"));
  other = md;
  other.args[other.findArg("local_signal_pad")].dtype = DType::Int16;
  CHECK_THAT(matchError(d, other, 2),
             Contains("'local_signal_pad': dtype int16 in the kernel, int32 "
                      "in the manifest"));
  other = md;
  other.args[other.findArg("local_signal_pad")].dtype = DType::UInt32;
  CHECK(matchError(d, other, 2) == "(matches)"); // signless in the simulator
  other = md;
  other.args[other.findArg("a_shared")].rank = 2;
  CHECK_THAT(matchError(d, other, 2),
             Contains("'a_shared': rank 2 in the kernel, 1 (bfloat16[100003]) "
                      "in the manifest"));
  other = md;
  other.args[other.findArg("out")].name = "result";
  std::string msg = matchError(d, other, 2);
  CHECK_THAT(msg, Contains("output 'result' of the kernel is not in the "
                           "manifest"));
  CHECK_THAT(msg, Contains("output 'out' of the manifest is not an argument "
                           "of kernel one_shot_all_reduce_kernel"));
  other = md;
  other.args[other.findArg("a_shared")].symmetric = false;
  CHECK_THAT(matchError(d, other, 2),
             Contains("peer table 'a_shared.peers' of the manifest is not an "
                      "argument"));
}

TEST_CASE("simulation dump: missing and wrongly sized files", "[simdump]") {
  if (!haveDump("simulation dump: missing and wrongly sized files"))
    return;
  CHECK_THAT(loadError("/nonexistent/dump", ErrorCode::Io),
             Contains("simulation dump /nonexistent/dump: no such directory"));
  {
    DumpCopy c;
    fs::remove(c.path("manifest.json"));
    CHECK_THAT(
        loadError(c.dir, ErrorCode::Io),
        Contains("simulation dump " + c.dir + ": no manifest.json in it"));
  }
  {
    DumpCopy c;
    fs::remove(c.path("r1.c0.a_shared.npy"));
    CHECK(loadError(c.dir, ErrorCode::Io) ==
          "simulation dump: missing input file " + c.dir +
              "/r1.c0.a_shared.npy (input 'a_shared')");
  }
  {
    DumpCopy c;
    fs::remove(c.path("r0.c0.out.out.npy"));
    CHECK(loadError(c.dir, ErrorCode::Io) ==
          "simulation dump: missing output file " + c.dir +
              "/r0.c0.out.out.npy (output 'out')");
  }
  {
    // The .npy header (128 bytes) and 10 bytes of data.
    DumpCopy c;
    fs::resize_file(c.path("r0.c0.out.out.npy"), 138);
    CHECK(loadError(c.dir, ErrorCode::InvalidArgument) ==
          "simulation dump: output file " + c.dir +
              "/r0.c0.out.out.npy holds 10 bytes of data, but 'out' is "
              "bfloat16[100003] (100003 elements of 2 bytes = 200006 bytes)");
  }
  {
    DumpCopy c;
    fs::resize_file(c.path("r0.c0.out.out.npy"), 10);
    CHECK(loadError(c.dir, ErrorCode::InvalidArgument) ==
          "simulation dump: output file " + c.dir +
              "/r0.c0.out.out.npy: the .npy header runs past the end of the "
              "file");
  }
  {
    DumpCopy c;
    std::ofstream(c.path("r1.c0.a_shared.npy"), std::ios::trunc)
        << "not numpy at all";
    CHECK(loadError(c.dir, ErrorCode::InvalidArgument) ==
          "simulation dump: input file " + c.dir +
              "/r1.c0.a_shared.npy: not a .npy file (no \\x93NUMPY magic)");
  }
  {
    // The manifest says float32: the files hold bf16 bits ('<u2').
    DumpCopy c;
    json m = c.manifest();
    setParam(m, "a_shared", "dtype", "float32");
    c.writeManifest(m.dump());
    CHECK_THAT(loadError(c.dir, ErrorCode::InvalidArgument),
               Contains("r0.c0.a_shared.npy holds '<u2' [100003], but "
                        "'a_shared' is float32[100003] (numpy '<f4', C "
                        "order)"));
  }
  {
    DumpCopy c;
    json m = c.manifest();
    setParam(m, "a_shared", "sizes", json::array({100002}));
    c.writeManifest(m.dump());
    CHECK_THAT(loadError(c.dir, ErrorCode::InvalidArgument),
               Contains("r0.c0.a_shared.npy holds '<u2' [100003], but "
                        "'a_shared' is bfloat16[100002]"));
  }
  {
    // Two launches: the files of launch 1 are missing.
    DumpCopy c;
    json m = c.manifest();
    m["launches"] = 2;
    c.writeManifest(m.dump());
    CHECK_THAT(loadError(c.dir, ErrorCode::Io),
               Contains("missing input file " + c.dir + "/r0.c1.a_shared.npy"));
  }
  {
    DumpCopy c;
    c.writeManifest("{\"format\": \"dslc-simulation\",");
    CHECK_THAT(loadError(c.dir, ErrorCode::Metadata),
               Contains("simulation manifest " + c.dir +
                        "/manifest.json: not valid JSON"));
  }
}

TEST_CASE("simulation dump: malformed manifests", "[simdump]") {
  json good = json::parse(R"({
    "format": "dslc-simulation", "version": 2, "kernel": "k", "seed": 3,
    "world_size": 2,
    "launches": 1, "reference": "none",
    "params": [
      {"name": "t", "kind": "tensor", "role": "peer table", "dtype": "int64",
       "sizes": [2], "table_of": "pad"},
      {"name": "pad", "kind": "tensor", "role": "signal pad", "dtype": "int32",
       "sizes": [4, 2]},
      {"name": "x", "kind": "tensor", "role": "input", "dtype": "float32",
       "sizes": [7]},
      {"name": "s", "kind": "tensor", "role": "LL scratch", "dtype": "int64",
       "sizes": [64]},
      {"name": "n", "kind": "scalar", "value": 5},
      {"name": "alpha", "kind": "scalar", "value": 0.5},
      {"name": "out", "kind": "tensor", "role": "output", "dtype": "float32",
       "sizes": [7]}]})");
  SimulationDump d = parseSimulationManifest(good.dump(), "/d");
  CHECK(d.manifest == "/d/manifest.json");
  REQUIRE(d.params.size() == 7);
  CHECK(d.params[3].role == DumpParam::Role::Scratch);
  CHECK(d.params[4].role == DumpParam::Role::Scalar);
  CHECK(d.params[4].intValue == 5);
  CHECK_FALSE(d.params[4].isFloatScalar);
  CHECK(d.params[5].isFloatScalar);
  CHECK(d.params[5].floatValue == 0.5);
  CHECK(d.inputPath(1, 0, "x") == "/d/r1.c0.x.npy");
  CHECK(d.outputPath(0, 2, "out") == "/d/r0.c2.out.out.npy");

  const std::string at = "simulation manifest /d/manifest.json: ";
  json j = good;
  j.erase("version");
  CHECK(parseError(j) == at + "the dump is not of format version 2 (its "
                              "files are not .npy): make it again with dslc "
                              "FILE --simulate --dump-dir DIR");
  j = good;
  j["format"] = "dslc-kernel";
  CHECK(parseError(j) == at + "'format' is \"dslc-kernel\", expected "
                              "\"dslc-simulation\" (a dump of dslc "
                              "--simulate --dump-dir)");
  j = good;
  j.erase("world_size");
  CHECK(parseError(j) == at + "missing 'world_size'");
  j = good;
  j["world_size"] = 0;
  CHECK(parseError(j) == at + "'world_size' must be an integer >= 1, not 0");
  j = good;
  j["kernel"] = 3;
  CHECK(parseError(j) == at + "'kernel' must be a string, not 3");
  j = good;
  j["params"] = json::array();
  CHECK(parseError(j) == at + "'params' must be a non-empty array");
  j = good;
  j["params"][2]["role"] = "scratch";
  CHECK(parseError(j) == at + "params[2] 'x': unknown role \"scratch\" "
                              "(expected input, output, signal pad, peer "
                              "table, LL scratch or workspace)");
  j = good;
  j["params"][2]["dtype"] = "index";
  CHECK(parseError(j) ==
        at + "params[2] 'x': dtype \"index\" has no runtime equivalent");
  j = good;
  j["params"][2]["sizes"] = {7, -1};
  CHECK(parseError(j) ==
        at + "params[2] 'x': sizes[1] must be a non-negative integer, not -1");
  j = good;
  j["params"][2].erase("sizes");
  CHECK(parseError(j) == at + "params[2] 'x': missing 'sizes'");
  j = good;
  j["params"][0]["table_of"] = "y";
  CHECK(parseError(j) == at + "peer table 't': table_of 'y' is not a tensor "
                              "parameter of the manifest");
  j = good;
  j["params"][0].erase("table_of");
  CHECK(parseError(j) == at + "params[0] 't': missing 'table_of'");
  j = good;
  j["params"][5]["name"] = "x";
  CHECK(parseError(j) == at + "params[5]: parameter 'x' appears twice");
  j = good;
  j["params"][4]["value"] = "five";
  CHECK(parseError(j) == at + "params[4] 'n': scalar 'value' must be a "
                              "number, not \"five\"");
  j = good;
  j["params"][1]["kind"] = "tuple";
  CHECK(parseError(j) == at + "params[1] 'pad': 'kind' must be \"tensor\" or "
                              "\"scalar\", not \"tuple\"");
  CHECK_THROWS_WITH(parseSimulationManifest("[]", "/d"),
                    at + "the top level must be an object");
}

TEST_CASE("simulation dump: output comparison and ulps", "[simdump]") {
  // bf16: 1.0 = 0x3f80; next up 0x3f81; two up 0x3f82.
  std::vector<uint16_t> sim = {0x3f80, 0xbf80, 0x0000, 0x4000};
  std::vector<uint16_t> gpu = sim;
  OutputComparison c = compareOutputs(DType::BFloat16, gpu.data(), sim.data(),
                                      static_cast<int64_t>(sim.size()));
  CHECK(c.bitwiseEqual());
  CHECK(c.acceptable());
  DumpParam p;
  p.name = "out";
  p.dtypeName = "bfloat16";
  p.dtype = DType::BFloat16;
  p.sizes = {4};
  CHECK(formatVerdict(1, p, c) == "rank 1: output 'out' (bfloat16[4]): "
                                  "bitwise equal to the simulator (4 "
                                  "elements): ok");

  gpu[0] = 0x3f81; // 1 ulp
  gpu[2] = 0x8000; // -0 vs +0: differs, 0 ulp
  c = compareOutputs(DType::BFloat16, gpu.data(), sim.data(), 4);
  CHECK(c.differing == 2);
  CHECK(c.maxUlp == 1);
  CHECK(c.worstElement == 0);
  CHECK(c.firstDiffering == 0);
  CHECK(c.acceptable());
  std::string v = formatVerdict(0, p, c);
  CHECK_THAT(v, Contains("2 of 4 elements differ from the simulator, max ulp "
                         "difference 1 (element 0)"));
  CHECK_THAT(v, Contains("GPU 1.0078125 (0x3f81), simulator 1 (0x3f80)"));
  CHECK_THAT(v, Contains("within 1 ulp: ok"));

  gpu[3] = 0x3ffe; // 2.0 (0x4000) two ulps down
  c = compareOutputs(DType::BFloat16, gpu.data(), sim.data(), 4);
  CHECK(c.maxUlp == 2);
  CHECK(c.worstElement == 3);
  CHECK_FALSE(c.acceptable());
  CHECK_THAT(formatVerdict(0, p, c),
             Contains("FAILED (more than 1 ulp and beyond the tolerance model: "
                      "relative error 5.99e-03, tolerance 5.5e-03)"));

  // Reductions and math round differently on the GPU: a long output with
  // one element in ten 3 ulps off passes by the tolerance model, a wrong
  // one fails.
  std::vector<float> simF(4096), gpuF(4096);
  for (int k = 0; k < 4096; ++k) {
    simF[k] = static_cast<float>(std::sin(k) + 2);
    gpuF[k] = simF[k];
    if (k % 10 == 0)
      for (int u = 0; u < 3; ++u)
        gpuF[k] = std::nextafter(gpuF[k], 10.0f);
  }
  c = compareOutputs(DType::Float32, gpuF.data(), simF.data(), 4096, 2);
  CHECK(c.maxUlp > 1);
  CHECK(c.withinTolerance);
  CHECK(c.acceptable());
  p.dtypeName = "float32";
  p.dtype = DType::Float32;
  p.sizes = {4096};
  CHECK_THAT(formatVerdict(0, p, c),
             Contains("more than 1 ulp, within the tolerance model "
                      "(relative error"));
  gpuF[100] += 1;
  c = compareOutputs(DType::Float32, gpuF.data(), simF.data(), 4096, 2);
  CHECK_FALSE(c.acceptable());
  CHECK_THAT(formatVerdict(0, p, c),
             Contains("FAILED (more than 1 ulp and beyond the tolerance "
                      "model: relative error"));
  p.dtypeName = "bfloat16";
  p.dtype = DType::BFloat16;
  p.sizes = {4};

  // Across zero: the smallest positive and negative subnormals are 2 apart.
  CHECK(ulpDistance(DType::BFloat16, 0x0001, 0x8001) == 2);
  CHECK(ulpDistance(DType::Float16, 0x3c00, 0x3c01) == 1);
  CHECK(ulpDistance(DType::Float32, 0x3f800000, 0x3f7fffff) == 1);
  CHECK(ulpDistance(DType::Float64, 0x3ff0000000000000ull,
                    0x3ff0000000000003ull) == 3);
  // NaNs: equal bits are equal; anything else is unbounded.
  CHECK(ulpDistance(DType::BFloat16, 0x7fc0, 0x7fc0) == 0);
  CHECK(ulpDistance(DType::BFloat16, 0x7fc0, 0x7fc1) ==
        OutputComparison::kUlpInfinite);
  CHECK(ulpDistance(DType::BFloat16, 0x7fc0, 0x3f80) ==
        OutputComparison::kUlpInfinite);
  CHECK(ulpDistance(DType::Float32, 0x7f800000, 0x7f7fffff) == 1); // inf
  std::vector<uint16_t> poisoned = {0xffff, 0xbf80, 0x0000, 0x4000};
  c = compareOutputs(DType::BFloat16, poisoned.data(), sim.data(), 4);
  CHECK(c.maxUlp == OutputComparison::kUlpInfinite);
  CHECK_FALSE(c.acceptable());

  // fp8 is a floating format: an output quantized from a value 1 ulp off
  // may land 1 fp8 ulp off (seen at world 4 on the GPU: 43 vs 44).
  CHECK(ulpDistance(DType::Float8E4M3FN, 43, 44) == 1);
  CHECK(ulpDistance(DType::Float8E4M3FN, 0x01, 0x81) == 2);
  CHECK(ulpDistance(DType::Float8E4M3FN, 0x7f, 0x7e) ==
        OutputComparison::kUlpInfinite);                    // NaN
  CHECK(ulpDistance(DType::Float8E4M3FN, 0x79, 0x7a) == 1); // 288 vs 320
  CHECK(ulpDistance(DType::Float8E5M2, 0x7c, 0x7b) == 1);   // inf vs max
  CHECK(ulpDistance(DType::Float8E5M2, 0x7d, 0x7c) ==
        OutputComparison::kUlpInfinite); // NaN
  std::vector<uint8_t> f8s = {0x38, 43, 0xb0}, f8g = {0x38, 44, 0xb0};
  c = compareOutputs(DType::Float8E4M3FN, f8g.data(), f8s.data(), 3, 4);
  CHECK(c.acceptable());
  p.dtypeName = "float8_e4m3fn";
  p.dtype = DType::Float8E4M3FN;
  p.sizes = {3};
  CHECK_THAT(formatVerdict(0, p, c),
             Contains("first at element 1: GPU 0.375 (0x2c), simulator "
                      "0.34375 (0x2b): within 1 ulp: ok"));
  f8g[1] = 46;
  c = compareOutputs(DType::Float8E4M3FN, f8g.data(), f8s.data(), 3, 4);
  CHECK(c.maxUlp == 3);

  // Integers must be bitwise equal.
  std::vector<int32_t> is = {1, -2, 3}, ig = {1, -1, 3};
  c = compareOutputs(DType::Int32, ig.data(), is.data(), 3);
  CHECK(c.differing == 1);
  CHECK_FALSE(c.acceptable());
  p.dtypeName = "int32";
  p.dtype = DType::Int32;
  p.sizes = {3};
  CHECK_THAT(formatVerdict(2, p, c),
             Contains("first at element 1: GPU -1, simulator -2: FAILED "
                      "(integers must be bitwise equal)"));
}

TEST_CASE("planted hang pair: rank 0 from the example, rank 1 from "
          "missing-signal.py, with one ABI",
          "[simdump]") {
  if (!haveDump("planted hang pair"))
    return;
  json r0 = json::parse(
      readFile(dslc::test::kernelPath("dslc_missing_signal.r0.cubin.json")));
  json r1 = json::parse(
      readFile(dslc::test::kernelPath("dslc_missing_signal.r1.cubin.json")));
  CHECK_THAT(r0["source"]["file"].get<std::string>(),
             Contains("one_shot_all_reduce.py"));
  CHECK_THAT(r1["source"]["file"].get<std::string>(),
             Contains("missing-signal.py"));
  for (const char *key :
       {"kernel", "entry", "abi", "outputs", "constraints", "grid",
        "threads_per_cta", "spins", "state_bytes", "world_size"})
    CHECK((r0[key] == r1[key]) == true);
  // params differ only in the value of the my_rank constexpr.
  for (json *r : {&r0, &r1})
    for (json &p : (*r)["params"])
      p.erase("value");
  CHECK((r0["params"] == r1["params"]) == true);
}
