#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs onyx's benchmark: onyx, memcpy, ONNX Runtime and XNNPACK
# on one-node Ceil, Floor, Clip and Sign models, for every element type,
# size and thread count, back to back per case. See bench/README.md.
#
#   bash bench/run.sh                   the full run (about 10 minutes on 2 cores)
#   bash bench/run.sh --quick --no-ort  a smoke test: offline, seconds
#   bash bench/run.sh --ops Clip --types float,int8 --sizes 1e6 --threads 1
#   bash bench/run.sh --docs            the full run, its tables into docs/performance.md
#
# Every option but --no-ort, --docs and --help goes to onyx_bench
# (bench/onyx_bench.c; `bash bench/run.sh --help` lists them). Results: the
# table on stdout, bench/results.csv and bench/results.md (with the machine's
# description and the date); with --docs, results.md also becomes the "Speed"
# section of docs/performance.md (bench/docs_speed.py).
#
# Needs: cmake and a C compiler; /usr/bin/python3 with onnx and numpy
# (Debian's python3-onnx, python3-numpy) to write the models; for ONNX
# Runtime, Node.js 18 or newer and npm (it installs onnxruntime-node 1.30.0
# into bench/node_modules from bench/package-lock.json on first use); for
# XNNPACK, Debian's libxnnpack-dev, libpthreadpool-dev and libcpuinfo-dev.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
python="${ONYX_BENCH_PYTHON:-/usr/bin/python3}"
node="${ONYX_BENCH_NODE:-node}"
build="$here/build"
models="$here/models"

ort=1
docs=0
args=()
for a in "$@"; do
  case "$a" in
    --no-ort) ort=0 ;;
    --docs) docs=1 ;;
    -h | --help)
      sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
      echo
      ort=0
      args+=(--help)
      ;;
    *) args+=("$a") ;;
  esac
done

log() { echo "run.sh: $*" >&2; }

# 1. Build the library and onyx_bench (Release).
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$here/.cmake.log" 2>&1 &&
  cmake --build "$build" --target onyx_bench -j"$(nproc)" >>"$here/.cmake.log" 2>&1; }; then
  cat "$here/.cmake.log" >&2
  log "the build failed"
  exit 1
fi
rm -f "$here/.cmake.log"
bench="$build/onyx_bench"
if [[ " ${args[*]-} " == *" --help "* ]]; then
  exec "$bench" --help
fi

# 2. The models, written again when gen_models.py changes.
stamp="$models/.stamp"
if [[ ! -f "$stamp" || "$here/gen_models.py" -nt "$stamp" ]]; then
  if ! "$python" -c 'import onnx, numpy' 2>/dev/null; then
    log "$python cannot import onnx and numpy (apt-get install python3-onnx python3-numpy," \
      "or set ONYX_BENCH_PYTHON)"
    exit 1
  fi
  rm -rf "$models"
  "$python" "$here/gen_models.py" "$models" >&2
  touch "$stamp"
fi

# 3. ONNX Runtime for Node.js, into bench/node_modules.
if ((ort)); then
  want="$(sed -n 's/.*"onnxruntime-node": *"\([^"]*\)".*/\1/p' "$here/package.json")"
  have="$("$node" -p "require('$here/node_modules/onnxruntime-node/package.json').version" 2>/dev/null || true)"
  if [[ "$have" != "$want" ]]; then
    major="$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
    if ((major < 18)); then
      log "Node.js 18 or newer is needed for ONNX Runtime (found: ${major}); going on without it"
      ort=0
    else
      log "installing onnxruntime-node $want into bench/node_modules"
      # --ignore-scripts: the CPU library ships inside the package; its
      # install script only fetches optional GPU libraries.
      if ! (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
        log "npm could not install onnxruntime-node; going on without ONNX Runtime"
        ort=0
      fi
    fi
  fi
fi

# 3b. XNNPACK is built in where CMake found it (bench/xnnpack.cmake).
xnn=""
if grep -q '^ONYX_BENCH_XNNPACK_LIB:FILEPATH=/' "$build/CMakeCache.txt" 2>/dev/null; then
  xnn="$(dpkg-query -W -f='${Version}' libxnnpack0 2>/dev/null || echo 'version unknown')"
else
  log "XNNPACK not found (apt-get install libxnnpack-dev); going on without it"
fi

# 4. Run, and describe the machine.
lscpu_field() { LC_ALL=C lscpu 2>/dev/null | sed -n "s/^$1: *//p" | head -n1; }
sockets="$(lscpu_field 'Socket(s)')"
per_socket="$(lscpu_field 'Core(s) per socket')"
machine="$(lscpu_field 'Model name'), $(nproc) CPUs ($((${sockets:-1} * ${per_socket:-0})) cores)"
machine+=", L1d $(lscpu_field 'L1d cache'), L2 $(lscpu_field 'L2 cache'), L3 $(lscpu_field 'L3 cache')"
when="$(date -u '+%Y-%m-%d %H:%M UTC')"
echo "$when; $machine"
echo "command: bash bench/run.sh ${*-}"
[[ -z "$xnn" ]] || echo "XNNPACK: Debian libxnnpack0 $xnn"

opts=(--models "$models" --ort-script "$here/ort_bench.js" --node "$node"
  --csv "$here/results.csv" --markdown "$here/results.md")
((ort)) || opts+=(--no-ort)
cd "$root"
status=0
"$bench" "${opts[@]}" ${args[@]+"${args[@]}"} || status=$?
((status != 2)) || exit 2

{
  echo "$when; $machine"
  echo "command: bash bench/run.sh ${*-}"
  [[ -z "$xnn" ]] || echo "XNNPACK: Debian libxnnpack0 $xnn"
  echo
  cat "$here/results.md"
} >"$here/results.md.new"
mv "$here/results.md.new" "$here/results.md"
log "wrote bench/results.csv and bench/results.md"

# 5. Peak memory on one 256 MiB initializer, embedded and external
# (bench/memory.py); not in --quick runs, which must stay offline and short.
if [[ " ${args[*]-} " != *" --quick "* ]]; then
  cmake --build "$build" --target onyx -j"$(nproc)" >/dev/null
  ort_dir="$here"
  ((ort)) || ort_dir=/nonexistent
  if table="$("$python" "$here/memory.py" "$build/onyx/onyx" --node "$node" --ort-dir "$ort_dir")"; then
    printf '\n## Peak memory, one 2^26-float initializer feeding Ceil\n\n%s\n' "$table" |
      tee -a "$here/results.md"
  else
    log "the memory comparison failed"
    status=1
  fi
fi

# 6. With --docs, the tables of a run that passed go to docs/performance.md.
if ((docs)); then
  if ((status == 0)); then
    "$python" "$here/docs_speed.py" "$here/results.md" "$root/docs/performance.md" >&2 || status=1
  else
    log "the run failed, so docs/performance.md is left as it was"
  fi
fi
exit "$status"
