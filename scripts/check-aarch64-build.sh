#!/usr/bin/env bash
# Compiles every library source for AArch64 with Debian's cross compiler (NEON and the SVE
# targets that Highway builds there), to keep the portable code portable. Objects only: the
# arm64 Highway runtime library is not installed on an x86 machine, so nothing is linked.
set -euo pipefail
cd "$(dirname "$0")/.."
compiler=${CXX_AARCH64:-aarch64-linux-gnu-g++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count=0
for source in $(git ls-files 'src/*.cc'); do
  "$compiler" -std=c++17 -O2 -ffp-contract=off -Wall -Wextra -Iinclude -Isrc -c "$source" \
    -o "$out/$(echo "$source" | tr / _).o"
  count=$((count + 1))
done
targets=$(aarch64-linux-gnu-nm -C "$out"/src_kernels_gather_rows.cc.o |
          grep -o 'N_[A-Z0-9_]*::GatherRowsImpl' | sort -u | sed 's/::.*//' | tr '\n' ' ')
echo "aarch64: compiled $count sources; kernel targets: $targets"
