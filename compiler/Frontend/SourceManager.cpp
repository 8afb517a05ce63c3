//===- SourceManager.cpp - Source buffers and locations -------------------===//

#include "compiler/Frontend/SourceManager.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace dslc {

SourceBuffer::SourceBuffer(std::string name, std::string text)
    : name(std::move(name)), text(std::move(text)) {
  lineStarts.push_back(0);
  const std::string &t = this->text;
  for (size_t i = 0, e = t.size(); i < e; ++i) {
    if (t[i] == '\r') {
      if (i + 1 < e && t[i + 1] == '\n')
        ++i;
      lineStarts.push_back(i + 1);
    } else if (t[i] == '\n') {
      lineStarts.push_back(i + 1);
    }
  }
}

std::string_view SourceBuffer::getLine(unsigned line) const {
  if (line == 0 || line > lineStarts.size())
    return {};
  size_t begin = lineStarts[line - 1];
  size_t end = begin;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r')
    ++end;
  return std::string_view(text).substr(begin, end - begin);
}

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  buffers.push_back(
      std::make_unique<SourceBuffer>(std::move(name), std::move(text)));
  return buffers.size();
}

uint32_t SourceManager::addFile(const std::string &path, std::string &error) {
  FILE *f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::strerror(errno);
    return 0;
  }
  std::string text;
  char chunk[65536];
  bool tooLarge = false;
  for (;;) {
    size_t n = std::fread(chunk, 1, sizeof(chunk), f);
    if (n == 0)
      break;
    if (text.size() + n > kMaxFileSize) {
      tooLarge = true;
      break;
    }
    text.append(chunk, n);
  }
  bool readError = std::ferror(f);
  int savedErrno = errno;
  if (f != stdin)
    std::fclose(f);
  if (tooLarge) {
    error = "file is larger than the limit of " +
            std::to_string(kMaxFileSize >> 20) + " MiB";
    return 0;
  }
  if (readError) {
    error = std::strerror(savedErrno);
    return 0;
  }
  return addBuffer(path == "-" ? "<stdin>" : path, std::move(text));
}

const SourceBuffer *SourceManager::getBuffer(uint32_t fileId) const {
  if (fileId == 0 || fileId > buffers.size())
    return nullptr;
  return buffers[fileId - 1].get();
}

const std::string &SourceManager::getFileName(uint32_t fileId) const {
  static const std::string empty;
  const SourceBuffer *buf = getBuffer(fileId);
  return buf ? buf->getName() : empty;
}

} // namespace dslc
