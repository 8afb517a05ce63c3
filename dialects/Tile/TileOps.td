//===- TileOps.td - Tile dialect operations ----------------*- tablegen -*-===//

#ifndef DSLC_DIALECTS_TILE_TILEOPS_TD
#define DSLC_DIALECTS_TILE_TILEOPS_TD

include "dialects/Tile/TileDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "the size of one dimension of a tensor in global memory";
  let arguments = (ins Tile_RefType:$ref, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$ref `,` $dim attr-dict `:` qualified(type($ref))";
  let hasVerifier = 1;
}

def Tile_GridOp : Tile_Op<"grid", [SingleBlockImplicitTerminator<"YieldOp">,
                                   RecursiveMemoryEffects]> {
  let summary = "a grid of tiles, one CTA per tile";
  let description = [{
    Iterates over the tiles of an iteration space of `extents` cut into
    blocks of `blocks` elements per dimension. The body runs once per tile,
    with the tile's index in each dimension as block arguments; tiles are
    distributed over the CTAs of the launch (grid-stride, so any number of
    CTAs is correct). The i-th tile of dimension d covers
    `[i * blocks[d], min((i + 1) * blocks[d], extents[d]))`.

    ```mlir
    tile.grid (%n) block [8192] {
    ^bb0(%t: index):
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$extents, DenseI64ArrayAttr:$blocks);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`(` $extents `)` `block` $blocks $body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getNumDims() { return getBlocks().size(); }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator,
                                     ParentOneOf<["GridOp"]>]> {
  let summary = "terminates a tile.grid body";
  let assemblyFormat = "attr-dict";
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
                                   MemoryEffects<[MemRead]>]> {
  let summary = "loads a tile from a tensor in global memory";
  let description = [{
    Result element `r` reads `ref[offsets + e]` where `e` places result
    dimension `k` at ref dimension `dims[k]` (the other ref dimensions are
    indexed by their offset alone). An element whose index reaches its
    dimension's `limits` entry, or the ref's own size, is not read: it
    takes the value `other` (zero by default). That is the masked tail of
    the last tile.

    ```mlir
    %x = tile.load %a[%begin] limits [%end] {dims = array<i64: 0>}
        : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    ```
  }];
  let arguments = (ins Tile_RefType:$ref, Variadic<Index>:$offsets,
                   Variadic<Index>:$limits, DenseI64ArrayAttr:$dims,
                   OptionalAttr<TypedAttrInterface>:$other);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $ref `[` $offsets `]` `limits` `[` $limits `]` attr-dict `:` qualified(type($ref)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments,
                                     MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile into a tensor in global memory";
  let description = [{
    The converse of `tile.load`: elements past `limits` or the ref's size
    are not written.
  }];
  let arguments = (ins Tile_TileTensor:$value, Tile_RefType:$ref,
                   Variadic<Index>:$offsets, Variadic<Index>:$limits,
                   DenseI64ArrayAttr:$dims);
  let assemblyFormat = [{
    $value `,` $ref `[` $offsets `]` `limits` `[` $limits `]` attr-dict `:` qualified(type($value)) `,` qualified(type($ref))
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tile whose elements all equal a scalar";
  let arguments = (ins AnyType:$value);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($value)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "the index of each element within its tile (0, 1, ...)";
  let description = [{
    A 1-D integer tile whose element `i` is `i`. Used for `tile.index`
    (add the tile's begin) and masks.
  }];
  let results = (outs RankedTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::dslc::tile";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a tile along one dimension";
  let arguments = (ins Tile_TileTensor:$input, I64Attr:$dim,
                   Tile_ReduceKindAttr:$kind);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $input `,` $dim attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

#endif // DSLC_DIALECTS_TILE_TILEOPS_TD
