//===- NpyFormat.cpp - The .npy files of a simulation dump ----------------===//

#include "contract/NpyFormat.h"

#include <cstring>

namespace dslc::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// Skips spaces at `pos` of `s`.
void skipSpace(const std::string &s, size_t &pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n'))
    ++pos;
}

/// The value text after `'key':` in the header dictionary, up to the next
/// top-level comma or the closing brace ("(3, 4)" keeps its commas).
bool valueOf(const std::string &dict, const std::string &key,
             std::string &value) {
  size_t at = dict.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  size_t pos = dict.find(':', at);
  if (pos == std::string::npos)
    return false;
  ++pos;
  skipSpace(dict, pos);
  size_t end = pos;
  int depth = 0;
  for (; end < dict.size(); ++end) {
    char c = dict[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  value = dict.substr(pos, end - pos);
  while (!value.empty() && value.back() == ' ')
    value.pop_back();
  return true;
}

bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  shape.clear();
  size_t pos = 1;
  while (true) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == ','))
      ++pos;
    if (pos >= text.size() - 1)
      return true;
    int64_t v = 0;
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (v > (INT64_MAX - 9) / 10)
        return false;
      v = v * 10 + (text[pos++] - '0');
    }
    if (pos == start)
      return false;
    shape.push_back(v);
  }
}

} // namespace

std::string descrOf(const std::string &dtype) {
  static const std::pair<const char *, const char *> table[] = {
      {"float32", "<f4"},  {"float16", "<f2"},       {"float64", "<f8"},
      {"bfloat16", "<u2"}, {"float8_e4m3fn", "|u1"}, {"float8_e5m2", "|u1"},
      {"int8", "|i1"},     {"uint8", "|u1"},         {"int16", "<i2"},
      {"uint16", "<u2"},   {"int32", "<i4"},         {"uint32", "<u4"},
      {"int64", "<i8"},    {"uint64", "<u8"},        {"bool", "|b1"},
  };
  for (auto &[name, descr] : table)
    if (dtype == name)
      return descr;
  return "";
}

std::string header(const std::string &descr,
                   const std::vector<int64_t> &shape) {
  std::string dims;
  for (size_t k = 0; k < shape.size(); ++k)
    dims += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) // a 1-tuple: "(3,)"
    dims += ",";
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims;
  dict += "), }";
  // Magic (6), version (2), length (2): the data starts at a multiple of
  // 64 bytes, after the dictionary padded with spaces and a newline.
  size_t unpadded = kMagicSize + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += char(dict.size() & 0xff);
  out += char((dict.size() >> 8) & 0xff);
  return out + dict;
}

bool parseHeader(const char *data, size_t size, Header &h, std::string &error) {
  if (size < kMagicSize + 4 || std::memcmp(data, kMagic, kMagicSize) != 0) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  unsigned major = uint8_t(data[6]);
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || size < 8 + lengthBytes) {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  size_t length = 0;
  for (size_t k = 0; k < lengthBytes; ++k)
    length |= size_t(uint8_t(data[8 + k])) << (8 * k);
  h.dataOffset = 8 + lengthBytes + length;
  if (h.dataOffset > size) {
    error = "the .npy header runs past the end of the file";
    return false;
  }
  std::string dict(data + 8 + lengthBytes, length);
  std::string descr, order, shape;
  if (!valueOf(dict, "descr", descr) ||
      !valueOf(dict, "fortran_order", order) ||
      !valueOf(dict, "shape", shape)) {
    error = "the .npy header lacks 'descr', 'fortran_order' or 'shape'";
    return false;
  }
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') {
    error = "the .npy header's descr " + descr + " is not a type string";
    return false;
  }
  h.descr = descr.substr(1, descr.size() - 2);
  h.fortranOrder = order == "True";
  if (!h.fortranOrder && order != "False") {
    error = "the .npy header's fortran_order is " + order;
    return false;
  }
  if (!parseShape(shape, h.shape)) {
    error = "the .npy header's shape " + shape + " is not a tuple of sizes";
    return false;
  }
  return true;
}

} // namespace dslc::npy
