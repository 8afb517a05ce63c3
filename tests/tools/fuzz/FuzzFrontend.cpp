//===- FuzzFrontend.cpp - Mutation fuzzing of lexer, parser, diagnostics --===//
//
// dslc-fuzz-frontend [SEED_DIR...]
//
// Reads every *.py under the SEED_DIRs (plus built-in snippets), then for a
// bounded time mutates them (bit flips, byte and token insertions/deletions,
// truncation, random indentation, deep nesting, splices, pure random bytes)
// and runs lexer + parser + diagnostic printing + AST printing on each
// result, in process. It fails when
//   - an input crashes or hangs the frontend (a signal handler / alarm writes
//     the input to dslc-fuzz-crash.py and the exit status is non-zero),
//   - an input takes longer than 1 s,
//   - a seed file does not parse cleanly, or an input with errors reports
//     none / a diagnostic points outside the file.
//
// Reproducible: fixed seed. Environment: DSLC_FUZZ_SECONDS (default 10),
// DSLC_FUZZ_SEED (default 20240601), DSLC_FUZZ_VERBOSE=1.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/ASTPrinter.h"
#include "compiler/Frontend/Parser.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace dslc;

namespace {

// The input being processed, for the crash/hang handler.
std::string currentInput;
unsigned long long currentIteration = 0;
const char *kCrashFile = "dslc-fuzz-crash.py";

void writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n <= 0)
      return;
    data += n;
    size -= n;
  }
}

extern "C" void onFatalSignal(int sig) {
  int fd = open(kCrashFile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    writeAll(fd, currentInput.data(), currentInput.size());
    close(fd);
  }
  const char *what =
      sig == SIGALRM ? "HANG (no result within 5 s)" : "CRASH (fatal signal)";
  char msg[256];
  int len = snprintf(msg, sizeof(msg),
                     "dslc-fuzz-frontend: %s at iteration %llu; input written "
                     "to %s\n",
                     what, currentIteration, kCrashFile);
  if (len > 0)
    writeAll(2, msg, static_cast<size_t>(len));
  _exit(2);
}

const char *const kSnippets[] = {
    "import helion\nimport helion.language as hl\n\n@helion.kernel(config="
    "helion.Config(block_sizes=[64, 32], num_warps=4))\ndef add(x: "
    "torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n    out = "
    "torch.empty_like(x)\n    for tile in hl.tile(out.size()):\n        "
    "out[tile] = x[tile] + y[tile]\n    return out\n",
    "def f(a, b=1, *args, c, d=2, **kw):\n    if a < b <= c:\n        return "
    "a if b else c\n    elif not a:\n        pass\n    else:\n        "
    "while a:\n            a -= 1\n            break\n    x, *y = a[1:2:3], "
    "b[...]\n    z = {'k': [1, 2.5e-3, 0x_FF], **kw}\n    assert x, 'msg'\n",
    "x = 1; y = 2;\nif x: y = 3\nfor i in range(4): continue\n",
    "s = r'\\d' 'x' if True else f\"{x}\"\nb = b'\\x00'\nt = "
    "'''multi\nline'''\n",
    "a = (1 +\n     2) \\\n    + 3\nb = ~a ** -2 // 3 % 4 @ m << 1 >> 2 & 3 "
    "^ 4 | 5\n",
};

const std::string kTokens[] = {
    "(",        ")",
    "[",        "]",
    "{",        "}",
    ":",        ",",
    ".",        "...",
    "@",        "=",
    "==",       "+=",
    "**=",      "->",
    ":=",       "**",
    "//",       "\\",
    "\\\n",     "\n",
    "\r\n",     "\r",
    "\t",       "    ",
    "#",        "'",
    "\"",       "\"\"\"",
    "'''",      "r'",
    "b\"",      "f'",
    "0x",       "0b2",
    "1e",       "1_",
    "1__0",     "09",
    "1.5e+",    "99999999999999999999999",
    "j",        "def",
    "if",       "elif",
    "else",     "for",
    "in",       "while",
    "return",   "lambda",
    "class",    "not",
    "and",      "or",
    "is",       "None",
    "True",     "import",
    "from",     "as",
    "pass",     "$",
    "?",        "!",
    "`",        std::string("\0", 1),
    "\xff",     "\xc3\xa9",
    "\xe2\x82", "\f",
    "hl.tile(", "x[:, ",
    "*",        "**kw",
};
constexpr size_t kNumTokens = sizeof(kTokens) / sizeof(kTokens[0]);

class Mutator {
public:
  explicit Mutator(uint64_t seed) : rng(seed) {}

  size_t below(size_t n) { return n == 0 ? 0 : rng() % n; }

  std::string randomBytes(size_t n) {
    std::string s(n, '\0');
    for (char &c : s)
      c = static_cast<char>(rng());
    return s;
  }

  std::string deepNesting() {
    size_t n = 1 + below(3000);
    switch (below(9)) {
    case 0:
      return "x = " + std::string(n, '(') + "1" + std::string(n, ')') + "\n";
    case 1:
      return "x = " + std::string(n, '[') + std::string(n, ']') + "\n";
    case 2: {
      std::string s = "x = ";
      for (size_t i = 0; i < n; ++i)
        s += "-";
      return s + "1\n";
    }
    case 3: {
      std::string s = "x = ";
      for (size_t i = 0; i < n; ++i)
        s += "not ";
      return s + "y\n";
    }
    case 4: {
      std::string s = "x = a";
      for (size_t i = 0; i < n * 3; ++i)
        s += below(2) ? "+a" : ".b";
      return s + "\n";
    }
    case 5: {
      std::string s = "x = ";
      for (size_t i = 0; i < n; ++i)
        s += "a if b else ";
      return s + "c\n";
    }
    case 6: {
      std::string s, indent;
      for (size_t i = 0; i < n % 400; ++i) {
        s += indent + "if x:\n";
        indent += below(8) ? " " : "\t";
      }
      return s + indent + "pass\n";
    }
    case 7: {
      std::string s = "x = f";
      for (size_t i = 0; i < n; ++i)
        s += below(2) ? "(1)" : "[0]";
      return s + "\n";
    }
    default: {
      std::string s = "x = 2";
      for (size_t i = 0; i < n; ++i)
        s += "**2";
      return s + "\n";
    }
    }
  }

  void reindent(std::string &s) {
    std::stringstream in(s);
    std::string line, out;
    while (std::getline(in, line)) {
      if (below(4) == 0) {
        size_t first = line.find_first_not_of(" \t");
        std::string ws;
        for (size_t k = below(12); k > 0; --k)
          ws += below(3) ? ' ' : '\t';
        line = ws + (first == std::string::npos ? "" : line.substr(first));
      }
      out += line + "\n";
    }
    s = out;
  }

  void mutateOnce(std::string &s, const std::vector<std::string> &seeds) {
    switch (below(11)) {
    case 0: // bit flips
      for (size_t k = 1 + below(8); k > 0 && !s.empty(); --k)
        s[below(s.size())] ^= static_cast<char>(1u << below(8));
      break;
    case 1: // random bytes inserted
      s.insert(below(s.size() + 1), randomBytes(1 + below(16)));
      break;
    case 2: // delete a range
      if (!s.empty()) {
        size_t at = below(s.size());
        s.erase(at, 1 + below(std::min<size_t>(64, s.size() - at)));
      }
      break;
    case 3: // insert tokens
      for (size_t k = 1 + below(4); k > 0; --k) {
        s.insert(below(s.size() + 1), kTokens[below(kNumTokens)]);
      }
      break;
    case 4: // delete a word
      if (!s.empty()) {
        size_t at = below(s.size());
        size_t end = s.find_first_of(" \n()[]:,.", at);
        s.erase(at, (end == std::string::npos ? s.size() : end) - at + 1);
      }
      break;
    case 5: // truncate
      s.resize(below(s.size() + 1));
      break;
    case 6: // whole random input
      s = randomBytes(below(4096));
      break;
    case 7: // deep nesting
    {       // at the start of a random line
      size_t nl =
          s.empty() ? std::string::npos : s.rfind('\n', below(s.size()));
      s.insert(nl == std::string::npos ? 0 : nl + 1, deepNesting());
    } break;
    case 8: // random indentation
      reindent(s);
      break;
    case 9: { // splice with another seed
      const std::string &other = seeds[below(seeds.size())];
      size_t a = below(s.size() + 1), b = below(other.size() + 1);
      s = s.substr(0, a) + other.substr(b);
      break;
    }
    default: { // duplicate a chunk
      if (!s.empty()) {
        size_t at = below(s.size());
        size_t len = 1 + below(std::min<size_t>(256, s.size() - at));
        s.insert(below(s.size() + 1), s.substr(at, len));
      }
      break;
    }
    }
  }

private:
  std::mt19937_64 rng;
};

struct RunResult {
  bool ok = true;
  std::string problem;
  double seconds = 0;
};

RunResult runFrontend(const std::string &name, const std::string &text,
                      bool expectClean) {
  RunResult r;
  auto start = std::chrono::steady_clock::now();
  SourceManager sm;
  uint32_t id = sm.addBuffer(name, text);
  std::ostringstream diagOut;
  DiagnosticEngine diags(sm, &diagOut);
  std::unique_ptr<ast::Module> module = parseFile(sm, id, diags);
  std::string dump = printAST(*module);
  for (const ast::FunctionDef *fn : module->getFunctions())
    dump += printAST(*fn);
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const SourceBuffer *buf = sm.getBuffer(id);
  for (const Diagnostic &d : diags.getDiagnostics()) {
    if (!d.range.isValid())
      continue;
    if (d.range.begin.line == 0 || d.range.begin.line > buf->getNumLines() ||
        d.range.begin.column == 0 ||
        d.range.begin.offset > buf->getText().size()) {
      r.ok = false;
      r.problem = "diagnostic outside the file: " + diags.format(d);
    }
  }
  if (diags.hasErrors() && diagOut.str().find("error: ") == std::string::npos) {
    r.ok = false;
    r.problem = "errors counted but none printed";
  }
  if (expectClean && diags.hasErrors()) {
    r.ok = false;
    r.problem = "seed does not parse cleanly:\n" + diagOut.str();
  }
  if (dump.empty()) {
    r.ok = false;
    r.problem = "empty AST dump";
  }
  return r;
}

void collectSeeds(const std::string &dir, std::vector<std::string> &seeds,
                  std::vector<std::string> &names) {
  DIR *d = opendir(dir.c_str());
  if (!d) {
    std::cerr << "dslc-fuzz-frontend: cannot open seed directory '" << dir
              << "'\n";
    std::exit(1);
  }
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() < 3 || n.compare(n.size() - 3, 3, ".py") != 0)
      continue;
    std::ifstream in(dir + "/" + n, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    seeds.push_back(ss.str());
    names.push_back(dir + "/" + n);
  }
  closedir(d);
}

double envDouble(const char *name, double def) {
  const char *v = std::getenv(name);
  return v && *v ? std::atof(v) : def;
}

} // namespace

int main(int argc, char **argv) {
  // An alternate stack, so that a stack overflow is reported too.
  static std::vector<char> altStack(1 << 16);
  stack_t ss{};
  ss.ss_sp = altStack.data();
  ss.ss_size = altStack.size();
  sigaltstack(&ss, nullptr);
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGALRM}) {
    struct sigaction sa{};
    sa.sa_handler = onFatalSignal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(sig, &sa, nullptr);
  }

  double seconds = envDouble("DSLC_FUZZ_SECONDS", 10);
  uint64_t seed = static_cast<uint64_t>(envDouble("DSLC_FUZZ_SEED", 20240601));
  bool verbose = std::getenv("DSLC_FUZZ_VERBOSE") != nullptr;

  std::vector<std::string> seeds, names;
  for (int i = 1; i < argc; ++i)
    collectSeeds(argv[i], seeds, names);
  // Seed files must parse cleanly (the fuzzer's baseline), except the ones
  // named *error*/*bad* that exist to exercise diagnostics.
  for (size_t i = 0; i < seeds.size(); ++i) {
    bool expectClean = names[i].find("error") == std::string::npos &&
                       names[i].find("bad") == std::string::npos;
    currentInput = seeds[i];
    RunResult r = runFrontend(names[i], seeds[i], expectClean);
    if (!r.ok) {
      std::cerr << "dslc-fuzz-frontend: " << names[i] << ": " << r.problem
                << "\n";
      return 1;
    }
  }
  for (const char *s : kSnippets) {
    seeds.push_back(s);
    currentInput = s;
    RunResult r = runFrontend("snippet.py", s, true);
    if (!r.ok) {
      std::cerr << "dslc-fuzz-frontend: built-in snippet: " << r.problem << "\n"
                << s;
      return 1;
    }
  }

  Mutator mutator(seed);
  auto start = std::chrono::steady_clock::now();
  double slowest = 0;
  for (currentIteration = 0;; ++currentIteration) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (elapsed >= seconds)
      break;
    std::string input = seeds[mutator.below(seeds.size())];
    for (size_t k = 1 + mutator.below(4); k > 0; --k)
      mutator.mutateOnce(input, seeds);
    currentInput = input;
    alarm(5);
    RunResult r = runFrontend("fuzz.py", input, false);
    alarm(0);
    slowest = std::max(slowest, r.seconds);
    if (r.seconds > 1.0) {
      r.ok = false;
      r.problem = "took " + std::to_string(r.seconds) + " s (limit 1 s)";
    }
    if (!r.ok) {
      std::ofstream(kCrashFile, std::ios::binary) << input;
      std::cerr << "dslc-fuzz-frontend: iteration " << currentIteration
                << " (seed " << seed << "): " << r.problem << "\ninput written "
                << "to " << kCrashFile << "\n";
      return 1;
    }
    if (verbose && currentIteration % 1000 == 0)
      std::cerr << "iteration " << currentIteration << "\n";
  }
  std::cout << "dslc-fuzz-frontend: " << currentIteration << " inputs from "
            << seeds.size() << " seeds in " << seconds << " s (seed " << seed
            << "), slowest " << slowest * 1000
            << " ms, no crash, hang or bad diagnostic\n";
  return 0;
}
