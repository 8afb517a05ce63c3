#!/usr/bin/env python3
"""Checks that every repository file a comment or a doc cites exists.

Scans the tracked text files (or the files given) for paths with a folder
and a known extension (docs/runtime.md, compiler/Conversion/Passes.td) and
for top-level documents (README.md); each must name a file or folder of the
repository, relative to the root or to the citing file. Paths of other
projects (Helion's examples/distributed/..., torch/...) are listed in
scripts/citations-external.txt, one prefix per line. Placeholders (FILE.py,
K.py, OUT.json, $VAR, <...>, {...}, *) are not citations.

Usage: scripts/check-citations.py [--root DIR] [FILE...]
Exit status 1 and one line per dangling citation (FILE:LINE: 'PATH').
"""
import argparse
import os
import re
import subprocess
import sys

EXTENSIONS = ("md", "cpp", "h", "hpp", "c", "cu", "cuh", "td", "py", "sh",
              "txt", "json", "mlir", "test", "cmake", "toml", "cfg")
SCANNED = re.compile(r"(\.(%s)|CMakeLists\.txt|/run)$" % "|".join(EXTENSIONS))
PATH = re.compile(r"(?<![\w/.$@~%%-])((?:\.\./|\./)?(?:[A-Za-z0-9_+-][\w.+-]*/)+"
                  r"[\w.+-]+\.(?:%s))(?![\w/-])" % "|".join(EXTENSIONS))
TOP_DOC = re.compile(r"(?<![\w/.-])([A-Z][A-Z_-]+\.md)\b")
PLACEHOLDER = re.compile(r"(^|/)(FILE|NAME|OUT|K|KERNEL|DIR|PATH|BUILD|"
                         r"BUILD_DIR|HELION|HELION_CHECKOUT|CACHE|X|foo|bar)"
                         r"(/|\.\w+$)|[$<>{}*]|\.\.\.")


def tracked_files(root):
    """Every file git tracks under `root` (one `git ls-files`)."""
    out = subprocess.run(["git", "-C", root, "ls-files"], check=True,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def external_prefixes(root):
    path = os.path.join(root, "scripts", "citations-external.txt")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def exists(root, citing, path, tracked):
    """Relative to the root or the citing file, or the tail of a tracked
    path (docs say Conversion/Passes.h inside a section on compiler/)."""
    here = os.path.dirname(os.path.join(root, citing))
    for base in (root, here):
        if os.path.exists(os.path.normpath(os.path.join(base, path))):
            return True
    tail = "/" + path.lstrip("./")
    return any(t.endswith(tail) for t in tracked)


C_LIKE = (".cpp", ".h", ".hpp", ".c", ".cu", ".cuh", ".td", ".mlir")
HASH = (".py", ".sh", ".cmake", ".txt", ".test", ".cfg", ".toml", "/run")


def cited_text(rel, line, in_docstring):
    """The part of `line` that can cite: a doc's whole text; a source
    file's comments and Python docstrings (string literals in code and lit
    RUN lines are data, such as a test's scratch paths)."""
    if rel.endswith(C_LIKE):
        if "//" in line:
            return line.split("//", 1)[1]
        return line if line.lstrip().startswith(("*", "/*")) else ""
    if rel.endswith(HASH):
        if in_docstring:
            return line
        if "RUN:" in line or "#" not in line:
            return ""
        if re.match(r"\s*#\s*[A-Z][A-Z0-9_]*(-[A-Z]+)*:", line):
            return ""  # a FileCheck directive: a pattern, not a path
        return line.split("#", 1)[1]
    return line


def check(root, files, external, tracked):
    dangling = []
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        in_doc = False
        for n, line in enumerate(lines, 1):
            quotes = line.count(chr(34) * 3) + line.count(chr(39) * 3)
            text = cited_text(rel, line, in_doc or quotes > 0)
            if rel.endswith(".py") and quotes % 2:
                in_doc = not in_doc
            if re.match(r"\s*#?\s*include\b", line):
                continue  # the compiler checks includes
            cited = PATH.findall(text) + TOP_DOC.findall(text)
            for path in cited:
                if PLACEHOLDER.search(path) or path.startswith("/"):
                    continue
                if any(path.startswith(p) for p in external):
                    continue
                if not exists(root, rel, path, tracked):
                    dangling.append(f"{rel}:{n}: '{path}'")
    return dangling


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."))
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    tracked = tracked_files(root)
    files = args.files or [f for f in tracked if SCANNED.search(f)]
    dangling = check(root, files, external_prefixes(root), tracked)
    for d in dangling:
        print(f"check-citations: {d} does not exist")
    if dangling:
        print(f"check-citations: {len(dangling)} dangling citation(s); cite "
              "a file that exists, or list another project's path prefix in "
              "scripts/citations-external.txt", file=sys.stderr)
        return 1
    print(f"check-citations: {len(files)} files, every cited path exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
