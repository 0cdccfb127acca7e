#!/usr/bin/env bash
# Which code and data of a library a program touches first in each page-cache window:
#   scripts/first-touch.sh LIB PROGRAM [ARGS...]
# runs PROGRAM under `perf record -e page-faults` (a software event: no hardware counters
# needed), with LIB's directory first on LD_LIBRARY_PATH, and prints, for every page fault
# inside LIB's mappings, the offset in the file, its section, the symbol there and the
# function that faulted. Since the kernel maps a 64 KiB window around each first touch of a
# file page (fault-around), each line is one window made resident, so this shows what a
# linker order (link-order.ld, scripts/gen-link-order.sh) missed: callgrind, which that
# order comes from, runs no AVX-512 and shows its own CPU, so natively run code can differ.
# As root the page cache is dropped first, so the library is read as after a boot.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,3p "$0" >&2; exit 2; }
lib=$(realpath "$1"); shift
data=$(mktemp)
trap 'rm -f "$data"' EXIT
if [ -w /proc/sys/vm/drop_caches ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  perf record -q -e page-faults -c 1 -d -o "$data" "$@" > /dev/null
python3 - "$lib" "$data" <<'PY'
import bisect, re, subprocess, sys
lib, data = sys.argv[1], sys.argv[2]
def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
syms = []
for line in run("nm", "-S", "--defined-only", "-C", lib).splitlines():
    p = line.split(None, 3)
    if len(p) == 4:
        syms.append((int(p[0], 16), int(p[1], 16), p[3]))
syms.sort()
starts = [s[0] for s in syms]
sections = []
for line in run("readelf", "-SW", lib).splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and int(m[2], 16):
        sections.append((int(m[2], 16), int(m[3], 16), m[1]))
end = max(a + n for a, n, _ in sections)
def section(a):
    return next((name for s, n, name in sections if s <= a < s + n), "?")
def symbol(a):
    i = bisect.bisect_right(starts, a) - 1
    if i >= 0 and syms[i][0] <= a < syms[i][0] + max(syms[i][1], 1):
        return syms[i][2][:100]
    return "-"
base = None
name = lib.rsplit("/", 1)[-1]
for line in run("perf", "script", "-i", data, "--show-mmap-events").splitlines():
    m = re.search(r"MMAP.*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*" + re.escape(name), line)
    if m:
        b = int(m[1], 16) - int(m[3], 16)
        base = b if base is None else min(base, b)
if base is None:
    sys.exit(f"{name} was not mapped")
print(f"{'offset':>9} {'section':16} {'symbol there':50} faulting function")
for line in run("perf", "script", "-i", data, "-F", "ip,addr").splitlines():
    p = line.split()
    if len(p) < 2:
        continue
    a, ip = int(p[0], 16) - base, int(p[1], 16) - base
    if 0 <= a < end:
        who = symbol(ip) if 0 <= ip < end else "(outside: loader, libc)"
        print(f"{a:#9x} {section(a):16} {symbol(a):50} {who}")
PY
