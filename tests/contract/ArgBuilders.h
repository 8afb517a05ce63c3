//===- ArgBuilders.h - Arguments for hand-made metadata ---------*- C++ -*-===//
#ifndef DSLC_TESTS_CONTRACT_ARGBUILDERS_H
#define DSLC_TESTS_CONTRACT_ARGBUILDERS_H

#include "contract/Metadata.h"

#include <string>

namespace dslc::contract::test {

inline ArgSpec tensor(std::string name, DType t, int rank, Role role,
                      Access access = Access::None) {
  ArgSpec a;
  a.name = std::move(name);
  a.dtype = t;
  a.rank = rank;
  a.role = role;
  a.access = access;
  return a;
}

inline ArgSpec scalar(std::string name, DType t) {
  ArgSpec a;
  a.name = std::move(name);
  a.kind = ArgSpec::Kind::Scalar;
  a.dtype = t;
  a.role = Role::Scalar;
  return a;
}

} // namespace dslc::contract::test

#endif // DSLC_TESTS_CONTRACT_ARGBUILDERS_H
