//===- Files.cpp - Temporary directories ----------------------------------===//
#include "tooling/support/Files.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace dslc::tooling {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string &prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec)
    base = "/tmp";
  std::string tmpl = (base / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    error_ = fmt::format("cannot create a temporary directory {}: {}", tmpl,
                         std::strerror(errno));
    return;
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (path_.empty() || keep_)
    return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

} // namespace dslc::tooling
