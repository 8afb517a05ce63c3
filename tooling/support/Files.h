//===- Files.h - Temporary directories --------------------------*- C++ -*-===//
//
// Whole-file writes: contract/AtomicFile.h.
#ifndef DSLC_TOOLING_SUPPORT_FILES_H
#define DSLC_TOOLING_SUPPORT_FILES_H

#include <string>

namespace dslc::tooling {

/// A fresh directory under $TMPDIR (else /tmp), removed with its contents
/// when the object goes (unless kept).
class TempDir {
public:
  /// Fails (path() empty, error() set) when none can be made.
  explicit TempDir(const std::string &prefix);
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  const std::string &error() const { return error_; }
  void keep() { keep_ = true; }

private:
  std::string path_, error_;
  bool keep_ = false;
};

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_FILES_H
