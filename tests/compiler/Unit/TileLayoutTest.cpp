//===- TileLayoutTest.cpp - How tiles are spread over threads ------------===//

#include "compiler/Conversion/TileLayout.h"

#include <catch2/catch.hpp>

using dslc::TileLayout;

TEST_CASE("a bf16 tile of 8192 over 1024 threads: one 16-byte piece each",
          "[layout]") {
  TileLayout l = TileLayout::get({8192}, 1024, 8);
  CHECK(l.vec == 8);
  CHECK(l.chunks == 1);
  CHECK(l.outer == 1);
  CHECK(l.perThread() == 8);
}

TEST_CASE("fewer threads take several pieces, ordered [o][c][v]",
          "[layout]") {
  TileLayout l = TileLayout::get({8192}, 128, 8);
  CHECK(l.chunks == 8);
  CHECK(l.perThread() == 64);
  CHECK(l.position(0, 3, 5) == 3 * 8 + 5);
}

TEST_CASE("a tile smaller than one piece per thread", "[layout]") {
  TileLayout l = TileLayout::get({2}, 128, 8);
  CHECK(l.vec == 2); // a piece never spans more than the row
  CHECK(l.chunks == 1);
  TileLayout odd = TileLayout::get({5}, 32, 8);
  CHECK(odd.vec == 8); // rounded up to a power of two, masked
  CHECK(odd.chunks == 1);
}

TEST_CASE("leading dimensions are held whole by every thread", "[layout]") {
  TileLayout l = TileLayout::get({4, 2048}, 256, 8);
  CHECK(l.outer == 4);
  CHECK(l.chunks == 1);
  CHECK(l.perThread() == 32);
  CHECK(l.position(2, 0, 1) == 2 * 8 + 1);
}

TEST_CASE("the piece count rounds up for a ragged last piece", "[layout]") {
  TileLayout l = TileLayout::get({1000}, 64, 4);
  CHECK(l.vec == 4);
  CHECK(l.chunks == 4); // 1000 / (64 * 4) = 3.9
}
