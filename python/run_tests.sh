#!/bin/sh
# Builds and installs the Python package into the environment of PYTHON (default: the
# repository's .venv, which scripts/install-deps.sh prepares), then runs its pytest suite. This is
# the CI entry point, so torch is required here (pytest alone skips the torch tests without it).
#   python/run_tests.sh [PYTHON] [pytest arguments...]
# The build reuses python/build/ and no build isolation, so a rerun only recompiles what changed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-${ACLNN_UPSAMPLE_PYTHON:-$here/../.venv/bin/python}}
[ $# -gt 0 ] && shift
if ! "$python" -c "import numpy, pytest, torch, nanobind, scikit_build_core" 2>/dev/null; then
  echo "python/run_tests.sh: expected a Python with numpy, pytest, torch, nanobind and" \
       "scikit-build-core at $python (scripts/install-deps.sh prepares .venv), got none" \
       "or one without them" >&2
  exit 1
fi
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  "$python" -m pip install --quiet --no-build-isolation --no-deps "$here"
# From tests/: the source package in python/ must not shadow the installed one.
cd "$here/tests"
exec "$python" -m pytest -q "$@"
