//===- Dslc.cpp - Running the compiler from the tools ---------------------===//
#include "tooling/support/Dslc.h"

#include <filesystem>
#include <system_error>

namespace dslc::tooling {

namespace fs = std::filesystem;

std::vector<std::string> DslcCompile::argv() const {
  std::vector<std::string> a = {dslc, file};
  if (!kernel.empty()) {
    a.push_back("-k");
    a.push_back(kernel);
  }
  for (const auto &[name, value] : defines) {
    a.push_back("-D");
    a.push_back(name + "=" + value);
  }
  if (rank) {
    a.push_back("--rank");
    a.push_back(std::to_string(*rank));
  }
  if (worldSize) {
    a.push_back("--world-size");
    a.push_back(std::to_string(*worldSize));
  }
  a.push_back("--emit=cubin");
  a.push_back("-o");
  a.push_back(out);
  if (!config.empty()) {
    a.push_back("--config");
    a.push_back(config);
  }
  if (!signature.empty()) {
    a.push_back("--signature");
    a.push_back(signature);
  }
  a.insert(a.end(), extraArgs.begin(), extraArgs.end());
  return a;
}

ProcessResult runDslc(const DslcCompile &c, double timeoutS) {
  ProcessOptions o;
  o.timeoutS = timeoutS;
  o.maxOutputBytes = 64 << 10;
  return runProcess(c.argv(), o);
}

std::string findDslc(const std::string &given) {
  if (!given.empty())
    return given;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path p = self.parent_path() / "dslc";
    if (fs::exists(p, ec))
      return p.string();
  }
  return "dslc";
}

std::optional<KernelRef> parseKernelRef(const std::string &text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon < 4 || colon + 1 == text.size() ||
      text.compare(colon - 3, 3, ".py") != 0)
    return std::nullopt;
  return KernelRef{text.substr(0, colon), text.substr(colon + 1)};
}

} // namespace dslc::tooling
