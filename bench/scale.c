/* Frames at scale (issue "Performance lead", scale table): the cost per operation on
   super-chunks of N small chunks, for whichever libblosc2 is on LD_LIBRARY_PATH.
   usage: scale build N PATH     write a contiguous frame of N chunks (16 int32 each) to PATH
          scale sparse FRAME DIR  copy that frame into a sparse frame directory DIR
          scale run STORE PATH    time the operations on PATH (STORE: memory = the frame file
                                  loaded with blosc2_schunk_from_buffer(copy = true), so
                                  chunks in memory; file = contiguous frame file opened in
                                  place; sparse = sparse frame directory)
   `run` changes PATH (updates, deletes, appends): give it a fresh copy each time.
   SCALE_NO_APPEND=1 leaves the appends out (the reference corrupts its heap appending to a
   super-chunk opened from a buffer of 512 chunks or more: README, "Reference defects"). Prints
   "<op> us_per_op <x> n <count>" lines for open, read (random chunks), update (in the middle,
   a chunk of the same size), resize (an update whose chunk has another size, a third of the
   way in), delete (in the middle) and append. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "blosc2.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fill(int32_t *v, long c) {
  for (int i = 0; i < 16; i++) v[i] = (int32_t)(c * 16 + i);
}

static blosc2_schunk *new_memory(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  return blosc2_schunk_new(&st);
}

static int build(long n, const char *path) {
  blosc2_schunk *sc = new_memory();
  int32_t v[16];
  for (long c = 0; c < n; c++) {
    fill(v, c);
    if (blosc2_schunk_append_buffer(sc, v, sizeof v) < 0) return 1;
  }
  blosc2_remove_urlpath(path);
  if (blosc2_schunk_to_file(sc, path) < 0) return 1;
  blosc2_schunk_free(sc);
  return 0;
}

static int sparse(const char *frame, const char *dir) {
  blosc2_schunk *sc = blosc2_schunk_open(frame);
  if (!sc) return 1;
  blosc2_remove_urlpath(dir);
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.contiguous = false;
  st.urlpath = (char *)dir;
  blosc2_schunk *sp = blosc2_schunk_copy(sc, &st);
  if (!sp) return 1;
  blosc2_schunk_free(sp);
  blosc2_schunk_free(sc);
  return 0;
}

static unsigned long long lcg = 88172645463325252ULL;
static long pick(long n) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (long)((lcg >> 17) % (unsigned long long)n);
}

static void report(const char *op, double seconds, long count) {
  printf("%s us_per_op %.2f n %ld\n", op, seconds * 1e6 / count, count);
}

static int run(const char *store, const char *path) {
  blosc2_schunk *sc;
  double t0 = now();
  if (!strcmp(store, "memory")) {
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len);
    if (fread(buf, 1, len, f) != (size_t)len) return 1;
    fclose(f);
    t0 = now();
    sc = blosc2_schunk_from_buffer(buf, len, true);
    report("open", now() - t0, 1);
    free(buf);
  } else {
    sc = blosc2_schunk_open(path);
    report("open", now() - t0, 1);
  }
  if (!sc) return 1;
  long n = sc->nchunks;
  int32_t v[16], want[16];
  /* Random reads: enough to take about 0.2 s at the slowest, at least 20. */
  long reads = 0;
  double budget = 0.2;
  t0 = now();
  while (reads < 20 || (now() - t0 < budget && reads < 200000)) {
    long c = pick(n);
    if (blosc2_schunk_decompress_chunk(sc, c, v, sizeof v) != sizeof v) return 1;
    fill(want, c);
    if (memcmp(v, want, sizeof v)) { fprintf(stderr, "chunk %ld wrong\n", c); return 1; }
    reads++;
  }
  report("read", now() - t0, reads);
  /* Updates, then deletes, in the middle; then appends. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t chunk[16 * 4 + BLOSC2_MAX_OVERHEAD];
  const int edits = 20;
  double tu = 0, td = 0, ta = 0;
  for (int k = 0; k < edits; k++) {
    fill(v, -1 - k);
    int cb = blosc2_compress_ctx(cctx, v, sizeof v, chunk, sizeof chunk);
    if (cb <= 0) return 1;
    t0 = now();
    if (blosc2_schunk_update_chunk(sc, n / 2 + k, chunk, true) < 0) return 1;
    tu += now() - t0;
  }
  /* Updates whose chunk has another size: a frame file moves every later chunk (both
     libraries compact the payload). Fewer: at 10^6 chunks each moves ~60 MB. */
  const int resizes = 5;
  double tr = 0;
  for (int k = 0; k < resizes; k++) {
    /* A repeated value: a 36-byte chunk where the frame's are 96 (a special value chunk,
       which frames store like any other). */
    int32_t val = 1000 + k;
    for (int i = 0; i < 16; i++) v[i] = val;
    int cb = blosc2_chunk_repeatval(cp, sizeof v, chunk, sizeof chunk, &val);
    if (cb <= 0) return 1;
    t0 = now();
    if (blosc2_schunk_update_chunk(sc, n / 3 + k, chunk, true) < 0) return 1;
    tr += now() - t0;
    if (blosc2_schunk_decompress_chunk(sc, n / 3 + k, want, sizeof want) != sizeof want || memcmp(v, want, sizeof v)) {
      fprintf(stderr, "resized chunk %ld wrong\n", n / 3 + k);
      return 1;
    }
  }
  for (int k = 0; k < edits; k++) {
    t0 = now();
    if (blosc2_schunk_delete_chunk(sc, n / 2) < 0) return 1;
    td += now() - t0;
  }
  int appends = getenv("SCALE_NO_APPEND") ? 0 : edits;
  for (int k = 0; k < appends; k++) {
    fill(v, n + k);
    t0 = now();
    if (blosc2_schunk_append_buffer(sc, v, sizeof v) < 0) return 1;
    ta += now() - t0;
  }
  report("update", tu, edits);
  report("resize", tr, resizes);
  report("delete", td, edits);
  if (appends) report("append", ta, appends);
  if (sc->nchunks != n - edits + appends) {
    fprintf(stderr, "nchunks %lld, want %ld\n", (long long)sc->nchunks, n - edits + appends);
    return 1;
  }
  blosc2_free_ctx(cctx);
  blosc2_schunk_free(sc);
  return 0;
}

int main(int argc, char **argv) {
  blosc2_init();
  int rc = 2;
  if (argc == 4 && !strcmp(argv[1], "build")) rc = build(atol(argv[2]), argv[3]);
  else if (argc == 4 && !strcmp(argv[1], "sparse")) rc = sparse(argv[2], argv[3]);
  else if (argc == 4 && !strcmp(argv[1], "run")) rc = run(argv[2], argv[3]);
  blosc2_destroy();
  return rc;
}
