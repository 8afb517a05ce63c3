//===- Files.cpp - Temporary directories and whole-file writes ------------===//
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

contract::Expected<bool> writeFileAtomically(const std::string &path,
                                             const std::string &text) {
  std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out)
      return contract::Failure{fmt::format("cannot write {}", tmp)};
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return contract::Failure{
        fmt::format("cannot write {}: {}", path, ec.message())};
  }
  return true;
}

} // namespace dslc::tooling
