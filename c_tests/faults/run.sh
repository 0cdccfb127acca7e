#!/usr/bin/env bash
# Fault injection (a step of `make test`): builds shim.c (an LD_PRELOAD library that makes
# the Nth file I/O call fail: ENOSPC, EIO, EINTR, short write) and test_faults.c (a
# super-chunk workload on a contiguous frame file and a sparse frame directory, run with a
# fault at every call index, then reopened without faults and read back), and runs it with
# this library; then test_kill.c, writers killed with SIGKILL at random points. Fails when a
# reopened frame shows a chunk whose bytes are not one the
# workload wrote, or when the process dies. Prints "faults: N passed, M failed".
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin="$top/c_tests/bin/faults"
mkdir -p "$bin"
gcc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$bin/shim.so" "$top/c_tests/faults/shim.c" -ldl
gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/include" -o "$bin/test_faults" \
    "$top/c_tests/faults/test_faults.c" -L"$top/target/release" -l:libblosc2.so.9 -ldl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
LD_PRELOAD="$bin/shim.so" LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_faults" "$work"
# Writers killed with SIGKILL at random points of a longer workload (test_kill.c): no chunk
# may ever read back as bytes the writer did not write.
gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/include" -o "$bin/test_kill" \
    "$top/c_tests/faults/test_kill.c" -L"$top/target/release" -l:libblosc2.so.9
KILL_STRICT=1 LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_kill" "$work" 200
KILL_STRICT=1 LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_kill" "$work" 200 7 append
