//===- TestMain.cpp - Catch2 main of the tooling support tests ------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
