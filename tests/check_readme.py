# SPDX-License-Identifier: MIT
"""Checks that README.md agrees with the code it describes."""
import re
import sys

root = sys.argv[1]
readme = open(f"{root}/README.md").read()
header = open(f"{root}/include/onyx.h").read()
example = open(f"{root}/examples/example.c").read()
# The file's license line is for the file, not for readers of the README.
example = re.sub(r"\A/\* SPDX-License-Identifier: [^*]* \*/\n", "", example)
failures = []

blocks = re.findall(r"```c\n(.*?)```", readme, re.S)
if example not in blocks:
    failures.append("the README's C example is not examples/example.c")

codes = re.findall(r'X\((\w+), (\d+), "([^"]*)"\)', header)
rows = re.findall(r"^\| (\d+) \| `ONYX_(\w+)` \| (.*) \|$", readme, re.M)
if [(n, v) for n, v, _ in codes] != [(n, v) for v, n, _ in rows]:
    failures.append(f"the README's error table does not match ONYX_STATUS_MAP: {rows} vs {codes}")

for f in failures:
    print("FAIL", f)
print(f"{2 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
