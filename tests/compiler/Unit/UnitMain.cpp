//===- UnitMain.cpp - Catch2 main of the compiler unit tests -------------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
