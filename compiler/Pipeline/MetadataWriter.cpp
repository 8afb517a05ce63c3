//===- MetadataWriter.cpp - Kernel metadata as JSON ----------------------===//

#include "compiler/Pipeline/MetadataWriter.h"

#include "llvm/Support/JSON.h"

using namespace dslc;

void dslc::writeMetadata(llvm::raw_ostream &os, const KernelDescription &desc,
                         const BuildFacts &facts) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("format", "dslc-kernel");
    j.attribute("version", 1);
    j.attribute("kernel", desc.kernel);
    j.attribute("entry", desc.kernel);
    j.attributeObject("source", [&] {
      j.attribute("file", desc.sourceFile);
      j.attribute("line", desc.sourceLine);
      j.attribute("sha256", facts.sourceSha256);
    });
    j.attribute("arch", facts.arch);
    j.attribute("num_warps", desc.numWarps);
    j.attribute("threads_per_cta", desc.numWarps * 32);
    j.attribute("shared_bytes", facts.sharedBytes);
    j.attribute("spins", desc.spins);
    j.attribute("state_bytes", desc.stateBytes);
    j.attribute("multicast", facts.multicast);
    if (facts.defaultTimeoutMs)
      j.attribute("default_timeout_ms", int64_t(*facts.defaultTimeoutMs));
    if (desc.worldSize)
      j.attribute("world_size", *desc.worldSize);
    if (desc.rank)
      j.attribute("rank", *desc.rank);
    j.attributeObject("constants", [&] {
      for (auto &[name, literal] : desc.constants) {
        auto parsed = llvm::json::parse(literal);
        if (parsed)
          j.attribute(name, std::move(*parsed));
        else {
          llvm::consumeError(parsed.takeError());
          j.attribute(name, literal);
        }
      }
    });
    j.attributeArray("tunables", [&] {
      for (const Tunable &t : desc.tunables)
        j.object([&] {
          j.attribute("name", t.name);
          j.attribute("value", t.value);
        });
    });
    j.attributeObject("grid", [&] {
      if (desc.maxCtas)
        j.attribute("max_ctas", *desc.maxCtas);
      j.attributeArray("tiles", [&] {
        for (const GridExtent &g : desc.grid)
          j.object([&] {
            j.attributeObject("extent", [&] {
              if (g.param) {
                j.attribute("param", *g.param);
                j.attribute("dim", g.dim);
              } else if (g.scalar) {
                j.attribute("scalar", *g.scalar);
              } else {
                j.attribute("const", g.constant.value_or(1));
              }
              if (!g.constant && g.add != 0)
                j.attribute("add", g.add);
              if (!g.constant && g.div != 1)
                j.attribute("div", g.div);
            });
            j.attribute("block", g.block);
          });
      });
    });
    j.attributeArray("params", [&] {
      for (const ParamDescription &p : desc.params)
        j.object([&] {
          j.attribute("name", p.name);
          switch (p.kind) {
          case ParamDescription::Kind::Tensor:
            j.attribute("kind", "tensor");
            j.attribute("dtype", p.dtype);
            j.attribute("rank", p.rank);
            if (p.symmetric)
              j.attribute("symmetric", true);
            if (!p.access.empty())
              j.attribute("access", p.access);
            if (p.peerTableFor)
              j.attribute("peer_table_for", *p.peerTableFor);
            break;
          case ParamDescription::Kind::Scalar:
            j.attribute("kind", "scalar");
            j.attribute("dtype", p.dtype);
            break;
          case ParamDescription::Kind::Constexpr:
            j.attribute("kind", "constexpr");
            if (p.value) {
              auto parsed = llvm::json::parse(*p.value);
              if (parsed)
                j.attribute("value", std::move(*parsed));
              else
                llvm::consumeError(parsed.takeError());
            }
            break;
          }
        });
    });
    j.attributeArray("outputs", [&] {
      for (const OutputDescription &o : desc.outputs)
        j.object([&] {
          j.attribute("name", o.name);
          j.attribute("dtype", o.dtype);
          j.attribute("rank", o.rank);
          j.attribute("like", o.like);
        });
    });
    j.attributeArray("constraints", [&] {
      for (const Constraint &c : desc.constraints)
        j.object([&] {
          j.attribute("param", c.param);
          j.attribute("dim", c.dim);
          j.attribute("op", c.op);
          if (auto *v = std::get_if<int64_t>(&c.value))
            j.attribute("value", *v);
          else
            j.attribute("value", std::get<std::string>(c.value));
        });
    });
    j.attributeArray("abi", [&] {
      for (const AbiSlot &s : facts.abi)
        j.object([&] {
          j.attribute("name", s.name);
          j.attribute("type", s.type);
        });
    });
  });
  os << "\n";
}
