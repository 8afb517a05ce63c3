//===- Metadata.cpp - What a compiled kernel tells its callers ------------===//
#include "contract/Metadata.h"

#include <array>
#include <cstdlib>
#include <utility>

namespace dslc::contract {

namespace {
/// Looks `name` up in a table of (value, spelling) pairs.
template <typename E, size_t N>
std::optional<E> lookup(const std::array<std::pair<E, const char *>, N> &table,
                        const std::string &name) {
  for (const auto &[value, spelling] : table)
    if (name == spelling)
      return value;
  return std::nullopt;
}

template <typename E, size_t N>
const char *spell(const std::array<std::pair<E, const char *>, N> &table,
                  E value) {
  for (const auto &[v, spelling] : table)
    if (v == value)
      return spelling;
  return "?";
}

constexpr std::array<std::pair<Role, const char *>, 10> kRoles = {{
    {Role::Input, "input"},
    {Role::Output, "output"},
    {Role::InOut, "inout"},
    {Role::Scratch, "scratch"},
    {Role::SignalPad, "signal_pad"},
    {Role::PeerTable, "peer_table"},
    {Role::Scalar, "scalar"},
    {Role::Constexpr, "constexpr"},
    {Role::Unused, "unused"},
    {Role::Peers, "peers"},
}};

constexpr std::array<std::pair<Access, const char *>, 4> kAccesses = {{
    {Access::None, "none"},
    {Access::Read, "read"},
    {Access::Write, "write"},
    {Access::ReadWrite, "readwrite"},
}};

constexpr std::array<std::pair<SlotType, const char *>, 3> kSlotTypes = {{
    {SlotType::Ptr, "ptr"},
    {SlotType::I64, "i64"},
    {SlotType::F32, "f32"},
}};

constexpr std::array<std::pair<SlotKind, const char *>, 7> kSlotKinds = {{
    {SlotKind::Data, "data"},
    {SlotKind::Size, "size"},
    {SlotKind::Peers, "peers"},
    {SlotKind::Scalar, "scalar"},
    {SlotKind::Timeout, "timeout"},
    {SlotKind::Error, "error"},
    {SlotKind::State, "state"},
}};
} // namespace

const char *roleName(Role role) { return spell(kRoles, role); }
std::optional<Role> parseRole(const std::string &name) {
  return lookup(kRoles, name);
}
const char *accessName(Access access) { return spell(kAccesses, access); }
std::optional<Access> parseAccess(const std::string &name) {
  return lookup(kAccesses, name);
}
const char *slotTypeName(SlotType type) { return spell(kSlotTypes, type); }
std::optional<SlotType> parseSlotType(const std::string &name) {
  return lookup(kSlotTypes, name);
}
const char *slotKindName(SlotKind kind) { return spell(kSlotKinds, kind); }
std::optional<SlotKind> parseSlotKind(const std::string &name) {
  return lookup(kSlotKinds, name);
}

bool isHidden(SlotKind kind) {
  return kind == SlotKind::Timeout || kind == SlotKind::Error ||
         kind == SlotKind::State;
}

const char *hiddenSlotName(SlotKind kind) {
  switch (kind) {
  case SlotKind::Timeout:
    return "__dslc_timeout_ns";
  case SlotKind::Error:
    return "__dslc_error";
  case SlotKind::State:
    return "__dslc_state";
  default:
    return "";
  }
}

SlotType hiddenSlotType(SlotKind kind) {
  return kind == SlotKind::Timeout ? SlotType::I64 : SlotType::Ptr;
}

std::string canonicalSlotName(const AbiSlot &slot) {
  switch (slot.kind) {
  case SlotKind::Size:
    return slot.param + ".size" + std::to_string(slot.dim);
  case SlotKind::Peers:
    return slot.param + ".peers";
  case SlotKind::Data:
  case SlotKind::Scalar:
    return slot.param;
  default:
    return hiddenSlotName(slot.kind);
  }
}

Expected<bool> checkSlotShape(const AbiSlot &slot) {
  std::string kind = slotKindName(slot.kind);
  auto typeIs = [&](std::initializer_list<SlotType> allowed) -> bool {
    for (SlotType t : allowed)
      if (slot.type == t)
        return true;
    return false;
  };
  std::string want;
  if (isHidden(slot.kind)) {
    if (!slot.param.empty())
      return Failure{"the hidden slot of kind '" + kind +
                     "' belongs to no parameter"};
    want = slotTypeName(hiddenSlotType(slot.kind));
    if (slot.type != hiddenSlotType(slot.kind))
      return Failure{std::string("type is '") + slotTypeName(slot.type) +
                     "', expected '" + want + "'"};
  } else {
    if (slot.param.empty())
      return Failure{"a slot of kind '" + kind + "' needs a parameter"};
    bool ok = slot.kind == SlotKind::Size ? typeIs({SlotType::I64})
              : slot.kind == SlotKind::Scalar
                  ? typeIs({SlotType::I64, SlotType::F32})
                  : typeIs({SlotType::Ptr});
    if (!ok)
      return Failure{std::string("type is '") + slotTypeName(slot.type) +
                     "', expected '" +
                     (slot.kind == SlotKind::Size     ? "i64"
                      : slot.kind == SlotKind::Scalar ? "i64' or 'f32"
                                                      : "ptr") +
                     "'"};
  }
  if (slot.kind == SlotKind::Size && slot.dim < 0)
    return Failure{"a size slot needs a dimension"};
  if (slot.kind != SlotKind::Size && slot.dim >= 0)
    return Failure{"a slot of kind '" + kind + "' has no dimension"};
  if (isHidden(slot.kind) && slot.name != canonicalSlotName(slot))
    return Failure{"a slot of kind '" + kind + "' must be named '" +
                   canonicalSlotName(slot) + "'"};
  return true;
}

const char *SameSize::relationName(Relation r) {
  switch (r) {
  case Relation::Eq:
    return "==";
  case Relation::Ge:
    return ">=";
  case Relation::Gt:
    return ">";
  }
  return "==";
}

std::optional<SameSize::Relation>
SameSize::parseRelation(const std::string &name) {
  for (Relation r : {Relation::Eq, Relation::Ge, Relation::Gt})
    if (name == relationName(r))
      return r;
  return std::nullopt;
}

std::string SameSize::problem(int64_t size, int64_t asSize) const {
  bool holds = relation == Relation::Eq   ? size == asSize
               : relation == Relation::Ge ? size >= asSize
                                          : size > asSize;
  if (holds)
    return "";
  std::string sizes = "'" + param + "' dim " + std::to_string(dim) + " is " +
                      std::to_string(size) + ", but '" + as + "' dim " +
                      std::to_string(asDim) + " is " + std::to_string(asSize);
  if (!asserted)
    return sizes + ": the kernel indexes both with one tile (at " + where +
           "), so their sizes must be equal";
  if (relation == Relation::Eq)
    return sizes + ": the kernel asserts they are equal (at " + where + ")";
  return sizes + ": the kernel asserts the first " +
         (relation == Relation::Ge ? "is at least" : "exceeds") +
         " the second (at " + where + ")";
}

std::optional<double> ArgSpec::scalarDefault() const {
  if (kind != Kind::Scalar || !value)
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(value->c_str(), &end);
  if (end == value->c_str() || *end)
    return std::nullopt;
  return v;
}

ArgSpec ArgSpec::output(std::string name, DType dtype, int rank,
                        std::string like) {
  ArgSpec a;
  a.name = std::move(name);
  a.dtype = dtype;
  a.rank = rank;
  a.like = std::move(like);
  a.isOutput = true;
  a.role = Role::Output;
  a.access = Access::Write;
  return a;
}

bool isPermutation(const std::vector<unsigned> &order) {
  std::vector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= seen.size() || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

const char *argKindName(const ArgSpec &arg) {
  switch (arg.kind) {
  case ArgSpec::Kind::Tensor:
    return "tensor";
  case ArgSpec::Kind::Scalar:
    return arg.dtype == DType::Int64 ? "int" : "float";
  case ArgSpec::Kind::Constexpr:
    return "constexpr";
  }
  return "?";
}

bool ViewDim::operator==(const ViewDim &o) const {
  if (!size || !o.size)
    return !size && !o.size;
  const GridExtent &a = *size, &b = *o.size;
  return a.param == b.param && a.dim == b.dim && a.scalar == b.scalar &&
         a.constant == b.constant && a.add == b.add && a.div == b.div;
}

int64_t GridExtent::apply(int64_t size) const {
  if (constant)
    return *constant;
  if (size + add < 0)
    return 0;
  return (size + add) / div; // div >= 1 (checked by the reader)
}

bool Constraint::holds(int64_t size, int64_t numTiles) const {
  int64_t v = valueWith(numTiles);
  if (op == "==")
    return size == v;
  if (op == "!=")
    return size != v;
  if (op == "<")
    return size < v;
  if (op == "<=")
    return size <= v;
  if (op == ">")
    return size > v;
  return size >= v;
}

int64_t saturatedNumel(const std::vector<int64_t> &sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s == 0)
      return 0;
    n = s > 0 && n > std::numeric_limits<int64_t>::max() / s
            ? std::numeric_limits<int64_t>::max()
            : n * s;
  }
  return n;
}

int KernelMetadata::findArg(const std::string &name) const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == name)
      return static_cast<int>(i);
  return -1;
}

} // namespace dslc::contract
