//===- CommOps.td - Comm dialect: types and operations -----*- tablegen -*-===//
//
// The Comm dialect holds what crosses GPUs: stack (multicast) tensors that
// name one buffer on every peer, signal/wait on flag pads with Helion's memory
// semantics, LL packets (data and flag in one store) and multicast access.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_DIALECTS_COMM_COMMOPS_TD
#define DSLC_DIALECTS_COMM_COMMOPS_TD

include "dialects/Tile/TileDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::dslc::comm";
  let summary = "Communication between the GPUs of a job";
  let dependentDialects = ["::dslc::tile::TileDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

def Comm_StackType : TypeDef<Comm_Dialect, "Stack"> {
  let mnemonic = "stack";
  let summary = "!comm.stack: one tensor per peer";
  let description = [{
    `!comm.stack<i32, 2>` names a 2-d int32 tensor that lives on every peer
    at its own address (a table of peer addresses in device memory); all
    peers' tensors have the same sizes. Storing into it writes every peer.
  }];
  let parameters = (ins "::mlir::Type":$elementType, "unsigned":$rank);
  let assemblyFormat = "`<` $elementType `,` $rank `>`";
  let genVerifyDecl = 1;
}

def Comm_ScopeAttr : I32EnumAttr<"MemScope", "memory scope", [
    I32EnumAttrCase<"gpu", 0>, I32EnumAttrCase<"sys", 1>]> {
  let cppNamespace = "::dslc::comm";
  let genSpecializedAttr = 0;
}
def Comm_Scope : EnumAttr<Comm_Dialect, Comm_ScopeAttr, "scope">;

def Comm_SemAttr : I32EnumAttr<"MemSem", "memory ordering", [
    I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
    I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::dslc::comm";
  let genSpecializedAttr = 0;
}
def Comm_Sem : EnumAttr<Comm_Dialect, Comm_SemAttr, "sem">;

def Comm_MulticastModeAttr : I32EnumAttr<"MulticastMode", "multicast lowering", [
    I32EnumAttrCase<"software", 0>, I32EnumAttrCase<"nvls", 1>]> {
  let cppNamespace = "::dslc::comm";
  let genSpecializedAttr = 0;
}
def Comm_MulticastMode : EnumAttr<Comm_Dialect, Comm_MulticastModeAttr, "mode">;

def Comm_PadType : AnyTypeOf<[Tile_RefType, Comm_StackType],
    "a pad: a !tile.ref or a !comm.stack (of 32-bit integers)">;

//===----------------------------------------------------------------------===//
// Stack tensors
//===----------------------------------------------------------------------===//

def Comm_StackViewOp : Comm_Op<"stack_view", [Pure]> {
  let summary = "a stack tensor from a table of peer addresses";
  let description = [{
    `hl.stacktensor_like(like, table)`: a stack tensor of `like`'s element
    type and sizes whose peer `p` lives at address `table[p]`. The table is a
    1-d tensor of 64-bit addresses with one entry per peer.
  }];
  let arguments = (ins Tile_RefType:$table, Tile_RefType:$like);
  let results = (outs Comm_StackType:$result);
  let assemblyFormat = [{
    $table `,` $like attr-dict `:` qualified(type($table)) `,` qualified(type($like)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Comm_PeerOp : Comm_Op<"peer", [Pure]> {
  let summary = "the tensor of one peer of a stack tensor";
  let arguments = (ins Comm_StackType:$stack, Index:$peer);
  let results = (outs Tile_RefType:$result);
  let assemblyFormat = "$stack `[` $peer `]` attr-dict `:` qualified(type($stack)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Signal / wait
//===----------------------------------------------------------------------===//

def Comm_SignalOp : Comm_Op<"signal"> {
  let summary = "sets flags in a pad (of every peer, for a stack pad)";
  let description = [{
    Sets the slots `pad[indices + e]` for every `e` in the box `extents` to
    `signal`. With `has_previous_mem_access` the CTA first synchronizes
    (`bar.sync`) so that its earlier memory accesses are ordered before the
    flag. The flag is written with release ordering at `scope`
    (`atom.release.<scope>.exch`), or, with `wait_for`, by a CAS loop that
    replaces `wait_for` with `signal` (bounded by the kernel's timeout).
    One thread per slot (and per peer for a stack pad).
  }];
  let arguments = (ins Comm_PadType:$pad, Variadic<Index>:$indices,
                   DenseI64ArrayAttr:$extents, I64Attr:$signal,
                   OptionalAttr<I64Attr>:$wait_for, Comm_Scope:$scope,
                   Comm_Sem:$sem, BoolAttr:$has_previous_mem_access);
  let assemblyFormat = [{
    $pad `[` $indices `]` `extents` $extents attr-dict `:` qualified(type($pad))
  }];
  let hasVerifier = 1;
}

def Comm_WaitOp : Comm_Op<"wait"> {
  let summary = "spins until flags in the local pad equal a value";
  let description = [{
    One thread per slot of the box `pad[indices + e]`, `e` in `extents`,
    spins until its slot equals `signal` (`ld.acquire.<scope>`), or, with
    `update`, atomically replaces `signal` by `update`
    (`atom.acquire.<scope>.cas`). Then, with
    `has_subsequent_mem_access`, the CTA synchronizes (`bar.sync`). The spin
    is bounded by the kernel's timeout: on expiry the kernel records rank,
    source location, slot, expected and seen values and traps.
  }];
  let arguments = (ins Tile_RefType:$pad, Variadic<Index>:$indices,
                   DenseI64ArrayAttr:$extents, I64Attr:$signal,
                   OptionalAttr<I64Attr>:$update, Comm_Scope:$scope,
                   Comm_Sem:$sem, BoolAttr:$has_subsequent_mem_access);
  let assemblyFormat = [{
    $pad `[` $indices `]` `extents` $extents attr-dict `:` qualified(type($pad))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// LL packets
//===----------------------------------------------------------------------===//

def Comm_LLPutOp : Comm_Op<"ll_put", [MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile as LL packets (data and flag in one store)";
  let description = [{
    Writes `value` into `scratch` as packets starting at packet index
    `slot`: with `packet = 8` each packet is one 8-byte store of 4 data bytes
    and the 32-bit `flag`; with `packet = 16` one 16-byte store
    (`st.volatile.global.v4.b32`) of 8 data bytes, each 4 followed by
    `flag`. A reader polling the flags sees data and flag together, so no
    fence or barrier is needed. `scratch` is usually a peer's buffer
    (`comm.peer`); its element type is ignored, its size is in packets' bytes.
  }];
  let arguments = (ins Tile_TileTensor:$value, Tile_RefType:$scratch,
                   Index:$slot, I32:$flag, I64Attr:$packet);
  let assemblyFormat = [{
    $value `,` $scratch `[` $slot `]` `flag` $flag attr-dict `:` qualified(type($value)) `,` qualified(type($scratch))
  }];
  let hasVerifier = 1;
}

def Comm_LLGetOp : Comm_Op<"ll_get", [MemoryEffects<[MemRead]>]> {
  let summary = "reads a tile of LL packets, polling until their flags arrive";
  let description = [{
    The converse of `comm.ll_put` on the local scratch: each thread polls
    its packets (`ld.volatile.global`) until every flag equals `flag`, then
    takes the data. Bounded by the kernel's timeout like `comm.wait`.
  }];
  let arguments = (ins Tile_RefType:$scratch, Index:$slot, I32:$flag,
                   I64Attr:$packet);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $scratch `[` $slot `]` `flag` $flag attr-dict `:` qualified(type($scratch)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Comm_EpochOp : Comm_Op<"epoch", [MemoryEffects<[MemRead]>]> {
  let summary = "this launch's flag value for the current CTA";
  let description = [{
    A per-CTA counter kept in the kernel's device state: 1 on the first
    launch, advancing by one per launch inside the kernel (so repeated calls
    and CUDA-graph replays need no host reset). Use it as the LL flag and
    its parity to double-buffer scratch.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

//===----------------------------------------------------------------------===//
// Multicast
//===----------------------------------------------------------------------===//

def Comm_MulticastStoreOp : Comm_Op<"multicast_store", [AttrSizedOperandSegments,
                                                        MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile into every peer's tensor";
  let description = [{
    Like `tile.store` on each peer of the stack. `software` stores to each
    peer in turn; `nvls` emits `multimem.st` on a multicast address (needs
    an NVLink multicast object: compiled, never run on shared machines).
  }];
  let arguments = (ins Tile_TileTensor:$value, Comm_StackType:$stack,
                   Variadic<Index>:$offsets, Variadic<Index>:$limits,
                   DenseI64ArrayAttr:$dims, Comm_MulticastMode:$mode);
  let assemblyFormat = [{
    $value `,` $stack `[` $offsets `]` `limits` `[` $limits `]` attr-dict `:` qualified(type($value)) `,` qualified(type($stack))
  }];
  let hasVerifier = 1;
}

def Comm_MulticastLoadReduceOp : Comm_Op<"multicast_load_reduce",
                                         [AttrSizedOperandSegments,
                                          MemoryEffects<[MemRead]>]> {
  let summary = "loads a tile from every peer and sums it";
  let description = [{
    The sum over peers of `tile.load` on each peer of the stack, accumulated
    in f32 for 16-bit floats. `software` loads every peer; `nvls` emits
    `multimem.ld_reduce.add` (compiled, never run on shared machines).
  }];
  let arguments = (ins Comm_StackType:$stack, Variadic<Index>:$offsets,
                   Variadic<Index>:$limits, DenseI64ArrayAttr:$dims,
                   Comm_MulticastMode:$mode);
  let results = (outs Tile_TileTensor:$result);
  let assemblyFormat = [{
    $stack `[` $offsets `]` `limits` `[` $limits `]` attr-dict `:` qualified(type($stack)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // DSLC_DIALECTS_COMM_COMMOPS_TD
