// c_tests: differential
// Independent contexts do not wait for each other. Eight threads, each with its own
// decompression context, super-chunk or b2nd array, meet at a rendezvous placed inside the
// library's decompression path (a postfilter, or the decoder of a registered codec): all
// eight must be inside that path at the same time. A lock shared by the threads and held
// across the path (a global lock, a lock on a shared table or registry) would let fewer in,
// and the rendezvous would time out.
//
// The reference serialises its global API (blosc2_decompress) with one lock, by design;
// this library does not (a busy global engine makes the call use an engine of its own), so
// that phase runs with ours only.
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "b2nd.h"
#include "blosc2.h"

enum { T = 8, N = 64 * 1024, CODEC = 200 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived, generation, timed_out;
static pthread_barrier_t phase;
static __thread int met;  /* this thread went through the rendezvous in this phase */
static const char *phase_name;

/* Wait, at most 10 s, until all T threads are here; once per thread and phase. */
static void rendezvous(void) {
  if (met) return;
  met = 1;
  pthread_mutex_lock(&mu);
  if (!timed_out) {
    int gen = generation;
    if (++arrived == T) {
      arrived = 0;
      generation++;
      pthread_cond_broadcast(&cv);
    } else {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_sec += 10;
      while (gen == generation && !timed_out) {
        if (pthread_cond_timedwait(&cv, &mu, &until) == ETIMEDOUT) {
          fprintf(stderr, "%s: only %d of %d threads inside decompression at once\n", phase_name, arrived, T);
          timed_out = 1;
          pthread_cond_broadcast(&cv);
        }
      }
    }
  }
  pthread_mutex_unlock(&mu);
}

static int post(blosc2_postfilter_params *p) {
  memcpy(p->output, p->input, (size_t)p->size);
  rendezvous();
  return 0;
}

/* A codec for blocks that repeat their first 8 bytes: stores those 8 bytes. */
static int enc(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_cparams *cp,
               const void *chunk) {
  if (inlen < 16 || outlen < 8) return 0;
  for (int32_t i = 8; i < inlen; i++)
    if (in[i] != in[i % 8]) return 0;
  memcpy(out, in, 8);
  return 8;
}

static int dec(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_dparams *dp,
               const void *chunk) {
  if (inlen != 8) return -1;
  for (int32_t i = 0; i < outlen; i++) out[i] = in[i % 8];
  rendezvous();
  return outlen;
}

static int ours;
static long failures[T];

/* End the previous phase (whose calls must have reached the rendezvous) and start `name`. */
static void begin(long id, const char *name) {
  if (phase_name != NULL && !met) {
    fprintf(stderr, "thread %ld, %s: the rendezvous was never reached\n", id, phase_name);
    failures[id]++;
  }
  pthread_barrier_wait(&phase);
  if (id == 0) phase_name = name;
  met = 0;
  pthread_barrier_wait(&phase);
}

#define FAIL(what)                                                        \
  do {                                                                    \
    fprintf(stderr, "thread %ld, %s: %s failed\n", id, phase_name, what); \
    failures[id]++;                                                       \
  } while (0)

static void *worker(void *arg) {
  long id = (long)arg;
  uint8_t *src = malloc(N), *dst = malloc(N + BLOSC2_MAX_OVERHEAD), *back = malloc(N);
  for (int i = 0; i < N; i++) src[i] = (uint8_t)(i * 3 / 5 + id);
  blosc2_postfilter_params pp = {0};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  dp.postfilter = post;
  dp.postparams = &pp;

  /* 1. Contexts: blosc2_decompress_ctx and blosc2_getitem_ctx. */
  begin(id, "contexts");
  blosc2_context *cc = blosc2_create_cctx(cp), *dc = blosc2_create_dctx(dp);
  int csize = blosc2_compress_ctx(cc, src, N, dst, N + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0) FAIL("compress");
  if (blosc2_decompress_ctx(dc, dst, csize, back, N) != N || memcmp(src, back, N) != 0) FAIL("decompress_ctx");
  begin(id, "getitem");
  if (blosc2_getitem_ctx(dc, dst, csize, 100, 50, back, N) != 200 || memcmp(src + 400, back, 200) != 0)
    FAIL("getitem_ctx");
  blosc2_free_ctx(cc);
  blosc2_free_ctx(dc);

  /* 2. Super-chunks, each thread its own (in memory). */
  begin(id, "super-chunks");
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL || blosc2_schunk_append_buffer(sc, src, N) != 1) FAIL("append");
  memset(back, 0, N);
  if (sc != NULL && (blosc2_schunk_decompress_chunk(sc, 0, back, N) != N || memcmp(src, back, N) != 0))
    FAIL("schunk_decompress_chunk");
  blosc2_schunk_free(sc);

  /* 3. b2nd arrays, each thread its own. */
  begin(id, "b2nd arrays");
  int64_t shape[2] = {128, 128};
  int32_t chunk[2] = {64, 128}, block[2] = {32, 64};
  b2nd_context_t *bctx = b2nd_create_ctx(&st, 2, shape, chunk, block, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *arr = NULL;
  if (bctx == NULL || b2nd_from_cbuffer(bctx, &arr, src, N) != 0) FAIL("b2nd_from_cbuffer");
  memset(back, 0, N);
  if (arr != NULL && (b2nd_to_cbuffer(arr, back, N) != 0 || memcmp(src, back, N) != 0)) FAIL("b2nd_to_cbuffer");
  b2nd_free(arr);
  b2nd_free_ctx(bctx);

  /* 4. A registered codec, each thread its own contexts. */
  for (int i = 0; i < N; i++) src[i] = (uint8_t)((i % 8) * 17 + id);
  begin(id, "registered codec");
  blosc2_cparams cpc = cp;
  cpc.compcode = CODEC;
  cpc.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  blosc2_dparams dpc = BLOSC2_DPARAMS_DEFAULTS;
  dpc.nthreads = 1;
  cc = blosc2_create_cctx(cpc);
  dc = blosc2_create_dctx(dpc);
  csize = blosc2_compress_ctx(cc, src, N, dst, N + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0 || csize > N / 2) FAIL("compress with the codec");
  memset(back, 0, N);
  if (blosc2_decompress_ctx(dc, dst, csize, back, N) != N || memcmp(src, back, N) != 0) FAIL("decode");
  blosc2_free_ctx(cc);
  blosc2_free_ctx(dc);

  /* 5. The global API (ours only, see above). */
  if (ours) {
    begin(id, "global API");
    memset(back, 0, N);
    if (blosc2_decompress(dst, csize, back, N) != N || memcmp(src, back, N) != 0) FAIL("blosc2_decompress");
  }

  begin(id, "end");
  free(src);
  free(dst);
  free(back);
  return NULL;
}

int main(void) {
  const char *impl = getenv("BLOSC_TEST_IMPL");
  ours = impl == NULL || strcmp(impl, "reference") != 0;
  blosc2_init();
  blosc2_codec codec = {.compcode = CODEC, .compname = "rendezvous", .complib = CODEC, .version = 1,
                        .encoder = enc, .decoder = dec};
  if (blosc2_register_codec(&codec) != 0) {
    fprintf(stderr, "register_codec failed\n");
    return 1;
  }
  pthread_barrier_init(&phase, NULL, T);
  pthread_t th[T];
  for (long i = 0; i < T; i++) pthread_create(&th[i], NULL, worker, (void *)i);
  long bad = 0;
  for (int i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    bad += failures[i];
  }
  blosc2_destroy();
  if (bad != 0 || timed_out) {
    printf("FAILED: %ld calls failed%s\n", bad, timed_out ? ", threads were serialised" : "");
    return 1;
  }
  printf("OK: %d threads inside decompression at once, in every phase\n", T);
  return 0;
}
