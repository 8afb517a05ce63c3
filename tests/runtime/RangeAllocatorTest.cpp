//===- RangeAllocatorTest.cpp - Symmetric offset allocation ---------------===//
#include "runtime/RangeAllocator.h"

#include <catch2/catch.hpp>

using namespace dslc::rt;

TEST_CASE("range allocator: alignment, bounds, reuse", "[alloc]") {
  RangeAllocator a(4096);
  auto x = a.allocate(10, 16);
  REQUIRE(x);
  CHECK(*x == 0);
  auto y = a.allocate(100, 256);
  REQUIRE(y);
  CHECK(*y == 256);
  CHECK(a.blockSize(*y) == 100);
  CHECK_FALSE(a.allocate(4096, 16)); // does not fit any more
  CHECK_FALSE(a.allocate(0, 16));
  CHECK_FALSE(a.allocate(16, 3)); // not a power of two
  CHECK(a.release(*y));
  CHECK_FALSE(a.release(*y)); // double free detected
  CHECK(a.release(*x));
  CHECK(a.used() == 0);
  CHECK(a.largestFree() == 4096);
  auto z = a.allocate(4096, 4096);
  REQUIRE(z);
  CHECK(*z == 0);
}

TEST_CASE("range allocator is deterministic", "[alloc]") {
  RangeAllocator a(1 << 20), b(1 << 20);
  for (int i = 1; i < 50; ++i) {
    auto x = a.allocate(i * 37, 16 << (i % 4));
    auto y = b.allocate(i * 37, 16 << (i % 4));
    REQUIRE(x);
    REQUIRE(y);
    CHECK(*x == *y);
    CHECK(*x % (16 << (i % 4)) == 0);
    if (i % 3 == 0) {
      a.release(*x);
      b.release(*y);
    }
  }
  CHECK(a.used() == b.used());
}
