# SPDX-License-Identifier: MIT
"""Checks that README.md and docs/*.md agree with the code they describe.

    python3 check_readme.py ROOT [ONYX]

- the README's C example is examples/example.c verbatim, and its error
  table is the status list of onyx.h;
- one interpreter everywhere: a command that runs Python says
  /usr/bin/python3 (Debian's, which has numpy and onnx), never a bare
  python3 that PATH may resolve to another one;
- where a page shows the WebAssembly build (the wasm32-wasi toolchain file
  in a code block), it names the Debian packages that toolchain file says
  it needs;
- the README and scripts/example.sh describe the same graph, the one
  examples/make_example.py builds (each "A -> B" an output of an A node
  read by a B node);
- with ONYX (the built command): docs/cli.md's synopsis of each command
  names the options, and only the options, of that command's --help usage.
"""
import glob
import os
import re
import subprocess
import sys

root = sys.argv[1]
onyx = sys.argv[2] if len(sys.argv) > 2 else None
readme = open(f"{root}/README.md").read()
header = open(f"{root}/include/onyx.h").read()
example = open(f"{root}/examples/example.c").read()
# The file's license line is for the file, not for readers of the README.
example = re.sub(r"\A/\* SPDX-License-Identifier: [^*]* \*/\n", "", example)
failures = []
checks = 0

checks += 1
blocks = re.findall(r"```c\n(.*?)```", readme, re.S)
if example not in blocks:
    failures.append("the README's C example is not examples/example.c")

checks += 1
codes = re.findall(r'X\((\w+), (\d+), "([^"]*)"\)', header)
rows = re.findall(r"^\| (\d+) \| `ONYX_(\w+)` \| (.*) \|$", readme, re.M)
if [(n, v) for n, v, _ in codes] != [(n, v) for v, n, _ in rows]:
    failures.append(f"the README's error table does not match ONYX_STATUS_MAP: {rows} vs {codes}")

# The bundled example's graph, as the README and scripts/example.sh say it.
checks += 1
nodes = re.findall(r'make_node\("(\w+)", \[([^\]]*)\], \[([^\]]*)\]',
                   open(f"{root}/examples/make_example.py").read())
edges = {(a, b) for a, _, outs in nodes for b, ins, _ in nodes
         if set(re.findall(r'"(\w+)"', outs)) & set(re.findall(r'"(\w+)"', ins))}
arrows = r"\w+(?:\s+->\s+\w+)+"
said = {"README.md": re.search(r"`scripts/example\.sh` runs[\s\S]{0,200}?(" + arrows + ")", readme),
        "scripts/example.sh": re.search(arrows, open(f"{root}/scripts/example.sh").read())}
chains = {}
for name, m in said.items():
    if not m:
        failures.append(f"{name} does not describe the example graph (A -> B -> ...)")
        continue
    chains[name] = re.split(r"\s+->\s+", m.group(1) if m.re.groups else m.group(0))
    wrong = [f"{a} -> {b}" for a, b in zip(chains[name], chains[name][1:]) if (a, b) not in edges]
    if wrong:
        failures.append(f"{name} describes the example as {' -> '.join(chains[name])}, but "
                        f"examples/make_example.py has no {', '.join(wrong)}")
if len(set(map(tuple, chains.values()))) > 1:
    failures.append(f"the README and scripts/example.sh describe different graphs: {chains}")

pages = {"README.md": readme}
for path in sorted(glob.glob(f"{root}/docs/*.md")):
    pages[os.path.relpath(path, root)] = open(path).read()

# One interpreter: python3 as a word of its own (not /usr/bin/python3,
# python3-numpy, python3.11 or lib/python3/).
checks += 1
bare = re.compile(r"(?<![/\w.-])python3(?![\w./-])")
for name, text in pages.items():
    for number, line in enumerate(text.splitlines(), 1):
        if bare.search(line):
            failures.append(f"{name}:{number}: a bare python3 (say /usr/bin/python3): {line.strip()}")

# The WebAssembly build's packages, from the toolchain file's own list.
checks += 1
toolchain = "cmake/toolchains/wasm32-wasi.cmake"
m = re.search(r"\(packages ([^)]*)\)", open(f"{root}/{toolchain}").read().replace("\n#", ""))
wasm_packages = [p.strip() for p in m.group(1).split(",")] if m else []
if not wasm_packages:
    failures.append(f"{toolchain} names no '(packages ...)' in its header")
for name, text in pages.items():
    shown = any(toolchain in block for block in re.findall(r"```sh\n(.*?)```", text, re.S))
    missing = [p for p in wasm_packages if not re.search(rf"(?<![\w.-]){re.escape(p)}(?![\w.-])", text)]
    if shown and missing:
        failures.append(f"{name} shows the wasm build but does not name its packages {missing}")

# Synopses: docs/cli.md's first code block has one per command.
if onyx:
    checks += 1
    option = re.compile(r"(?<![\w-])--?[a-zA-Z][\w-]*")
    cli = pages["docs/cli.md"]
    block = re.search(r"```\n(onyx .*?)```", cli, re.S).group(1)
    documented = {}
    command = None
    for line in block.splitlines():
        m = re.match(r"onyx ([a-z]+)\b", line)
        if m:
            command = m.group(1)
        elif not line.startswith(" "):
            command = None
        if command:
            documented.setdefault(command, set()).update(option.findall(line))
    out = subprocess.run([onyx, "--help"], capture_output=True, text=True).stdout
    commands = re.findall(r"^  ([a-z]+) ", out.split("Commands:")[1].split("\n\n")[0], re.M)
    for command in commands:
        if command == "help":
            continue
        usage = subprocess.run([onyx, command, "--help"], capture_output=True, text=True).stdout
        usage = usage.split("\n\n")[0]
        if not usage.startswith("Usage: onyx " + command):
            failures.append(f"onyx {command} --help does not begin with its usage: {usage!r}")
            continue
        want = set(option.findall(usage))
        got = documented.get(command)
        if got is None:
            failures.append(f"docs/cli.md has no synopsis of onyx {command}")
        elif got != want:
            failures.append(f"docs/cli.md's synopsis of onyx {command}: lacks {sorted(want - got)}, "
                            f"has {sorted(got - want)} that --help does not")

for f in failures:
    print("FAIL", f)
print(f"{checks} checks, {len(failures)} failures")
sys.exit(1 if failures else 0)
