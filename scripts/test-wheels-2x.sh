#!/usr/bin/env bash
# The published wheels that bundle c-blosc2 2.23, unchanged, on our 2.x face (issue 20):
# PyTables 3.11.1 (tables.libs/libblosc2-*.so.7, c-blosc2 2.23.1.dev0) and imagecodecs
# 2026.3.6 (imagecodecs.libs/libblosc2-*.so.2.23.0), with python-blosc2 4.1.2 (c-blosc2
# 2.23.1, which imagecodecs' tests use as their oracle). Each part runs twice, with the
# bundled copies and with target/release/libblosc2.so.7 in LD_PRELOAD, and must give the same
# results:
#   1. bindings: LD_DEBUG=bindings on a workload of both packages; every blosc2_*/b2nd_*
#      symbol their extension modules bind must resolve to our library
#   2. files each writes (PyTables HDF5 files with Blosc2 tables/arrays, imagecodecs blosc2
#      buffers) are read by the other (c_tests/abi2/wheels_cross.py)
#   3. imagecodecs' own blosc2 tests (tests/test_imagecodecs.py -k blosc2, from its sdist)
#   4. PyTables' own tests: the modules that exercise its Blosc2 filter (see below;
#      WHEELS_PYTABLES=all for the whole tables.tests.test_all, 0 to skip)
# Downloads from PyPI into target/wheels-2x/ (kept between runs). Results:
# target/wheels-2x/results.txt; the README quotes the last one. Not part of `make test`
# (part 4 takes about half an hour per library on 2 cores); the suite runs c_tests/abi2/run.sh.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
base="$top/target/wheels-2x"
venv="$base/venv"
ours="$top/target/release/libblosc2.so.7"
py="$venv/bin/python"
mkdir -p "$base"
[ -e "$ours" ] || make -C "$top" -s build-abi2 || exit 2
if [ ! -x "$py" ] || ! "$py" -c "import tables, imagecodecs, blosc2, pytest" 2>/dev/null; then
  python3 -m venv "$venv" || exit 2
  "$venv/bin/pip" install -q --only-binary=:all: tables==3.11.1 imagecodecs==2026.3.6 \
    blosc2==4.1.2 numpy numexpr packaging py-cpuinfo pytest || exit 2
fi
sdist="$base/imagecodecs-2026.3.6"
if [ ! -f "$sdist/tests/test_imagecodecs.py" ]; then
  # The sdist file from PyPI's simple index, checked against the index's sha256 (`pip
  # download` would first build its metadata, which builds numpy from source).
  "$py" - "$base" <<'PY' || exit 2
import hashlib, re, sys, urllib.request
name = "imagecodecs-2026.3.6.tar.gz"
page = urllib.request.urlopen("https://pypi.org/simple/imagecodecs/", timeout=120).read().decode()
url, digest = re.search(r'href="([^"#]*/' + re.escape(name) + r')#sha256=([0-9a-f]{64})"', page).groups()
data = urllib.request.urlopen(url, timeout=300).read()
if hashlib.sha256(data).hexdigest() != digest:
    sys.exit(f"{name}: sha256 differs from the index's")
open(f"{sys.argv[1]}/{name}", "wb").write(data)
PY
  tar xzf "$base/imagecodecs-2026.3.6.tar.gz" -C "$base" || exit 2
fi
out="$base/results.txt"
: > "$out"
say() { echo "$*" | tee -a "$out"; }
fail=0
say "wheels on the 2.x face, $(date -u +%Y-%m-%d), $(git -C "$top" log -1 --format=%h)"
say "  tables $("$py" -c 'import tables; print(tables.__version__)'), imagecodecs $("$py" -c 'import imagecodecs; print(imagecodecs.__version__)'), python-blosc2 $("$py" -c 'import blosc2; print(blosc2.__version__)')"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

# 1. bindings
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ldb" LD_PRELOAD="$ours" \
  "$py" "$top/c_tests/abi2/wheels_cross.py" write "$work/bind" >/dev/null || fail=1
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ldb" LD_PRELOAD="$ours" \
  "$py" "$top/c_tests/abi2/wheels_cross.py" read "$work/bind" >/dev/null || fail=1
# only the 2.23 API (abi2/libblosc2.map): the extensions also define helpers of their own
# (blosc2_filter_function, ...) and PyTables links a c-blosc 1.x of its own
sed -n 's/^ *\([a-z0-9_]*\);/\1/p' "$top/abi2/libblosc2.map" > "$work/api.txt"
cat "$work"/ldb.* | grep -E "/(tables|imagecodecs|blosc2)/[^ ]*\.so" \
  | grep -F -f <(sed 's/.*/symbol `&'"'"'/' "$work/api.txt") > "$work/bindings.txt"
nb=$(wc -l < "$work/bindings.txt")
nsym=$(sed -n 's/.*symbol `\([a-z0-9_]*\).*/\1/p' "$work/bindings.txt" | sort -u | wc -l)
other=$(grep -v " to $ours " "$work/bindings.txt" | grep -v " to $(readlink -f "$ours") " | wc -l)
if [ "$nb" -gt 0 ] && [ "$other" -eq 0 ]; then
  say "bindings: $nb bindings of $nsym 2.23 API functions from the wheels' modules (tables, imagecodecs, blosc2 dirs), all to our libblosc2.so.7"
else
  say "FAIL bindings: $nb bindings, $other not to our library"; grep -v " to $ours " "$work/bindings.txt" | head -5; fail=1
fi

# 2. files written by each, read by both
for lib in bundled ours; do
  pre=; [ $lib = ours ] && pre="$ours"
  LD_PRELOAD="$pre" "$py" "$top/c_tests/abi2/wheels_cross.py" write "$work/x-$lib" >/dev/null || { say "FAIL write ($lib)"; fail=1; }
done
for writer in bundled ours; do
  for lib in bundled ours; do
    pre=; [ $lib = ours ] && pre="$ours"
    r=$(LD_PRELOAD="$pre" "$py" "$top/c_tests/abi2/wheels_cross.py" read "$work/x-$writer" 2>&1) || fail=1
    say "cross files: $lib reads $writer's: ${r##*$'\n'}"
  done
done
same=0; total=0
for f in "$work"/x-bundled/ic_*; do
  total=$((total + 1)); cmp -s "$f" "$work/x-ours/$(basename "$f")" && same=$((same + 1))
done
say "cross files: imagecodecs buffers byte-identical between the libraries: $same of $total"

# 3 and 4. the packages' own tests
for lib in bundled ours; do
  pre=; [ $lib = ours ] && pre="$ours"
  LD_PRELOAD="$pre" "$py" -m pytest -q -p no:cacheprovider "$sdist/tests/test_imagecodecs.py" \
    -k blosc2 > "$work/ic-$lib.log" 2>&1
  say "imagecodecs tests ($lib): $(tail -1 "$work/ic-$lib.log")"
done
[ "$(tail -1 "$work/ic-bundled.log" | sed 's/ in .*//')" = "$(tail -1 "$work/ic-ours.log" | sed 's/ in .*//')" ] \
  || { say "FAIL imagecodecs results differ"; fail=1; }
# PyTables' own tests, through each module's suite() as test_all runs them: test_basics,
# test_carray, test_earray (modules that name blosc2) and test_direct_chunk (about 10 minutes
# per library here, test_earray most of it). The Blosc2 cases of test_tables and
# test_large_tables take more than 10 minutes per test class on this 2-core machine:
# WHEELS_PT_MODULES="test_tables:Blosc2 test_large_tables:Blosc2" (module[:word], word a
# filter on the test ids) runs them; WHEELS_PYTABLES=all runs tables.tests.test_all instead;
# WHEELS_PYTABLES=0 skips PyTables' tests.
pt_modules=${WHEELS_PT_MODULES:-"test_basics test_carray test_direct_chunk test_earray"}
if [ "${WHEELS_PYTABLES:-1}" != 0 ]; then
  for lib in bundled ours; do
    pre=; [ $lib = ours ] && pre="$ours"
    t0=$SECONDS
    if [ "${WHEELS_PYTABLES:-1}" = all ]; then
      LD_PRELOAD="$pre" "$py" -m tables.tests.test_all > "$work/pt-$lib.log" 2>&1
      say "PyTables test_all ($lib, $((SECONDS - t0)) s): $(grep -E "^(Ran|OK|FAILED)" "$work/pt-$lib.log" | tr '\n' ' ')"
    else
      LD_PRELOAD="$pre" "$py" "$top/c_tests/abi2/pytables_modules.py" $pt_modules > "$work/pt-$lib.log" 2>&1
      while read -r line; do say "PyTables ($lib) $line"; done < <(grep -v "^  FAIL" "$work/pt-$lib.log")
    fi
    cp "$work/pt-$lib.log" "$base/pytables-$lib.log"
  done
  strip() { grep -E "run,|^(Ran|OK|FAILED)" "$1" | sed -E 's/ \([0-9]+ s\)$//; s/ in [0-9.]+s$//'; }
  [ "$(strip "$work/pt-bundled.log")" = "$(strip "$work/pt-ours.log")" ] && ! grep -q "^  FAIL" "$work/pt-ours.log" \
    || { say "FAIL PyTables results differ (or fail) with ours"; fail=1; }
fi
say "wheels: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
