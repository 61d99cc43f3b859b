#!/usr/bin/env bash
# Lint: formatting (clang-format, .clang-format) and the banned-call check of STYLE.md
# "Determinism": library code outside src/base and src/testing gets time, randomness, threads and
# sleeping from the Runtime, never directly. Tests and test support (*_test.cc, *_contract.*,
# test_util.*) and benchmarks are exempt.
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

banned='system_clock::now|steady_clock::now|high_resolution_clock::now|random_device|(^|[^A-Za-z0-9_])s?rand\(|std::thread|std::jthread|sleep_for|sleep_until|usleep\('
mapfile -t library < <(printf '%s\n' "${files[@]}" | grep '^src/' | grep -vE '^src/(base|testing)/' |
  grep -vE '(_test\.cc|_contract\.(h|cc)|test_util\.(h|cc))$' || true)
if [ "${#library[@]}" -gt 0 ]; then
  if hits=$(grep -nE "$banned" "${library[@]}"); then
    echo "lint: direct time/randomness/thread/sleep calls outside src/base and src/testing" \
      "(use the Runtime's Clock, Random and Executor):"
    printf '%s\n' "$hits" | sed 's/^/  /'
    status=1
  fi
fi

if [ "$status" -eq 0 ]; then echo "lint: clean (${#files[@]} files)"; fi
exit "$status"
