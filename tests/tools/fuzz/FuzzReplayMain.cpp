//===- FuzzReplayMain.cpp - Runs a fuzz target over files, without libFuzzer
//===//
//
// fuzz-*-replay PATH... runs LLVMFuzzerTestOneInput once on every file
// under the PATHs (directories recursively), in sorted order: the checked-in
// corpus as a regression test under ctest, with any compiler. A finding
// aborts (the target prints what and the file is named here first).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto &e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else if (fs::is_regular_file(argv[i], ec)) {
      files.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0],
                   argv[i]);
      return 1;
    }
  }
  std::sort(files.begin(), files.end());
  auto start = std::chrono::steady_clock::now();
  for (const fs::path &p : files) {
    std::ifstream in(p, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s\n", p.c_str()); // names the input of a finding
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%zu inputs in %.1f s, no finding\n", files.size(), s);
  return files.empty() ? 1 : 0;
}
