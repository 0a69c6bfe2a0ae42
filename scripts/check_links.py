#!/usr/bin/env python3
"""Checks every relative link and anchor in the repository's Markdown files.

    scripts/check_links.py [SOURCE_DIR]

A link [text](target) or ![alt](target) outside code must name a file or
directory that exists (relative to the file that links it), and an anchor
(#section, or file.md#section) must be one of the target's headings as GitHub
renders its id (lower case, punctuation but '-' and '_' dropped, spaces as
'-', '-1', '-2' ... for repeats) or an explicit <a id="..."> / <a name="...">.
An anchor into a file that is not Markdown may only be a line (#L12, #L3-L9).
Links with a scheme (https:, mailto:) are not followed: the check needs no
network. Prints one line per broken link, file:line: why, and exits 1 if any.
"""

import os
import re
import subprocess
import sys

SKIP_DIRS = {".git", "node_modules"}
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def markdown_files(root):
    """The repository's Markdown files: those git knows (tracked or not
    ignored), or every *.md below root outside build directories."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "*.md"],
                             check=True, capture_output=True, text=True).stdout
        files = [os.path.join(root, f) for f in out.splitlines() if f]
        if files:
            return sorted(f for f in files if os.path.exists(f))
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        found += [os.path.join(d, n) for n in names if n.endswith(".md")]
    return sorted(found)


def prose_lines(text):
    """(line number, line) for the lines outside fenced code blocks, with
    inline code spans blanked out."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, re.sub(r"(`+)(.+?)\1", lambda s: " " * len(s.group(0)), line)


def slug(heading):
    """The id GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, ids = {}, set()
        text = open(path, encoding="utf-8").read()
        for _, line in prose_lines(text):
            ids.update(EXPLICIT_ANCHOR.findall(line))
        fence = None
        for line in text.split("\n"):
            m = FENCE.match(line)
            if fence or m:
                if fence and m and m.group(1)[0] == fence[0]:
                    fence = None
                elif not fence:
                    fence = m.group(1)
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                ids.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
        cache[path] = ids
    return cache[path]


def check(path, root):
    problems = []
    text = open(path, encoding="utf-8").read()
    for number, line in prose_lines(text):
        targets = LINK.findall(line)
        m = REF_DEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # https:, mailto:, ...: not followed
            file_part, _, anchor = target.partition("#")
            dest = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            where = f"{os.path.relpath(path, root)}:{number}"
            if not os.path.exists(dest):
                problems.append(f"{where}: {target}: no such file ({os.path.relpath(dest, root)})")
                continue
            if not os.path.abspath(dest).startswith(os.path.abspath(root) + os.sep) and dest != root:
                problems.append(f"{where}: {target}: points outside the repository")
                continue
            if not anchor:
                continue
            if dest.endswith(".md") and os.path.isfile(dest):
                if anchor not in anchors(dest):
                    problems.append(f"{where}: {target}: no heading '#{anchor}' in "
                                    f"{os.path.relpath(dest, root)}")
            elif not re.fullmatch(r"L\d+(-L\d+)?", anchor):
                problems.append(f"{where}: {target}: an anchor into a file that is not Markdown "
                                "can only be a line (#L12)")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    files = markdown_files(root)
    problems = [p for f in files for p in check(f, root)]
    for p in problems:
        print(p)
    links = sum(len(LINK.findall(l)) for f in files for _, l in prose_lines(open(f).read()))
    print(f"check_links: {len(files)} Markdown files, {links} links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
