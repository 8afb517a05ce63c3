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

TEST_CASE("a last dimension of 1 or rank 0 is replicated in every thread",
          "[layout]") {
  TileLayout col = TileLayout::get({4, 1}, 256, 8);
  CHECK(col.replicated);
  CHECK(col.outer == 4);
  CHECK(col.vec == 1);
  CHECK(col.chunks == 1);
  CHECK(col.perThread() == 4); // every thread holds all 4 rows
  CHECK(col.position(3, 0, 0) == 3);
  CHECK(col.innerIndex(0, 200, 0) == 0); // the same element in every thread
  TileLayout scalar = TileLayout::get({}, 1024, 8);
  CHECK(scalar.replicated);
  CHECK(scalar.perThread() == 1);
  TileLayout row = TileLayout::get({1, 8192}, 1024, 8);
  CHECK_FALSE(row.replicated); // a leading unit dimension is not
  CHECK(row.perThread() == 8);
}

TEST_CASE("the index along the last dimension of each held element",
          "[layout]") {
  TileLayout l = TileLayout::get({4, 8192}, 256, 8);
  CHECK_FALSE(l.replicated);
  CHECK(l.chunks == 4);
  // Thread 3 holds pieces 3, 259, 515, 771: elements 24..31, 2072.., ...
  CHECK(l.innerIndex(0, 3, 0) == 24);
  CHECK(l.innerIndex(1, 3, 7) == (256 + 3) * 8 + 7);
  // fp8 as the narrowest type: 16-element pieces.
  TileLayout fp8 = TileLayout::get({2048}, 128, 16);
  CHECK(fp8.vec == 16);
  CHECK(fp8.chunks == 1);
  CHECK(fp8.innerIndex(0, 127, 15) == 2047);
}
