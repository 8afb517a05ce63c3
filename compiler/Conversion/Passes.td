//===- Passes.td - dslc lowering passes --------------------*- tablegen -*-===//

#ifndef DSLC_COMPILER_CONVERSION_PASSES_TD
#define DSLC_COMPILER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def DistributeTiles : Pass<"dslc-distribute-tiles", "mlir::ModuleOp"> {
  let summary = "Lower Tile and Comm ops to per-thread code";
  let description = [{
    For every `tile.kernel` function: flattens the signature into the kernel
    ABI (docs/kernel-abi.md: each !tile.ref becomes a pointer and its sizes,
    then the hidden timeout/error/state slots), turns `tile.grid` into a
    grid-stride loop over tiles, distributes every tile value over the CTA's
    threads (16-byte contiguous pieces per thread, masked tails), and lowers
    signal/wait/packets to PTX with the memory semantics of docs/compiler.md.
    The
    result holds scf, arith, vector, llvm and nvvm ops.
  }];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
    "mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
    "mlir::vector::VectorDialect"
  ];
}

def RollReductions : Pass<"dslc-roll-reductions", "mlir::ModuleOp"> {
  let summary = "Loop over a whole-row dimension in chunks (reduction_loops)";
  let description = [{
    For every `tile.kernel` function with `tile.reduction_loops` (Helion's
    config key: per reduced dimension, in order of the kernel's first
    reduction over it, a chunk size R, or 0 to keep it whole): every tile
    of that dimension D as its last dimension is computed R columns at a
    time. Each store of such a tile and each reduction along D becomes a
    loop over the D / R chunks (the last one masked) that recomputes what it
    needs, loads included, at the chunk's offset; a reduction combines its
    chunks' partial results. A thread then holds R columns of a row instead
    of D. A kernel it cannot roll (a dimension-D tile used by an op other
    than loads, elementwise ops, broadcasts, unit reshapes, stores and
    reductions along D, or in nested regions, or memory written between a
    load and the loop that recomputes it) is left whole, with a warning.
    `tile.auto_reduction_loops` (triples D, R, required, which MLIRGen sets
    for rows too wide for the registers) gives the chunk of a dimension D
    that `tile.reduction_loops` leaves whole; a failed automatic roll warns
    only when `required` (the rows would not fit at all).
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def SplitWideDots : Pass<"dslc-split-wide-dots", "mlir::ModuleOp"> {
  let summary = "A matrix product over a whole operand, in chunks of K";
  let description = [{
    For every `tile.kernel` function: a 2-d `tile.dot` whose lhs or rhs
    holds more elements than the CTA's registers (kMaxElementsPerThread a
    thread) and whose operands are both loads (possibly converted, masked
    elements zero) becomes an `scf.for` over chunks of K (a power of two up
    to 64 dividing K, each operand chunk at most half the budget): each
    iteration loads both operands' chunk at its K offset and accumulates in
    f32 onto the dot's accumulator (zero without one); a bf16/f16 result is
    rounded once after the loop. The values are tile.dot's (f32 FMAs in
    order of increasing k). Helion's `x[tile_m, :] @ w[:, :]` (se_block)
    then compiles as written. Other dots are left as they are.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def KeepReducedDims : Pass<"dslc-keep-reduced-dims", "mlir::ModuleOp"> {
  let summary = "Row statistics kept in their rows' keepdim shape";
  let description = [{
    A web of tiles connected by element-wise arithmetic and by the values
    scf.for and scf.if carry, made by reductions that removed a dimension
    and read back through reshapes that insert it again (Helion's online
    softmax: `m_i`, `l_i` and `m_i[:, :, None]`), takes the keepdim shape
    throughout: the reductions keep their dimension, those reshapes vanish,
    splat constants are copied in the new shape, and a reshape is put at
    each edge where the web meets another op (a load, a store, a product).
    A web is rewritten only when that removes more reductions without
    their dimension and reshapes than it adds. The statistics are then
    dealt with their rows (one element a thread where each row has one
    thread) instead of as tiles of their own, and the round trips through
    shared memory between the two layouts go
    (compiler/Conversion/KeepReducedDims.cpp).
  }];
}

def NarrowedFastMath : Pass<"dslc-narrowed-fast-math", "mlir::ModuleOp"> {
  let summary = "Approximate exp and division where the result is rounded to 16 bits";
  let description = [{
    An f32 value every use of which ends, through f32 element-wise
    arithmetic, broadcasts, reshapes, splats, reductions and values carried
    by `scf.for` loops (or yielded by `scf.if`), in an
    `arith.truncf` to a float of at most 16 bits is narrowed. A narrowed
    `arith.divf` by a `tile.broadcast` or `tile.splat` becomes a
    multiplication by the broadcast reciprocal (one division per row; a
    subnormal divisor scaled by 2^32 first and the product scaled back);
    other narrowed f32 divisions get `afn` (div.full.f32 after
    -dslc-divide-without-calls); narrowed f32 `math.exp`/`math.exp2`, and
    those of bf16/f16 values, get `afn` (ex2.approx.f32 of x * log2(e)).
    Triton's `exp` and `/` are those everywhere. In a kernel with
    `tile.fast_math` (the config's fast_math), every f32 `math.exp`,
    `math.exp2`, `math.log`, `math.log2` and `arith.divf` gets `afn`
    (compiler/Conversion/NarrowedFastMath.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def FoldBoundsByRange : Pass<"dslc-fold-bounds-by-range", "mlir::ModuleOp"> {
  let summary = "Fold tile ends, valid counts and comparisons that integer ranges decide";
  let description = [{
    Runs MLIR's integer range analysis (a loop variable's range from its
    loop's bounds) and replaces an `arith.min{s,u}i`/`max{s,u}i` whose
    operands' ranges are ordered by the operand that is always the
    result, a comparison the ranges decide by its constant, and a value
    with one possible value by that constant. A tile loop nested in the
    grid over a compiled-in extent that its block divides then has tiles
    that end at `begin + B` and whole valid counts: no per-element masks
    (compiler/Conversion/FoldBoundsByRange.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def SplitJoinAtMemory : Pass<"dslc-split-join-at-memory", "mlir::ModuleOp"> {
  let summary = "hl.split of a loaded row and hl.join of a stored one as halves in memory";
  let description = [{
    A split (a sum over a last dimension of 2 masked by `iota == c`) of
    `transpose(reshape(x [..., 2h] -> [..., 2, h]))`, with x element-wise
    casts of a `tile.load`, becomes the load of x's half c (offset c * h,
    the same limits); a `tile.store` of casts of
    `reshape(transpose(join))`, a join being a select by `iota == c`
    between two tiles broadcast along the last dimension, becomes two
    stores of halves. Helion's rotary embedding then holds no transposed
    tile: no shared memory, no barriers
    (compiler/Conversion/SplitJoinAtMemory.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def MmaLayouts : Pass<"dslc-mma-layouts", "mlir::ModuleOp"> {
  let summary = "Tensor-core dots and their accumulators in mma.sync fragments";
  let description = [{
    For every `tile.kernel` function with `#tile.dot_engine<mma_sync>`:
    each 2-d `tile.dot` with bf16, f16 or fp8 inputs (fp8 widened to f16,
    exactly) whose [M, N] result the kernel's warps split into blocks of
    whole 16 x 16 fragments (compiler/Conversion/MmaLayout.h) gets an f32
    result encoded `#tile.mma`, its accumulator converted in and its result
    converted out with `tile.convert_layout` (a 16-bit result rounded
    after). An accumulator carried by an `scf.for` whose body only feeds it
    to such dots and yields their result then stays in the fragments across
    the loop: converted once before the loop and once after it, not on
    every iteration. The other dots stay on CUDA cores.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def PipelineDots : Pass<"dslc-pipeline-dots", "mlir::ModuleOp"> {
  let summary = "Tensor-core K loops with their operand tiles copied ahead";
  let description = [{
    For every `tile.kernel` function with `#tile.dot_engine<mma_sync>` and
    `tile.num_stages` S >= 2 (3 when absent): an `scf.for` whose body is
    tensor-core `tile.dot`s (after -dslc-mma-layouts), the two `tile.load`s
    of bf16/f16 tiles that feed each (K a multiple of 16, rows of whole
    16-byte units) and side-effect-free scalar code is software pipelined:
    the loads become `tile.async_copy`s into rings of S stages in the
    shared workspace (#tile.staged), issued S - 1 iterations ahead, and
    the dots `tile.staged_dot`s on the current stage, with
    `tile.async_commit` / `tile.async_wait` between
    (compiler/Conversion/PipelineDots.cpp). Fewer stages where S would not
    fit in shared memory; a warning where two would not. On wgmma
    (`#tile.dot_engine<wgmma>`, S >= 3), a product whose accumulator is
    only carried by the loop stays in flight one iteration (`pending = 1`,
    `tile.dot_wait` after the loop) and the copies run S - 2 ahead.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def IssueLoadsEarly : Pass<"dslc-issue-loads-early", "mlir::ModuleOp"> {
  let summary = "Global loads issued before the reductions that precede them";
  let description = [{
    In every `tile.kernel` function, each `tile.load` of at most
    `max-bytes-per-thread` bytes a thread moves up its block over
    side-effect-free ops (reductions, element-wise math, broadcasts, other
    loads), stopping at the op that defines one of its operands, at any op
    that may write memory or synchronize (stores, atomics, comm ops, loops,
    branches) and at matrix products, and lands just above the earliest op
    on its way that may wait at a barrier (a reduction, a layout change
    through shared memory) or gathers (`tile.gather`, whose addresses wait
    for values loaded before it; loads of any size climb over gathers and
    their index math); none: it stays; loads of tensors the kernel
    wrote before (ordered by a barrier) stay. A load after a reduction
    (RMSNorm's weight, LayerNorm's weight and bias) is then in flight while
    the reduction's barriers wait, which neither LLVM nor ptxas does across
    bar.sync (compiler/Conversion/IssueLoadsEarly.cpp). A move of more than
    kNarrowEarlyLoadBytes a thread marks the module `dslc.wide_early_loads`:
    where ptxas then spills, dslc compiles again at that narrower bound.
  }];
  let options = [
    Option<"maxBytesPerThread", "max-bytes-per-thread", "int64_t",
           /*default=*/"::dslc::kWideEarlyLoadBytes",
           "The largest load (bytes a thread) moved">,
  ];
}

def PrefetchLoads : Pass<"dslc-prefetch-loads", "mlir::ModuleOp"> {
  let summary = "Loads of a loop over a row's chunks issued iterations ahead";
  let description = [{
    In every `tile.kernel` function with `tile.num_stages` S >= 2
    (contract::kDefaultLoopStages when absent), each innermost `scf.for`
    without matrix products keeps the `tile.load`s of its body whose
    operands its body computes from the induction variable and outside
    values by side-effect-free ops, and which nothing in the loop may
    write (stores into other parameters may not; communication may), S - 1
    iterations ahead in registers: loads of the first S - 1 iterations
    before the loop, and in each iteration, first, the load of the
    iteration S - 1 ahead (its first limit 0 past the loop's end: nothing
    read), carried by the loop. At most `max-bytes-per-thread` bytes a
    thread ahead per loop (fewer stages, or none). Sets
    `dslc.prefetched_loads` on the module when it issued one
    (compiler/Conversion/PrefetchLoads.cpp).
  }];
  let options = [
    Option<"maxBytesPerThread", "max-bytes-per-thread", "int64_t",
           /*default=*/"::dslc::kPrefetchBytes",
           "The most bytes a thread holds ahead in one loop">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def SinkInvariantLoads : Pass<"dslc-sink-invariant-loads", "mlir::ModuleOp"> {
  let summary = "Values loaded before a loop and used only in it, loaded "
                "again in each iteration";
  let description = [{
    In every `tile.kernel` function, a tile value that an `scf.for` uses,
    defined outside the loop by side-effect-free ops without regions from
    at least one `tile.load` that nothing in the function may write
    (lower::mayClobber) and that is not ordered after the kernel's own
    writes (`tile.cta_ordered`), each of whose results is used only by
    that computation or in the loop, is computed again in the loop's body,
    right before the body's op that first uses it; the originals are then
    dead and erased. A value held across a loop (LayerNorm's backward holds
    its weight row while it reads row after row) costs registers in every
    iteration; loading it again costs an L1/L2 read per iteration. With
    `apply` false the pass changes nothing. Either way it sets
    `dslc.sinkable_loads` on the module when it found such a value: the
    driver applies it only when compiling again a kernel ptxas spilled
    (compiler/Pipeline/Backend.cpp; compiler/Conversion/SinkInvariantLoads.cpp).
  }];
  let options = [
    Option<"apply", "apply", "bool", /*default=*/"true",
           "Load the values again in the loop (false: only mark the module)">,
  ];
}

def LowerToLLVM : Pass<"dslc-lower-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower per-thread scf/arith/vector/func code to the LLVM dialect";
  let description = [{
    Converts the output of -dslc-distribute-tiles to LLVM and NVVM ops only,
    marks kernels `nvvm.kernel` with `nvvm.maxntid`, ready for translation
    to LLVM IR.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::cf::ControlFlowDialect"];
}

def DivideWithoutCalls : Pass<"dslc-divide-without-calls", "mlir::ModuleOp"> {
  let summary = "Divisions ptxas would make calls of, in wgmma kernels";
  let description = [{
    A call anywhere in a function makes ptxas serialize its wgmma products.
    In every llvm.func, f32 divisions with `afn` (-dslc-narrowed-fast-math)
    become div.full.f32. In every llvm.func marked `dslc.without_calls` (LowerToLLVM marks the
    kernels on wgmma): f32 divisions become div.full.f32; 64-bit integer
    divisions and remainders by a non-constant divide in 32 bits when both
    operands fit, else by a 64-step shift-and-subtract loop (signs fixed
    after for sdiv/srem). The marker is removed.
  }];
}

#endif // DSLC_COMPILER_CONVERSION_PASSES_TD
