//===- Reporter.cpp - What the simulator found ---------------------------===//

#include "compiler/Simulator/Reporter.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace dslc::sim;

std::string dslc::sim::where(mlir::Location loc) {
  if (auto flc = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    return flc.getFilename().str() + ":" + std::to_string(flc.getLine()) + ":" +
           std::to_string(flc.getColumn());
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations()) {
      std::string s = where(inner);
      if (s != "<unknown>")
        return s;
    }
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return where(name.getChildLoc());
  if (auto callSite = mlir::dyn_cast<mlir::CallSiteLoc>(loc))
    return where(callSite.getCallee());
  return "<unknown>";
}

std::string dslc::sim::where(mlir::Operation *op) {
  return where(op->getLoc());
}

bool Reporter::emit(const char *severity, const std::string &key,
                    const std::string &message) {
  if (seen[key]++)
    return false;
  os << "simulate: " << severity << ": " << message << "\n";
  return true;
}

bool Reporter::error(const std::string &key, const std::string &message) {
  ++numErrors;
  return emit("error", key, message);
}

bool Reporter::warning(const std::string &key, const std::string &message) {
  ++numWarnings;
  return emit("warning", key, message);
}

void Reporter::detail(const std::string &line) { os << "  " << line << "\n"; }
