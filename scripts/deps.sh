#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what onyx needs to build and test, from Debian's packages. Run as
# root on Debian 12. Skips the network when everything is already there.
set -euo pipefail
packages=(build-essential cmake pkg-config clang libcmocka-dev python3 python3-numpy
  python3-onnx libonnx-testdata valgrind doxygen
  libclang-rt-14-dev libsimde-dev clang-format
  libxml2-utils)
# Packaging: pip install and python3 -m build offline (ecosystem.pip), mypy.
packages+=(python3-venv python3-pip python3-setuptools python3-wheel python3-build mypy)
# The Debian packages (scripts/debian.sh): dpkg-buildpackage, debhelper, lintian.
packages+=(dpkg-dev debhelper dh-python lintian)
# XNNPACK for bench/ (about 1.3 MB with pthreadpool and cpuinfo), so that the
# bench.smoke test covers its path.
packages+=(libxnnpack-dev libpthreadpool-dev libcpuinfo-dev)
# Dask for tests/python/test_dask.py (a LocalCluster of worker processes).
packages+=(python3-dask python3-distributed)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
