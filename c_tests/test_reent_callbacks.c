// c_tests: compare-output
// User callbacks calling back into the super-chunk they work for: a user codec (encoder and
// decoder), a user filter (forward and backward), a prefilter, a postfilter and the threads
// callback read its vlmetalayers, metalayers, counters and chunks while append, decompress,
// get/set slice, sparse reads, copies and vlmeta calls run. Nothing may wait for a lock the
// caller holds (the test completes rather than hanging), and each nested call must succeed.
// User codec decoders get dparams->schunk (blosc2_schunk_decompress_chunk and
// blosc2_decompress_ctx(schunk->dctx)).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "blosc2.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

enum { CODEC = 250, FILTER = 250, N = 4096 };

static blosc2_schunk *G;           /* the super-chunk the callbacks work for */
static int calls[6], failures[6];  /* encoder, decoder, forward, backward, prefilter, postfilter */
static int dec_schunk_mismatch;

/* What every callback does: read the super-chunk's state through the API. */
static void reenter(int who) {
  calls[who]++;
  if (G == NULL) return;
  uint8_t *content = NULL; int32_t len = 0;
  /* Not from the postfilter: the reference decodes vlmetalayers with the super-chunk's
     dparams, postfilter included, and would recurse for ever. */
  if (who != 5 && (blosc2_vlmeta_get(G, "hint", &content, &len) < 0 || len != 1 || content[0] != 42)) failures[who]++;
  free(content);
  if (blosc2_vlmeta_exists(G, "hint") < 0) failures[who]++;
  if (blosc2_meta_exists(G, "fixed") < 0) failures[who]++;
  if (G->nchunks < 0 || G->typesize != 4) failures[who]++;
  if (G->nchunks > 0) {
    uint8_t *chunk; bool nf;
    int cb = blosc2_schunk_get_chunk(G, 0, &chunk, &nf);
    if (cb <= 0) failures[who]++;
    else if (nf) free(chunk);
  }
  blosc2_cparams *cp = NULL;
  if (blosc2_schunk_get_cparams(G, &cp) < 0 || cp->typesize != 4) failures[who]++;
  free(cp);
}

static int enc(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  if (cp->schunk == G) reenter(0);
  if (outlen < 8 || inlen < 8) return 0;
  const int32_t *v = (const int32_t *)in;  /* arithmetic sequence: first value and step */
  ((int32_t *)out)[0] = v[0];
  ((int32_t *)out)[1] = v[1] - v[0];
  return 8;
}

static int dec(const uint8_t *in, int32_t inlen, uint8_t *out, int32_t outlen, uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  if (dp->schunk != G) dec_schunk_mismatch++;
  else reenter(1);
  if (inlen < 8) return -1;
  int32_t first = ((const int32_t *)in)[0], step = ((const int32_t *)in)[1];
  for (int i = 0; i < outlen / 4; i++) ((int32_t *)out)[i] = first + i * step;
  return outlen;
}

static int fwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_cparams *cp, uint8_t id) {
  reenter(2);
  memcpy(dest, src, size);
  return 0;
}

static int bwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_dparams *dp, uint8_t id) {
  reenter(3);
  memcpy(dest, src, size);
  return 0;
}

static int prefilter(blosc2_prefilter_params *p) {
  reenter(4);
  memcpy(p->output, p->input, p->output_size);
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  reenter(5);
  memcpy(p->output, p->input, p->size);
  return 0;
}

static int pool_calls, pool_failures;
static void pool(void *data, void (*dojob)(void *), int njobs, size_t elsize, void *jobs) {
  pool_calls++;
  uint8_t *content = NULL; int32_t len = 0;
  if (G != NULL && (blosc2_vlmeta_get(G, "hint", &content, &len) < 0 || len != 1)) pool_failures++;
  free(content);
  for (int i = 0; i < njobs; i++) dojob((uint8_t *)jobs + (size_t)i * elsize);
}

/* Which callbacks the step must have run (more may run: the reference's vlmeta_get runs the
   postfilter), and how many nested calls failed in each. */
#define ENC 1
#define DEC 2
#define FWD 4
#define BWD 8
#define PRE 16
#define POST 32
static void report(const char *what, int expected) {
  static const char *names[6] = {"encoder", "decoder", "forward", "backward", "prefilter", "postfilter"};
  printf("%s:", what);
  for (int i = 0; i < 6; i++) {
    if ((expected & (1 << i)) && calls[i] == 0) printf(" %s-not-called", names[i]);
    printf(" %s-failures=%d", names[i], failures[i]);
    calls[i] = failures[i] = 0;
  }
  printf(" dparams.schunk-mismatch=%d\n", dec_schunk_mismatch);
  dec_schunk_mismatch = 0;
}

static int run(int nthreads, const char *urlpath, bool contiguous) {
  blosc2_remove_urlpath(urlpath);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.compcode = CODEC; cp.nthreads = nthreads; cp.blocksize = 4096;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filters[i] = 0;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = FILTER;
  cp.prefilter = prefilter;
  blosc2_prefilter_params pre = {0};
  cp.preparams = &pre;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  dp.postfilter = postfilter;
  blosc2_postfilter_params post = {0};
  dp.postparams = &post;
  blosc2_storage st = {.cparams = &cp, .dparams = &dp, .urlpath = (char *)urlpath, .contiguous = contiguous};
  G = NULL;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  uint8_t fixed = 7;
  CHECK(blosc2_meta_add(sc, "fixed", &fixed, 1) >= 0);
  uint8_t hint = 42;
  blosc2_cparams vcp = BLOSC2_CPARAMS_DEFAULTS;
  CHECK(blosc2_vlmeta_add(sc, "hint", &hint, 1, &vcp) >= 0);
  G = sc;
  printf("-- nthreads=%d storage=%s\n", nthreads, urlpath ? (contiguous ? "file" : "dir") : "memory");

  int32_t *buf = malloc(N * 4), *out = malloc(N * 4);
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < N; i++) buf[i] = c * 1000 + 3 * i;
    int64_t n = blosc2_schunk_append_buffer(sc, buf, N * 4);
    printf("append_buffer -> %lld\n", (long long)n);
  }
  report("append", ENC | FWD | PRE);

  int rc = blosc2_schunk_decompress_chunk(sc, 1, out, N * 4);
  printf("decompress_chunk -> %d out[5]=%d\n", rc, out[5]);
  report("decompress_chunk", DEC | BWD | POST);

  uint8_t *chunk; bool nf;
  int cb = blosc2_schunk_get_chunk(sc, 2, &chunk, &nf);
  rc = blosc2_decompress_ctx(sc->dctx, chunk, cb, out, N * 4);
  printf("decompress_ctx(schunk->dctx) -> %d out[5]=%d\n", rc, out[5]);
  if (nf) free(chunk);
  report("decompress_ctx", DEC | BWD | POST);

  rc = blosc2_schunk_get_slice_buffer(sc, N - 10, N + 10, out);
  printf("get_slice_buffer -> %d out[0]=%d out[19]=%d\n", rc, out[0], out[19]);
  report("get_slice", DEC | BWD | POST);

  for (int i = 0; i < 20; i++) buf[i] = 5000 + 3 * i;
  rc = blosc2_schunk_set_slice_buffer(sc, N - 10, N + 10, buf);
  printf("set_slice_buffer -> %d\n", rc);
  report("set_slice", ENC | DEC | FWD | BWD | PRE | POST);

  int64_t coords[4] = {3, N + 1, 2 * N + 7, 17};
  rc = blosc2_schunk_get_sparse_buffer(sc, 4, coords, out);
  printf("get_sparse_buffer -> %d %d %d %d %d\n", rc, out[0], out[1], out[2], out[3]);
  report("get_sparse", DEC | BWD | POST);

  blosc2_set_threads_callback(pool, NULL);
  rc = blosc2_schunk_decompress_chunk(sc, 0, out, N * 4);
  printf("decompress_chunk with threads callback -> %d out[9]=%d pool-failures=%d\n", rc, out[9], pool_failures);
  blosc2_set_threads_callback(NULL, NULL);
  report("threads callback", DEC | BWD | POST);

  uint8_t *content; int32_t len;
  rc = blosc2_vlmeta_get(sc, "hint", &content, &len);
  printf("vlmeta_get -> %d len=%d\n", rc, len);
  free(content);

  blosc2_storage cst = {.cparams = &cp, .dparams = &dp};
  blosc2_schunk *copy = blosc2_schunk_copy(sc, &cst);
  printf("copy -> %s nchunks=%lld\n", copy ? "schunk" : "NULL", copy ? (long long)copy->nchunks : -1LL);
  report("copy", DEC | BWD | POST);
  if (copy) {
    G = NULL;
    blosc2_schunk_free(copy);
    G = sc;
  }
  G = NULL;
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(urlpath);
  free(buf); free(out);
  return 0;
}

int main(void) {
  blosc2_init();
  blosc2_codec codec = {.compcode = CODEC, .compname = "reent_arith", .complib = CODEC, .version = 1, .encoder = enc, .decoder = dec};
  CHECK(blosc2_register_codec(&codec) == 0);
  blosc2_filter filter = {.id = FILTER, .name = "reent_copy", .version = 1, .forward = fwd, .backward = bwd};
  CHECK(blosc2_register_filter(&filter) == 0);
  if (run(1, NULL, false)) return 1;
  if (run(2, NULL, false)) return 1;
  if (run(1, "reent_callbacks.b2frame", true)) return 1;
  if (run(2, "reent_callbacks_dir.b2frame", false)) return 1;
  blosc2_destroy();
  return 0;
}
