//===- Dump.cpp - Inputs and outputs of a simulation, for the GPU --------===//

#include "compiler/Simulator/Dump.h"

#include "compiler/Simulator/NpyFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + std::string(path) + "': " + ec.message();
    return false;
  }
  os << bytes;
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + std::string(path) + "'";
    os.clear_error();
    return false;
  }
  return true;
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
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("format", "dslc-simulation");
    j.attribute("version", int64_t(2));
    j.attribute("kernel", kernel);
    j.attribute("seed", int64_t(seed));
    j.attribute("world_size", int64_t(worldSize));
    j.attribute("launches", calls);
    j.attribute("reference", reference);
    j.attribute("files",
                "r<RANK>.c<LAUNCH>.<NAME>.npy (inputs), "
                "r<RANK>.c<LAUNCH>.<NAME>.out.npy (outputs): numpy .npy "
                "files; bfloat16 and float8 elements are raw bits ('<u2', "
                "'|u1': torch.from_numpy(a).view(torch.bfloat16))");
    j.attributeArray("params", [&] {
      for (const ArgBinding &a : binding.args)
        j.object([&] {
          j.attribute("name", a.name);
          if (a.kind != ArgBinding::Kind::Tensor) {
            j.attribute("kind", "scalar");
            if (a.kind == ArgBinding::Kind::IntScalar)
              j.attribute("value", a.intValue);
            else
              j.attribute("value", a.floatValue);
            return;
          }
          j.attribute("kind", "tensor");
          j.attribute("role", roleName(a.role));
          j.attribute("dtype", a.type.name());
          j.attributeArray("sizes", [&] {
            for (int64_t s : a.sizes)
              j.value(s);
          });
          if (!a.tableOf.empty())
            j.attribute("table_of", a.tableOf);
        });
    });
  });
  os << "\n";
  return writeFile("manifest.json", text, error);
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
        if (!writeFile("r" + std::to_string(r) + ".c" + std::to_string(c) +
                           "." + a.name + ".npy",
                       npyFile(a.type, a.sizes, d.f, d.i), error))
          return false;
      }
  return true;
}

bool Dumper::writeOutput(const Buffer &buffer, int64_t call,
                         std::string &error) {
  return writeFile("r" + std::to_string(buffer.rank) + ".c" +
                       std::to_string(call) + "." + buffer.name + ".out.npy",
                   npyFile(buffer.type, buffer.sizes, buffer.f, buffer.i),
                   error);
}
