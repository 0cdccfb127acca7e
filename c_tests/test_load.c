// Load: many threads at once through the public API, for LOAD_SECONDS (default 3; the
// README's "Reliability" section gives a longer run). Checks: no crash, no deadlock (the
// test's own time limit in c_tests/run.sh), no wrong data, resident memory flat.
//  - 16 threads, each with its own compression and decompression contexts (1 or 2 threads
//    inside), compressing and decompressing random sizes and pipelines, checking every byte;
//  - one super-chunk shared by 6 readers and 1 writer (in memory and as a frame file): the
//    writer appends chunks whose items encode their chunk number, readers read random chunks
//    below the count they saw and check them; the same for a b2nd array read by slices
//    while the writer fills it.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "blosc2.h"
#include "b2nd.h"

static double seconds = 3;
static atomic_int failures;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static uint64_t xs(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (f) { if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0; fclose(f); }
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void *ctx_worker(void *arg) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(intptr_t)arg + 1;
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  int32_t *src = malloc(1 << 20), *back = malloc(1 << 20);
  uint8_t *comp = malloc((1 << 20) + BLOSC2_MAX_OVERHEAD);
  double end = now() + seconds;
  while (now() < end) {
    int n = 1 + (int)(xs(&s) % (1 << 18));
    for (int i = 0; i < n; i++) src[i] = (int32_t)(i / (1 + xs(&s) % 7)) ^ (int32_t)(xs(&s) % 3);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[xs(&s) % 5];
    cp.clevel = (uint8_t)(xs(&s) % 6);
    cp.typesize = 4;
    cp.nthreads = (int16_t)(1 + xs(&s) % 2);
    cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)(xs(&s) % 3);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)(1 + xs(&s) % 2);
    blosc2_context *cc = blosc2_create_cctx(cp), *dc = blosc2_create_dctx(dp);
    int cb = blosc2_compress_ctx(cc, src, n * 4, comp, (1 << 20) + BLOSC2_MAX_OVERHEAD);
    int db = cb > 0 ? blosc2_decompress_ctx(dc, comp, cb, back, 1 << 20) : -1;
    if (cb <= 0 || db != n * 4 || memcmp(src, back, (size_t)n * 4) != 0) {
      fprintf(stderr, "context worker: codec %d clevel %d n %d: cb %d db %d\n", cp.compcode, cp.clevel, n, cb, db);
      atomic_fetch_add(&failures, 1);
    }
    blosc2_free_ctx(cc);
    blosc2_free_ctx(dc);
  }
  free(src); free(back); free(comp);
  return NULL;
}

#define CHUNK_ITEMS 4096
static blosc2_schunk *shared;
static atomic_long written;
static atomic_int writer_done;

static void *writer(void *arg) {
  (void)arg;
  int32_t buf[CHUNK_ITEMS];
  double end = now() + seconds;
  for (long k = 0; now() < end && k < 20000; k++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) buf[i] = (int32_t)(k * 7919 + i);
    int64_t r = blosc2_schunk_append_buffer(shared, buf, sizeof buf);
    if (r != k + 1) { fprintf(stderr, "append %ld -> %lld\n", k, (long long)r); atomic_fetch_add(&failures, 1); break; }
    atomic_store(&written, k + 1);
  }
  atomic_store(&writer_done, 1);
  return NULL;
}

static void *reader(void *arg) {
  uint64_t s = 77 + (uint64_t)(intptr_t)arg;
  int32_t buf[CHUNK_ITEMS];
  while (!atomic_load(&writer_done)) {
    long n = atomic_load(&written);
    if (n == 0) continue;
    long k = (long)(xs(&s) % (uint64_t)n);
    int rc = blosc2_schunk_decompress_chunk(shared, k, buf, sizeof buf);
    if (rc != (int)sizeof buf) { fprintf(stderr, "read chunk %ld of %ld -> %d\n", k, n, rc); atomic_fetch_add(&failures, 1); continue; }
    for (int i = 0; i < CHUNK_ITEMS; i++)
      if (buf[i] != (int32_t)(k * 7919 + i)) { fprintf(stderr, "chunk %ld item %d wrong\n", k, i); atomic_fetch_add(&failures, 1); break; }
  }
  return NULL;
}

static void shared_schunk(const char *urlpath) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 2;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp; st.dparams = &dp; st.contiguous = true; st.urlpath = (char *)urlpath;
  if (urlpath) blosc2_remove_urlpath(urlpath);
  shared = blosc2_schunk_new(&st);
  atomic_store(&written, 0); atomic_store(&writer_done, 0);
  pthread_t w, r[6];
  pthread_create(&w, NULL, writer, NULL);
  for (intptr_t i = 0; i < 6; i++) pthread_create(&r[i], NULL, reader, (void *)i);
  pthread_join(w, NULL);
  for (int i = 0; i < 6; i++) pthread_join(r[i], NULL);
  printf("shared super-chunk (%s): %ld chunks written while 6 threads read\n", urlpath ? "file" : "memory", atomic_load(&written));
  blosc2_schunk_free(shared);
  if (urlpath) blosc2_remove_urlpath(urlpath);
}

static b2nd_array_t *arr;
static atomic_long rows_done;
static void *b2nd_writer(void *a) {
  (void)a;
  int64_t shape = 0; (void)shape;
  int32_t row[256];
  for (long r = 0; r < 256; r++) {
    for (int i = 0; i < 256; i++) row[i] = (int32_t)(r * 1000 + i);
    int64_t start[2] = {r, 0}, stop[2] = {r + 1, 256}, bshape[2] = {1, 256};
    if (b2nd_set_slice_cbuffer(row, bshape, sizeof row, start, stop, arr) != 0) { atomic_fetch_add(&failures, 1); break; }
    atomic_store(&rows_done, r + 1);
  }
  return NULL;
}
static void *b2nd_reader(void *a) {
  uint64_t s = 5 + (uint64_t)(intptr_t)a;
  int32_t row[256];
  while (atomic_load(&rows_done) < 256) {
    long n = atomic_load(&rows_done);
    if (n == 0) continue;
    long r = (long)(xs(&s) % (uint64_t)n);
    int64_t start[2] = {r, 0}, stop[2] = {r + 1, 256}, bshape[2] = {1, 256};
    if (b2nd_get_slice_cbuffer(arr, start, stop, row, bshape, sizeof row) != 0) { atomic_fetch_add(&failures, 1); continue; }
    for (int i = 0; i < 256; i++)
      if (row[i] != (int32_t)(r * 1000 + i)) { fprintf(stderr, "b2nd row %ld item %d wrong\n", r, i); atomic_fetch_add(&failures, 1); break; }
  }
  return NULL;
}

int main(void) {
  if (getenv("LOAD_SECONDS")) seconds = atof(getenv("LOAD_SECONDS"));
  blosc2_init();
  long rss0 = rss_kib();
  for (int round = 0; round < 2; round++) {
    pthread_t t[16];
    for (intptr_t i = 0; i < 16; i++) pthread_create(&t[i], NULL, ctx_worker, (void *)(i + 16 * round));
    for (int i = 0; i < 16; i++) pthread_join(t[i], NULL);
    long rss = rss_kib();
    printf("round %d: 16 context threads done, resident %ld KiB (start %ld KiB)\n", round, rss, rss0);
    if (round == 0) rss0 = rss;
    else if (rss > rss0 + 64 * 1024) { fprintf(stderr, "memory grew: %ld -> %ld KiB\n", rss0, rss); atomic_fetch_add(&failures, 1); }
  }
  shared_schunk(NULL);
  shared_schunk("test_load.b2frame");
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4;
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS; st.cparams = &cp;
    int64_t shape[2] = {256, 256}; int32_t chunk[2] = {32, 256}, block[2] = {8, 64};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, "<i4", 0, NULL, 0);
    if (!ctx || b2nd_zeros(ctx, &arr) != 0) { printf("b2nd setup failed\n"); return 1; }
    pthread_t w, r[4];
    atomic_store(&rows_done, 0);
    pthread_create(&w, NULL, b2nd_writer, NULL);
    for (intptr_t i = 0; i < 4; i++) pthread_create(&r[i], NULL, b2nd_reader, (void *)i);
    pthread_join(w, NULL);
    for (int i = 0; i < 4; i++) pthread_join(r[i], NULL);
    printf("b2nd array: 256 rows written while 4 threads read slices\n");
    b2nd_free(arr); b2nd_free_ctx(ctx);
  }
  blosc2_destroy();
  int f = atomic_load(&failures);
  printf("%s (%d failures)\n", f ? "FAILED" : "OK", f);
  return f != 0;
}
