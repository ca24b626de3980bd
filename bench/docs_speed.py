# SPDX-License-Identifier: MIT
"""Writes a benchmark run's tables into docs/performance.md.

    /usr/bin/python3 bench/docs_speed.py RESULTS_MD PAGE

bench/run.sh --docs calls it after a run. RESULTS_MD is the run's
bench/results.md: its first lines (up to the first blank one) say when,
on which machine and with which command it ran ("DATE; MACHINE", then
"command: ...", "XNNPACK: ..."); the rest are its tables.
The "## Speed" section of PAGE (up to the next "## " heading) is replaced
by those lines and tables, the tables' own headings one level down, so
that the page's other sections stay as they are. Exits 1, writing nothing,
when RESULTS_MD has no table or PAGE no "## Speed" section.
"""
import re
import sys


def section(results: str) -> str:
    head, _, body = results.partition("\n\n")
    if "\n| " not in "\n" + body:
        raise SystemExit(f"docs_speed.py: {sys.argv[1]} holds no table")
    when, machine = (head.splitlines()[0].split("; ", 1) + [""])[:2]
    fields = dict(line.split(": ", 1) for line in head.splitlines()[1:] if ": " in line)
    text = f"Measured by `{fields.get('command', 'bash bench/run.sh')}` on {when}: {machine}"
    if "XNNPACK" in fields:
        text += f"; XNNPACK: {fields['XNNPACK']}"
    text += (". bench/run.sh --docs wrote this section from its bench/results.md;"
             " `bench/README.md` says what each column measures.")
    body = re.sub(r"^(#+) ", r"#\1 ", body.strip(), flags=re.M)
    return "## Speed\n\n" + text + "\n\n" + body + "\n\n"


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: bench/docs_speed.py RESULTS_MD PAGE")
    results = open(sys.argv[1]).read()
    page = open(sys.argv[2]).read()
    match = re.search(r"^## Speed\n.*?(?=^## |\Z)", page, re.S | re.M)
    if not match:
        raise SystemExit(f"docs_speed.py: {sys.argv[2]} has no '## Speed' section")
    page = page[: match.start()] + section(results) + page[match.end():]
    with open(sys.argv[2], "w") as f:
        f.write(page.rstrip("\n") + "\n")
    print(f"docs_speed.py: wrote the Speed section of {sys.argv[2]}")


if __name__ == "__main__":
    main()
