//===- TestMain.cpp - Catch2 main of the tuner tests ----------------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
