//===- CliTest.cpp - Command lines on CLI11 -------------------------------===//
#include "tooling/support/Cli.h"

#include <catch2/catch.hpp>

using namespace dslc::tooling;

namespace {
struct Parsed {
  std::optional<int> status;
  int64_t size = -1;
  int iters = 10;
  std::vector<int64_t> sizes;
  std::vector<std::string> extra;
  std::string mode = "graph";
  double budget = 30;
};

Parsed parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app("test tool", "tool");
  addSize(app, "--size", p.size, "a size");
  addCount(app, "--iters", p.iters, "calls", 1);
  addSizeList(app, "--sizes", p.sizes, "sizes");
  app.add_option("--dslc-arg", p.extra, "passed on");
  addChoice(app, "--objective", p.mode, {"graph", "eager"}, "objective");
  addNumber(app, "--budget-s", p.budget, "seconds");
  args.insert(args.begin(), "tool");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  p.status = parseCommandLine(app, static_cast<int>(argv.size()), argv.data(),
                              {"--dslc-arg"});
  return p;
}
} // namespace

TEST_CASE("options parse sizes, counts, lists and choices", "[cli]") {
  Parsed p = parse({"--size", "4K", "--iters", "1K", "--sizes", "1,2K..8K",
                    "--objective", "eager", "--budget-s", "2.5"});
  CHECK_FALSE(p.status);
  CHECK(p.size == 4096);
  CHECK(p.iters == 1024);
  CHECK(p.sizes == std::vector<int64_t>{1, 2048, 4096, 8192});
  CHECK(p.mode == "eager");
  CHECK(p.budget == 2.5);
}

TEST_CASE("a value option takes an argument that starts with '-'", "[cli]") {
  Parsed p = parse({"--dslc-arg", "--multicast=nvls", "--dslc-arg", "-v",
                    "--dslc-arg=--arch=sm_90a", "--size", "1"});
  CHECK_FALSE(p.status);
  CHECK(p.extra ==
        std::vector<std::string>{"--multicast=nvls", "-v", "--arch=sm_90a"});
  CHECK(p.size == 1);
}

TEST_CASE("help exits 0; usage errors exit 2", "[cli]") {
  CHECK(parse({"--help"}).status == 0);
  CHECK(parse({"-h"}).status == 0);
  CHECK(parse({"--size", "1KB"}).status == kUsageError);
  CHECK(parse({"--iters", "0"}).status == kUsageError);
  CHECK(parse({"--iters", "4G"}).status == kUsageError);
  CHECK(parse({"--sizes", "0"}).status == kUsageError);
  CHECK(parse({"--objective", "fastest"}).status == kUsageError);
  CHECK(parse({"--budget-s", "soon"}).status == kUsageError);
  CHECK(parse({"--no-such-option"}).status == kUsageError);
  CHECK(parse({"--size"}).status == kUsageError);
}
