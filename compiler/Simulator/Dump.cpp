//===- Dump.cpp - Inputs and outputs of a simulation, for the GPU --------===//

#include "compiler/Simulator/Dump.h"

#include "contract/AtomicFile.h"
#include "contract/NpyFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace dslc;
using namespace dslc::sim;

bool Dumper::writeFile(const std::string &name, const std::string &bytes,
                       std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  contract::Expected<bool> ok =
      contract::writeFileAtomically(std::string(path), bytes);
  if (!ok)
    error = ok.error();
  return static_cast<bool>(ok);
}

namespace {

/// A .npy file of the elements (as the GPU holds them) and sizes.
std::string npyFile(const ElemType &type, const std::vector<int64_t> &sizes,
                    const std::vector<double> &f,
                    const std::vector<int64_t> &i) {
  size_t n = type.isFloat() ? f.size() : i.size();
  std::string bytes = npy::header(npy::descrOf(type.name()), sizes);
  size_t at = bytes.size();
  bytes.resize(at + n * type.byteSize(), '\0');
  for (size_t k = 0; k < n; ++k)
    encode(type, type.isFloat() ? f[k] : 0, type.isFloat() ? 0 : i[k],
           reinterpret_cast<unsigned char *>(&bytes[at + k * type.byteSize()]));
  return bytes;
}

} // namespace

bool Dumper::writeManifest(const std::string &kernel, const Binding &binding,
                           unsigned worldSize, int64_t calls, uint64_t seed,
                           const std::string &reference, std::string &error) {
  contract::DumpManifest m;
  m.kernel = kernel;
  m.seed = seed;
  m.worldSize = static_cast<int>(worldSize);
  m.launches = calls;
  m.reference = reference;
  for (const ArgBinding &a : binding.args) {
    contract::DumpParam p;
    p.name = a.name;
    if (a.kind != ArgBinding::Kind::Tensor) {
      p.role = Role::Scalar;
      p.isFloatScalar = a.kind == ArgBinding::Kind::FloatScalar;
      p.intValue = a.intValue;
      p.floatValue = a.floatValue;
    } else {
      p.role = a.role;
      p.dtypeName = a.type.name();
      p.sizes = a.sizes;
      p.tableOf = a.tableOf;
    }
    m.params.push_back(std::move(p));
  }
  return writeFile("manifest.json", contract::manifestJson(m), error);
}

bool Dumper::writeInputs(const Binding &binding, const Inputs &inputs,
                         unsigned worldSize, int64_t calls,
                         std::string &error) {
  for (int64_t c = 0; c < calls; ++c)
    for (unsigned r = 0; r < worldSize; ++r)
      for (unsigned k = 0; k < binding.args.size(); ++k) {
        const ArgBinding &a = binding.args[k];
        if (a.kind != ArgBinding::Kind::Tensor || a.role != Role::Input)
          continue;
        const InputData &d = inputs.get(c, r, k);
        if (!writeFile(contract::dumpInputFile(int(r), c, a.name),
                       npyFile(a.type, a.sizes, d.f, d.i), error))
          return false;
      }
  return true;
}

bool Dumper::writeOutput(const Buffer &buffer, int64_t call,
                         std::string &error) {
  return writeFile(
      contract::dumpOutputFile(int(buffer.rank), call, buffer.name),
      npyFile(buffer.type, buffer.sizes, buffer.f, buffer.i), error);
}
