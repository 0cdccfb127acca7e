#!/usr/bin/env bash
# The project's whole test suite (what `make test` and CI run):
#   1. fetch the reference library (pinned wheel) into reference/
#   2. release build of libblosc2.so.9 / libblosc2.a
#   3. cargo tests (unit tests, header freshness, differential tests against the reference)
#   4. exported symbols and SONAME
#   5. ABI proof against the reference headers
#   6. the c-blosc 1.x face (libblosc.so.1) against Debian's c-blosc 1.21.3 (c_tests/blosc1/),
#      and Debian's python3-blosc, numcodecs, PyTables and h5py + HDF5 Blosc plugin on it
#      (scripts/test-blosc1-clients.sh); the c-blosc2 2.x face (libblosc2.so.7) against
#      c-blosc2 2.23.1 (c_tests/abi2/run.sh)
#   7. C programs in c_tests/ (ours, and the reference for differential ones), then the same
#      programs under valgrind memcheck (scripts/valgrind.sh), and fault injection at every
#      file I/O call of a frame workload (c_tests/faults/run.sh)
#   7. install into a temporary prefix; pkg-config and CMake consumers
#   8. aarch64 cross build, unit tests (NEON kernels) under qemu-user
#   9. ../shared/repro: one-behaviour C programs that print OK with the reference
#  10. ../shared/interop chunk-interop and frame-interop: ours against the reference, side by
#      side (divergences accepted only as listed, with reasons, in c_tests/interop-accepted.txt)
#  11. python-blosc2 4.14.1 built against our installed library, a subset of its tests that
#      reaches every libblosc2 function it imports (scripts/test-python-blosc2.sh), and built
#      against the reference's library but run with ours in LD_PRELOAD (scripts/test-ld-preload.sh)
# Ends with a line "suite: N passed, M failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0; fail=0; failed=()
# Each step has a time limit (STEP_LIMIT seconds, 40 minutes unless set): a step that hangs
# fails and the suite goes on, so a run always ends with its summary line.
limit=${STEP_LIMIT:-2400}
step() {
  local name=$1; shift
  echo "=== $name"
  local rc=0 t0=$SECONDS
  timeout -k 30 "$limit" "$@" || rc=$?
  echo "=== $name: $((SECONDS - t0)) s"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "=== TIMED OUT after ${limit}s: $name"; fi
  if [ $rc -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); failed+=("$name"); echo "=== FAILED: $name"; fi
}
step "fetch reference" scripts/fetch-reference.sh
step "release build" make -s build
# The two python-blosc2 builds (mostly package downloads) run in the background while the
# steps below run, niced so that they take the CPU the steps leave idle; their steps wait
# for them (and build again, reporting why, if they failed).
mkdir -p build
prebuild_pid=
if make -s install PREFIX="$top/build/py-prefix" > build/prebuild.log 2>&1; then
  { timeout -k 30 "$limit" nice -n 10 scripts/test-python-blosc2.sh --build-only &&
    timeout -k 30 "$limit" nice -n 10 scripts/test-ld-preload.sh --build-only; } \
    >> build/prebuild.log 2>&1 &
  prebuild_pid=$!
fi
step "cargo test" cargo test --no-fail-fast
# The face's own tests, and the core's c-blosc 1.x and codec tests built as the face builds
# the core (snappy compression, system codecs).
step "cargo test (blosc1)" sh -c 'cargo test --no-fail-fast -p blosc1 &&
  cargo test --no-fail-fast -p libblosc2 --lib --no-default-features --features snappy-compress,system-codecs \
    -- chunk::v1 codecs::'

step "exports" c_tests/check_exports.sh
step "abi" python3 c_tests/abi/check_abi.py --ref-include reference/blosc2/include \
     --our-include include --our-lib target/release/libblosc2.so.9 \
     --symbols ../shared/abi/exported-symbols.txt
step "c tests" c_tests/run.sh
step "blosc1 differential" c_tests/blosc1/run.sh
step "blosc1 clients" scripts/test-blosc1-clients.sh
step "2.x face differential" c_tests/abi2/run.sh
step "valgrind (c tests)" scripts/valgrind.sh -j 2
step "faults" c_tests/faults/run.sh
step "install" c_tests/install_test.sh
step "packaging files" scripts/check-packaging.sh
step "aarch64 (qemu)" scripts/test-aarch64.sh
step "edit interop" scripts/edit-interop.sh
shared=$(cd "$top/.." && pwd)/shared
if [ -d "$shared/repro" ] && [ -d "$shared/interop" ]; then
  step "repro" "$shared/repro/run.sh" target/release
  step "chunk interop" env NO_BUILD=1 "$shared/interop/chunk-interop"
  step "frame interop" env NO_BUILD=1 "$shared/interop/frame-interop"
  if [ -n "$prebuild_pid" ]; then
    wait "$prebuild_pid" || echo "=== background python-blosc2 builds failed (build/prebuild.log); the steps build again"
  fi
  step "python-blosc2" scripts/test-python-blosc2.sh
  step "LD_PRELOAD swap" scripts/test-ld-preload.sh
else
  echo "=== missing $shared/repro or $shared/interop (the shared/ folder beside the project)"
  fail=$((fail+1)); failed+=("shared checks")
fi
if [ $fail -ne 0 ]; then echo "failed steps: ${failed[*]}"; fi
echo "suite: $pass passed, $fail failed"
[ $fail -eq 0 ]
