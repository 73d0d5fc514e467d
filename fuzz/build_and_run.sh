#!/usr/bin/env bash
# Builds the API fuzz target (libFuzzer + ASan + UBSan) without CMake, replays every saved
# reproducer in fuzz/regressions/, then fuzzes for SECONDS (default 60) over a scratch copy of
# fuzz/corpus/ (the committed corpus is never modified). Exits non-zero on any finding; the
# crashing input lands in $FUZZ_BUILD_DIR/artifacts/.
#
#   fuzz/build_and_run.sh [SECONDS]
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz/), CXX (default clang++), FUZZ_JOBS (parallel
# compiles, default 2), FUZZ_ARGS (extra libFuzzer flags). SECONDS = 0 builds and replays only.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
cxx="${CXX:-clang++}"
jobs="${FUZZ_JOBS:-2}"
mkdir -p "$build/obj" "$build/artifacts"

# Objects get the sanitizers and coverage; only the final link adds libFuzzer's main.
export FUZZ_CXX="$cxx"
export FUZZ_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
-fno-omit-frame-pointer -O1 -g -std=c++17 -I$root/include -I$root/src -I$root \
$(pkg-config --cflags libhwy)"

# Rebuild an object when its source or a header it may include is newer (cheap and good enough
# here): library objects see include/ and src/, the fuzz target's objects fuzz/ as well.
newest() { find "$@" -name '*.h' -printf '%T@\n' | sort -n | tail -1 | cut -d. -f1; }
export FUZZ_NEWEST_LIB_HEADER="$(newest "$root/include" "$root/src")"
export FUZZ_NEWEST_HEADER="$(newest "$root/include" "$root/src" "$root/fuzz")"
export FUZZ_OBJ_DIR="$build/obj"
export FUZZ_ROOT="$root"
# The kernels first: compiled once per SIMD target, combine_rows.cc and gather_rows.cc take most
# of the build (minutes each under the instrumentation), so both jobs start on them early.
sources=$(cd "$root" && find src/kernels -name '*.cc' | sort &&
          find src -name '*.cc' -not -path 'src/kernels/*' | sort
          echo fuzz/reference.cc; echo fuzz/fuzz_api.cc)
start=$(date +%s)
printf '%s\n' $sources | xargs -P "$jobs" -I{} bash -c '
  src="$FUZZ_ROOT/{}"
  obj="$FUZZ_OBJ_DIR/$(echo {} | tr / _).o"
  headers="$FUZZ_NEWEST_HEADER"
  [[ {} == src/* ]] && headers="$FUZZ_NEWEST_LIB_HEADER"
  # The harness'"'"'s own checking loops need no comparison tracing, which would dominate its
  # time; the library keeps it (it guides the fuzzer through the validation'"'"'s comparisons).
  extra=""
  [[ {} == fuzz/* ]] && extra="-fno-sanitize-coverage=trace-cmp"
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$headers" -gt "$(stat -c %Y "$obj")" ]]; then
    $FUZZ_CXX $FUZZ_FLAGS $extra -c "$src" -o "$obj"
  fi'
objects=()
for src in $sources; do objects+=("$build/obj/$(echo "$src" | tr / _).o"); done
"$cxx" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all "${objects[@]}" \
  $(pkg-config --libs libhwy) -pthread -o "$build/fuzz_api"
echo "fuzz: built $build/fuzz_api in $(( $(date +%s) - start ))s"

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

# Saved reproducers first: a bug that is still there fails here, with its name.
shopt -s nullglob
regressions=()
for input in "$root"/fuzz/regressions/*; do
  [[ -f "$input" && "$input" != *.md ]] && regressions+=("$input")
done
if (( ${#regressions[@]} > 0 )); then
  echo "fuzz: replaying ${#regressions[@]} saved reproducers"
  for input in "${regressions[@]}"; do
    if ! "$build/fuzz_api" -runs=1 "$input" >"$build/regression.log" 2>&1; then
      cat "$build/regression.log"
      echo "fuzz: FAILED: reproducer $input still fails"
      exit 1
    fi
  done
fi

if (( seconds <= 0 )); then exit 0; fi  # build and replay only (libFuzzer reads 0 as "forever")
rm -rf "$build/corpus"
cp -r "$root/fuzz/corpus" "$build/corpus"
# shellcheck disable=SC2086
"$build/fuzz_api" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} "$build/corpus"
echo "fuzz: no finding in ${seconds}s"
