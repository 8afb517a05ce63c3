//===- PtxChecksTest.cpp - What a kernel's PTX tells before ptxas runs ----===//
#include "compiler/Target/PtxChecks.h"

#include <catch2/catch.hpp>

using namespace dslc;

namespace {
const char *kWgmma = "\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                     "{%r1}, %rd1, %rd2, p, 1, 1, 0, 1;\n";
} // namespace

TEST_CASE("wgmma: instructions ptxas assembles as calls are named",
          "[target][ptx]") {
  std::string ptx = std::string(kWgmma) + "\tdiv.u64 \t%rd9, %rd8, %rd1;\n";
  std::optional<std::string> why = wgmmaSerialization(ptx);
  REQUIRE(why);
  CHECK(*why == "a 64-bit integer division by a run-time value (`div.u64 "
                "\t%rd9, %rd8, %rd1`), which ptxas assembles as a call of a "
                "subroutine");
  CHECK_THAT(*wgmmaSerialization(std::string(kWgmma) +
                                 "  @%p3 rem.s64 %rd2, %rd3, %rd4;\n"),
             Catch::StartsWith("a 64-bit integer remainder"));
  CHECK_THAT(*wgmmaSerialization(std::string(kWgmma) +
                                 "\tdiv.rn.f32 %f1, %f2, %f3;\n"),
             Catch::StartsWith("an IEEE f32 division"));
  CHECK_THAT(*wgmmaSerialization("\tcall.uni (retval0), f, (param0);\n" +
                                 std::string(kWgmma)),
             Catch::StartsWith("a function call"));
}

TEST_CASE("wgmma: what ptxas keeps inline is no cause", "[target][ptx]") {
  // No wgmma: nothing to serialize.
  CHECK_FALSE(wgmmaSerialization("\tdiv.u64 %rd9, %rd8, %rd1;\n"));
  // 32-bit division, div.full, a label or a name that merely starts alike.
  CHECK_FALSE(wgmmaSerialization(std::string(kWgmma) +
                                 "\tdiv.u32 %r9, %r8, %r1;\n"
                                 "\tdiv.full.f32 %f1, %f2, %f3;\n"
                                 "\tdiv.approx.f32 %f1, %f2, %f3;\n"
                                 "$L__call_site:\n"
                                 "\tcallable_x: // a comment\n"));
}
