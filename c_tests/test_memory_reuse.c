/* Memory the library keeps between calls (issue "Performance lead", memory table): a
   compression and a decompression context used in turn (as a super-chunk's two contexts
   are) share their threads' block buffers, so decompressing a chunk after compressing
   one, both at two threads, adds no block-sized buffers of its own (it added one 256 KiB
   buffer per thread before; the reference's contexts share theirs), and compressing again
   after that adds nothing either.
   Which threads take blocks is up to the scheduler: on a busy machine a context's second
   thread could wake too late to take any block, make no buffer, and leave one fewer to
   share (the test then failed about one run in four with both cores loaded). A prefilter
   (copying its input) holds each thread in its first block until the other has taken
   one, so both compression threads make their buffers.
   Linux only (resident memory from /proc/self/statm); elsewhere it prints a note and
   passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <time.h>
#include "blosc2.h"

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = -1;
  if (f) { if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = -1; fclose(f); }
  return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void fill(int32_t *v, int n, int seed) {
  for (int i = 0; i < n; i++) v[i] = seed * 1000003 + i / 3 + (i % 7 == 0 ? i : 0);
}

/* Bit t set once thread t has run the prefilter. Each thread, in its first block, waits
   (at most 10 s) until both threads have arrived; which of them is the caller is not
   assumed. */
static volatile int threads_seen;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int copy_after_both_threads_arrived(blosc2_prefilter_params *p) {
  if (p->tid == 0 || p->tid == 1) __atomic_fetch_or(&threads_seen, 1 << p->tid, __ATOMIC_ACQ_REL);
  double until = now_s() + 10;
  while (__atomic_load_n(&threads_seen, __ATOMIC_ACQUIRE) != 3 && now_s() < until) sched_yield();
  memcpy(p->output, p->input, p->output_size);
  return 0;
}

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

int main(void) {
  if (rss_kib() < 0) {
    printf("note: no /proc/self/statm, nothing measured\n");
    return 0;
  }
  blosc2_init();
  const int chunk = 4 << 20;
  int32_t *src = malloc(chunk), *back = malloc(chunk);
  uint8_t *comp = malloc(chunk + BLOSC2_MAX_OVERHEAD);
  fill(src, chunk / 4, 1);
  memset(back, 1, chunk); /* resident before any measurement */

  /* 1. cctx then dctx, two threads each, 256 KiB blocks with shuffle (one block-sized
     buffer per thread on both sides). */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_LZ4;
  cp.typesize = 4;
  cp.nthreads = 2;
  cp.blocksize = 256 * 1024;
  blosc2_prefilter_params pp = {0};
  cp.prefilter = copy_after_both_threads_arrived;
  cp.preparams = &pp;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_context *cctx = blosc2_create_cctx(cp), *dctx = blosc2_create_dctx(dp);
  int csize = 0;
  for (int i = 0; i < 3; i++) csize = blosc2_compress_ctx(cctx, src, chunk, comp, chunk + BLOSC2_MAX_OVERHEAD);
  CHECK(csize > 0, "compress: %d", csize);
  CHECK(threads_seen == 3, "only threads %#x of 2 took a block in 10 s", threads_seen);
  long before = rss_kib();
  int dsize = blosc2_decompress_ctx(dctx, comp, csize, back, chunk);
  long grew = rss_kib() - before;
  CHECK(dsize == chunk && memcmp(src, back, chunk) == 0, "roundtrip: %d", dsize);
  printf("first decompression after compression: resident memory +%ld KiB\n", grew);
  /* Two private 256 KiB buffers would be +512 KiB; allow for a thread's stack pages. */
  CHECK(grew < 256, "decompression context made buffers of its own: +%ld KiB", grew);
  /* And the other way round: compressing again needs no new block buffer either (each is
     256 KiB). What may grow is a thread's output arena, where it compresses its blocks
     before they are placed: up to the compressed size (about 150 KiB) when a thread that
     took one block before takes them all now (seen under load). */
  before = rss_kib();
  csize = blosc2_compress_ctx(cctx, src, chunk, comp, chunk + BLOSC2_MAX_OVERHEAD);
  grew = rss_kib() - before;
  CHECK(csize > 0 && grew < 256, "compression after decompression: %d bytes, +%ld KiB", csize, grew);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);

  free(src);
  free(back);
  free(comp);
  blosc2_destroy();
  printf("%s\n", fails ? "FAILED" : "OK");
  return fails != 0;
}
