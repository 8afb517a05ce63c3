//===- Inputs.cpp - Seeded input values per launch and rank --------------===//

#include "compiler/Simulator/Inputs.h"

#include <random>

using namespace dslc::sim;

Inputs::Inputs(const Binding &binding, unsigned worldSize, int64_t calls,
               uint64_t seed)
    : worldSize(worldSize), numArgs(binding.args.size()) {
  data.resize(size_t(calls) * worldSize * numArgs);
  for (int64_t call = 0; call < calls; ++call)
    for (unsigned rank = 0; rank < worldSize; ++rank)
      for (unsigned k = 0; k < numArgs; ++k) {
        const ArgBinding &a = binding.args[k];
        if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input)
          continue;
        int64_t n = 1;
        for (int64_t s : a.sizes)
          n *= s;
        std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(call),
                          uint32_t(rank), uint32_t(k)};
        std::mt19937_64 rng(seq);
        InputData &d = data[(call * worldSize + rank) * numArgs + k];
        if (a.type.isFloat()) {
          d.f.resize(n);
          for (double &v : d.f)
            v = roundFloat(a.type.kind, double(rng() >> 11) * 0x1.0p-52 - 1.0);
        } else {
          d.i.resize(n);
          int64_t span = a.type.bits == 1 ? 2 : 201;
          int64_t base = a.type.isUnsigned ? 0 : -100;
          for (int64_t &v : d.i)
            v = wrapInt(a.type, base + int64_t(rng() % span));
        }
      }
}
