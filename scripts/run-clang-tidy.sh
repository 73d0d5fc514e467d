#!/usr/bin/env bash
# Runs clang-tidy with the project's .clang-tidy over the library sources and fails on any
# warning. Needs a build directory configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/compile_commands.json" ] ||
  cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null
found=0
for source in $(git ls-files 'src/*.cc'); do
  if clang-tidy -p "$build" --quiet "$source" 2>/dev/null | grep -E "(warning|error):"; then
    found=1
  fi
done
[ "$found" -eq 0 ] && echo "clang-tidy: clean" || { echo "clang-tidy: warnings above"; exit 1; }
