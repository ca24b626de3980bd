#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Set-up and first run: installs dependencies, builds onyx, and runs the
# bundled example model, examples/chain.onnx (examples/make_example.py), on
# its bundled input: Ceil -> Clip -> Sign (Clip's bounds given by Constant
# nodes) beside a Floor of the same input; it prints the three outputs,
# clipped, sign and floor, as the README shows.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target onyx onyx_shared onyx_static
./build/onyx run examples/chain.onnx --input x=examples/chain_input_x.pb
