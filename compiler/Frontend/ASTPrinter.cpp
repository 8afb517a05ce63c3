//===- ASTPrinter.cpp - S-expression dump of the AST ----------------------===//

#include "compiler/Frontend/ASTPrinter.h"

#include <fmt/format.h>

namespace dslc {

using namespace ast;

namespace {

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '"':
      out += "\\\"";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c >= 0x7F)
        out += fmt::format("\\x{:02x}", c);
      else
        out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string at(SourceRange range) {
  return fmt::format("@{}:{}", range.begin.line, range.begin.column);
}

class Printer {
public:
  std::string take() {
    out += '\n';
    return std::move(out);
  }

  void module(const Module &m) {
    open(fmt::format("module {}", quote(m.getFileName())));
    if (m.getDocstring())
      leaf("docstring " + quote(*m.getDocstring()));
    for (const StmtPtr &s : m.getBody())
      stmt(*s);
    close();
  }

  void stmt(const Stmt &s) {
    switch (s.getKind()) {
    case Stmt::Kind::Expr:
      open("expr " + at(s.getRange()));
      expr(cast<ExprStmt>(s).getExpr());
      close();
      return;
    case Stmt::Kind::Assign: {
      const auto &a = cast<AssignStmt>(s);
      open("assign " + at(s.getRange()));
      for (const ExprPtr &t : a.getTargets())
        expr(*t);
      expr(a.getValue());
      close();
      return;
    }
    case Stmt::Kind::AugAssign: {
      const auto &a = cast<AugAssignStmt>(s);
      open(fmt::format("aug-assign {} {}=", at(s.getRange()),
                       getBinaryOpSpelling(a.getOp())));
      expr(a.getTarget());
      expr(a.getValue());
      close();
      return;
    }
    case Stmt::Kind::AnnAssign: {
      const auto &a = cast<AnnAssignStmt>(s);
      open("ann-assign " + at(s.getRange()));
      expr(a.getTarget());
      expr(a.getAnnotation());
      if (a.getValue())
        expr(*a.getValue());
      close();
      return;
    }
    case Stmt::Kind::For: {
      const auto &f = cast<ForStmt>(s);
      open("for " + at(s.getRange()));
      expr(f.getTarget());
      expr(f.getIter());
      block("body", f.getBody());
      if (!f.getElse().empty())
        block("else", f.getElse());
      close();
      return;
    }
    case Stmt::Kind::While: {
      const auto &w = cast<WhileStmt>(s);
      open("while " + at(s.getRange()));
      expr(w.getCond());
      block("body", w.getBody());
      if (!w.getElse().empty())
        block("else", w.getElse());
      close();
      return;
    }
    case Stmt::Kind::If: {
      const auto &i = cast<IfStmt>(s);
      open((i.isElif() ? "elif " : "if ") + at(s.getRange()));
      expr(i.getCond());
      block("then", i.getThen());
      if (!i.getElse().empty())
        block("else", i.getElse());
      close();
      return;
    }
    case Stmt::Kind::Return: {
      const auto &r = cast<ReturnStmt>(s);
      if (!r.getValue()) {
        leaf("return " + at(s.getRange()));
        return;
      }
      open("return " + at(s.getRange()));
      expr(*r.getValue());
      close();
      return;
    }
    case Stmt::Kind::Pass:
      leaf("pass " + at(s.getRange()));
      return;
    case Stmt::Kind::Break:
      leaf("break " + at(s.getRange()));
      return;
    case Stmt::Kind::Continue:
      leaf("continue " + at(s.getRange()));
      return;
    case Stmt::Kind::Assert: {
      const auto &a = cast<AssertStmt>(s);
      open("assert " + at(s.getRange()));
      expr(a.getTest());
      if (a.getMessage())
        expr(*a.getMessage());
      close();
      return;
    }
    case Stmt::Kind::Import:
      open("import " + at(s.getRange()));
      for (const ImportAlias &a : cast<ImportStmt>(s).getNames())
        alias(a);
      close();
      return;
    case Stmt::Kind::ImportFrom: {
      const auto &i = cast<ImportFromStmt>(s);
      std::string header = "import-from " + at(s.getRange()) + " " +
                           std::string(i.getLevel(), '.') + i.getModule();
      open(header);
      if (i.isStar())
        leaf("alias *");
      for (const ImportAlias &a : i.getNames())
        alias(a);
      close();
      return;
    }
    case Stmt::Kind::FunctionDef:
      function(cast<FunctionDef>(s));
      return;
    }
  }

  void function(const FunctionDef &f) {
    open(fmt::format("def {} {}{}", at(f.getRange()), f.getName(),
                     f.isKernel() ? " kernel" : ""));
    for (const Decorator &d : f.getDecorators()) {
      open("decorator " + at(d.range));
      expr(*d.expr);
      close();
    }
    for (const Param &p : f.getParams()) {
      std::string header = fmt::format("param {} {}{}", at(p.range),
                                       p.kind == Param::Kind::VarArgs  ? "*"
                                       : p.kind == Param::Kind::KwArgs ? "**"
                                                                       : "",
                                       p.name);
      if (p.keywordOnly)
        header += " kwonly";
      if (p.positionalOnly)
        header += " posonly";
      if (!p.annotation && !p.defaultValue) {
        leaf(header);
        continue;
      }
      open(header);
      if (p.annotation) {
        open("annotation");
        expr(*p.annotation);
        close();
      }
      if (p.defaultValue) {
        open("default");
        expr(*p.defaultValue);
        close();
      }
      close();
    }
    if (f.getReturns()) {
      open("returns");
      expr(*f.getReturns());
      close();
    }
    if (f.getDocstring())
      leaf("docstring " + quote(*f.getDocstring()));
    block("body", f.getBody());
    close();
  }

  void expr(const Expr &e) {
    std::string loc = at(e.getRange());
    switch (e.getKind()) {
    case Expr::Kind::Name:
      leaf(fmt::format("name {} {}", loc, cast<NameExpr>(e).getName()));
      return;
    case Expr::Kind::IntLiteral:
      leaf(fmt::format("int {} {}", loc, cast<IntLiteralExpr>(e).getValue()));
      return;
    case Expr::Kind::FloatLiteral: {
      // Like Python's repr: always recognizably a float ("1.0", "1e+20").
      std::string text =
          fmt::format("{}", cast<FloatLiteralExpr>(e).getValue());
      if (text.find_first_of(".eEn") == std::string::npos)
        text += ".0";
      leaf(fmt::format("float {} {}", loc, text));
      return;
    }
    case Expr::Kind::StringLiteral: {
      const auto &str = cast<StringLiteralExpr>(e);
      leaf(fmt::format("{} {} {}",
                       str.isBytes()    ? "bytes"
                       : str.isFormat() ? "fstr"
                                        : "str",
                       loc, quote(str.getValue())));
      return;
    }
    case Expr::Kind::BoolLiteral:
      leaf(fmt::format("bool {} {}", loc,
                       cast<BoolLiteralExpr>(e).getValue() ? "True" : "False"));
      return;
    case Expr::Kind::NoneLiteral:
      leaf("none " + loc);
      return;
    case Expr::Kind::EllipsisLiteral:
      leaf("ellipsis " + loc);
      return;
    case Expr::Kind::Unary: {
      const auto &u = cast<UnaryExpr>(e);
      open(fmt::format("unary {} {}", loc, getUnaryOpSpelling(u.getOp())));
      expr(u.getOperand());
      close();
      return;
    }
    case Expr::Kind::Binary: {
      const auto &b = cast<BinaryExpr>(e);
      open(fmt::format("binary {} {}", loc, getBinaryOpSpelling(b.getOp())));
      expr(b.getLHS());
      expr(b.getRHS());
      close();
      return;
    }
    case Expr::Kind::Compare: {
      const auto &c = cast<CompareExpr>(e);
      std::string header = "compare " + loc;
      for (CompareOp op : c.getOps())
        header += std::string(" ") + getCompareOpSpelling(op);
      open(header);
      for (const ExprPtr &operand : c.getOperands())
        expr(*operand);
      close();
      return;
    }
    case Expr::Kind::IfElse: {
      const auto &i = cast<IfElseExpr>(e);
      open("if-expr " + loc);
      expr(i.getCond());
      expr(i.getThen());
      expr(i.getElse());
      close();
      return;
    }
    case Expr::Kind::Call: {
      const auto &c = cast<CallExpr>(e);
      open("call " + loc);
      expr(c.getCallee());
      for (const Argument &a : c.getArgs()) {
        switch (a.kind) {
        case Argument::Kind::Positional:
          expr(*a.value);
          continue;
        case Argument::Kind::Keyword:
          open(fmt::format("kwarg {} {}", at(a.range), a.name));
          break;
        case Argument::Kind::Star:
          open("star-arg " + at(a.range));
          break;
        case Argument::Kind::DoubleStar:
          open("dstar-arg " + at(a.range));
          break;
        }
        expr(*a.value);
        close();
      }
      close();
      return;
    }
    case Expr::Kind::Attribute: {
      const auto &a = cast<AttributeExpr>(e);
      open(fmt::format("attr {} {}", loc, a.getName()));
      expr(a.getBase());
      close();
      return;
    }
    case Expr::Kind::Subscript: {
      const auto &s = cast<SubscriptExpr>(e);
      open("subscript " + loc);
      expr(s.getBase());
      expr(s.getIndex());
      close();
      return;
    }
    case Expr::Kind::Slice: {
      const auto &s = cast<SliceExpr>(e);
      if (!s.getLower() && !s.getUpper() && !s.getStep()) {
        leaf("slice " + loc);
        return;
      }
      open("slice " + loc);
      const std::pair<const char *, const Expr *> parts[] = {
          {"lower", s.getLower()},
          {"upper", s.getUpper()},
          {"step", s.getStep()}};
      for (const auto &[name, part] : parts) {
        if (!part)
          continue;
        open(name);
        expr(*part);
        close();
      }
      close();
      return;
    }
    case Expr::Kind::Tuple:
      sequence("tuple " + loc, cast<TupleExpr>(e).getElements());
      return;
    case Expr::Kind::List:
      sequence("list " + loc, cast<ListExpr>(e).getElements());
      return;
    case Expr::Kind::Dict: {
      const auto &d = cast<DictExpr>(e);
      if (d.getKeys().empty()) {
        leaf("dict " + loc);
        return;
      }
      open("dict " + loc);
      for (size_t i = 0; i < d.getKeys().size(); ++i) {
        open(d.getKeys()[i] ? "item" : "unpack");
        if (d.getKeys()[i])
          expr(*d.getKeys()[i]);
        expr(*d.getValues()[i]);
        close();
      }
      close();
      return;
    }
    case Expr::Kind::Starred:
      open("starred " + loc);
      expr(cast<StarredExpr>(e).getValue());
      close();
      return;
    case Expr::Kind::Lambda: {
      const auto &l = cast<LambdaExpr>(e);
      std::string header = "lambda " + loc;
      for (const LambdaExpr::Param &p : l.getParams())
        header += " " + p.name + (p.defaultValue ? "=" : "");
      open(header);
      for (const LambdaExpr::Param &p : l.getParams())
        if (p.defaultValue)
          expr(*p.defaultValue);
      expr(l.getBody());
      close();
      return;
    }
    }
  }

private:
  void newline() {
    if (!out.empty())
      out += '\n';
    out.append(indent, ' ');
  }
  void open(const std::string &header) {
    newline();
    out += '(';
    out += header;
    indent += 2;
  }
  void close() {
    indent -= 2;
    out += ')';
  }
  void leaf(const std::string &text) {
    newline();
    out += '(';
    out += text;
    out += ')';
  }
  void alias(const ImportAlias &a) {
    leaf(a.asName.empty() ? "alias " + a.name
                          : "alias " + a.name + " as " + a.asName);
  }
  void block(const char *name, const StmtList &body) {
    if (body.empty()) {
      leaf(name);
      return;
    }
    open(name);
    for (const StmtPtr &s : body)
      stmt(*s);
    close();
  }
  void sequence(const std::string &header, const ExprList &elements) {
    if (elements.empty()) {
      leaf(header);
      return;
    }
    open(header);
    for (const ExprPtr &e : elements)
      expr(*e);
    close();
  }

  std::string out;
  size_t indent = 0;
};

} // namespace

std::string printAST(const Module &module) {
  Printer p;
  p.module(module);
  return p.take();
}

std::string printAST(const FunctionDef &function) {
  Printer p;
  p.function(function);
  return p.take();
}

std::string printAST(const Stmt &stmt) {
  Printer p;
  p.stmt(stmt);
  return p.take();
}

std::string printAST(const Expr &expr) {
  Printer p;
  p.expr(expr);
  return p.take();
}

} // namespace dslc
