#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Set-up and first run: installs dependencies, builds onyx, and runs the
# bundled example model (Ceil -> Floor -> Clip -> Sign) on its bundled input.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target onyx onyx_shared onyx_static
./build/onyx run examples/chain.onnx --input x=examples/chain_input_x.pb
