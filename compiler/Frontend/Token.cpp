//===- Token.cpp - Tokens of the Python-syntax tile language --------------===//

#include "compiler/Frontend/Token.h"

namespace dslc {

const char *getTokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::EndOfFile:
    return "end of file";
  case TokenKind::Newline:
    return "newline";
  case TokenKind::Indent:
    return "indent";
  case TokenKind::Dedent:
    return "dedent";
  case TokenKind::Identifier:
    return "identifier";
  case TokenKind::Integer:
    return "integer literal";
  case TokenKind::Float:
    return "float literal";
  case TokenKind::String:
    return "string literal";
#define DSLC_TOKEN_KW(Name, Spelling)                                          \
  case TokenKind::Kw##Name:                                                    \
    return "'" Spelling "'";
    DSLC_KEYWORDS(DSLC_TOKEN_KW)
#undef DSLC_TOKEN_KW
#define DSLC_TOKEN_PUNCT(Name, Spelling)                                       \
  case TokenKind::Name:                                                        \
    return "'" Spelling "'";
    DSLC_PUNCTUATORS(DSLC_TOKEN_PUNCT)
#undef DSLC_TOKEN_PUNCT
  }
  return "token";
}

TokenKind getKeywordKind(std::string_view spelling) {
#define DSLC_TOKEN_KW(Name, Spelling)                                          \
  if (spelling == Spelling)                                                    \
    return TokenKind::Kw##Name;
  DSLC_KEYWORDS(DSLC_TOKEN_KW)
#undef DSLC_TOKEN_KW
  return TokenKind::Identifier;
}

bool isKeyword(TokenKind kind) {
  switch (kind) {
#define DSLC_TOKEN_KW(Name, Spelling) case TokenKind::Kw##Name:
    DSLC_KEYWORDS(DSLC_TOKEN_KW)
#undef DSLC_TOKEN_KW
    return true;
  default:
    return false;
  }
}

} // namespace dslc
