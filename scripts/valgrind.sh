#!/usr/bin/env bash
# valgrind memcheck over every C program of c_tests/ (built by c_tests/run.sh) with this
# library; a step of `make test` (about 80 s on 2 cores). Last result in the README
# ("Reliability").
#   scripts/valgrind.sh [-j N]          (default: 2 programs at a time)
# A program fails when memcheck reports an error (--error-exitcode) or a definite leak.
# Prints "valgrind: N passed, M failed" and exits non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=2
[ "${1:-}" = "-j" ] && jobs=${2:-2}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }
make -s build >/dev/null
c_tests/run.sh >/dev/null 2>&1 || echo "note: c_tests/run.sh reported failures; checking memory anyway"
out=target/valgrind
rm -rf "$out"; mkdir -p "$out"
bin="$top/c_tests/bin"
export PYTHONPATH="$bin/py"
run_one() {
  local exe=$1 name
  name=$(basename "$exe")
  ( cd "$bin" && LD_LIBRARY_PATH="$top/target/release:$bin" BLOSC_TEST_IMPL=ours timeout 1800 \
      valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
      --track-fds=no --quiet --log-file="$top/$out/$name.log" "$exe" >/dev/null 2>&1 )
  local rc=$?
  if [ $rc -eq 99 ] || [ $rc -eq 124 ] || grep -q "ERROR SUMMARY: [1-9]" "$top/$out/$name.log" 2>/dev/null; then
    echo "FAIL $name (rc $rc, $top/$out/$name.log)"
  else
    echo "ok $name"
  fi
}
export -f run_one
export top out bin
ls "$bin" | grep -E '^test_[a-z0-9_]+$' | sed "s|^|$bin/|" | xargs -P "$jobs" -I{} bash -c 'run_one {}' > "$out/summary.txt"
pass=$(grep -c '^ok ' "$out/summary.txt"); fail=$(grep -c '^FAIL ' "$out/summary.txt")
grep '^FAIL ' "$out/summary.txt"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
