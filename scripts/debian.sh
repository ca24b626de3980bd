#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian packages (debian/: libonyx0, libonyx-dev, onyx-tools,
# python3-onyx) from a copy of the tree with dpkg-buildpackage -us -uc -b,
# runs lintian on them (no errors allowed), and checks them installed:
# a C program built with their pkg-config file and header, the onyx command
# and the Python package each run examples/chain.onnx, first with the
# packages unpacked with dpkg -x into a folder, then, as root, installed on
# the machine with dpkg -i and purged again afterwards (skipped, with SKIP
# and the reason, when not root or when an onyx package is installed
# already).
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
for f in "usr/lib/$triplet/libonyx.so.$version" "usr/lib/$triplet/libonyx.so.${version%%.*}" \
    "usr/lib/$triplet/libonyx.so" "usr/lib/$triplet/libonyx.a" usr/include/onyx.h \
    "usr/lib/$triplet/pkgconfig/onyx.pc" "usr/lib/$triplet/cmake/onyx/onyxConfig.cmake" \
    usr/bin/onyx usr/share/man/man1/onyx.1.gz usr/share/doc/onyx/errors.md \
    usr/lib/python3/dist-packages/onyx/__init__.py usr/lib/python3/dist-packages/onyx/py.typed \
    "usr/lib/python3/dist-packages/onyx/libonyx.so.${version%%.*}"; do
  [ -e "$inst/$f" ] || { echo "debian.sh: the packages lack /$f" >&2; exit 1; }
done
want='-2 -1 -0 0 1 2 2 2 '

# Runs examples/chain.onnx through each interface of the packages installed
# under SYS ("" for the machine itself): a C program built with their
# onyx.pc and header, linked against their libonyx.so.0; their onyx
# command; their Python package, with its link to their library.
check_interfaces() {
  local sys="$1" how="$2" got cflags exe="$out/example-installed" env=(env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH)
  local lib="$sys/usr/lib/$triplet"
  [ -z "$sys" ] || exe="$out/example-unpacked"
  [ -z "$sys" ] || env+=(PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$sys")
  cflags=$("${env[@]}" pkg-config --cflags --libs onyx)
  # shellcheck disable=SC2086  # pkg-config's flags are words
  cc -std=c11 -Wall -Wextra -Werror "$root/examples/example.c" -o "$exe" $cflags
  [ -z "$sys" ] || env=(env LD_LIBRARY_PATH="$lib")
  got=$(cd "$root" && "${env[@]}" "$exe")
  [ "$got" = "$want" ] || { echo "debian.sh ($how): the C example printed '$got', not '$want'" >&2; return 1; }
  if [ -z "$sys" ]; then
    ldd "$exe" | grep -q "/$triplet/libonyx.so.0 " ||
      { echo "debian.sh ($how): the C example does not load the installed libonyx.so.0:" >&2; ldd "$exe" >&2; return 1; }
  fi
  echo "$how: C (pkg-config, libonyx.so.0): $got"

  got=$(cd "$root" && "$sys/usr/bin/onyx" run examples/chain.onnx --input x=examples/chain_input_x.pb)
  case "$got" in
    *"clipped: float [8]"*"[-2, -1, -0,  0,  1,  2,  2,  2]"*) echo "$how: onyx-tools: onyx run: ok" ;;
    *) echo "debian.sh ($how): onyx run printed:"$'\n'"$got" >&2; return 1 ;;
  esac

  # From / so that the tree's python/ is not on the path.
  env=(env -u ONYX_LIBRARY -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1)
  [ -z "$sys" ] || env+=(PYTHONPATH="$sys/usr/lib/python3/dist-packages")
  got=$(cd / && "${env[@]}" /usr/bin/python3 "$root/tests/python/installed_use.py" \
    "$root/examples/chain.onnx" "$sys/usr/lib") || return 1
  echo "$how: python3-onyx: $got"
}

check_interfaces "$inst" "dpkg -x"

# ---- Installed on the machine with dpkg -i, then purged again --------------
# As root only (CI runs as root), and only where no onyx package is
# installed already, so that the machine ends as it began.
pkgs=(libonyx0 libonyx-dev onyx-tools python3-onyx)
# Those of the packages that dpkg knows as installed or with files left.
installed() {
  { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${pkgs[@]}" 2>/dev/null || true; } |
    awk '$1 != "un" && $1 != "" {printf "%s ", $NF}'
}
present=$(installed)
if [ "$(id -u)" != 0 ]; then
  echo "SKIP dpkg -i: not root (the packages were checked unpacked with dpkg -x only)"
elif [ -n "$present" ]; then
  echo "SKIP dpkg -i: already installed here: $present(purging them would not leave the machine as it was)"
else
  trap 'dpkg --purge "${pkgs[@]}" >"$out/purge.log" 2>&1 || cat "$out/purge.log" >&2' EXIT
  dpkg -i "${debs[@]}" >"$out/install.log" 2>&1 || {
    cat "$out/install.log"
    echo "debian.sh: dpkg -i failed" >&2
    exit 1
  }
  echo "dpkg -i: ${pkgs[*]} installed"
  check_interfaces "" "dpkg -i"
  trap - EXIT
  dpkg --purge "${pkgs[@]}" >"$out/purge.log" 2>&1 || { cat "$out/purge.log"; exit 1; }
  left=$(installed)
  [ -z "$left" ] || { echo "debian.sh: dpkg --purge left $left installed" >&2; exit 1; }
  for f in /usr/bin/onyx /usr/include/onyx.h "/usr/lib/$triplet/libonyx.so.0" /usr/lib/python3/dist-packages/onyx; do
    [ ! -e "$f" ] || { echo "debian.sh: $f is still there after dpkg --purge" >&2; exit 1; }
  done
  echo "dpkg --purge: ${pkgs[*]} removed, none of their files left"
fi
echo "debian.sh: the packages are in $out ($((SECONDS - start)) s in all)"
