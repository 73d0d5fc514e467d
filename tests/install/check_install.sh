#!/usr/bin/env bash
# Installs the built project into a fresh prefix, then builds and runs a separate consumer
# project with find_package and with pkg-config, against the installed files alone.
set -euo pipefail
build_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
cmake --install "$build_dir" --prefix "$work/prefix" > /dev/null
cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/consumer" > /dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc "$here/consumer/consumer.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs aclnn_upsample) -lm
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer_pc"
# Only the C API is exported.
if nm -D --defined-only "$work/prefix/lib/libaclnn_upsample.so" | awk '{print $3}' | grep -v '^acl'; then
  echo "symbols other than the C API are exported" >&2
  exit 1
fi
echo "install check passed"
