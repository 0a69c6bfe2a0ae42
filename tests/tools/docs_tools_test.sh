#!/usr/bin/env bash
# The documentation's two checkers catch what they are for: check_links.py
# reports a missing file, a missing anchor and an anchor into a file that is
# not Markdown, and ignores links in code; doc_commands.py reports a printed
# line that drifted, a wrong exit status and an unknown option, and honours
# its masks, elisions, "run", "skip", "status" and "/tmp/" mapping.
#   docs_tools_test.sh SOURCE_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"
work="$(mktemp -d /tmp/ucc_docs_tools_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() {
    echo "docs_tools_test: FAIL: $*"
    exit 1
}

# ---- links
mkdir -p "$work/links/sub"
cat >"$work/links/other.md" <<'EOF'
# Other
## A heading: with `code`, punctuation!
## A heading: with `code`, punctuation!
<a id="explicit"></a>
EOF
echo "text" >"$work/links/sub/file.txt"
cat >"$work/links/good.md" <<'EOF'
# Good
## Local heading
[a](other.md), [b](other.md#a-heading-with-code-punctuation), [c](#local-heading),
[d](https://example.com/x.md#y), [e](other.md#a-heading-with-code-punctuation-1),
[f](other.md#explicit), [g](sub/file.txt#L3), ![h](sub/file.txt), [i](sub/)
`[not a link](missing.md)`
```
[not a link either](missing.md)
```
EOF
python3 "$src/scripts/check_links.py" "$work/links" >"$work/out" ||
    { cat "$work/out"; fail "valid links reported broken"; }
grep -q "2 Markdown files, 9 links, 0 broken" "$work/out" || { cat "$work/out"; fail "link count"; }
cat >"$work/links/bad.md" <<'EOF'
[x](missing.md) and [y](other.md#nope)
[z](#nowhere) and [w](sub/file.txt#section)
EOF
if python3 "$src/scripts/check_links.py" "$work/links" >"$work/out"; then
    cat "$work/out"
    fail "broken links not reported"
fi
grep -q "^bad.md:1: missing.md: no such file" "$work/out" || { cat "$work/out"; fail "missing file"; }
grep -q "^bad.md:1: other.md#nope: no heading '#nope' in other.md" "$work/out" ||
    { cat "$work/out"; fail "missing anchor"; }
grep -q "^bad.md:2: #nowhere: no heading" "$work/out" || { cat "$work/out"; fail "missing local anchor"; }
grep -q "^bad.md:2: sub/file.txt#section: an anchor into a file that is not Markdown" "$work/out" ||
    { cat "$work/out"; fail "anchor into a text file"; }
grep -q "4 broken" "$work/out" || { cat "$work/out"; fail "broken count"; }

# ---- commands
mkdir -p "$work/cmds"
cat >"$work/cmds/pass.md" <<'EOF'
A session, masks and elisions:

```
$ echo "Wall time: 1.234 seconds."; echo "Events: 12 (999 events/s)."
Wall time: 9.999 seconds.
Events: 12 (1 events/s).
$ printf 'a\nb\nc   d\nlong line with a tail\n'
a
...
c d
long line...
```

<!-- doc-test: run="echo hi; echo there" -->
```
hi
there
```

<!-- doc-test: numbers -->
```
$ echo "took 12.5 ms over 3 runs"
took 99.1 ms over 7 runs
```

<!-- doc-test: status=3 volatile='id=[a-z]+' -->
```
$ sh -c 'echo id=abc; exit 3'
id=xyz
```

<!-- doc-test: skip="needs a cluster" -->
```
$ false
```

```
$ mkdir -p /tmp/x && touch /tmp/x/f && ls /tmp/x/f
/tmp/x/f
```

```sh
not a session: never run
```
EOF
python3 "$src/scripts/doc_commands.py" "$work" "$work/cmds/pass.md" >"$work/out" ||
    { cat "$work/out"; fail "a matching document failed"; }
grep -q "5 blocks run, 1 skipped, 0 failed" "$work/out" || { cat "$work/out"; fail "pass counts"; }
grep -q "skip .*: needs a cluster" "$work/out" || { cat "$work/out"; fail "skip reason"; }

check_fails() {  # name, document, what the report must say
    printf '%s\n' "$2" >"$work/cmds/$1.md"
    if python3 "$src/scripts/doc_commands.py" "$work" "$work/cmds/$1.md" >"$work/out"; then
        cat "$work/out"
        fail "$1: not reported"
    fi
    grep -q -- "$3" "$work/out" || { cat "$work/out"; fail "$1: report lacks '$3'"; }
}
check_fails drift $'```\n$ echo 42\n41\n```' "the documented line"
check_fails order $'```\n$ printf \'a\\nb\\n\'\nb\na\n```' "was not printed (in this order)"
check_fails hash $'```\n$ echo "trace hash 0x1234"\ntrace hash 0x1235\n```' "was not printed"
check_fails status $'```\n$ sh -c \'exit 3\'\n```' "exited with 3, not 0"
check_fails option $'<!-- doc-test: bogus -->\n```\n$ true\n```' "unknown option 'bogus'"
check_fails masked_only_where_said $'```\n$ echo "took 12 ms"\ntook 13 ms\n```' "was not printed"
echo "docs_tools_test: PASS"
