#!/usr/bin/env bash
# Developer build: compile the extension with CMake and drop it into python/dpfair_native/ (git-ignored),
# so `PYTHONPATH=python python -m pytest` tests the working tree. Users and CI install with pip instead.
# Usage: tools/dev_build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD=${BUILD_DIR:-build/dev}
exec 9>/tmp/dpfair_native_build.lock
flock 9
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(command -v "$PY")" -Dpybind11_DIR="$("$PY" -m pybind11 --cmakedir)" "$@" >/dev/null
cmake --build "$BUILD" -j 2
# Both modules: _core (portable) and, on x86-64, _core_avx2 (AVX2 + FMA); kernels.py picks one at import time.
# Replace atomically (new inode): overwriting in place would corrupt the .so under processes that loaded it.
for so in "$BUILD"/_core*.so; do
  cp -f "$so" "python/dpfair_native/.$(basename "$so").tmp"
  mv -f "python/dpfair_native/.$(basename "$so").tmp" "python/dpfair_native/$(basename "$so")"
done
# Drop modules this build no longer makes (e.g. _core_avx2 from an earlier build), so a stale one is never loaded.
for so in python/dpfair_native/_core*.so; do
  [ -e "$BUILD/$(basename "$so")" ] || rm -f "$so"
done
