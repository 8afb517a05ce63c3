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
  let useDefaultAttributePrinterParser = 1;
  // Checks the discardable attributes `tile.kernel`, `tile.num_warps`,
  // `tile.arg_names`, `tile.peer_count` and `tile.abi` wherever they
  // appear, and `tile.role` on a kernel's arguments.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  // Folds to constants (tile.dim of a size the launch checks) become
  // arith.constant.
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
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

//===----------------------------------------------------------------------===//
// The kernel contract in the IR (docs/kernel-abi.md, contract/Metadata.h)
//===----------------------------------------------------------------------===//

// The values are the contract's own enums, spelled as the metadata spells
// them: the IR and the metadata file cannot disagree on a name.
def Tile_ContractRole : AttrParameter<"::dslc::contract::Role",
                                      "a kernel parameter's role"> {
  let parser = [{ ::dslc::tile::parseContractRole($_parser) }];
  let printer = [{ $_printer << ::dslc::contract::roleName($_self) }];
}
def Tile_ContractSlotKind : AttrParameter<"::dslc::contract::SlotKind",
                                          "what an ABI slot holds"> {
  let parser = [{ ::dslc::tile::parseContractSlotKind($_parser) }];
  let printer = [{ $_printer << ::dslc::contract::slotKindName($_self) }];
}
def Tile_ContractSlotType : AttrParameter<"::dslc::contract::SlotType",
                                          "an ABI slot's type"> {
  let parser = [{ ::dslc::tile::parseContractSlotType($_parser) }];
  let printer = [{ $_printer << ::dslc::contract::slotTypeName($_self) }];
}

class Tile_Attr<string name, string attrMnemonic>
    : AttrDef<Tile_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Tile_RoleAttr : Tile_Attr<"Role", "role"> {
  let summary = "#tile.role: what a kernel does with a parameter";
  let description = [{
    Set on every argument of a tile kernel (argument attribute `tile.role`)
    by MLIRGen's access analysis, which decides each role once:
    `#tile.role<input>`, `output`, `inout`, `scratch` (LL packets),
    `signal_pad`, `#tile.role<peer_table of "pad">` (a uint64 table of the
    named parameter's peer addresses), `scalar`, `unused`, and
    `#tile.role<peers of "x">` for the implicit peer table of a symmetric
    tensor `x`. The ABI flattening, the simulator and (through the
    metadata) the runtime read it; none of them guesses.
  }];
  let parameters = (ins Tile_ContractRole:$role,
                        OptionalParameter<"::mlir::StringAttr">:$of);
  let assemblyFormat = "`<` $role (`of` $of^)? `>`";
  let genVerifyDecl = 1;
}

def Tile_AbiSlotAttr : Tile_Attr<"AbiSlot", "abi_slot"> {
  let summary = "#tile.abi_slot: one parameter slot of a kernel's entry";
  let description = [{
    The ABI flattening (-dslc-distribute-tiles) lists a kernel's entry
    parameters in the function attribute `tile.abi`, one
    `#tile.abi_slot<"x.size0", size : i64, param = "x", dim = 0>` each:
    its name, what it holds (`data`, `size`, `peers`, `scalar`, or the
    hidden `timeout`, `error`, `state`), its type (`ptr`, `i64`, `f32`), the
    parameter it belongs to and, for sizes, the dimension. The metadata's
    `abi` list is written from it.
  }];
  let parameters = (ins StringRefParameter<"the slot's name">:$name,
                        Tile_ContractSlotKind:$kind,
                        Tile_ContractSlotType:$type,
                        OptionalParameter<"::mlir::StringAttr">:$param,
                        OptionalParameter<"std::optional<unsigned>">:$dim);
  let assemblyFormat = [{
    `<` $name `,` $kind `:` $type (`,` `param` `=` $param^)?
    (`,` `dim` `=` $dim^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The slot as the contract has it (arg left -1).
    ::dslc::contract::AbiSlot toContract() const;
  }];
}

def Tile_MmaEncodingAttr : Tile_Attr<"MmaEncoding", "mma"> {
  let summary = "#tile.mma: a tile held in mma.sync accumulator fragments";
  let description = [{
    The encoding of an f32 tile `tensor<MxNxf32, #tile.mma<warpsM = a,
    warpsN = b>>` that lives in the accumulator registers of `mma.sync
    .m16n8k16` (compiler/Conversion/MmaLayout.h): the CTA's a x b warps
    each hold an (M / a) x (N / b) block (warp w at block row w / b,
    column w % b), as (M / a / 16) x (N / b / 8) fragments of 16 x 8 in
    which lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and
    2 (l % 4) + 1. Only `-dslc-mma-layouts` makes such tiles, for the
    results of `tile.dot` and the loop-carried accumulators they feed;
    `tile.convert_layout` moves them to and from the blocked layout every
    other op reads.

    A batched `tensor<BxMxNxf32, #tile.mma<warpsM = a, warpsN = b, warpsB
    = c>>` deals its B matrices over c groups of a x b warps (group g holds
    matrices g B / c .. (g + 1) B / c - 1, one after another in each
    thread's registers), each matrix held by its group as above.
  }];
  let parameters = (ins "int64_t":$warpsM, "int64_t":$warpsN,
                        DefaultValuedParameter<"int64_t", "1">:$warpsB);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_StagedBufferAttr : Tile_Attr<"StagedBuffer", "staged"> {
  let summary = "#tile.staged: ring of tile copies in the shared workspace";
  let description = [{
    `#tile.staged<bf16, [128, 64], offset = 0, pitch = 72, stages = 3>`:
    `stages` copies of a [rows, cols] tile of `element` (bf16, f16, or
    fp8 for wgmma's swizzled layout), row-major, rows
    `pitch` elements apart (whole 16-byte units), stage s at `offset +
    s * stageBytes()` bytes of the kernel's shared workspace. Made by
    -dslc-pipeline-dots for the operands of tensor-core dots that
    `tile.async_copy` fills ahead of `tile.staged_dot`.

    With `swizzle = W` (32, 64 or 128 bytes; rows a multiple of 8, `pitch`
    = cols): the layout wgmma reads. The columns are cut into atoms of W
    bytes; atom a holds every row's W bytes (row r at `a * rows * W + r *
    W`), and the 16-byte unit u of a row is stored at unit `u ^ ((r /
    (128 / W)) % (W / 16))` (PTX's W-byte swizzle: address bits 4.. XOR
    bits 7..); stages are 1024-byte aligned.
  }];
  let parameters = (ins "::mlir::Type":$element,
                        ArrayRefParameter<"int64_t">:$shape,
                        "int64_t":$offset, "int64_t":$pitch,
                        "int64_t":$stages,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle);
  let assemblyFormat = [{
    `<` $element `,` `[` $shape `]` `,` `offset` `=` $offset `,` `pitch` `=`
    $pitch `,` `stages` `=` $stages (`,` `swizzle` `=` $swizzle^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one element.
    int64_t elementBytes() const;
    /// Bytes of one stage (a multiple of 128; of 1024 when swizzled).
    int64_t stageBytes() const;
    /// The workspace byte just past the last stage.
    int64_t endBytes() const { return getOffset() + getStages() * stageBytes(); }
  }];
}

include "mlir/IR/CommonTypeConstraints.td"

/// A tile value: a statically shaped ranked tensor.
def Tile_TileTensor : RankedTensorOf<[AnyType]>;

#endif // DSLC_DIALECTS_TILE_TILEDIALECT_TD
