//===- Files.h - Temporary directories and whole-file writes ----*- C++ -*-===//
#ifndef DSLC_TOOLING_SUPPORT_FILES_H
#define DSLC_TOOLING_SUPPORT_FILES_H

#include "contract/Expected.h"

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

/// Writes `text` to `path` through a temporary file in the same directory
/// and a rename, so readers see the old or the new file, never a torn one.
contract::Expected<bool> writeFileAtomically(const std::string &path,
                                             const std::string &text);

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_FILES_H
