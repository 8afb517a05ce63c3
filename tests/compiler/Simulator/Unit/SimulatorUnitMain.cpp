//===- SimulatorUnitMain.cpp - Catch2 main of the simulator units --------===//
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
