//===- KernelPlanTest.cpp - Binding any kernel from its roles (no GPU) ----===//
//
// planKernel/bindKernel on a fused-kernel-like metadata (2-D symmetric
// input, residual, weight, a float scalar, a signal pad and its table, two
// outputs), on every dslc-compiled example, and their errors; the DSL
// reference's binding; the output checks; the seeded inputs.
//
//===----------------------------------------------------------------------===//
#include "tooling/harness/KernelPlan.h"
#include "runtime/Error.h"
#include "tests/runtime/MetadataBuilder.h"
#include "tests/runtime/TestSupport.h"
#include "tooling/harness/DslReference.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/harness/KernelHarness.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dslc::rt;
using namespace dslc::run;
using namespace dslc::test;

namespace {

/// all-reduce + residual + RMSNorm, as the fused example's metadata would
/// be: a grid over the rows of x.
KernelMetadata fusedMd() {
  return makeMd(
      "fused_ar_rmsnorm",
      json::array({table("pad_addrs", "pad"), pad(),
                   symmetric(tensor("x", "input", "bfloat16", 2, "read")),
                   tensor("residual", "input", "bfloat16", 2, "read"),
                   tensor("weight", "input", "bfloat16", 1, "read"),
                   scalarParam("eps", "float32")}),
      json::parse(R"([
        {"name": "out", "dtype": "bfloat16", "rank": 2, "like": "x"},
        {"name": "residual_out", "dtype": "bfloat16", "rank": 2,
         "like": "x"}])"),
      json::parse(R"({"param": "x", "dim": 0})"), 1);
}

/// Its reference: every input stacked on a leading [world] dimension.
KernelMetadata fusedRefMd(const char *weightDtype = "bfloat16",
                          int weightRank = 2) {
  return makeMd(
      "fused_ref",
      json::array({tensor("x", "input", "bfloat16", 3, "read"),
                   tensor("residual", "input", "bfloat16", 3, "read"),
                   tensor("weight", "input", weightDtype, weightRank, "read"),
                   scalarParam("eps", "float32")}),
      json::parse(R"([
        {"name": "out", "dtype": "bfloat16", "rank": 3, "like": "x"},
        {"name": "residual_out", "dtype": "bfloat16", "rank": 3,
         "like": "x"}])"),
      json::parse(R"({"param": "x", "dim": 1})"), 1);
}

ProblemSpec spec(std::initializer_list<const char *> sizes,
                 std::initializer_list<const char *> scalars = {}) {
  ProblemSpec s;
  for (const char *t : sizes)
    REQUIRE(s.addSize(t));
  for (const char *t : scalars)
    REQUIRE(s.addScalar(t));
  return s;
}

std::string planError(const KernelMetadata &md, const ProblemSpec &s) {
  try {
    planKernel(md, 2, s);
  } catch (const Error &e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    return e.what();
  }
  return "(planned)";
}

/// Binds with fake addresses and runs the runtime's launch checks.
BoundArgs bindFake(const KernelMetadata &md, const KernelPlan &plan) {
  std::vector<void *> local, peers;
  for (size_t j = 0; j < plan.args.size(); ++j) {
    local.push_back(reinterpret_cast<void *>(0x100000 * (j + 1)));
    peers.push_back(reinterpret_cast<void *>(0x100000 * (j + 1) + 0x8000));
  }
  BoundArgs a(md);
  bindKernel(a, plan, local, peers, 0);
  return a;
}

} // namespace

TEST_CASE("kernel plan: a fused kernel's 2-D inputs, scalar, pad and "
          "outputs",
          "[harness]") {
  KernelMetadata md = fusedMd();
  KernelPlan p = planKernel(
      md, 2,
      spec({"x=4x8192", "residual=4x8192", "weight=8192"}, {"eps=1e-6"}));
  auto arg = [&](const char *name) -> const PlannedArg & {
    REQUIRE(p.find(name) >= 0);
    return p.args[p.find(name)];
  };
  CHECK(p.tiles == 4);
  CHECK(arg("pad").shape == std::vector<int64_t>{4, 2});
  CHECK(arg("pad").fill == Fill::ZeroOnce);
  CHECK(arg("pad_addrs").shape == std::vector<int64_t>{2});
  CHECK(arg("pad_addrs").tableOf == p.find("pad"));
  CHECK(arg("pad").symmetric); // a table lists it
  CHECK(arg("x").symmetric);
  CHECK(arg("x").fill == Fill::Seeded);
  CHECK(arg("x").bytes == 4 * 8192 * 2);
  CHECK(arg("weight").shape == std::vector<int64_t>{8192});
  CHECK(arg("eps").fill == Fill::Scalar);
  CHECK(arg("eps").scalar == 1e-6);
  CHECK(arg("out").shape == std::vector<int64_t>{4, 8192}); // like x
  CHECK(arg("out").fill == Fill::Poison);
  CHECK_FALSE(arg("out").inHeap); // not symmetric: cudaMalloc
  CHECK(arg("residual").inHeap);
  CHECK(p.inputs() == std::vector<int>{2, 3, 4});
  CHECK(p.outputs() == std::vector<int>{6, 7});
  CHECK(p.spec.text() == "residual=4x8192,weight=8192,x=4x8192;eps=1e-06");
  CHECK(p.describe()[2] == "x: input bfloat16[4x8192] symmetric, random");
  CHECK(p.describe()[5] == "eps: scalar float32 = 1e-06");
  BoundArgs a = bindFake(md, p);
  CHECK(a.numTiles() == 4);
  CHECK(a.values()[0].tensor.data ==
        reinterpret_cast<void *>(0x200000 + 0x8000));
  CHECK(a.values()[5].f == Approx(1e-6));
}

TEST_CASE("kernel plan: symm_mem_sync's implicit pad is allocated and its "
          "table filled, with no size given for them",
          "[harness]") {
  // Helion's one-shot all-reduce + bias + RMSNorm as dslc compiles it: the
  // pad after the table is the compiler's (docs/kernel-abi.md, "Implicit
  // parameters").
  json implicitPad = pad("signal_pad_ptrs.pad");
  implicitPad["implicit"] = true;
  KernelMetadata md =
      makeMd("one_shot_allreduce_bias_rmsnorm_kernel",
             json::array({symmetric(tensor("symm_mem_buffer", "inout",
                                           "bfloat16", 2, "readwrite")),
                          tensor("x", "input", "bfloat16", 2, "read"),
                          tensor("bias", "input", "bfloat16", 1, "read"),
                          tensor("weight", "input", "bfloat16", 1, "read"),
                          table("signal_pad_ptrs", "signal_pad_ptrs.pad"),
                          implicitPad}),
             json::parse(R"([{"name": "output", "dtype": "bfloat16", "rank": 2,
                       "like": "x"}])"),
             json::parse(R"({"param": "x", "dim": 0})"), 8);
  KernelPlan p = planKernel(
      md, 4,
      spec({"symm_mem_buffer=24x512", "x=24x512", "bias=512", "weight=512"}));
  const PlannedArg &padArg = p.args[p.find("signal_pad_ptrs.pad")];
  CHECK(p.tiles == 3);
  CHECK(padArg.shape == std::vector<int64_t>{3, 4});
  CHECK(padArg.fill == Fill::ZeroOnce);
  CHECK(padArg.symmetric);
  CHECK(p.args[p.find("signal_pad_ptrs")].tableOf ==
        p.find("signal_pad_ptrs.pad"));
  CHECK(p.inputs() == std::vector<int>{1, 2, 3});
  BoundArgs a = bindFake(md, p);
  // The table holds the pad's peer table.
  CHECK(a.values()[4].tensor.data ==
        reinterpret_cast<void *>(0x100000 * 6 + 0x8000));
}

TEST_CASE("kernel plan: every problem is listed in one error", "[harness]") {
  KernelMetadata md = fusedMd();
  std::string e = planError(md, spec({"x=4x8192x2", "bogus=3"}, {"epsilon=1"}));
  CHECK(e == "kernel fused_ar_rmsnorm: cannot bind its arguments:\n"
             "  --size bogus: the kernel has no argument 'bogus'\n"
             "  --scalar epsilon: the kernel has no scalar 'epsilon'\n"
             "  --size x=4x8192x2: 'x' has rank 2, the size has 3 extent(s)\n"
             "  input 'x' (bfloat16, rank 2) has no size: give --size x=AxB\n"
             "  input 'residual' (bfloat16, rank 2) has no size: give --size "
             "residual=AxB\n"
             "  input 'weight' (bfloat16, rank 1) has no size: give --size "
             "weight=N\n"
             "  scalar 'eps' (float) has no value and no default in the "
             "source: give --scalar eps=V");
  // The source's default binds a scalar the command line leaves out.
  KernelMetadata withDefault = fusedMd();
  for (ArgSpec &a : withDefault.args)
    if (a.name == "eps")
      a.value = "1e-05";
  KernelPlan d = planKernel(withDefault, 2,
                            spec({"x=4x8192", "residual=4x8192", "weight=8192",
                                  "out=4x8192", "residual_out=4x8192"}));
  CHECK(d.args[d.find("eps")].scalar == 1e-5);
  KernelPlan given =
      planKernel(withDefault, 2,
                 spec({"x=4x8192", "residual=4x8192", "weight=8192",
                       "out=4x8192", "residual_out=4x8192"},
                      {"eps=0.25"}));
  CHECK(given.args[given.find("eps")].scalar == 0.25);
  KernelMetadata n =
      makeMd("k",
             json::array({tensor("a", "input", "float32", 1, "read"),
                          scalarParam("n", "int64")}),
             json::parse(R"([{"name": "out", "dtype": "float32", "rank": 1}])"),
             json::parse(R"({"scalar": "n"})"), 128);
  CHECK(planError(n, spec({"a=1000"}, {"n=2.5"}))
            .find("int scalar 'n' given 2.5") != std::string::npos);
  CHECK(planError(n, spec({"a=1000"}, {"n=7"}))
            .find("output 'out' (float32, rank 1) has no size: give --size "
                  "out=...") != std::string::npos);
  // An int scalar by --size NAME=V; the grid runs over it.
  KernelPlan p = planKernel(n, 2, spec({"a=1000", "n=1000", "out=1000"}));
  CHECK(p.args[1].scalar == 1000);
  CHECK(p.tiles == 8);
  ProblemSpec bad;
  CHECK(bad.addSize("x").error() ==
        "--size x: give NAME=AxB (a tensor's shape) or NAME=V (an int "
        "scalar)");
  CHECK(bad.addSize("x=4xK").error().find("bad shape '4xK'") !=
        std::string::npos);
  CHECK(bad.addScalar("eps=tiny").error() ==
        "--scalar eps=tiny: 'tiny' is not a number");
}

TEST_CASE("kernel plan: a shape the kernel was not compiled for is named "
          "before any GPU work",
          "[harness]") {
  // As dslc writes for `H = hl.specialize(H)` with -D H=8192.
  KernelMetadata md = fusedMd();
  md.constraints.push_back({"x", 1, "==", int64_t(8192)});
  md.constraints.push_back({"weight", 0, "==", int64_t(8192)});
  md.constraints.push_back({"residual", 0, "<=", int64_t(64)});
  KernelPlan ok = planKernel(
      md, 2,
      spec({"x=4x8192", "residual=4x8192", "weight=8192"}, {"eps=1e-6"}));
  CHECK(ok.tiles == 4);
  std::string e = planError(
      md, spec({"x=4x4096", "residual=65x4096", "weight=4096"}, {"eps=1e-6"}));
  CHECK(e == "kernel fused_ar_rmsnorm: cannot bind its arguments:\n"
             "  'x' of shape 4x4096: dim 1 is 4096, but the kernel needs == "
             "8192\n"
             "  'weight' of shape 4096: dim 0 is 4096, but the kernel needs "
             "== 8192\n"
             "  'residual' of shape 65x4096: dim 0 is 65, but the kernel "
             "needs <= 64");
}

TEST_CASE("kernel plan: every dslc-compiled example binds from its roles",
          "[harness]") {
#ifndef DSLC_TEST_HAVE_DSLC
  WARN("SKIPPED dslc-compiled kernel plans: the build has no dslc");
  return;
#endif
  for (const char *name :
       {"one_shot_all_reduce", "ll_one_shot_all_reduce", "two_shot_all_reduce",
        "ll_two_shot_all_reduce", "multicast_one_shot_all_reduce",
        "multicast_two_shot_all_reduce", "reduce_scatter", "all_gather",
        "all_gather_multicast"}) {
    std::string file = std::string("dslc_") + name + ".r0.cubin.json";
    INFO(file);
    KernelMetadata md = loadMetadataFile(dslc::test::kernelPath(file));
    // Every input 8194 elements; what nothing else sizes, by rank:
    // [8194] or [world, 8194] (the all-gathers' and workspaces' shapes).
    ProblemSpec s;
    for (const ArgSpec &a : md.args) {
      bool sized = a.role == Role::Input || a.role == Role::InOut ||
                   (a.isOutput && a.like.empty()) ||
                   (a.role == Role::Output && !a.isOutput);
      if (a.isTensor() && sized)
        REQUIRE(s.addSize(a.name + (a.rank == 2 ? "=2x8194" : "=8194")));
    }
    KernelPlan p = planKernel(md, 2, s);
    CHECK(p.tiles >= 1);
    CHECK_FALSE(p.outputs().empty());
    CHECK_FALSE(p.inputs().empty());
    bindFake(md, p);
  }
}

TEST_CASE("reference binding: stacked inputs and outputs, scalars by name",
          "[harness]") {
  KernelPlan p = planKernel(
      fusedMd(), 2,
      spec({"x=4x8192", "residual=4x8192", "weight=8192"}, {"eps=1e-6"}));
  ReferenceBinding b = bindReference(fusedRefMd(), p);
  REQUIRE(b.args.size() == 6);
  CHECK(b.args[0].kind == ReferenceBinding::Arg::Kind::StackedInput);
  CHECK(b.args[0].checked == p.find("x"));
  CHECK(b.args[0].shape == std::vector<int64_t>{2, 4, 8192});
  CHECK(b.args[2].shape == std::vector<int64_t>{2, 8192});
  CHECK(b.args[3].kind == ReferenceBinding::Arg::Kind::Scalar);
  CHECK(b.args[4].kind == ReferenceBinding::Arg::Kind::StackedOutput);
  CHECK(b.args[5].checked == p.find("residual_out"));
  std::string why;
  try {
    bindReference(fusedRefMd("float32", 1), p);
  } catch (const Error &e) {
    why = e.what();
  }
  CHECK(why == "reference fused_ref for kernel fused_ar_rmsnorm:\n"
               "  'weight' is float32, but fused_ar_rmsnorm's 'weight' is "
               "bfloat16 (compile the reference with --signature "
               "weight=bfloat16[2])\n"
               "  'weight' has rank 1; it holds every rank's 'weight' "
               "stacked, so its rank must be 2");
  // A reference that communicates is refused; an unknown input too.
  KernelMetadata comm =
      makeMd("bad_ref",
             json::array({pad(), tensor("y", "input", "bfloat16", 3, "read")}),
             json::parse(R"([{"name": "o", "dtype": "bfloat16", "rank": 3,
                      "like": "y"}])"),
             json::parse(R"({"param": "y", "dim": 1})"), 1);
  try {
    bindReference(comm, p);
  } catch (const Error &e) {
    why = e.what();
  }
  CHECK(why.find("'pad' is a signal_pad: a reference binds stacked inputs, "
                 "stacked outputs and scalars only") != std::string::npos);
  CHECK(why.find("input 'y': kernel fused_ar_rmsnorm has no input of that "
                 "name") != std::string::npos);
  CHECK(why.find("output 'o'") != std::string::npos); // two outputs: names
}

TEST_CASE("output checks: the tolerance model, unwritten outputs",
          "[harness]") {
  KernelPlan p =
      planKernel(fusedMd(), 2,
                 spec({"x=1x64", "residual=1x64", "weight=64"}, {"eps=1e-6"}));
  int out = p.find("out");
  std::vector<uint16_t> got(64);
  std::vector<double> want(64);
  for (int k = 0; k < 64; ++k) {
    want[k] = std::sin(k) * 4;
    got[k] = floatToBf16(static_cast<float>(want[k]));
  }
  OutputVerdict v = checkOutput(p, out, 1, got.data(), &want, "reference r");
  CHECK(v.ok);
  CHECK(v.line.find("rank 1: output 'out' (bfloat16[1x64]): ") == 0);
  CHECK(v.line.find("(tolerance 6.8e-03)") != std::string::npos);
  got[63] = floatToBf16(static_cast<float>(want[63] + 1));
  v = checkOutput(p, out, 1, got.data(), &want, "reference r");
  CHECK_FALSE(v.ok);
  CHECK(v.line.find("1 beyond their own bound; worst element 63") !=
        std::string::npos);
  CHECK(v.line.substr(v.line.size() - 6) == "FAILED");
  // No reference: poison (0xffff: NaN) left behind fails.
  v = checkOutput(p, out, 0, got.data(), nullptr, "");
  CHECK(v.ok);
  got[7] = 0xffff;
  v = checkOutput(p, out, 0, got.data(), nullptr, "");
  CHECK_FALSE(v.ok);
  CHECK(v.line == "rank 0: output 'out' (bfloat16[1x64]): 1 element(s) NaN "
                  "or never written, first 7: FAILED");
}

TEST_CASE("seeded inputs differ per rank and per input, and repeat",
          "[harness]") {
  KernelPlan p = planKernel(
      fusedMd(), 2,
      spec({"x=2x100", "residual=2x100", "weight=100"}, {"eps=1e-6"}));
  int x = p.find("x"), r = p.find("residual");
  CHECK(hostInput(p, x, 0, 1) == hostInput(p, x, 0, 1));
  CHECK(hostInput(p, x, 0, 1) != hostInput(p, x, 1, 1));
  CHECK(hostInput(p, x, 0, 1) != hostInput(p, r, 0, 1));
  CHECK(hostInput(p, x, 0, 1) != hostInput(p, x, 0, 2));
  std::vector<char> h = hostInput(p, x, 1, 3);
  REQUIRE(h.size() == 400);
  for (int k = 0; k < 200; ++k) {
    double v = loadAny(h.data(), k, DType::BFloat16);
    CHECK(std::fabs(v) <= 27.1);
  }
  CHECK(seededElement(1, 0, 5, DType::Int32) < 8);
  CHECK(seededElement(1, 0, 5, DType::Bool) <= 1);
}
