//===- DriverOptionsTest.cpp - dslc's option checks, without llvm::cl -----===//
#include "compiler/Driver/DriverOptions.h"

#include <catch2/catch.hpp>

using namespace dslc;

namespace {
RawOptions compile(std::string file = "k.py") {
  RawOptions raw;
  raw.inputFiles = {std::move(file)};
  raw.emit = EmitKind::PTX;
  return raw;
}

std::string problem(const RawOptions &raw) {
  DriverOptions opts;
  std::optional<std::string> error = readDriverOptions(raw, opts);
  REQUIRE(error);
  return *error;
}
} // namespace

TEST_CASE("driver options: a compile command line", "[driver]") {
  RawOptions raw = compile();
  raw.kernel = "add";
  raw.numbers = {{"world-size", "4"}, {"rank", "3"}};
  raw.defines = {"BLOCK=128"};
  raw.signatures = {"x=bf16[2]"};
  raw.config = R"({"block_sizes": [64]})";
  raw.shapes = {"x=8x64"};
  raw.specializeShapes = true;
  DriverOptions opts;
  REQUIRE_FALSE(readDriverOptions(raw, opts));
  CHECK(opts.inputFile == "k.py");
  CHECK(opts.kernel == std::optional<std::string>("add"));
  CHECK(opts.emit == EmitKind::PTX);
  const CompileOptions &c = opts.backend.compile;
  CHECK(c.worldSize == std::optional<int64_t>(4));
  CHECK(c.rank == std::optional<int64_t>(3));
  CHECK(c.defines.at("BLOCK") == "128");
  CHECK(c.signature.at("x").dtype == "bfloat16");
  CHECK(c.signature.at("x").rank == 2u);
  CHECK(c.configJSON == R"({"block_sizes": [64]})");
  CHECK(c.shapes.at("x").sizes == std::vector<int64_t>{8, 64});
  CHECK(c.specializeShapes);
  CHECK_FALSE(opts.backend.simulation);
  // Shape-generic unless asked.
  REQUIRE_FALSE(readDriverOptions(compile(), opts));
  CHECK_FALSE(opts.backend.compile.specializeShapes);
}

TEST_CASE("driver options: every problem is one message", "[driver]") {
  CHECK(problem(RawOptions{}) == "no input file");
  RawOptions noEmit;
  noEmit.inputFiles = {"k.py"};
  CHECK(problem(noEmit) ==
        "missing --emit=KIND (ast, tile, llvm, llvmir, ptx or cubin)");
  RawOptions world = compile();
  world.numbers = {{"world-size", "0"}};
  CHECK(problem(world) == "--world-size must be between 1 and 128, got 0");
  world.numbers = {{"world-size", "-2"}};
  CHECK(problem(world) ==
        "--world-size expects a non-negative integer, got '-2'");
  RawOptions seed = compile();
  seed.numbers = {{"seed", "7"}};
  CHECK(problem(seed) == "--seed applies to --simulate only");
  RawOptions scalar = compile();
  scalar.scalars = {"eps=1e-5"};
  CHECK(problem(scalar) == "--scalar applies to --simulate only");
  RawOptions both = compile();
  both.config = "{}";
  both.configFromCache = true;
  CHECK(problem(both) ==
        "--config and --config-from-cache both give the config; use one");
  RawOptions config = compile();
  config.config = "[1]";
  CHECK(problem(config) == "--config expects a JSON object ('{...}') or @FILE");
}

TEST_CASE("driver options: --simulate", "[driver]") {
  RawOptions raw;
  raw.inputFiles = {"k.py"};
  raw.simulate = true;
  raw.numbers = {{"world-size", "2"}, {"seed", "9"}, {"ctas", "3"}};
  raw.sizes = {"4096", "x=2x8"};
  raw.scalars = {"eps=1e-5"};
  DriverOptions opts;
  REQUIRE_FALSE(readDriverOptions(raw, opts));
  CHECK(opts.emit == EmitKind::Tile);
  REQUIRE(opts.backend.simulation);
  const SimulationOptions &s = *opts.backend.simulation;
  CHECK(s.seed == 9u);
  CHECK(s.ctas == std::optional<int64_t>(3));
  CHECK(s.defaultSize == std::optional<int64_t>(4096));
  CHECK(s.sizes.at("x") == std::vector<int64_t>{2, 8});
  CHECK(s.scalars.at("eps") == 1e-5);
  CHECK(s.reference == "auto");
  // The simulated shapes are compiled in as --shape.
  CHECK(opts.backend.compile.shapes.at("x").sizes ==
        std::vector<int64_t>{2, 8});

  raw.emit = EmitKind::PTX;
  CHECK(problem(raw) == "--simulate does not take --emit (it runs the kernel "
                        "instead of writing it)");
  raw.emit.reset();
  raw.numbers = {{"world-size", "2"}, {"rank", "1"}};
  CHECK(problem(raw) == "--simulate runs every rank; drop --rank");
  raw.numbers = {{"world-size", "2"}};
  raw.reference = "all-sum";
  CHECK(problem(raw).rfind("--reference: unknown value 'all-sum'", 0) == 0);
}
