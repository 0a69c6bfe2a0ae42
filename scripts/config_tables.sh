#!/usr/bin/env bash
# Rewrites the configuration tables of docs/configuration.md from
# `ucc_info --markdown` (the configuration tables of the library itself);
# tests/tools/info_test.sh keeps them equal.   scripts/config_tables.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
python3 - "$build/ucc_info" docs/configuration.md <<'PY'
import subprocess, sys
info, doc = sys.argv[1], sys.argv[2]
tables = subprocess.run([info, "--markdown"], check=True, capture_output=True, text=True).stdout
text = open(doc).read()
begin, end = "<!-- ucc_info --markdown: begin -->\n", "<!-- ucc_info --markdown: end -->"
i, j = text.index(begin) + len(begin), text.index(end)
open(doc, "w").write(text[:i] + tables + text[j:])
PY
