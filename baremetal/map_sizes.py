#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Sums a GNU ld map file's input sections by where they came from.

    map_sizes.py MAP

Prints, for each archive (libonyx.a, newlib's libc.a and libm.a, libgcc.a)
and for the program's own objects, the bytes of code (.text), of constants
(.rodata; both flash), of initialised data (.data: flash and RAM) and of zeroed
data (.bss: RAM), largest first, and the onyx objects' largest members.
"""

import collections
import os
import re
import sys

LINE = re.compile(r"^\s*(\S+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$")


def kind(section):
    for prefix, k in ((".text", "text"), (".rodata", "rodata"), (".ARM", "text"),
                      (".data", "data"), (".bss", "bss"), ("COMMON", "bss")):
        if section.startswith(prefix):
            return k
    return None


def main():
    totals = collections.defaultdict(lambda: collections.Counter())
    members = collections.Counter()
    section = None
    in_map = False
    for line in open(sys.argv[1]):
        if line.startswith("Linker script and memory map"):
            in_map = True
        if not in_map:
            continue
        if re.match(r"^ (\.\S+|COMMON)\s*$", line):
            section = line.split()[0]
            continue
        m = LINE.match(line)
        if not m or line.startswith(" *fill*"):
            continue
        name = m.group(1) or section
        k = kind(name or "")
        if k is None or not line.startswith(" "):
            continue
        size, origin = int(m.group(2), 16), m.group(3)
        lib = re.match(r"(.*\.a)\((.*)\)$", origin)
        where = os.path.basename(lib.group(1)) if lib else "the program's own objects"
        totals[where][k] += size
        if lib and where == "libonyx.a" and k in ("text", "rodata"):
            members[lib.group(2)] += size
        section = None
    rows = sorted(totals.items(), key=lambda kv: -sum(kv[1].values()))
    print("  %-28s %8s %8s %8s %8s" % ("from", "code", "rodata", "data", "bss"))
    for where, c in rows:
        print("  %-28s %8d %8d %8d %8d" % (where, c["text"], c["rodata"], c["data"], c["bss"]))
    onyx = totals["libonyx.a"]
    print("  onyx: %d bytes of code and constants" % (onyx["text"] + onyx["rodata"]))
    print("  largest onyx objects (code and rodata): " +
          ", ".join("%s %d" % (n, s) for n, s in members.most_common(8)))


if __name__ == "__main__":
    main()
