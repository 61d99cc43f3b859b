#!/usr/bin/env python3
"""The release build lays out the cold paths' functions first (decision 251, cmake/LinkOrder.cmake).

For each program given, the functions cmake/link-order.txt lists first (the fresh lookup's) must
sit together: the span of addresses they occupy is at most twice their total size plus 64 KiB.
A build that dropped the ordering (another linker, no -ffunction-sections, no ordering file)
scatters them across the program's code, megabytes apart, and fails.
Usage: link_order_test.py ORDER_FILE PROGRAM...
"""
import subprocess
import sys

FIRST = 300  # How many listed functions (that the program has) to check.


def code_symbols(program):
    out = subprocess.run(["nm", "-S", "--defined-only", program], check=True,
                         capture_output=True, text=True).stdout
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            symbols.setdefault(parts[3], (int(parts[0], 16), int(parts[1], 16)))
    return symbols


def main():
    order_file, programs = sys.argv[1], sys.argv[2:]
    with open(order_file, encoding="utf-8") as f:
        listed = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    failed = False
    for program in programs:
        symbols = code_symbols(program)
        first = [symbols[n] for n in listed if n in symbols and symbols[n][1] > 0][:FIRST]
        if len(first) < FIRST:
            print(f"{program}: only {len(first)} of the listed functions are in it")
            failed = True
            continue
        size = sum(s for _, s in first)
        span = max(a + s for a, s in first) - min(a for a, _ in first)
        ok = span <= 2 * size + 65536
        print(f"{program}: the first {FIRST} listed functions ({size} bytes) span {span} bytes"
              f" -> {'together' if ok else 'scattered'}")
        failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
