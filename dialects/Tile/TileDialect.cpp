//===- TileDialect.cpp - Tile dialect, types and op verifiers ------------===//

#include "dialects/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dslc::tile;

#include "dialects/Tile/TileDialect.cpp.inc"
#include "dialects/Tile/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Tile/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tile/TileAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Tile/TileOps.cpp.inc"

void TileDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Tile/TileOps.cpp.inc"
      >();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Tile/TileTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

bool dslc::tile::isFp8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

bool dslc::tile::takesTensorCores(Type element, bool allowTf32) {
  return element.isBF16() || element.isF16() || isFp8Type(element) ||
         (allowTf32 && element.isF32());
}

std::optional<dslc::tile::Eviction> dslc::tile::loadEviction(Operation *load) {
  if (auto l = dyn_cast<LoadOp>(load))
    return l.getEvict();
  if (auto g = dyn_cast<GatherOp>(load))
    return g.getEvict();
  return std::nullopt;
}

void dslc::tile::setLoadEviction(Operation *load,
                                 std::optional<Eviction> evict) {
  EvictionAttr attr =
      evict ? EvictionAttr::get(load->getContext(), *evict) : EvictionAttr();
  if (auto l = dyn_cast<LoadOp>(load))
    l.setEvictAttr(attr);
  else if (auto g = dyn_cast<GatherOp>(load))
    g.setEvictAttr(attr);
}

SmallVector<int64_t> dslc::tile::reducedRowExtents(Block &body) {
  SmallVector<int64_t> extents;
  for (Operation &op : body)
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      RankedTensorType in = reduce.getInput().getType();
      if (static_cast<int64_t>(reduce.getDim()) + 1 == in.getRank() &&
          in.hasStaticShape() &&
          !llvm::is_contained(extents, in.getShape().back()))
        extents.push_back(in.getShape().back());
    }
  return extents;
}

bool dslc::tile::isStorageElementType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
  return isFp8Type(type) ||
         isa<BFloat16Type, Float16Type, Float32Type, Float64Type>(type);
}

LogicalResult
dslc::tile::verifyMemoryTensorType(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef typeName, Type elementType,
                                   unsigned rank) {
  if (!elementType)
    return emitError() << typeName << " needs an element type";
  if (!isStorageElementType(elementType))
    return emitError() << typeName
                       << " element type must be an integer of 1, 8, 16, 32 "
                          "or 64 bits, bf16, f16, f32, f64, f8E4M3FN or "
                          "f8E5M2 (index has no size in memory), got "
                       << elementType;
  if (rank == 0 || rank > 8)
    return emitError() << typeName << " rank must be between 1 and 8, got "
                       << rank;
  return success();
}

LogicalResult RefType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type elementType, unsigned rank) {
  return verifyMemoryTensorType(emitError, "!tile.ref", elementType, rank);
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Tile/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// The contract's attributes
//===----------------------------------------------------------------------===//

/// Parses a keyword and looks it up with `parse` (one of the contract's
/// parsers); `what` and `choices` go into the error.
template <typename T, typename Parse>
static FailureOr<T> parseContractKeyword(AsmParser &p, Parse parse,
                                         StringRef what, StringRef choices) {
  SMLoc loc = p.getCurrentLocation();
  StringRef word;
  if (failed(p.parseKeyword(&word)))
    return failure();
  if (std::optional<T> v = parse(word.str()))
    return *v;
  return p.emitError(loc) << "unknown " << what << " '" << word << "' ("
                          << choices << ")";
}

FailureOr<dslc::contract::Role> dslc::tile::parseContractRole(AsmParser &p) {
  return parseContractKeyword<contract::Role>(
      p, contract::parseRole, "role",
      "input, output, inout, scratch, signal_pad, peer_table, scalar, "
      "unused or peers");
}

FailureOr<dslc::contract::SlotKind>
dslc::tile::parseContractSlotKind(AsmParser &p) {
  return parseContractKeyword<contract::SlotKind>(
      p, contract::parseSlotKind, "slot kind",
      "data, size, peers, scalar, timeout, error or state");
}

FailureOr<dslc::contract::SlotType>
dslc::tile::parseContractSlotType(AsmParser &p) {
  return parseContractKeyword<contract::SlotType>(
      p, contract::parseSlotType, "slot type", "ptr, i64 or f32");
}

LogicalResult RoleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               contract::Role role, StringAttr of) {
  bool names =
      role == contract::Role::PeerTable || role == contract::Role::Peers;
  if (role == contract::Role::Constexpr)
    return emitError() << "a constexpr is compiled in, not an argument";
  if (names && (!of || of.getValue().empty()))
    return emitError() << "role '" << contract::roleName(role)
                       << "' names the parameter whose peers it lists: "
                          "#tile.role<"
                       << contract::roleName(role) << " of \"NAME\">";
  if (!names && of)
    return emitError() << "role '" << contract::roleName(role)
                       << "' names no other parameter";
  return success();
}

LogicalResult AbiSlotAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef name, contract::SlotKind kind,
                                  contract::SlotType type, StringAttr param,
                                  std::optional<unsigned> dim) {
  contract::AbiSlot slot;
  slot.name = name.str();
  slot.kind = kind;
  slot.type = type;
  slot.param = param ? param.getValue().str() : "";
  slot.dim = dim ? static_cast<int>(*dim) : -1;
  contract::Expected<bool> ok = contract::checkSlotShape(slot);
  if (!ok)
    return emitError() << "ABI slot '" << name << "': " << ok.error();
  if (name != contract::canonicalSlotName(slot))
    return emitError() << "ABI slot '" << name << "': a slot of kind '"
                       << contract::slotKindName(kind) << "' is named '"
                       << contract::canonicalSlotName(slot) << "'";
  return success();
}

dslc::contract::AbiSlot AbiSlotAttr::toContract() const {
  contract::AbiSlot slot;
  slot.name = getName().str();
  slot.kind = getKind();
  slot.type = getType();
  slot.param = getParam() ? getParam().getValue().str() : "";
  slot.dim = getDim() ? static_cast<int>(*getDim()) : -1;
  return slot;
}

RoleAttr dslc::tile::getArgRole(FunctionOpInterface func, unsigned index) {
  return func.getArgAttrOfType<RoleAttr>(index, kRoleAttr);
}

std::optional<int64_t> dslc::tile::getStaticSize(FunctionOpInterface func,
                                                 unsigned index, unsigned dim) {
  auto sizes =
      func.getArgAttrOfType<DenseI64ArrayAttr>(index, kStaticSizesAttr);
  if (!sizes || dim >= sizes.size() || sizes[dim] < 0)
    return std::nullopt;
  return sizes[dim];
}

std::vector<dslc::contract::AbiSlot> dslc::tile::getAbiSlots(Operation *func) {
  std::vector<contract::AbiSlot> slots;
  if (auto abi = func->getAttrOfType<ArrayAttr>(kAbiAttr))
    for (Attribute a : abi)
      if (auto slot = dyn_cast<AbiSlotAttr>(a))
        slots.push_back(slot.toContract());
  return slots;
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == kRoleAttr && !isa<RoleAttr>(attr.getValue()))
    return op->emitError() << "'" << kRoleAttr << "' of argument #" << argIndex
                           << " must be a #tile.role, got " << attr.getValue();
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kKernelAttr) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute, got "
             << attr.getValue();
    return success();
  }
  if (name == kNumWarpsAttr) {
    auto warps = dyn_cast<IntegerAttr>(attr.getValue());
    if (!warps || !isa<IntegerType>(warps.getType()))
      return op->emitError()
             << "'" << name << "' must be an integer attribute, got "
             << attr.getValue();
    int64_t n = warps.getValue().getSExtValue();
    if (!contract::isValidNumWarps(n))
      return op->emitError()
             << "'" << name << "' must be between 1 and "
             << contract::kMaxNumWarps << " (at most 1024 threads), got " << n;
    return success();
  }
  if (name == kArgNamesAttr) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return op->emitError()
             << "'" << name << "' must be an array of strings, got "
             << attr.getValue();
    return success();
  }
  if (name == kPeerCountAttr) {
    auto peers = dyn_cast<IntegerAttr>(attr.getValue());
    if (!peers || !isa<IntegerType>(peers.getType()))
      return op->emitError()
             << "'" << name << "' must be an integer attribute, got "
             << attr.getValue();
    if (peers.getValue().getSExtValue() < 1)
      return op->emitError() << "'" << name << "' must be positive, got "
                             << peers.getValue().getSExtValue();
    return success();
  }
  if (name == kAbiAttr) {
    auto slots = dyn_cast<ArrayAttr>(attr.getValue());
    if (!slots || !llvm::all_of(slots, llvm::IsaPred<AbiSlotAttr>))
      return op->emitError()
             << "'" << name << "' must be an array of #tile.abi_slot, got "
             << attr.getValue();
    return success();
  }
  if (name == kDotEngineAttr) {
    if (!isa<DotEngineAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a #tile.dot_engine, got "
             << attr.getValue();
    return success();
  }
  // Other `tile.*` attributes are left to the passes that use them.
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// Prints a list of integers as `[a, b, c]`.
static std::string listStr(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

LogicalResult DimOp::verify() {
  int64_t dim = getDim();
  RefType ref = getRef().getType();
  int64_t rank = ref.getRank();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dimension " << dim << " is out of range for "
                         << ref << ": expected 0 <= dim < " << rank;
  return success();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  // A kernel parameter's size that every launch checks is a constant.
  auto arg = dyn_cast<BlockArgument>(getRef());
  if (!arg || !arg.getOwner()->isEntryBlock())
    return {};
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func)
    return {};
  std::optional<int64_t> size =
      getStaticSize(func, arg.getArgNumber(), unsigned(getDim()));
  if (!size)
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), *size);
}

Value dslc::tile::viewedTensor(Value ref) {
  while (auto view = ref.getDefiningOp<ViewOp>())
    ref = view.getRef();
  return ref;
}

LogicalResult ViewOp::verify() {
  RefType from = getRef().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "changes the element type from "
                         << from.getElementType() << " to "
                         << to.getElementType()
                         << ": a view keeps its tensor's element type";
  if (getSizes().size() != to.getRank())
    return emitOpError() << "gives " << getSizes().size() << " size(s) for "
                         << to << ": expected one per dimension ("
                         << to.getRank() << ")";
  return success();
}

LogicalResult GridBarrierOp::verify() {
  // At the kernel's top level: the function is the parent, the module its.
  Operation *parent = (*this)->getParentOp();
  if (!parent || !isa_and_nonnull<ModuleOp>(parent->getParentOp()))
    return emitOpError("must be at the kernel's top level, between two "
                       "'tile.grid' ops (a grid-wide barrier inside a tile "
                       "loop would wait for CTAs that skip it)");
  bool before = false, after = false;
  for (Operation *op = (*this)->getPrevNode(); op; op = op->getPrevNode())
    before |= isa<GridOp>(op);
  for (Operation *op = (*this)->getNextNode(); op; op = op->getNextNode())
    after |= isa<GridOp>(op);
  if (!before || !after)
    return emitOpError("must be between two 'tile.grid' ops (it orders the "
                       "grid before it against the grid after it)");
  return success();
}

LogicalResult GridOp::verify() {
  if (auto outer = (*this)->getParentOfType<GridOp>()) {
    InFlightDiagnostic diag =
        emitOpError() << "cannot be nested in another 'tile.grid' (only the "
                         "outermost tile loop is a grid)";
    diag.attachNote(outer.getLoc()) << "enclosing 'tile.grid' is here";
    return diag;
  }
  ArrayRef<int64_t> blocks = getBlocks();
  if (blocks.empty())
    return emitOpError("needs at least one dimension, got no block sizes");
  if (blocks.size() != getExtents().size())
    return emitOpError() << "needs one block size per extent: "
                         << getExtents().size() << " extents but "
                         << blocks.size() << " block sizes";
  for (auto [i, b] : llvm::enumerate(blocks))
    if (b <= 0)
      return emitOpError() << "block size of dimension " << i
                           << " must be positive, got " << b;
  Block &body = getBody().front();
  if (body.getNumArguments() != blocks.size())
    return emitOpError() << "body must have " << blocks.size()
                         << " index arguments (one per dimension), has "
                         << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return emitOpError() << "body argument #" << arg.getArgNumber()
                           << " must be of index type, got " << arg.getType();
  return success();
}

/// Checks a tile operand or result (`what`: "tile", "input tile", ...):
/// static shape, rank at most kMaxTileRank.
static LogicalResult verifyTileShape(Operation *op, StringRef what,
                                     RankedTensorType tile) {
  if (!tile.hasStaticShape())
    return op->emitOpError() << what << " shape must be static, got " << tile;
  if (tile.getRank() > kMaxTileRank)
    return op->emitOpError()
           << what << " has rank " << tile.getRank() << "; tiles have at most "
           << kMaxTileRank << " dimensions";
  return success();
}

/// Checks the map `dims` from tile dimensions to dimensions of a tensor of
/// rank `rank` in memory: one entry per tile dimension, strictly increasing,
/// each in [0, rank).
static LogicalResult verifyDims(Operation *op, unsigned rank,
                                RankedTensorType tile, ArrayRef<int64_t> dims) {
  if (dims.size() != static_cast<size_t>(tile.getRank()))
    return op->emitOpError()
           << "tile of rank " << tile.getRank() << " needs " << tile.getRank()
           << " entries in 'dims', got " << dims.size() << " " << listStr(dims);
  int64_t prev = -1;
  for (int64_t d : dims) {
    if (d <= prev || d >= static_cast<int64_t>(rank))
      return op->emitOpError()
             << "'dims' must be strictly increasing dimensions in [0, " << rank
             << "), got " << listStr(dims);
    prev = d;
  }
  return success();
}

LogicalResult dslc::tile::verifyTileAccess(Operation *op, StringRef what,
                                           Type memElement, unsigned rank,
                                           RankedTensorType tile,
                                           size_t numOffsets, size_t numLimits,
                                           ArrayRef<int64_t> dims) {
  if (failed(verifyTileShape(op, "tile", tile)))
    return failure();
  if (numOffsets != rank)
    return op->emitOpError()
           << "needs " << rank << " offsets (one per "
           << "dimension of the " << what << "), got " << numOffsets;
  if (numLimits != rank)
    return op->emitOpError()
           << "needs " << rank << " limits (one per "
           << "dimension of the " << what << "), got " << numLimits;
  if (failed(verifyDims(op, rank, tile, dims)))
    return failure();
  if (tile.getElementType() != memElement)
    return op->emitOpError()
           << "tile element type " << tile.getElementType()
           << " does not match the " << what << " element type " << memElement;
  return success();
}

LogicalResult LoadOp::verify() {
  auto tile = getResult().getType();
  RefType ref = getRef().getType();
  if (failed(verifyTileAccess(*this, "ref", ref.getElementType(), ref.getRank(),
                              tile, getOffsets().size(), getLimits().size(),
                              getDims())))
    return failure();
  if (TypedAttr other = getOtherAttr()) {
    if (!isa<IntegerAttr, FloatAttr>(other))
      return emitOpError() << "'other' must be an integer or float scalar, "
                              "got "
                           << other;
    if (other.getType() != tile.getElementType())
      return emitOpError() << "'other' must be of the element type "
                           << tile.getElementType() << ", got "
                           << other.getType();
  }
  return success();
}

/// What tile.gather and tile.scatter share: one index tile per dimension
/// of the ref, integer, of the data tile's shape; the mask i1 of that shape.
static LogicalResult verifyIndexed(Operation *op, RefType ref,
                                   RankedTensorType data, ValueRange indices,
                                   Value mask) {
  if (failed(verifyTileShape(op, "tile", data)))
    return failure();
  if (data.getElementType() != ref.getElementType())
    return op->emitOpError()
           << "element type " << data.getElementType()
           << " differs from the ref's " << ref.getElementType();
  if (indices.size() != ref.getRank())
    return op->emitOpError()
           << "has " << indices.size() << " index tile(s) for " << ref
           << ": expected one per dimension (" << ref.getRank() << ")";
  for (Value v : indices) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() != data.getShape() ||
        !isa<IntegerType, IndexType>(t.getElementType()))
      return op->emitOpError() << "index tile " << t
                               << " must be integers of the shape of " << data;
  }
  if (mask) {
    auto t = cast<RankedTensorType>(mask.getType());
    if (t.getShape() != data.getShape() || !t.getElementType().isInteger(1))
      return op->emitOpError()
             << "mask " << t << " must be i1 of the shape of " << data;
  }
  return success();
}

LogicalResult GatherOp::verify() {
  return verifyIndexed(*this, getRef().getType(), getResult().getType(),
                       getIndices(), getMask());
}

LogicalResult ScatterOp::verify() {
  return verifyIndexed(*this, getRef().getType(), getValue().getType(),
                       getIndices(), getMask());
}

LogicalResult AtomicOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(verifyIndexed(*this, getRef().getType(), value, getIndices(),
                           getMask())))
    return failure();
  Type element = value.getElementType();
  bool isInt = isa<IntegerType>(element) && !element.isInteger(1);
  bool isFloat =
      element.isF16() || element.isBF16() || element.isF32() || element.isF64();
  if (!isInt && !isFloat)
    return emitOpError() << "updates integers of 8 to 64 bits or bf16, f16, "
                            "f32, f64 elements, got "
                         << element;
  AtomicKind kind = getKind();
  if (!isInt && (kind == AtomicKind::andi || kind == AtomicKind::ori ||
                 kind == AtomicKind::xori))
    return emitOpError() << "'" << stringifyAtomicKind(kind)
                         << "' updates integer elements, got " << element;
  return success();
}

LogicalResult StoreOp::verify() {
  RefType ref = getRef().getType();
  return verifyTileAccess(*this, "ref", ref.getElementType(), ref.getRank(),
                          getValue().getType(), getOffsets().size(),
                          getLimits().size(), getDims());
}

LogicalResult SplatOp::verify() {
  Type value = getValue().getType();
  RankedTensorType result = getResult().getType();
  if (!value.isIntOrIndexOrFloat())
    return emitOpError() << "value must be an integer, index or float "
                            "scalar, got "
                         << value;
  if (value != result.getElementType())
    return emitOpError() << "scalar of type " << value
                         << " cannot fill a tile of element type "
                         << result.getElementType();
  if (!result.hasStaticShape())
    return emitOpError() << "tile shape must be static, got " << result;
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1 || !type.hasStaticShape())
    return emitOpError() << "result must be a static 1-d tile, got " << type;
  return success();
}

bool ReduceOp::isKeepDim() {
  auto result = dyn_cast<RankedTensorType>(getResult().getType());
  return result && result.getRank() == getInput().getType().getRank();
}

LogicalResult ReduceOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyTileShape(*this, "input tile", input)))
    return failure();
  Type element = input.getElementType();
  if (!element.isIntOrFloat())
    return emitOpError() << "can only reduce integer or float tiles, got "
                         << input;
  if (isFp8Type(element))
    return emitOpError() << "cannot reduce a tile of " << element
                         << " (a storage type): convert it to f32 first";
  int64_t dim = getDim();
  if (dim < 0 || dim >= input.getRank())
    return emitOpError() << "dimension " << dim << " is out of range for a "
                         << input.getRank() << "-d tile: expected 0 <= dim < "
                         << input.getRank();
  Type result = getResult().getType();
  SmallVector<int64_t> keep(input.getShape());
  keep[dim] = 1;
  auto keepType = RankedTensorType::get(keep, element);
  SmallVector<int64_t> removed(input.getShape());
  removed.erase(removed.begin() + dim);
  auto removedType = RankedTensorType::get(removed, element);
  if (result == keepType || result == removedType)
    return success();
  if (input.getRank() == 1 && result == element)
    return success();
  InFlightDiagnostic diag = emitOpError() << "result must be " << keepType
                                          << " (keepdim) or " << removedType;
  if (input.getRank() == 1)
    diag << " or " << element;
  diag << " (" << input << " reduced along dimension " << dim << "), got "
       << result;
  return diag;
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifyTileShape(*this, "input tile", input)) ||
      failed(verifyTileShape(*this, "result tile", result)))
    return failure();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type " << result.getElementType()
                         << " of the result differs from the input's "
                         << input.getElementType();
  if (input.getRank() != result.getRank())
    return emitOpError() << "input " << input << " and result " << result
                         << " must have the same rank (insert unit "
                            "dimensions with 'tile.reshape' first)";
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t from = input.getDimSize(d), to = result.getDimSize(d);
    if (from != to && from != 1)
      return emitOpError() << "dimension " << d << " of the input has extent "
                           << from << ", which cannot be broadcast to " << to
                           << " (only extent 1 is repeated)";
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifyTileShape(*this, "input tile", input)) ||
      failed(verifyTileShape(*this, "result tile", result)))
    return failure();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type " << result.getElementType()
                         << " of the result differs from the input's "
                         << input.getElementType();
  if (input.getNumElements() != result.getNumElements())
    return emitOpError() << "changes the element count: " << input << " has "
                         << input.getNumElements() << ", " << result << " has "
                         << result.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifyTileShape(*this, "input tile", input)) ||
      failed(verifyTileShape(*this, "result tile", result)))
    return failure();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type " << result.getElementType()
                         << " of the result differs from the input's "
                         << input.getElementType();
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<bool> seen(input.getRank(), false);
  if (int64_t(perm.size()) != input.getRank() ||
      result.getRank() != input.getRank())
    return emitOpError() << "permutation " << listStr(perm) << " of " << input
                         << " to " << result << ": expected one entry per "
                         << "dimension";
  for (auto [k, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= input.getRank() || seen[p])
      return emitOpError() << listStr(perm) << " is not a permutation of "
                           << "the " << input.getRank() << " dimensions";
    seen[p] = true;
    if (result.getDimSize(k) != input.getDimSize(p))
      return emitOpError() << "result dimension " << k << " of " << result
                           << " must be input dimension " << p << " of "
                           << input;
  }
  return success();
}

LogicalResult ShiftOp::verify() {
  RankedTensorType type = getInput().getType();
  if (failed(verifyTileShape(*this, "input tile", type)))
    return failure();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= type.getRank())
    return emitOpError() << "dimension " << dim << " is out of range for "
                         << type;
  int64_t offset = static_cast<int64_t>(getOffset());
  int64_t extent = type.getDimSize(dim);
  if (offset == 0 || offset >= extent || -offset >= extent)
    return emitOpError() << "offset " << offset << " along dimension " << dim
                         << " of " << type << " must be nonzero and less than "
                         << "its extent " << extent << " in magnitude";
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())))
    return getInput();
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Unit dimensions in and out compose: reshape(reshape(x)) = reshape(x).
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

namespace {
/// reshape(reduce(x, d) without d) back to the keepdim shape ->
/// reduce(x, d) keepdim. Other users of the reduction get a reshape of the
/// keepdim result.
struct ReshapeOfReduce : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto reduce = op.getInput().getDefiningOp<ReduceOp>();
    if (!reduce || reduce.isKeepDim())
      return failure();
    RankedTensorType input = reduce.getInput().getType();
    SmallVector<int64_t> keep(input.getShape());
    keep[reduce.getDim()] = 1;
    auto keepType = RankedTensorType::get(keep, input.getElementType());
    if (op.getType() != keepType)
      return failure();
    rewriter.setInsertionPoint(reduce);
    auto keepDim = ReduceOp::create(rewriter, reduce.getLoc(), keepType,
                                    reduce.getInput(), reduce.getDimAttr(),
                                    reduce.getKindAttr(), reduce.getValid());
    rewriter.replaceOp(op, keepDim.getResult());
    if (!reduce.use_empty()) {
      auto back =
          ReshapeOp::create(rewriter, reduce.getLoc(),
                            reduce.getResult().getType(), keepDim.getResult());
      rewriter.replaceOp(reduce, back.getResult());
    } else {
      rewriter.eraseOp(reduce);
    }
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ReshapeOfReduce>(context);
}
