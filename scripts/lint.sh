#!/usr/bin/env bash
# Lint: formatting (clang-format, .clang-format) and the structural checks of
# scripts/lint_code.py: every include against the layer table, functions over 80 lines outside
# tests (scripts/long-functions.txt lists today's, and only shrinks), and STYLE.md
# "Determinism": library code gets time, randomness, threads and sleeping from the Runtime, and
# only base, the storage backends and testing construct clocks or entropy. Tests and test
# support (*_test.cc, *_contract.*, test_util.*) and benchmarks are exempt.
# Usage: scripts/lint.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
[ "${1:-}" = "--fix" ] && fix=1

mapfile -t files < <(git ls-files -co --exclude-standard -- '*.h' '*.cc' | grep -v '^build/' || true)
status=0

if [ "${#files[@]}" -gt 0 ]; then
  if [ "$fix" -eq 1 ]; then
    clang-format -i "${files[@]}"
  elif ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/omnigraph-lint-format.$$; then
    echo "lint: these files need clang-format (run scripts/lint.sh --fix):"
    grep -oE '^[^:]+\.(h|cc)' /tmp/omnigraph-lint-format.$$ | sort -u | sed 's/^/  /'
    status=1
  fi
  rm -f /tmp/omnigraph-lint-format.$$
fi

# Layering, function length and banned calls (scripts/lint_code.py says what each checks).
if [ "${#files[@]}" -gt 0 ] && ! python3 scripts/lint_code.py "${files[@]}"; then
  echo "lint: structural checks failed (scripts/lint_code.py)"
  status=1
fi

if [ "$status" -eq 0 ]; then echo "lint: clean (${#files[@]} files)"; fi
exit "$status"
