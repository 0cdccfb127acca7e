/* Peak resident memory of one workload (issue "Performance lead", memory table). Built once
   against include/ by scripts/bench-mem.sh and run with each library on LD_LIBRARY_PATH; each
   run is one process, so getrusage's ru_maxrss is the workload's peak.

   usage: mem schunk NTHREADS      256 MiB of int32 through an in-memory super-chunk (4 MiB
                                   chunks, LZ4 + shuffle): compressed, then decompressed
          mem b2nd                 a 1 GiB float64 array (128 x 1024 x 1024, chunks
                                   16 x 256 x 256, blocks 4 x 64 x 64) filled one 1024 x 1024
                                   slice at a time, then read back the same way
          mem mkframe PATH N       write a contiguous frame of N small chunks (for `open`)
          mem open PATH            open that frame and read its last chunk
          mem contexts N           N compression and N decompression contexts made and freed
          mem none                 nothing but blosc2_init/blosc2_destroy (the baseline)
   Prints "<workload> maxrss_kib <peak> seconds <wall time> check <value>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "blosc2.h"
#include "b2nd.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static long maxrss(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/* Current resident size (VmRSS), for the phase breakdown with MEM_PHASES set. */
static long rss_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) v = atol(line + 6);
  if (f) fclose(f);
  return v;
}

static void phase(const char *what) {
  if (getenv("MEM_PHASES")) fprintf(stderr, "  %s: rss %ld kib, peak %ld kib\n", what, rss_now(), maxrss());
}

static int schunk_run(int nthreads) {
  const int64_t total = 256LL << 20, chunk = 4 << 20;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.nthreads = (int16_t)nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t *buf = malloc(chunk);
  long check = 0;
  for (int64_t c = 0; c < total / chunk; c++) {
    for (int i = 0; i < chunk / 4; i++) buf[i] = (int32_t)(c * 1000003 + i / 3 + (i % 7 == 0 ? i : 0));
    if (blosc2_schunk_append_buffer(sc, buf, chunk) < 0) return 1;
    if (c == 0) phase("first chunk compressed");
  }
  phase("compressed");
  for (int64_t c = 0; c < sc->nchunks; c++) {
    if (blosc2_schunk_decompress_chunk(sc, c, buf, chunk) != chunk) return 1;
    check += buf[chunk / 8];
  }
  phase("decompressed");
  printf("check %ld cbytes %lld ", check, (long long)sc->cbytes);
  free(buf);
  blosc2_schunk_free(sc);
  return 0;
}

static int b2nd_run(void) {
  int64_t shape[3] = {128, 1024, 1024};
  int32_t chunks[3] = {16, 256, 256}, blocks[3] = {4, 64, 64};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.compcode = BLOSC_LZ4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, chunks, blocks, NULL, 0, NULL, 0);
  b2nd_array_t *a;
  if (b2nd_zeros(ctx, &a) < 0) return 1;
  double *slice = malloc(1024 * 1024 * 8);
  int64_t sshape[3] = {1, 1024, 1024};
  for (int64_t z = 0; z < 128; z++) {
    for (int i = 0; i < 1024 * 1024; i++) slice[i] = (double)z + i * 1e-3;
    int64_t start[3] = {z, 0, 0}, stop[3] = {z + 1, 1024, 1024};
    if (b2nd_set_slice_cbuffer(slice, sshape, 1024 * 1024 * 8, start, stop, a) < 0) return 1;
  }
  double check = 0;
  for (int64_t z = 0; z < 128; z++) {
    int64_t start[3] = {z, 0, 0}, stop[3] = {z + 1, 1024, 1024};
    if (b2nd_get_slice_cbuffer(a, start, stop, slice, sshape, 1024 * 1024 * 8) < 0) return 1;
    check += slice[12345];
  }
  printf("check %.3f cbytes %lld ", check, (long long)a->sc->cbytes);
  free(slice);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  return 0;
}

static int mkframe(const char *path, long n) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t v[16];
  for (long c = 0; c < n; c++) {
    for (int i = 0; i < 16; i++) v[i] = (int32_t)(c * 16 + i);
    if (blosc2_schunk_append_buffer(sc, v, sizeof v) < 0) return 1;
  }
  blosc2_remove_urlpath(path);
  if (blosc2_schunk_to_file(sc, path) < 0) return 1;
  printf("check %lld ", (long long)sc->nchunks);
  blosc2_schunk_free(sc);
  return 0;
}

static int open_run(const char *path) {
  blosc2_schunk *sc = blosc2_schunk_open(path);
  if (!sc) return 1;
  int32_t v[16];
  if (blosc2_schunk_decompress_chunk(sc, sc->nchunks - 1, v, sizeof v) != sizeof v) return 1;
  printf("check %lld ", (long long)v[15]);
  blosc2_schunk_free(sc);
  return 0;
}

static int contexts_run(long n) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  char src[1000], dst[1100];
  memset(src, 7, sizeof src);
  long check = 0;
  for (long i = 0; i < n; i++) {
    blosc2_context *c = blosc2_create_cctx(cp);
    blosc2_context *d = blosc2_create_dctx(dp);
    check += blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst);
    blosc2_free_ctx(c);
    blosc2_free_ctx(d);
  }
  printf("check %ld ", check);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  blosc2_init();
  /* MEM_REPEAT=k runs the workload k times in this process: the peak after each run shows
     whether memory grows from one run to the next. */
  int repeat = getenv("MEM_REPEAT") ? atoi(getenv("MEM_REPEAT")) : 1;
  int rc = 2;
  const char *w = argv[1];
  for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
    double t0 = now();
    if (!strcmp(w, "schunk") && argc > 2) rc = schunk_run(atoi(argv[2]));
    else if (!strcmp(w, "b2nd")) rc = b2nd_run();
    else if (!strcmp(w, "mkframe") && argc > 3) rc = mkframe(argv[2], atol(argv[3]));
    else if (!strcmp(w, "open") && argc > 2) rc = open_run(argv[2]);
    else if (!strcmp(w, "contexts") && argc > 2) rc = contexts_run(atol(argv[2]));
    else if (!strcmp(w, "none")) rc = 0;
    double t1 = now();
    printf("%s maxrss_kib %ld seconds %.2f\n", w, maxrss(), t1 - t0);
    if (rc) break;
  }
  blosc2_destroy();
  return rc;
}
