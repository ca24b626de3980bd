#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages (debian/: libonyx0, libonyx-dev, onyx-tools,
# python3-onyx) from a copy of the tree with dpkg-buildpackage -us -uc -b,
# runs lintian on them (no errors allowed), and checks them installed:
# unpacked with dpkg -x into a folder (the machine's /usr stays as it is),
# a C program built with their pkg-config file and header, the onyx command
# and the Python package each run examples/chain.onnx.
#
#   bash scripts/debian.sh [OUT]     (OUT: where the .debs go; default a new temporary folder)
#
# Needs dpkg-dev, debhelper, dh-python, lintian, cmake, a C compiler and
# python3-numpy (scripts/deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/onyx-debian.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
start=$SECONDS
version=$(cat "$root/VERSION")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# ---- Build: dpkg-buildpackage writes the .debs beside the source folder -----
src="$out/onyx-$version"
rm -rf "$src"
mkdir -p "$src"
tar -C "$root" --exclude='./build*' --exclude=./.git --exclude=./tmp --exclude=node_modules \
  --exclude=__pycache__ -cf - . | tar -C "$src" -xf -
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
  dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
  tail -n 60 "$out/build.log"
  echo "debian.sh: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
  exit 1
}
changes="$out/onyx_${version}_${arch}.changes"
debs=()
for p in libonyx0 libonyx-dev onyx-tools python3-onyx; do
  deb="$out/${p}_${version}_${arch}.deb"
  [ -f "$deb" ] || { echo "debian.sh: $deb was not built" >&2; exit 1; }
  debs+=("$deb")
done
echo "built: ${debs[*]##*/} ($((SECONDS - start)) s)"

# ---- lintian: no errors; warnings and notes are printed -----------------------
lintian_out=$(lintian --fail-on error --display-info "$changes" 2>&1 |
  grep -v '^running with root privileges is not recommended!$'; exit "${PIPESTATUS[0]}") || {
  echo "$lintian_out"
  echo "debian.sh: lintian reports errors" >&2
  exit 1
}
echo "lintian: no errors${lintian_out:+; it says:}"
[ -z "$lintian_out" ] || echo "$lintian_out" | sed 's/^/  /'

# ---- Installed: unpacked into a folder, each interface runs the example -------
inst="$out/root"
rm -rf "$inst"
for deb in "${debs[@]}"; do dpkg -x "$deb" "$inst"; done
lib="$inst/usr/lib/$triplet"
for f in "usr/lib/$triplet/libonyx.so.$version" "usr/lib/$triplet/libonyx.so.${version%%.*}" \
    "usr/lib/$triplet/libonyx.so" "usr/lib/$triplet/libonyx.a" usr/include/onyx.h \
    "usr/lib/$triplet/pkgconfig/onyx.pc" "usr/lib/$triplet/cmake/onyx/onyxConfig.cmake" \
    usr/bin/onyx usr/share/man/man1/onyx.1.gz usr/share/doc/onyx/errors.md \
    usr/lib/python3/dist-packages/onyx/__init__.py usr/lib/python3/dist-packages/onyx/py.typed \
    "usr/lib/python3/dist-packages/onyx/libonyx.so.${version%%.*}"; do
  [ -e "$inst/$f" ] || { echo "debian.sh: the packages lack /$f" >&2; exit 1; }
done
want='-2 -1 -0 0 1 2 2 2 '

# C, through the packaged onyx.pc (its paths moved under the folder).
cflags=$(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$inst" pkg-config --cflags --libs onyx)
# shellcheck disable=SC2086  # pkg-config's flags are words
cc -std=c11 -Wall -Wextra -Werror "$root/examples/example.c" -o "$out/example" $cflags
got=$(cd "$root" && LD_LIBRARY_PATH="$lib" "$out/example")
[ "$got" = "$want" ] || { echo "debian.sh: the C example printed '$got', not '$want'" >&2; exit 1; }
echo "C (pkg-config, libonyx.so.0): $got"

# The command.
got=$(cd "$root" && "$inst/usr/bin/onyx" run examples/chain.onnx --input x=examples/chain_input_x.pb)
case "$got" in
  *"clipped: float [8]"*"[-2, -1, -0,  0,  1,  2,  2,  2]"*) echo "onyx-tools: onyx run: ok" ;;
  *) echo "debian.sh: onyx run printed:"$'\n'"$got" >&2; exit 1 ;;
esac

# Python, with the package's link to the packaged library.
env -u ONYX_LIBRARY PYTHONPATH="$inst/usr/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 "$root/tests/python/installed_use.py" "$root/examples/chain.onnx" "$inst/usr/lib"
echo "debian.sh: the packages are in $out ($((SECONDS - start)) s in all)"
