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
  let description = [{
    Folds to a constant where the ref is a kernel parameter whose size the
    launch checks (`tile.static_sizes` on the parameter, not -1).
  }];
  let assemblyFormat = "$ref `,` $dim attr-dict `:` qualified(type($ref))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ViewOp : Tile_Op<"view", [Pure]> {
  let summary = "the same memory seen as a contiguous tensor of other sizes";
  let description = [{
    `x.view(...)`, `x.reshape(...)` of a contiguous row-major tensor: the
    result starts at the same address and is row-major with `sizes` (one per
    result dimension). Element `i` in row-major order of the result is
    element `i` of `ref` in row-major order. The result must not hold more
    elements than `ref`: the lowering makes every size 0 when it would (so
    every access is masked off), and the simulator reports it.

    ```mlir
    %flat = tile.view %x [%n] : !tile.ref<bf16, 2> -> !tile.ref<bf16, 1>
    ```
  }];
  let arguments = (ins Tile_RefType:$ref, Variadic<Index>:$sizes);
  let results = (outs Tile_RefType:$result);
  let assemblyFormat = [{
    $ref `[` $sizes `]` attr-dict `:` qualified(type($ref)) `->` qualified(type($result))
  }];
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

def Tile_GridBarrierOp : Tile_Op<"grid_barrier",
                                  [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits until every CTA of the launch has arrived";
  let description = [{
    Helion's `hl.barrier()` between two top-level loops: no CTA runs past
    it before every CTA of the launch has finished the `tile.grid` before
    it, and every store before it is visible to every load after it. It
    lives between two `tile.grid` ops at the kernel's top level. Every CTA
    of the launch must be resident at once (the kernel spins: the runtime
    caps its grid at what fits); the wait is bounded by the kernel's
    timeout like `comm.wait`'s.

    ```mlir
    tile.grid (%n) block [64] { ... }
    tile.grid_barrier
    tile.grid (%n) block [64] { ... }
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator,
                                     ParentOneOf<["GridOp"]>]> {
  let summary = "terminates a tile.grid body";
  let assemblyFormat = "attr-dict";
}

// A load's cache hint (contract::EvictionPolicy, whose values these are):
// an L1 eviction priority and an L2 policy of that name.
def Tile_EvictionAttr : I32EnumAttr<"Eviction", "cache eviction hint", [
    I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"first", 1>,
    I32EnumAttrCase<"last", 2>]> {
  let cppNamespace = "::dslc::tile";
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
    the last tile. `evict` (1: first, 2: last) is a cache hint
    (Helion's load_eviction_policies); the values read are the same.

    ```mlir
    %x = tile.load %a[%begin] limits [%end] {dims = array<i64: 0>}
        : !tile.ref<bf16, 1> -> tensor<8192xbf16>
    ```
  }];
  let arguments = (ins Tile_RefType:$ref, Variadic<Index>:$offsets,
                   Variadic<Index>:$limits, DenseI64ArrayAttr:$dims,
                   OptionalAttr<TypedAttrInterface>:$other,
                   OptionalAttr<Tile_EvictionAttr>:$evict);
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

def Tile_GatherOp : Tile_Op<"gather", [AttrSizedOperandSegments,
                                       MemoryEffects<[MemRead]>]> {
  let summary = "loads a tile element by element at computed indices";
  let description = [{
    Result element `e` reads `ref[indices[0][e], ..., indices[r-1][e]]`:
    one index tile per dimension of `ref`, each of the result's shape (a
    gather: `weight[idx, tile_e]`, `hl.load(x, [i], extra_mask=m)`). An
    element whose index is negative or reaches its dimension's size, or
    whose `mask` element is false, is not read: it is zero. `evict` is
    tile.load's cache hint.

    ```mlir
    %r = tile.gather %w[%rows, %cols] mask %m : tensor<16x64xi1>
        : !tile.ref<f32, 2>, tensor<16x64xi64>, tensor<16x64xi64> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_RefType:$ref, Variadic<Tile_TileTensor>:$indices,
                   Optional<Tile_TileTensor>:$mask,
                   OptionalAttr<Tile_EvictionAttr>:$evict);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $ref `[` $indices `]` (`mask` $mask^ `:` type($mask))? attr-dict `:` qualified(type($ref)) `,` type($indices) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [AttrSizedOperandSegments,
                                         MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile element by element at computed indices";
  let description = [{
    The converse of `tile.gather`: element `e` of `value` is written to
    `ref[indices[0][e], ..., indices[r-1][e]]` unless an index is out of
    bounds or `mask` is false there. Two elements with one address: one of
    them is written.
  }];
  let arguments = (ins Tile_TileTensor:$value, Tile_RefType:$ref,
                   Variadic<Tile_TileTensor>:$indices,
                   Optional<Tile_TileTensor>:$mask);
  let assemblyFormat = [{
    $value `,` $ref `[` $indices `]` (`mask` $mask^ `:` type($mask))? attr-dict `:` qualified(type($value)) `,` qualified(type($ref)) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicKindAttr : I32EnumAttr<"AtomicKind", "atomic update", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"andi", 3, "and">,
    I32EnumAttrCase<"ori", 4, "or">, I32EnumAttrCase<"xori", 5, "xor">,
    I32EnumAttrCase<"xchg", 6>]> {
  let cppNamespace = "::dslc::tile";
}

def Tile_AtomicSemAttr : I32EnumAttr<"AtomicSem", "atomic ordering", [
    I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
    I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::dslc::tile";
}

def Tile_AtomicOp : Tile_Op<"atomic", [AttrSizedOperandSegments,
                                       MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "updates elements atomically at computed indices";
  let description = [{
    Element `e` of `value` updates `ref[indices[0][e], ..., indices[r-1][e]]`
    with one atomic read-modify-write of `kind` (add; max, min; and, or,
    xor of integers; xchg) with the ordering `sem`, at GPU scope, unless an
    index is out of bounds or `mask` is false there. Elements with one
    address all apply, in some order. `%a` below adds a tile of partial
    sums into an output:

    ```mlir
    tile.atomic add relaxed %acc, %out[%rows, %cols] : tensor<64x64xf32>, !tile.ref<f32, 2>, tensor<64x64xi64>, tensor<64x64xi64>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_AtomicSemAttr:$sem,
                   Tile_TileTensor:$value, Tile_RefType:$ref,
                   Variadic<Tile_TileTensor>:$indices,
                   Optional<Tile_TileTensor>:$mask);
  let assemblyFormat = [{
    $kind $sem $value `,` $ref `[` $indices `]` (`mask` $mask^ `:` type($mask))? attr-dict `:` qualified(type($value)) `,` qualified(type($ref)) `,` type($indices)
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
  let description = [{
    Combines the elements of `input` along dimension `dim` with `kind`
    (sum, prod, max, min). The result is either the keepdim shape (`dim`
    becomes 1), the input shape without `dim` (a rank-0 tile for a 1-d
    input), or, for a 1-d input, a scalar of the element type.

    With `valid` (index), the elements at positions >= valid along `dim`
    contribute the identity of `kind` (0, 1, -inf / +inf, or the integer
    extreme); positions past the static extent never contribute. That is
    how the masked tail of a tile is reduced.

    ```mlir
    %s = tile.reduce sum %x, 1 valid %n : tensor<4x8192xf32> -> tensor<4x1xf32>
    %m = tile.reduce max %y, 0 : tensor<5120xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$input, I64Attr:$dim,
                   Tile_ReduceKindAttr:$kind, Optional<Index>:$valid);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $input `,` $dim (`valid` $valid^)? attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether the result keeps the reduced dimension (with extent 1).
    bool isKeepDim();
  }];
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeats a tile along its unit dimensions";
  let description = [{
    The result has the rank of the input; each input dimension equals the
    result's or is 1, and a unit dimension is repeated to the result's
    extent (torch's broadcasting, after leading unit dimensions have been
    inserted with `tile.reshape`).

    ```mlir
    %b = tile.broadcast %x : tensor<4x1xf32> -> tensor<4x8192xf32>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$input);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in the same order, another shape";
  let description = [{
    The result holds the same elements in the same (row-major) order:
    unit dimensions inserted or removed (`x[:, None]`, `w[None, :]`), or
    dimensions split and merged (`x.reshape([b, t, 2, d // 2])`). The
    element count is the same.

    ```mlir
    %r = tile.reshape %x : tensor<8192xf32> -> tensor<1x8192xf32>
    ```

    Folds: a reshape to the input's own type, and a reshape of a reshape.
    Canonicalization: a reshape of a reduction that removed its dimension,
    back to the keepdim shape, becomes the keepdim reduction (so
    `x.sum(-1)[:, None]` keeps the replicated result instead of gathering
    it).
  }];
  let arguments = (ins Tile_TileTensor:$input);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "permutes the dimensions of a tile";
  let description = [{
    Result dimension `k` is input dimension `permutation[k]`: result element
    `j` is input element `i` with `i[permutation[k]] = j[k]` (`x.T`,
    `x.transpose(0, 1)`, `x.permute(...)`).

    ```mlir
    %t = tile.transpose %x [1, 0] : tensor<16x64xbf16> -> tensor<64x16xbf16>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$input,
                   DenseI64ArrayAttr:$permutation);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$input $permutation attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ShiftOp : Tile_Op<"shift", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "moves a tile's elements along one dimension";
  let description = [{
    Result element `j` is input element `j` with `j[dim] - offset` in place
    of `j[dim]` where that lies in `0 .. extent - 1`, else input element
    `j` itself (the edge keeps its own values): with offset 1, element `i`
    of a row gets element `i - 1`. The steps of a scan
    (`hl.associative_scan`, `hl.cumsum`: MLIRGen's GenScan.cpp) combine a
    tile with its shifts by 1, 2, 4, ... (Hillis and Steele).

    ```mlir
    %s = tile.shift %x, 1 by 4 : tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$input, I64Attr:$dim, I64Attr:$offset);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$input `,` $dim `by` $offset attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_DotEngine : I32EnumAttr<"DotEngine", "what computes tile.dot", [
    I32EnumAttrCase<"fma", 0>, I32EnumAttrCase<"mma_sync", 1>,
    I32EnumAttrCase<"wgmma", 2>]> {
  let cppNamespace = "::dslc::tile";
  let genSpecializedAttr = 0;
}
def Tile_DotEngineAttr : EnumAttr<Tile_Dialect, Tile_DotEngine, "dot_engine"> {
  let summary = "#tile.dot_engine: the units a kernel's matrix products use";
  let description = [{
    The kernel attribute `tile.dot_engine` (config key `dot_engine`):
    `#tile.dot_engine<fma>` (the default) computes every `tile.dot` with
    f32 FMAs on CUDA cores; `#tile.dot_engine<mma_sync>` computes those
    whose inputs are bf16, f16 or fp8 (as f16, exactly) and whose shape the
    warps can split into 16 x 16 blocks with tensor cores (mma.sync), the
    others with FMAs. `#tile.dot_engine<wgmma>` is mma_sync except that
    the dots of software-pipelined loops whose [M, N] result is one m64
    row block per warpgroup (M = 16 x warps) run on Hopper's wgmma
    (sm_90a).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "the same tile held in another layout";
  let description = [{
    The elements of `input`, spread over the CTA's threads as the result's
    encoding says (#tile.mma, or none: the blocked layout of
    compiler/Conversion/TileLayout.h). A conversion back and forth folds
    away.

    ```mlir
    %m = tile.convert_layout %acc : tensor<128x128xf32>
        -> tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$input);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasFolder = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AttrSizedOperandSegments]> {
  let summary = "matrix product of two 2-d tiles, plus an accumulator";
  let description = [{
    `result = acc + lhs @ rhs` for `lhs : tensor<MxK>`, `rhs : tensor<KxN>`,
    `acc, result : tensor<MxN>`. Both inputs have the same element type:
    `f32`, `bf16`, `f16`, `f8E4M3FN` or `f8E5M2`. Each input element is
    converted to f32 exactly; each element of the result is a chain of
    f32 FMAs in order of increasing k starting from `acc` (`f32`, when
    present; else zero), rounded once to the result's element type
    (`f32`, `bf16` or `f16`).

    With `valid_k` (index), only the first `valid_k` positions along K
    contribute (the masked K tail of loaded tiles adds nothing whatever
    values the tiles hold there); positions past the static K never do.

    A result encoded `#tile.mma` (made by -dslc-mma-layouts) is computed
    by tensor cores: the inputs (bf16 or f16, blocked) are multiplied
    exactly and summed in f32 in the order of mma.sync's k-steps of 16,
    onto `acc`, which then has the result's type. Such a dot may read its
    rhs transposed (`rhs_transposed`: `rhs : tensor<NxK>`, the product
    `lhs @ transpose(rhs)`; -dslc-mma-layouts folds a `tile.transpose` of
    the last two dimensions into it), staged as it is for ldmatrix.

    ```mlir
    %c = tile.dot %a, %b acc %acc valid_k %n
        : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf16>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$lhs, Tile_TileTensor:$rhs,
                   Optional<Tile_TileTensor>:$acc, Optional<Index>:$valid_k,
                   UnitAttr:$rhs_transposed);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` $acc^)? (`valid_k` $valid_k^)? attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) (`,` qualified(type($acc))^)? `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Software-pipelined tensor-core loops (-dslc-pipeline-dots)
//===----------------------------------------------------------------------===//

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments,
                                             MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "starts copying a 2-d tile into a stage of a staged buffer";
  let description = [{
    Starts copying the tile `tile.load` would read with the same `ref`,
    `offsets`, `limits` and `dims` (two result dimensions, the second the
    ref's last) into stage `stage` of `buffer`, elements past the limits
    as zeros. The copy is asynchronous (cp.async, 16 bytes at a time, or
    element by element where a 16-byte piece of the source is not
    aligned): it is complete, and visible to every thread of the CTA, after
    the `tile.async_commit` that follows it and a `tile.async_wait` that
    leaves fewer groups pending than were committed since.

    ```mlir
    tile.async_copy %x[%m, %k] limits [%me, %ke] to #tile.staged<bf16,
        [128, 64], offset = 0, pitch = 72, stages = 3> stage %s
        {dims = array<i64: 0, 1>} : !tile.ref<bf16, 2>
    ```
  }];
  let arguments = (ins Tile_RefType:$ref, Variadic<Index>:$offsets,
                   Variadic<Index>:$limits, Index:$stage,
                   DenseI64ArrayAttr:$dims, Tile_StagedBufferAttr:$buffer);
  let assemblyFormat = [{
    $ref `[` $offsets `]` `limits` `[` $limits `]` `to` $buffer `stage` $stage attr-dict `:` qualified(type($ref))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit", [MemoryEffects<[MemWrite]>]> {
  let summary = "closes the group of this thread's copies started since the last";
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits until at most `pending` copy groups are in flight, then a CTA barrier";
  let description = [{
    cp.async.wait_group `pending`, then bar.sync: the copies of every
    older group are complete and visible to the whole CTA, and every
    thread has finished what it did before (so a stage read before may be
    overwritten after). With `async_proxy` (the stages are read by wgmma,
    through the async proxy) a fence.proxy.async.shared::cta comes between
    the wait and the barrier.
  }];
  let arguments = (ins I64Attr:$pending, UnitAttr:$async_proxy);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Tile_StagedDotOp : Tile_Op<"staged_dot", [MemoryEffects<[MemRead]>,
                                             AllTypesMatch<["acc", "result"]>]> {
  let summary = "tensor-core product of two staged tiles, plus an accumulator";
  let description = [{
    `result = acc + lhs[stage] @ rhs[stage]`, the operands read from stage
    `stage` of their staged buffers (filled by tile.async_copy and waited
    for), computed as tile.dot with a #tile.mma result computes it; `acc`
    has the result's type. Swizzled buffers (#tile.staged with `swizzle`)
    are read by wgmma.mma_async: the result is one m64 row block per
    warpgroup (#tile.mma<warpsM = W, warpsN = 1>, M = 16 W, W a multiple
    of 4), N a multiple of 16 up to 256; the lhs is K-major, the rhs
    N-major ([K, N]) or, with `rhs_k_major`, K-major ([N, K], the layout
    wgmma needs for fp8 and a product by a transposed tile reads as it is
    stored). fp8 buffers (e4m3 or e5m2) are read by wgmma only, 32 elements
    a k-step.

    `pending` (wgmma only) is how many of this thread's wgmma groups may
    still run when the op ends: 0 (the default) waits for this product;
    1 leaves it in flight (the previous one is then complete). A result
    still in flight may only be the `acc` of the next staged_dot or pass
    through the loop to a `tile.dot_wait`; its stage may be refilled only
    after every thread's next wait, so the loop copies one stage less
    ahead.

    ```mlir
    %d = tile.staged_dot #tile.staged<bf16, [128, 64], offset = 0,
        pitch = 72, stages = 3>, #tile.staged<bf16, [64, 128],
        offset = 55296, pitch = 136, stages = 3> stage %s acc %acc
        : tensor<128x128xf32, #tile.mma<warpsM = 2, warpsN = 4>>
    ```
  }];
  let arguments = (ins Tile_StagedBufferAttr:$lhs, Tile_StagedBufferAttr:$rhs,
                   Index:$stage, Tile_TileTensor:$acc,
                   DefaultValuedAttr<I64Attr, "0">:$pending,
                   UnitAttr:$rhs_k_major);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `stage` $stage `acc` $acc attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [MemoryEffects<[MemRead, MemWrite]>,
                                          AllTypesMatch<["acc", "result"]>]> {
  let summary = "waits for the tensor-core products still in flight";
  let description = [{
    Completes every wgmma group of this thread (wgmma.wait_group 0) and
    returns `acc`, the result of a `tile.staged_dot` left in flight
    (`pending = 1`), now readable: its uses read the registers after the
    wait, not before.

    ```mlir
    %done = tile.dot_wait %acc : tensor<128x128xf32, #tile.mma<warpsM = 8, warpsN = 1>>
    ```
  }];
  let arguments = (ins Tile_TileTensor:$acc);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = "$acc attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

#endif // DSLC_DIALECTS_TILE_TILEOPS_TD
