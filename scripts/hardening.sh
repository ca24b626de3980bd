#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hardening checks, after scripts/test.sh's ordinary builds:
#
#   1. asan:     clang with -fsanitize=address,undefined -fno-sanitize-recover=all
#                (leak detection on), the whole CTest suite except the valgrind
#                tests and those that load the library into programs built
#                without sanitizers; this build also has the libFuzzer targets.
#   2. fuzz:     each fuzz target (fuzz/README.md), fuzz_model_graph (the
#                model target with the structure-aware mutator) among them,
#                for FUZZ_SECONDS (default 60), two at a time, from the
#                checked-in corpus (fuzz/corpus/) and seeds made of the
#                conformance data, with its dictionary. A crash, leak,
#                timeout or huge allocation fails.
#   3. tsan:     clang with -fsanitize=thread: tests/unit/test_concurrency.c,
#                the pool and session tests and the multi-threaded
#                conformance runs.
#   4. valgrind: gcc, no sanitizers: every test labelled memcheck (unit tests,
#                bad models, generated and Debian conformance cases, fuzz
#                replays) under valgrind memcheck.
#
# Everything goes under build-hardening/ (HARDENING_DIR). Exits 1 if any
# step failed; the summary at the end says which, and how long each took.
# Environment: FUZZ_SECONDS, HARDENING_DIR, HARDENING_STEPS (a subset of
# "asan fuzz tsan valgrind"), SKIP_DEPS=1 to skip the package check.
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="${HARDENING_DIR:-build-hardening}"
case "$out" in /*) ;; *) out="$root/$out" ;; esac
fuzz_seconds="${FUZZ_SECONDS:-60}"
steps="${HARDENING_STEPS:-asan fuzz tsan valgrind}"
jobs="$(nproc)"
python=/usr/bin/python3
testdata=/usr/share/libonnx-testdata/data
failed=()
summary=()
start_all=$SECONDS

note() { printf '\n== %s ==\n' "$*"; }
want() { [[ " $steps " == *" $1 "* ]]; }

if [ "${SKIP_DEPS:-0}" != 1 ]; then
  bash scripts/deps.sh
  # libFuzzer's runtime comes in its own package on Debian 12.
  probe="$(mktemp -d)"
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)%s\n' \
    '{ (void)d; (void)n; return 0; }' >"$probe/f.c"
  if ! clang -fsanitize=fuzzer "$probe/f.c" -o "$probe/f" 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update && apt-get install -y --no-install-recommends libclang-rt-14-dev
  fi
  rm -rf "$probe"
fi
mkdir -p "$out"

# ---- 1. AddressSanitizer and UndefinedBehaviorSanitizer -------------------
asan_options=(detect_leaks=1 abort_on_error=1 strict_string_checks=1 check_initialization_order=1
  detect_stack_use_after_return=1 allocator_may_return_null=0)
ASAN_OPTIONS="$(IFS=:; echo "${asan_options[*]}")"
export ASAN_OPTIONS
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
asan_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if want asan || want fuzz; then
  note "asan: build (clang, $asan_flags)"
  t0=$SECONDS
  if CC=clang cmake -S . -B "$out/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONYX_FUZZ=ON \
      "-DCMAKE_C_FLAGS=$asan_flags -fsanitize=fuzzer-no-link" >"$out/asan-configure.log" &&
     cmake --build "$out/asan" -j"$jobs" >"$out/asan-build.log" 2>&1; then
    if want asan; then
      # Not here: the valgrind tests (step 4), and the tests that load the
      # library into a program built without the sanitizers (the install
      # test's consumers, Python's ctypes), which cannot work with its
      # runtime missing; the ordinary builds run those.
      # The label is matched whole, so that a new label that merely
      # contains the word does not drop tests from this step.
      note "asan: ctest (all but the valgrind, install, Python, slow and reduced-build tests)"
      # Python cannot load a sanitized libonyx.so: every test labelled
      # python (python.*, example.custom_op.py) is left out by its label.
      # The slow tests (selftest.full: all 2^32 float32 patterns, over 15
      # minutes sanitized; selftest.digests, which is numpy's) and the
      # reduced builds (each builds its own unsanitized library) run in the
      # ordinary gcc build; selftest.check runs the same code here.
      if ctest --test-dir "$out/asan" -LE '^(memcheck|python|slow|buildconfig)$' -E '^onyx\.ecosystem\.install$' \
          -j"$jobs" --output-on-failure >"$out/asan-ctest.log" 2>&1; then
        tail -n 3 "$out/asan-ctest.log"
      else
        grep -E "tests passed|Failed|\*\*\*" "$out/asan-ctest.log" | tail -n 30
        failed+=("asan (see $out/asan-ctest.log)")
      fi
    fi
  else
    tail -n 30 "$out/asan-configure.log" "$out/asan-build.log" 2>/dev/null
    failed+=("asan build")
  fi
  summary+=("asan build$(want asan && echo " and ctest"): $((SECONDS - t0)) s")
fi

# ---- 2. Fuzzing ---------------------------------------------------------------
# Seeds: every model and tensor file of the generated cases and of Debian's
# ONNX test data (up to 16 KiB each), the bundled example, the regression
# inputs, and numpy-written .npy files. Each run also starts from the
# checked-in corpus fuzz/corpus/<target> (copied, so that what the run adds
# stays under $out; fuzz/README.md says how to fold it back in).
make_seeds() {
  local target="$1" dir="$2" suffix="$3"
  rm -rf "$dir" && mkdir -p "$dir"
  "$python" - "$dir" "$suffix" "$out/asan/tests/generated" "$testdata" "$root/examples" \
      "$root/tests/regress/$target" <<'PY'
import hashlib, os, sys
dest, suffix, roots = sys.argv[1], sys.argv[2], sys.argv[3:]
for root in roots:
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if not (f.endswith(suffix) or "regress" in root) or f == "README.md":
                continue
            if not os.path.isfile(p) or os.path.getsize(p) > 16384:
                continue
            with open(p, "rb") as fh:
                data = fh.read()
            with open(os.path.join(dest, hashlib.sha1(data).hexdigest()), "wb") as fh:
                fh.write(data)
PY
}

if want fuzz && [ -x "$out/asan/tests/fuzz_model" ]; then
  t0=$SECONDS
  targets=()
  for t in model_graph model tensor npy; do [ -x "$out/asan/tests/fuzz_$t" ] && targets+=("$t"); done
  note "fuzz: ${targets[*]}, $fuzz_seconds s each"
  for t in "${targets[@]}"; do
    d="$out/fuzz/$t"
    mkdir -p "$d/corpus" "$d/artifacts"
    kept="$root/fuzz/corpus/${t%_graph}"
    [ -d "$kept" ] && cp -n "$kept"/* "$d/corpus/" 2>/dev/null
    case "$t" in
      model|model_graph) make_seeds model "$d/seeds" .onnx; dict=onnx.dict ;;
      tensor) make_seeds tensor "$d/seeds" .pb; dict=onnx.dict ;;
      npy)
        rm -rf "$d/seeds" && mkdir -p "$d/seeds"
        "$python" fuzz/make_npy_seeds.py "$d/seeds" >/dev/null
        cp tests/regress/npy/* "$d/seeds/" 2>/dev/null || true
        dict=npy.dict ;;
    esac
    # The targets run side by side, one process each, as many at a time as
    # there are CPUs.
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    (cd "$d/artifacts" && "$out/asan/tests/fuzz_$t" -max_total_time="$fuzz_seconds" \
        -dict="$root/fuzz/$dict" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$d/artifacts/" \
        "$d/corpus" "$d/seeds" >"$d/log" 2>&1; echo $? >"$d/rc") &
  done
  wait
  for t in "${targets[@]}"; do
    d="$out/fuzz/$t"
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$d/log" | tail -n 1)"
    runs="$(grep -E '^stat::number_of_executed_units' "$d/log" | awk '{print $2}')"
    echo "fuzz_$t: ${runs:-?} runs; ${done_line:-no DONE line}"
    summary+=("fuzz_$t: ${runs:-?} runs, $(echo "$done_line" | grep -oE 'cov: [0-9]+ ft: [0-9]+')")
    if [ "$(cat "$d/rc")" != 0 ]; then
      grep -E 'ERROR|SUMMARY|invariant|runtime error' "$d/log" | head -n 20
      for a in "$d/artifacts"/*; do
        [ -f "$a" ] || continue
        echo "  input: $a"
        echo "  reproduce: $out/asan/tests/fuzz_${t%_graph}_replay $a"
        echo "  once fixed, keep it: cp $a tests/regress/${t%_graph}/<what-it-was>"
      done
      failed+=("fuzz_$t (see $d/log)")
    fi
  done
  summary+=("fuzzing: $((SECONDS - t0)) s")
fi
unset ASAN_OPTIONS UBSAN_OPTIONS

# ---- 3. ThreadSanitizer ---------------------------------------------------------
if want tsan; then
  note "tsan: build (clang, -fsanitize=thread) and the thread tests"
  t0=$SECONDS
  tsan_tests='^onyx\.(unit\.test_(concurrency|pool|session)|conformance\.graphs(\.threads_[0-9]+)?'
  tsan_tests+='|fuzz\.replay\.model\.seeds)$'
  if CC=clang cmake -S . -B "$out/tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_C_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" >"$out/tsan-configure.log" &&
     cmake --build "$out/tsan" -j"$jobs" --target test_concurrency test_pool test_session onyx \
       fuzz_model_replay onyx_generated_cases >"$out/tsan-build.log" 2>&1; then
    if TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
        ctest --test-dir "$out/tsan" -R "$tsan_tests" -j"$jobs" --output-on-failure \
        >"$out/tsan-ctest.log" 2>&1; then
      tail -n 3 "$out/tsan-ctest.log"
    else
      grep -E "tests passed|Failed|\*\*\*|WARNING: ThreadSanitizer" "$out/tsan-ctest.log" |
        tail -n 30
      failed+=("tsan (see $out/tsan-ctest.log)")
    fi
  else
    tail -n 30 "$out/tsan-configure.log" "$out/tsan-build.log" 2>/dev/null
    failed+=("tsan build")
  fi
  summary+=("tsan build and tests: $((SECONDS - t0)) s")
fi

# ---- 4. valgrind ------------------------------------------------------------------
if want valgrind; then
  note "valgrind: build (gcc) and the memcheck tests"
  t0=$SECONDS
  if CC=gcc cmake -S . -B "$out/valgrind" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DONYX_MEMCHECK_SLOW=ON >"$out/valgrind-configure.log" &&
     cmake --build "$out/valgrind" -j"$jobs" >"$out/valgrind-build.log" 2>&1; then
    if ctest --test-dir "$out/valgrind" -L memcheck -j"$jobs" --output-on-failure \
        >"$out/valgrind-ctest.log" 2>&1; then
      tail -n 3 "$out/valgrind-ctest.log"
    else
      grep -E "tests passed|Failed|\*\*\*|==[0-9]+==" "$out/valgrind-ctest.log" | tail -n 40
      failed+=("valgrind (see $out/valgrind-ctest.log)")
    fi
  else
    tail -n 30 "$out/valgrind-configure.log" "$out/valgrind-build.log" 2>/dev/null
    failed+=("valgrind build")
  fi
  summary+=("valgrind build and tests: $((SECONDS - t0)) s")
fi

note "hardening summary ($((SECONDS - start_all)) s)"
for s in "${summary[@]}"; do echo "  $s"; done
if [ ${#failed[@]} -gt 0 ]; then
  for f in "${failed[@]}"; do echo "FAILED: $f"; done
  exit 1
fi
echo "all hardening checks passed"
