//===- Expected.h - A value or the message saying why not -------*- C++ -*-===//
//
// The contract library never throws across its interface: the compiler that
// links it is built without exceptions. Readers and checks return an
// Expected<T>, which holds either the value or one message naming the file
// and the field (callers add nothing but their own context).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_EXPECTED_H
#define DSLC_CONTRACT_EXPECTED_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace dslc::contract {

/// What went wrong, to be returned as an Expected<T> of any T.
struct Failure {
  std::string message;
};

template <typename T> class Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Failure failure) : error_(std::move(failure.message)) {}

  explicit operator bool() const { return value_.has_value(); }
  T &operator*() {
    assert(value_ && "Expected holds an error");
    return *value_;
  }
  const T &operator*() const {
    assert(value_ && "Expected holds an error");
    return *value_;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  /// Empty when a value is held.
  const std::string &error() const { return error_; }

private:
  std::optional<T> value_;
  std::string error_;
};

} // namespace dslc::contract

#endif // DSLC_CONTRACT_EXPECTED_H
