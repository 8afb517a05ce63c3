//===- GpuArch.cpp - The GPU architectures dslc compiles for --------------===//

#include "compiler/Target/GpuArch.h"

using namespace dslc;

namespace {

// Each PTX version is max(8.4, the first version with the target): sm_88
// and the sm_110 family need 9.0, sm_100/sm_100a 8.6, sm_120/sm_120a 8.7,
// the 'f' families and sm_103/sm_121 8.8. sm_101 is not here: CUDA 13's
// ptxas renamed it sm_110. tests/compiler/Target/arch.test assembles an
// example for every entry with ptxas.
constexpr GpuArch kGpuArchs[] = {
    {"sm_75", 75, 84},    {"sm_80", 80, 84},    {"sm_86", 86, 84},
    {"sm_87", 87, 84},    {"sm_88", 88, 90},    {"sm_89", 89, 84},
    {"sm_90", 90, 84},    {"sm_90a", 90, 84},   {"sm_100", 100, 86},
    {"sm_100a", 100, 86}, {"sm_100f", 100, 88}, {"sm_103", 103, 88},
    {"sm_103a", 103, 88}, {"sm_103f", 103, 88}, {"sm_110", 110, 90},
    {"sm_110a", 110, 90}, {"sm_110f", 110, 90}, {"sm_120", 120, 87},
    {"sm_120a", 120, 87}, {"sm_120f", 120, 88}, {"sm_121", 121, 88},
    {"sm_121a", 121, 88}, {"sm_121f", 121, 88},
};

} // namespace

std::string GpuArch::getPtxFeature() const {
  return "+ptx" + std::to_string(ptxVersion);
}

std::string GpuArch::getPtxVersionString() const {
  return std::to_string(ptxVersion / 10) + "." +
         std::to_string(ptxVersion % 10);
}

const GpuArch *dslc::lookupGpuArch(std::string_view name) {
  for (const GpuArch &arch : kGpuArchs)
    if (name == arch.name)
      return &arch;
  return nullptr;
}

const GpuArch &dslc::getDefaultGpuArch() { return *lookupGpuArch("sm_90"); }

std::string dslc::getGpuArchNames() {
  std::string names;
  for (const GpuArch &arch : kGpuArchs) {
    if (!names.empty())
      names += ", ";
    names += arch.name;
  }
  return names;
}
