#!/usr/bin/env bash
# Runs clang-tidy with the project's .clang-tidy over the library sources and fails on any
# warning or error, and on any clang-tidy run that does not finish cleanly (a crash, a compile
# error, a missing compile command), whose messages go to stderr. Needs a build directory
# configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/compile_commands.json" ] ||
  cmake -S . -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > /dev/null
failed=0
for source in $(git ls-files 'src/*.cc'); do
  status=0
  output=$(clang-tidy -p "$build" --quiet "$source" 2>&1) || status=$?
  # With --quiet a clean file prints at most "N warnings generated." (from suppressed
  # system-header warnings); anything else is a finding.
  findings=$(grep -vE '^[0-9]+ warnings? generated\.$' <<< "$output" || true)
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    echo "$findings"
    [ "$status" -eq 0 ] || echo "clang-tidy exited with status $status on $source"
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "clang-tidy: clean" || { echo "clang-tidy: findings above"; exit 1; }
