#!/usr/bin/env python3
"""Runs the commands the documentation shows and compares what they print.

    scripts/doc_commands.py BUILD_DIR [FILE.md ...]    (default: every Markdown file)
    scripts/doc_commands.py --list [FILE.md ...]

A fenced block whose first line starts with "$ " is a session: each "$ " line
(continued while it ends in a backslash) is a command, and the lines after it
are what the command prints. Every such block is run, and every output line it
shows must appear in what the command printed (stdout and stderr together,
line-buffered), in the order shown; lines the block leaves out, or elides
with "...", are not compared, and a line that ends in "..." need only begin
what was printed. An HTML comment on the line before the block
(blank lines between are allowed) changes that:

    <!-- doc-test: skip="why" -->           not run (the reason is printed)
    <!-- doc-test: run="COMMAND" -->        a block without "$ " lines is the
                                             output of COMMAND
    <!-- doc-test: numbers -->              every number is machine-dependent
    <!-- doc-test: volatile='REGEX' -->     more machine-dependent text (repeatable)
    <!-- doc-test: status=N -->             the last command exits with N
    <!-- doc-test: timeout=S -->            seconds per command (default 120)

Machine-dependent text is masked on both sides before comparing: wall times,
event rates, timings of real processes ("us wall"), the build's revision and
configure line, test durations, plus what a block adds; runs of blanks compare
as one. What stays is what the code decides: trace hashes, virtual times,
event counts, algorithms, verdicts, error lines.

Commands run in a scratch directory that links every top-level entry of the
source tree and "build" to BUILD_DIR, so "build/ucc_sim" and
"traces/samples/..." name this build and this tree; "/tmp/" in a command is a
scratch directory of the block's own (and is written back as "/tmp/" in what
it prints). UCX and Open MPI are kept on loopback. Exit status: 0 when every
block matched, 1 otherwise (each failure names the file, line and the first
line not found, and shows what was printed).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from check_links import markdown_files  # the one list of the repository's Markdown files

FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)\s*$")
ANNOTATION = re.compile(r"^<!--\s*doc-test:(.*?)-->\s*$")
SHELL_INFO = {"", "sh", "shell", "console", "text", "bash"}

# (pattern, replacement): what differs from machine to machine and run to run.
DEFAULT_MASKS = [
    (r"Wall time: [0-9.]+ seconds", "Wall time: <t> seconds"),
    (r"\([0-9]+ events/s\)", "(<n> events/s)"),
    (r"[0-9.]+ us wall", "<t> us wall"),
    (r"revision [0-9a-f]+", "revision <rev>"),
    (r"# Configured with: .*", "# Configured with: <flags>"),
    (r"library ([0-9.]+) \([0-9a-f]+\)", r"library \1 (<rev>)"),
    (r"\([0-9]+ ms( total)?\)", "(<t> ms)"),
]
NUMBER = r"[0-9]+(?:[.,][0-9]+)*(?:e[-+]?[0-9]+)?"


class Block:
    def __init__(self, path, line, options, commands):
        self.path, self.line, self.options, self.commands = path, line, options, commands

    def where(self):
        return f"{self.path}:{self.line}"


def parse_options(text):
    options = {"volatile": []}
    for token in shlex.split(text):
        key, eq, value = token.partition("=")
        if key == "volatile":
            options["volatile"].append(value)
        elif key in ("skip", "run", "status", "timeout"):
            if not eq:
                raise ValueError(f"doc-test: {key} needs a value")
            options[key] = value
        elif key == "numbers" and not eq:
            options["numbers"] = True
        else:
            raise ValueError(f"doc-test: unknown option '{token}'")
    return options


def blocks(path):
    """The checked blocks of one Markdown file: (commands, expected lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, i, annotation = [], 0, None
    while i < len(lines):
        m = ANNOTATION.match(lines[i].strip())
        if m:
            annotation = (i + 1, m.group(1))
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if lines[i].strip():
                annotation = None
            i += 1
            continue
        start, j = i, i + 1
        while j < len(lines) and not (lines[j].startswith(f.group(1)[0] * len(f.group(1)))
                                      and lines[j].strip().strip(f.group(1)[0]) == ""):
            j += 1
        body = lines[start + 1:j]
        options = parse_options(annotation[1]) if annotation else {"volatile": []}
        is_session = f.group(2) in SHELL_INFO and body and body[0].startswith("$ ")
        if is_session or "run" in options:
            commands = []  # [command, [expected lines]]
            if "run" in options:
                commands.append([options["run"], list(body)])
            else:
                k = 0
                while k < len(body):
                    if body[k].startswith("$ "):
                        cmd = body[k][2:]
                        while cmd.endswith("\\") and k + 1 < len(body):
                            k += 1
                            cmd = cmd[:-1] + "\n" + body[k]
                        commands.append([cmd, []])
                    elif commands:
                        commands[-1][1].append(body[k])
                    k += 1
            found.append(Block(path, start + 1, options, commands))
        annotation = None
        i = j + 1
    return found


def normalise(line, options):
    for pattern, replacement in DEFAULT_MASKS:
        line = re.sub(pattern, replacement, line)
    for pattern in options["volatile"]:
        line = re.sub(pattern, "<v>", line)
    if options.get("numbers"):
        line = re.sub(NUMBER, "<n>", line)
    return " ".join(line.split())


def stdbuf_library():
    for candidate in ("/usr/libexec/coreutils/libstdbuf.so", "/usr/lib/coreutils/libstdbuf.so",
                      "/usr/lib/x86_64-linux-gnu/coreutils/libstdbuf.so"):
        if os.path.exists(candidate):
            return candidate
    return None


def scratch_dir(source, build):
    work = tempfile.mkdtemp(prefix="ucc_doc_commands.")
    for entry in os.listdir(source):
        if entry.startswith(".") or entry.startswith("build"):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(work, entry))
    os.symlink(build, os.path.join(work, "build"))
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    return work, tmp


def run_block(block, source, build):
    """None when the block matched, else a report."""
    work, tmp = scratch_dir(source, build)
    env = dict(os.environ)
    env.update({"UCX_NET_DEVICES": "lo", "OMPI_MCA_oob_tcp_if_include": "lo",
                "OMPI_MCA_btl_tcp_if_include": "lo", "TMPDIR": tmp})
    lib = stdbuf_library()
    if lib:  # line-buffered stdout, so that stdout and stderr interleave as on a terminal
        env["LD_PRELOAD"] = " ".join(x for x in (env.get("LD_PRELOAD", ""), lib) if x)
        env["_STDBUF_O"] = "L"
    timeout = float(block.options.get("timeout", 120))
    try:
        for index, (command, expected) in enumerate(block.commands):
            shell_command = command.replace("/tmp/", tmp + "/")
            try:
                proc = subprocess.run(["bash", "-c", shell_command], cwd=work, env=env,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=timeout)
                output, status = proc.stdout.decode("utf-8", "replace"), proc.returncode
            except subprocess.TimeoutExpired as e:
                output = (e.stdout or b"").decode("utf-8", "replace")
                return f"$ {command}\n  timed out after {timeout:g} s\n" + indent(output)
            output = output.replace(tmp + "/", "/tmp/").replace(tmp, "/tmp")
            last = index == len(block.commands) - 1
            want = int(block.options["status"]) if last and "status" in block.options else 0
            if status != want and not (want == 0 and status == 141):
                return f"$ {command}\n  exited with {status}, not {want}\n" + indent(output)
            actual = [normalise(l, block.options) for l in output.split("\n")]
            at = 0
            for line in expected:
                if line.strip() in ("...", ""):
                    continue
                wanted = normalise(line, block.options)
                prefix = wanted[:-3] if wanted.endswith("...") else None
                while at < len(actual) and actual[at] != wanted and not (
                        prefix and actual[at].startswith(prefix)):
                    at += 1
                if at == len(actual):
                    return (f"$ {command}\n  the documented line\n    {line}\n  was not printed "
                            f"(in this order); compared as\n    {wanted}\n  what it printed:\n"
                            + indent(output))
                at += 1
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def indent(text, limit=80):
    lines = text.rstrip("\n").split("\n")
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "".join(f"    | {l}\n" for l in lines)


def main(argv):
    source = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    listing = argv[:1] == ["--list"]
    if listing:
        argv = argv[1:]
    elif not argv:
        print(__doc__)
        return 2
    else:
        build, argv = os.path.abspath(argv[0]), argv[1:]
    files = argv or [os.path.relpath(f, source) for f in markdown_files(source)]
    failures = checked = skipped = 0
    for rel in files:
        try:
            found = blocks(os.path.join(source, rel))
        except ValueError as e:
            print(f"FAIL {rel}: {e}")
            failures += 1
            continue
        for block in found:
            block.path = rel
            first = block.commands[0][0].split("\n")[0] if block.commands else ""
            if listing:
                print(f"{block.where()}: {'skip' if 'skip' in block.options else 'run'}: {first}")
                continue
            if "skip" in block.options:
                print(f"skip {block.where()}: {block.options['skip']}")
                skipped += 1
                continue
            report = run_block(block, source, build)
            checked += 1
            if report:
                failures += 1
                print(f"FAIL {block.where()}\n{report}")
            else:
                print(f"ok   {block.where()}: {first}")
    if not listing:
        print(f"doc_commands: {checked} blocks run, {skipped} skipped, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
