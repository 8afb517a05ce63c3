//===- SizesTest.cpp - One spelling of sizes for every tool ---------------===//
#include "tooling/support/Sizes.h"

#include <catch2/catch.hpp>

using namespace dslc::tooling;

TEST_CASE("sizes take K, M and G", "[sizes]") {
  CHECK(*parseSize("0") == 0);
  CHECK(*parseSize("8191") == 8191);
  CHECK(*parseSize("1K") == 1024);
  CHECK(*parseSize("4m") == 4 << 20);
  CHECK(*parseSize("2G") == int64_t(2) << 30);
  for (const char *bad : {"", "K", "-1", "1.5K", "1KB", " 1", "0x10", "1e3"})
    CHECK_FALSE(parseSize(bad));
  CHECK(parseSize("1KB").error() ==
        "bad size '1KB': a size is digits with an optional K, M or G "
        "(1024, 8K, 4M)");
  CHECK(parseSize("99999999999999999999").error().find("too large") !=
        std::string::npos);
  CHECK(parseSize("8589934592G").error().find("too large") !=
        std::string::npos);
}

TEST_CASE("size lists and ranges", "[sizes]") {
  CHECK(*parseSizeList("1,8193,1M") == std::vector<int64_t>{1, 8193, 1 << 20});
  CHECK(*parseSizeList("1K..8K") ==
        std::vector<int64_t>{1024, 2048, 4096, 8192});
  CHECK(*parseSizeList("7,1K..2K,") == std::vector<int64_t>{7, 1024, 2048});
  CHECK(parseSizeList("0").error() == "size 0 in '0' is below 1");
  CHECK(parseSizeList("8K..1K").error() == "range '8K..1K' ends below its "
                                           "start");
  CHECK(parseSizeList(",").error() == "no sizes in ','");
  CHECK(formatSize(1024) == "1K");
  CHECK(formatSize(65536) == "64K");
  CHECK(formatSize(1 << 20) == "1M");
  CHECK(formatSize(1000) == "1000");
}

TEST_CASE("shapes and named values", "[sizes]") {
  CHECK(*parseShape("4x8192") == std::vector<int64_t>{4, 8192});
  CHECK(*parseShape("8K") == std::vector<int64_t>{8192});
  CHECK(*parseShape("1x2x3") == std::vector<int64_t>{1, 2, 3});
  CHECK_FALSE(parseShape("4x"));
  CHECK_FALSE(parseShape("x4"));
  CHECK(parseShape("4*8").error() ==
        "bad shape '4*8': each extent is a size (e.g. 4x8192, 1Kx4K)");
  CHECK(formatShape({4, 8192}) == "4x8192");
  CHECK(formatShape({}) == "scalar");
  NamedText n = *splitNamed("x=4x8192");
  CHECK(n.name == "x");
  CHECK(n.value == "4x8192");
  CHECK(splitNamed("eps=1e-6=2")->value == "1e-6=2");
  CHECK(splitNamed("=3").error() == "'=3' is not NAME=VALUE");
  CHECK_FALSE(splitNamed("x="));
  CHECK(*parseNumber("1e-6") == 1e-6);
  CHECK(*parseNumber("-3") == -3);
  CHECK(parseNumber("1e-6x").error() == "'1e-6x' is not a number");
}
