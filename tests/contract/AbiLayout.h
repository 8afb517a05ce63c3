//===- AbiLayout.h - ABI slots for test metadata ----------------*- C++ -*-===//
//
// Tests build metadata in C++ and need the slot list dslc lays out for its
// arguments (docs/kernel-abi.md, "The entry point"): per argument in order,
// a tensor's address, its sizes and (symmetric) its peer table, or a
// scalar; then the hidden slots. dslc itself derives its slots from the IR
// (compiler/Conversion/DistributeTiles.cpp); this is for test data only.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TESTS_CONTRACT_ABILAYOUT_H
#define DSLC_TESTS_CONTRACT_ABILAYOUT_H

#include "contract/Metadata.h"

#include <vector>

namespace dslc::test {

inline std::vector<contract::AbiSlot>
abiLayout(const contract::KernelMetadata &md) {
  using contract::AbiSlot;
  using contract::SlotKind;
  using contract::SlotType;
  std::vector<AbiSlot> abi;
  for (const contract::ArgSpec &a : md.args) {
    if (a.kind == contract::ArgSpec::Kind::Scalar) {
      abi.push_back({a.name, a.isIntScalar() ? SlotType::I64 : SlotType::F32,
                     SlotKind::Scalar, a.name});
      continue;
    }
    abi.push_back({a.name, SlotType::Ptr, SlotKind::Data, a.name});
    for (int d = 0; d < a.rank; ++d)
      abi.push_back({a.name + ".size" + std::to_string(d), SlotType::I64,
                     SlotKind::Size, a.name, d});
    if (a.symmetric)
      abi.push_back(
          {a.name + ".peers", SlotType::Ptr, SlotKind::Peers, a.name});
  }
  for (SlotKind h : {SlotKind::Timeout, SlotKind::Error, SlotKind::State})
    abi.push_back(
        {contract::hiddenSlotName(h), contract::hiddenSlotType(h), h});
  return abi;
}

} // namespace dslc::test

#endif // DSLC_TESTS_CONTRACT_ABILAYOUT_H
