//===- TileDialect.td - The Tile dialect -------------------*- tablegen -*-===//
//
// The Tile dialect holds what a Helion-style tile program computes on one GPU:
// a grid of tiles (one CTA per tile), tile loads and stores with masked tails,
// and tile values. Tile values are builtin ranked tensors (tensor<8192xbf16>)
// so that elementwise arithmetic is plain `arith`/`math` on tensors; the
// lowering distributes each tile over the CTA's threads.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_DIALECTS_TILE_TILEDIALECT_TD
#define DSLC_DIALECTS_TILE_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::dslc::tile";
  let summary = "Tiles, grids of tiles and tile memory access";
  let description = [{
    A kernel is a `func.func` with the unit attribute `tile.kernel` and the
    integer attribute `tile.num_warps`. Its body holds at most one
    `tile.grid`: the tiles of the grid are distributed over CTAs. Tensors in
    global memory are `!tile.ref` values; tile values are ranked tensors.
  }];
  let useDefaultTypePrinterParser = 1;
  // Checks the discardable attributes `tile.kernel`, `tile.num_warps`,
  // `tile.arg_names` and `tile.peer_count` wherever they appear.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_RefType : Tile_Type<"Ref", "ref"> {
  let summary = "!tile.ref: a row-major tensor in global memory";
  let description = [{
    `!tile.ref<bf16, 2>` is a pointer to a contiguous row-major tensor of
    `bf16` with 2 dimensions whose sizes are known at run time
    (`tile.dim`). Kernel parameters of tensor type have this type.
    The element type is an integer or float type (not `index`, which has no
    size in memory); the rank is between 1 and 8.
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
  let genVerifyDecl = 1;
}

include "mlir/IR/CommonTypeConstraints.td"

/// A tile value: a statically shaped ranked tensor.
def Tile_TileTensor : RankedTensorOf<[AnyType]>;

#endif // DSLC_DIALECTS_TILE_TILEDIALECT_TD
