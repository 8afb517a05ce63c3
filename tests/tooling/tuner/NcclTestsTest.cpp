//===- NcclTestsTest.cpp - nccl-tests conventions of tuner bench (no GPU) -===//
#include "tooling/tuner/NcclTests.h"
#include "tooling/tuner/Report.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace dslc::tune;

TEST_CASE("bus bandwidth factors as nccl-tests defines them", "[tuner]") {
  CHECK(*busFactor("all_reduce", 2) == Approx(1.0));
  CHECK(*busFactor("all_reduce", 8) == Approx(1.75)); // 2 * 7 / 8
  CHECK(*busFactor("reduce_scatter", 8) == Approx(0.875));
  CHECK(*busFactor("all_gather", 4) == Approx(0.75));
  CHECK(*busFactor("all_reduce", 1) == 0.0);
  auto bad = busFactor("broadcast", 2);
  REQUIRE(!bad);
  CHECK(bad.error().find("'broadcast'") != std::string::npos);
  CHECK(!busFactor("all_reduce", 0));
  // The CSV's busbw column uses the same factor.
  CHECK(busBandwidthGBs("reduce_scatter", 1 << 20, 2, 8, 10.0) ==
        Approx(209.7152 * 0.875));
  CHECK(busBandwidthGBs("broadcast", 1 << 20, 2, 8, 10.0) == 0.0);
}

TEST_CASE("the byte sweep of -b -e -f", "[tuner]") {
  auto s = byteSweep(8, 128, 2);
  REQUIRE(s);
  CHECK(*s == std::vector<int64_t>{8, 16, 32, 64, 128});
  // MAX not on the grid: the last size is below it.
  s = byteSweep(1024, 100000, 4);
  REQUIRE(s);
  CHECK(*s == std::vector<int64_t>{1024, 4096, 16384, 65536});
  s = byteSweep(1 << 20, 1 << 20, 2);
  REQUIRE(s);
  CHECK(*s == std::vector<int64_t>{1 << 20});
  // No overflow near the top of int64.
  s = byteSweep(int64_t(1) << 61, int64_t(1) << 62, 2);
  REQUIRE(s);
  CHECK(s->size() == 2);

  auto e = byteSweep(1024, 512, 2);
  REQUIRE(!e);
  CHECK(e.error() == "-e/--maxbytes 512 is below -b/--minbytes 1K");
  e = byteSweep(1024, 4096, 1);
  REQUIRE(!e);
  CHECK(e.error().find("-f/--stepfactor 1") == 0);
  e = byteSweep(0, 4096, 2);
  REQUIRE(!e);
  CHECK(e.error().find("-b/--minbytes 0") == 0);
}

TEST_CASE("element counts of a size in bytes", "[tuner]") {
  CHECK(*elementsForBytes("all_reduce", 1024, 2, 2) == 512);
  CHECK(*elementsForBytes("all_reduce", 1025, 2, 8) == 512); // rounds down
  CHECK(*elementsForBytes("all_gather", 100, 4, 8) == 24);   // 25 -> 24
  CHECK(*elementsForBytes("reduce_scatter", 1 << 20, 2, 8) == 1 << 19);
  auto e = elementsForBytes("all_gather", 8, 2, 8);
  REQUIRE(!e);
  CHECK(e.error().find("at least 16 B at world 8") != std::string::npos);
  CHECK(!elementsForBytes("all_reduce", 1, 2, 2));
}

TEST_CASE("the nccl-tests table", "[tuner]") {
  CHECK(ncclTestsTypeName("bfloat16") == "bfloat16");
  CHECK(ncclTestsTypeName("float16") == "half");
  CHECK(ncclTestsTypeName("float32") == "float");
  CHECK(ncclTestsRedop("all_gather") == "none");
  CHECK(ncclTestsRedop("all_reduce") == "sum");
  CHECK(ncclTestsCount("all_reduce", 4096, 8) == 4096);
  CHECK(ncclTestsCount("all_gather", 4096, 8) == 512); // per rank

  NcclTestsRow a;
  a.n = 1 << 20; // 2 MiB of bf16
  a.outOfPlace = {true, 10.0, 0};
  a.inPlace = {true, 20.0, 0};
  NcclTestsRow b;
  b.n = 1 << 10;
  b.outOfPlace = {true, 150.5, 3}; // wrong: not in the average
  b.inPlace = {false, 0, 0};       // N/A
  std::string t = ncclTestsTable("nccl, CUDA graphs", "all_reduce", "bfloat16",
                                 2, 2, {a, b});
  INFO(t);
  std::istringstream in(t);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == "# nccl, CUDA graphs");
  CHECK(lines[1].find("out-of-place") != std::string::npos);
  CHECK(lines[1].find("in-place") > lines[1].find("out-of-place"));
  for (const char *col :
       {"size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong"})
    CHECK(lines[2].find(col) != std::string::npos);
  CHECK(lines[3].find("(B)") != std::string::npos);
  CHECK(lines[3].find("(elements)") != std::string::npos);
  CHECK(lines[3].find("(GB/s)") != std::string::npos);
  // 2097152 B, 1048576 elements, 10 us: algbw 209.72, busbw x1 at world 2.
  CHECK(lines[4] == "     2097152       1048576  bfloat16     sum    10.00  "
                    "209.72  209.72       0    20.00  104.86  104.86       0");
  // Times >= 100 us with one decimal; unsupported sides N/A.
  CHECK(lines[5].find("  150.5  ") != std::string::npos);
  CHECK(lines[5].find("      3") != std::string::npos);
  CHECK(lines[5].find("N/A") != std::string::npos);
  CHECK(lines[6] == "# Out of bounds values : 3 FAILED");
  // The mean of the right, measured sides: (209.72 + 104.86) / 2.
  CHECK(lines[7] == "# Avg bus bandwidth    : 157.2864 ");
  CHECK(averageBusBandwidth("all_reduce", 2, 2, {a, b}) == Approx(157.2864));

  a.outOfPlace.wrong = 0;
  b.outOfPlace.wrong = 0;
  CHECK(ncclTestsTable("t", "all_reduce", "bfloat16", 2, 2, {a, b})
            .find("# Out of bounds values : 0 OK") != std::string::npos);
}

TEST_CASE("which NCCL kernel ran, from NCCL's TUNING lines", "[tuner]") {
  auto c = parseNcclTuningLine(
      "host:123:456 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL "
      "channel{Lo..Hi}={0..1}");
  REQUIRE(c);
  CHECK(c->func == "AllReduce");
  CHECK(c->bytes == 2048);
  CHECK(c->kernel == "RING/LL");
  CHECK(c->channels == 2);
  c = parseNcclTuningLine("host:1:2 [0] NCCL INFO AllGather [Symmetric]: 8198 "
                          "Bytes -> Kernel AllGather_ST nchannels 16 nthreads "
                          "512 nWorks 16");
  REQUIRE(c);
  CHECK(c->func == "AllGather");
  CHECK(c->bytes == 8198);
  CHECK(c->kernel == "symk AllGather_ST");
  CHECK(c->channels == 16);
  CHECK(!parseNcclTuningLine("host:1:2 [0] NCCL INFO Comm config Blocking"));
  CHECK(!parseNcclTuningLine(""));

  std::vector<std::string> log = {
      "h:1:1 [0] NCCL INFO AllReduce [Symmetric]: 2048 Bytes -> Kernel "
      "AllReduce_AGxLL_R nchannels 2 nthreads 512",
      "h:1:1 [0] NCCL INFO AllReduce [Symmetric]: 2048 Bytes -> Kernel "
      "AllReduce_AGxLL_R nchannels 2 nthreads 512",
      "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo RING proto LL "
      "channel{Lo..Hi}={0..0}",
      "h:1:1 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL "
      "channel{Lo..Hi}={0..3}"};
  CHECK(ncclKernelsFor(log, "AllReduce", 2048) ==
        "symk AllReduce_AGxLL_R ch 2; RING/LL ch 4");
  CHECK(ncclKernelsFor(log, "AllReduce", 4096) == "RING/LL ch 1");
  CHECK(ncclKernelsFor(log, "AllGather", 2048).empty());
  CHECK(ncclFuncName("reduce_scatter") == "ReduceScatter");
}

namespace {
BenchRow row(int64_t n, const std::string &impl, double us, int procs,
             const std::string &config = "", bool inPlace = false) {
  BenchRow r;
  r.n = n;
  r.impl = impl;
  r.mode = "graph";
  r.us = us;
  r.procs = procs;
  r.config = config;
  r.inPlace = inPlace;
  return r;
}
} // namespace

TEST_CASE("NCCL columns, process models and the headline", "[tuner]") {
  std::vector<BenchRow> rows = {
      row(1024, "nccl", 6.0, 1, "RING/LL ch 2"),
      row(1024, "nccl_win", 4.5, 1, "symk AllReduce_AGxLL_R ch 2"),
      row(1024, "nccl", 5.5, 1, "", /*inPlace=*/true),
      row(1024, "ll", 2.5, 1),
      row(1024, "pick", 2.6, 1),
      row(1024, "nccl", 7.0, 2, "RING/LL ch 2"),
      row(1024, "nccl_win", 5.0, 2, "symk AllReduce_AGxLL_R ch 2"),
      row(1024, "pick", 3.0, 2)};
  // The CSV keeps the process model and the in-place flag.
  std::string csv = csvHeader() + "\n";
  for (const BenchRow &r : rows)
    csv += csvLine(r) + "\n";
  std::vector<BenchRow> back = parseCsv(csv);
  REQUIRE(back.size() == rows.size());
  CHECK(back[2].inPlace);
  CHECK(back[5].procs == 2);
  CHECK(back[1].config == "symk AllReduce_AGxLL_R ch 2");
  CHECK(back[5].label() == "nccl (2 procs)");
  CHECK(back[2].label() == "nccl in-place");

  std::string t = benchTable(back, "graph");
  INFO(t);
  // NCCL's columns first; in-place rows stay out of this table.
  CHECK(t.find("nccl us | nccl_win us | nccl (2 procs) us") !=
        std::string::npos);
  CHECK(t.find("in-place") == std::string::npos);
  // speedup: the fastest NCCL column (4.5) over the pick (2.6).
  CHECK(t.find("1.73x") != std::string::npos);

  std::string h = headlineTable(back);
  INFO(h);
  // The per-GPU pick (3.0) against the fastest NCCL of any model (4.5).
  CHECK(h.find("1K   | bfloat16 |    3.00 |            4.50 |    nccl_win | "
               "symk AllReduce_AGxLL_R ch 2 |       1.50x") !=
        std::string::npos);
  // Without per-GPU rows there is no headline.
  back.resize(5);
  CHECK(headlineTable(back).empty());
}
