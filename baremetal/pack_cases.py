#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Packs ONNX backend-test case folders into one file for the bare-metal
test image (baremetal/runner.c reads it; the image embeds it with .incbin).

    pack_cases.py OUT BUDGET DIR...

Each DIR holds case folders (model.onnx, test_data_set_N/input_K.pb and
output_K.pb). Cases go in smallest first while the packed file stays
within BUDGET bytes. A case whose folder holds anything else (external
data files) is left out, since the board has no files; so is what does not
fit. Prints the count packed and each reason for leaving cases out.

Layout, all integers 32-bit little-endian, every blob padded to 8 bytes:
    "ONYXCASE" n_cases
    per case: name, model, n_sets, per set: n_in, inputs, n_out, outputs
where a blob (name, model, tensor) is its length, then its bytes.
"""

import os
import re
import struct
import sys


def blob(data):
    pad = (-(4 + len(data))) % 8
    return struct.pack("<I", len(data)) + data + b"\0" * pad


def numbered(folder, prefix):
    names = [n for n in os.listdir(folder) if re.fullmatch(prefix + r"_\d+\.pb", n)]
    names.sort(key=lambda n: int(n[len(prefix) + 1:-3]))
    return [open(os.path.join(folder, n), "rb").read() for n in names]


def pack_case(name, path):
    """The packed bytes of one case, or None when it needs files."""
    sets = []
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if entry == "model.onnx":
            continue
        m = re.fullmatch(r"test_data_set_(\d+)", entry)
        if not m or not os.path.isdir(full):
            return None
        sets.append((int(m.group(1)), full))
    sets.sort()
    out = [blob(name.encode()), blob(open(os.path.join(path, "model.onnx"), "rb").read()),
           struct.pack("<I", len(sets))]
    for _, folder in sets:
        for prefix in ("input", "output"):
            tensors = numbered(folder, prefix)
            out.append(struct.pack("<I", len(tensors)))
            out.extend(blob(t) for t in tensors)
    return b"".join(out)


def main():
    out_path, budget, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    packed, files = [], []
    for d in dirs:
        group = os.path.basename(os.path.normpath(d))
        for case in sorted(os.listdir(d)):
            data = pack_case(group + "/" + case, os.path.join(d, case))
            if data is None:
                files.append(group + "/" + case)
            else:
                packed.append((len(data), group + "/" + case, data))
    packed.sort()
    total, kept = 12, []
    for _, _, data in packed:
        if total + len(data) > budget:
            break
        total += len(data)
        kept.append(data)
    with open(out_path, "wb") as f:
        f.write(b"ONYXCASE" + struct.pack("<I", len(kept)) + b"".join(kept))
    print("packed %d cases (%d bytes)" % (len(kept), total))
    if files:
        print("left out %d case(s) that need files (external data): %s" %
              (len(files), ", ".join(files)))
    if len(packed) > len(kept):
        print("left out %d case(s) too large for the %d-byte budget: %s" %
              (len(packed) - len(kept), budget,
               ", ".join("%s (%d bytes)" % (n, size) for size, n, _ in packed[len(kept):])))


if __name__ == "__main__":
    main()
