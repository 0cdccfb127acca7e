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
# Allocation failures (test_alloc.c with alloc_shim.c): each allocation the library hands
# to C fails in turn; the shim finds them by their caller, src/ffi/cmem.rs's c_malloc and
# c_realloc, whose addresses nm gives. tcache is off so that mallinfo2 counts leaks exactly.
gcc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$bin/alloc_shim.so" "$top/c_tests/faults/alloc_shim.c" -ldl
gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/include" -o "$bin/test_alloc" \
    "$top/c_tests/faults/test_alloc.c" -L"$top/target/release" -l:libblosc2.so.9 -ldl
sites=$(nm -S --defined-only "$top/target/release/libblosc2.so.9" |
  awk '/cmem8c_malloc|cmem9c_realloc/ {printf "%s%s:%s", sep, $1, $2; sep = ","}')
FAULT_ALLOC_SITES="$sites" GLIBC_TUNABLES=glibc.malloc.tcache_count=0 LD_PRELOAD="$bin/alloc_shim.so" \
  LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_alloc" "$work"
# Writers killed with SIGKILL at random points of a longer workload (test_kill.c): no chunk
# may ever read back as bytes the writer did not write.
gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$top/include" -o "$bin/test_kill" \
    "$top/c_tests/faults/test_kill.c" -L"$top/target/release" -l:libblosc2.so.9
KILL_STRICT=1 LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_kill" "$work" 200
KILL_STRICT=1 LD_LIBRARY_PATH="$top/target/release" timeout 600 "$bin/test_kill" "$work" 200 7 append
