#!/usr/bin/env bash
# Lint: formatting (clang-format, .clang-format) and the structural checks of
# scripts/lint_code.py: every include against the layer table, functions over 80 lines outside
# tests (scripts/long-functions.txt lists today's with their lengths, and only shrinks), STYLE.md
# "Determinism": library code gets time, randomness, threads and sleeping from the Runtime, and
# only base, the storage backends and testing construct clocks or entropy; and the seams of
# issue [30]: the front ends include only include/omnigraph/ and their own folder, commit never
# includes table, and only the write path's files call the publish entry points. Tests and test
# support (*_test.cc, *_contract.*, test_util.*) and benchmarks are exempt.
# Usage: scripts/lint.sh [--fix]   (--fix: clang-format in place, and lower the allowlist's
# numbers to the lengths measured / remove its stale entries; it never adds or raises one)
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

# Layering, function length, banned calls and seams (scripts/lint_code.py says what each checks).
fix_arg=()
[ "$fix" -eq 1 ] && fix_arg=(--fix)
if [ "${#files[@]}" -gt 0 ] && ! python3 scripts/lint_code.py "${fix_arg[@]}" "${files[@]}"; then
  echo "lint: structural checks failed (scripts/lint_code.py)"
  status=1
fi

if [ "$status" -eq 0 ]; then echo "lint: clean (${#files[@]} files)"; fi
exit "$status"
