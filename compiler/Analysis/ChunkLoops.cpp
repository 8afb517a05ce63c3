//===- ChunkLoops.cpp - Loops over a row's chunks that load ---------------===//

#include "compiler/Analysis/ChunkLoops.h"

#include "dialects/Tile/TileDialect.h"

using namespace mlir;

SmallVector<scf::ForOp> dslc::chunkLoops(Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop.getBody()->getOps<tile::LoadOp>().empty())
      return;
    bool nested = loop.getBody()
                      ->walk([](Operation *op) {
                        return isa<scf::ForOp, tile::DotOp>(op)
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
    if (!nested)
      loops.push_back(loop);
  });
  return loops;
}
