#!/usr/bin/env python3
"""Mutation fuzzing of the whole dslc pipeline (MLIRGen, lowering, PTX).

The frontend fuzzer (FuzzFrontend.cpp) feeds the parser garbage; most of
that never parses. This one mutates valid kernels at the token level so the
result usually still parses and reaches the later stages: names swapped,
numbers changed to 0, -1 or huge values, keyword arguments dropped or
renamed, statements deleted, duplicated or re-indented. Each mutant is
compiled to PTX by the real dslc binary; every run must end with exit code 0
or 1 (a diagnostic) within 20 s of CPU time and 4 GB, never a signal, an
internal error, an LLVM assertion or an error line without file:line:col.

Usage: fuzz_backend.py DSLC SEED_FILE... [--seconds S] [--seed N]
(DSLC_FUZZ_SECONDS / DSLC_FUZZ_SEED override the defaults, 20 s and 1.)
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+|\"[^\"\n]*\"|'[^'\n]*'|\S")
NUMBERS = ["0", "1", "-1", "2", "3", "7", "1024", "65536", "4294967296",
           "18446744073709551615", "99999999999999999999"]
STRINGS = ['"sys"', '"gpu"', '"cluster"', '""', '"acquire"', '"release"',
           '"relaxed"', '"atomic_cas"', '"ld"']
WORDS = ["hl.tile", "hl.grid", "hl.zeros", "hl.signal", "hl.wait",
         "hl.specialize", "torch.float32", "torch.int32", "torch.bfloat16",
         "None", "True", "False", "tile_n", "world", "acc", "out", "range"]
BAD_OUTCOME = re.compile(r"internal error|Assertion|Stack dump|"
                         r"UNREACHABLE|LLVM ERROR|Please submit a bug")


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        i = rng.randrange(len(lines))
        line = lines[i]
        tokens = [(m.start(), m.end()) for m in TOKEN.finditer(line)]
        if choice < 0.45 and tokens:
            start, end = rng.choice(tokens)
            old = line[start:end]
            if old.isdigit():
                new = rng.choice(NUMBERS)
            elif old[0] in "\"'":
                new = rng.choice(STRINGS)
            elif old.isidentifier():
                pool = [m.group(0) for m in TOKEN.finditer(text)
                        if m.group(0).isidentifier()]
                new = rng.choice(pool + WORDS)
            else:
                new = rng.choice(["", "+", "*", ",", "[", "]", "(", ")", ":"])
            lines[i] = line[:start] + new + line[end:]
        elif choice < 0.6:
            del lines[i]
        elif choice < 0.7:
            lines.insert(i, line)
        elif choice < 0.8:
            lines[i] = re.sub(r"\b(\w+)=", lambda m: rng.choice(
                ["", m.group(0), "bogus=", "signal=", "update="]), line)
        elif choice < 0.9:
            lines[i] = ("    " if rng.random() < 0.5 else "") + line
        else:
            lines[i] = re.sub(r"\d+", lambda m: rng.choice(NUMBERS), line)
        if not lines:
            lines = [""]
    return "\n".join(lines)


# A diagnostic line: "FILE:LINE:COL: error: ..." for the program, "dslc:
# error: ..." for the command line; an error line of any other shape has no
# location.
LOCATED = re.compile(r"^(\S.*:\d+:\d+: |dslc: )error: ")
MEMORY_LIMIT = 4 << 30  # the robustness bar: no compilation over 4 GB


def limit_memory():
    """4 GB of address space, and SIGXCPU a little past the CPU bar so a
    runaway does not hold the campaign."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT + 5, CPU_LIMIT + 5))


CPU_LIMIT = 20  # seconds of CPU time: the bar, on a machine shared or not
WALL_LIMIT = 120  # a hang


def run_limited(cmd, cwd=None):
    """Runs cmd under the memory limit; returns (status, output, cpu
    seconds), status None after WALL_LIMIT (the process is killed)."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                cwd=cwd, preexec_fn=limit_memory)
        deadline = time.monotonic() + WALL_LIMIT
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None, "", WALL_LIMIT
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        return proc.returncode, text, usage.ru_utime + usage.ru_stime


def run(dslc, path, out_dir):
    cmd = [dslc, path, "--emit=ptx", "-o", os.path.join(out_dir, "k.ptx"),
           "-D", "my_rank=0", "-D", "world_size=2", "--world-size", "2"]
    returncode, output, cpu = run_limited(cmd)
    if returncode is None:
        return f"no result after {WALL_LIMIT} s", output
    if cpu > CPU_LIMIT:
        return f"{cpu:.1f} s of CPU time (limit {CPU_LIMIT})", output
    if returncode < 0:
        return f"killed by signal {-returncode}", output
    if returncode not in (0, 1):
        return f"exit code {returncode}", output
    if BAD_OUTCOME.search(output):
        return "internal failure reported", output
    if returncode == 1 and "error" not in output:
        return "exit code 1 without an error message", output
    if "out of memory" in output:
        return "over 4 GB", output
    for line in output.splitlines():
        if "error: " in line and not LOCATED.match(line):
            return "an error without file:line:col", output
    return None, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dslc")
    parser.add_argument("seeds", nargs="+")
    parser.add_argument("--seconds", type=float,
                        default=float(os.environ.get("DSLC_FUZZ_SECONDS", 20)))
    parser.add_argument("--seed", type=int,
                        default=int(os.environ.get("DSLC_FUZZ_SEED", 1)))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = []
    for path in args.seeds:
        with open(path, encoding="utf-8") as f:
            corpus.append(f.read())
    counts = {"ok": 0, "diagnosed": 0}
    deadline = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "mutant.py")
        # The unmutated seeds must compile.
        for path in args.seeds:
            failure, output = run(args.dslc, path, tmp)
            if failure or "error" in output:
                print(f"seed {path} does not compile cleanly:\n{output}")
                return 1
        n = 0
        while time.monotonic() < deadline:
            n += 1
            text = mutate(rng.choice(corpus), rng)
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
            failure, output = run(args.dslc, src, tmp)
            if failure:
                keep = os.path.abspath(f"fuzz-backend-failure-{args.seed}-{n}.py")
                with open(keep, "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"mutant {n} (seed {args.seed}): {failure}; input kept "
                      f"in {keep}\n{output[-3000:]}")
                return 1
            counts["diagnosed" if "error" in output else "ok"] += 1
    print(f"{n} mutants in {args.seconds:.0f} s (seed {args.seed}): "
          f"{counts['ok']} compiled, {counts['diagnosed']} diagnosed, "
          f"no crash")
    return 0


if __name__ == "__main__":
    sys.exit(main())
