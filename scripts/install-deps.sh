#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, test and benchmark the project: Debian
# packages, then a virtual environment .venv (git-ignored) for the Python package's build and
# tests (scikit-build-core, nanobind, NumPy, PyTorch, pytest, from the Python registry). Runs as
# root or through sudo; does nothing when everything is present.
#   scripts/install-deps.sh [--no-python]   (--no-python: the C library, tool and tests only)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
with_python=1
[ "${1:-}" = "--no-python" ] && with_python=0

packages=(cmake g++ make pkg-config libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev
          libcli11-dev clang clang-tidy libclang-rt-14-dev)
# nanobind compiles against Python.h; venv creates .venv.
[ "$with_python" -eq 1 ] && packages+=(python3-dev python3-venv)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$with_python" -eq 1 ] || exit 0
# PyTorch >= 2.9 for torch.library.get_kernel, which the drop-in uses to fall back to PyTorch's
# own kernels. The registry's Linux wheel is the CUDA build (several GB, about 10 minutes on a
# fresh machine); it runs on CPUs only as well.
python_packages=("torch>=2.9" numpy pytest nanobind "scikit-build-core>=0.10")
if ! "$repo/.venv/bin/python" -c "import numpy, pytest, torch, nanobind, scikit_build_core" \
    2> /dev/null; then
  python3 -m venv "$repo/.venv"
  "$repo/.venv/bin/python" -m pip install --quiet --upgrade pip
  "$repo/.venv/bin/python" -m pip install --quiet "${python_packages[@]}"
fi
