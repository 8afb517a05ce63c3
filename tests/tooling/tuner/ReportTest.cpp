//===- ReportTest.cpp - Sizes, bandwidth, CSV and tables (no GPU) ---------===//
#include "tooling/tuner/Report.h"

#include <catch2/catch.hpp>

using namespace dslc::tune;

TEST_CASE("bus bandwidth as nccl-tests counts it", "[tuner]") {
  // 1M bf16 in 10 us: 2 MiB / 10 us = 209.7 GB/s algbw; x 2(W-1)/W = 1 at W=2.
  CHECK(busBandwidthGBs("all_reduce", 1 << 20, 2, 2, 10.0) == Approx(209.7152));
  CHECK(busBandwidthGBs("all_gather", 1 << 20, 2, 2, 10.0) == Approx(104.8576));
  CHECK(busBandwidthGBs("all_reduce", 1 << 20, 2, 4, 10.0) ==
        Approx(209.7152 * 1.5));
  CHECK(busBandwidthGBs("all_reduce", 1, 2, 2, 0.0) == 0.0);
}

TEST_CASE("CSV round trip and the table", "[tuner]") {
  std::vector<BenchRow> rows;
  auto add = [&](int64_t n, const std::string &impl, const std::string &mode,
                 double us, bool ok = true) {
    BenchRow r;
    r.n = n;
    r.impl = impl;
    r.mode = mode;
    r.us = us;
    r.ok = ok;
    r.config = impl == "nccl" ? "" : "bs=1024 w=4, ctas=8";
    rows.push_back(r);
  };
  add(1024, "nccl", "graph", 6.5);
  add(1024, "ll", "graph", 2.5);
  add(1024, "pick", "graph", 2.6);
  add(1 << 20, "nccl", "graph", 26.8);
  add(1 << 20, "ll", "graph", 0, false);
  add(1 << 20, "pick", "graph", 14.6);
  add(1024, "nccl", "eager", 9);
  std::string csv = csvHeader() + "\n";
  for (auto &r : rows)
    csv += csvLine(r) + "\n";
  auto back = parseCsv(csv);
  REQUIRE(back.size() == rows.size());
  CHECK(back[1].config == "bs=1024 w=4, ctas=8"); // quoted comma survives
  CHECK(back[4].ok == false);
  CHECK(back[0].us == Approx(6.5));

  std::string t = benchTable(back, "graph");
  INFO(t);
  CHECK(t.find("size") == 0);
  CHECK(t.find("nccl us") != std::string::npos);
  CHECK(t.find("2.50x") != std::string::npos); // 6.5 / 2.6, pick vs nccl
  CHECK(t.find("1.84x") != std::string::npos); // 26.8 / 14.6
  CHECK(t.find("FAIL") != std::string::npos);
  CHECK(t.find("| ll") != std::string::npos); // best at 1K
}

TEST_CASE("progress bar line", "[tuner]") {
  std::string b = Progress::bar(3, 12, 4.2, "tune 1K", "ll bs=1024", 12);
  CHECK(b == "tune 1K [###.........] 3/12 4s ll bs=1024");
}
