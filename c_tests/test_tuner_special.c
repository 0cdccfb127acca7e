// c_tests: compare-output
// Special chunks (blosc2_chunk_zeros/nans/uninit/repeatval) made with a user tuner: the
// reference makes a compression context for each (the tuner's init runs) and calls the
// tuner's next_blocksize, so a failing hook fails the call with BLOSC2_ERROR_TUNER; a
// context that cannot be made (undefined filter, unknown tuner) gives
// BLOSC2_ERROR_NULL_POINTER, after the destination and nbytes checks. The same hook failing
// in the other entry points for comparison. (With a hook that succeeds the reference
// crashes here, SIGFPE: test_tuner_special_ok.c checks that case on this library only.)
#include <stdio.h>
#include <string.h>
#include "blosc2.h"

static int init_calls, nb_calls;
static int t_init(void *p, blosc2_context *c, blosc2_context *d) { (void)p; (void)c; (void)d; init_calls++; return 0; }
static int t_next_blocksize(blosc2_context *c) { (void)c; nb_calls++; return -7; }
static int t_next_cparams(blosc2_context *c) { (void)c; return 0; }
static int t_update(blosc2_context *c, double t) { (void)c; (void)t; return 0; }
static int t_free(blosc2_context *c) { (void)c; return 0; }

static void show(const char *what, long long rc) {
  printf("%-28s -> %lld (init %d, next_blocksize %d)\n", what, rc, init_calls, nb_calls);
  init_calls = nb_calls = 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  blosc2_tuner t = {t_init, t_next_blocksize, t_next_cparams, t_update, t_free, 171, "failtuner"};
  printf("register -> %d\n", blosc2_register_tuner(&t));
  static int data[10000];
  for (int i = 0; i < 10000; i++) data[i] = i;
  static char out[50000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.tuner_id = 171;
  int v = 5;
  show("zeros", blosc2_chunk_zeros(cp, 40000, out, sizeof out));
  show("nans", blosc2_chunk_nans(cp, 40000, out, sizeof out));
  show("uninit", blosc2_chunk_uninit(cp, 40000, out, sizeof out));
  show("repeatval", blosc2_chunk_repeatval(cp, 40000, out, sizeof out, &v));
  show("zeros, short dest", blosc2_chunk_zeros(cp, 40000, out, 16));
  show("zeros, nbytes not items", blosc2_chunk_zeros(cp, 40001, out, sizeof out));
  show("repeatval, short dest", blosc2_chunk_repeatval(cp, 40000, out, 33, &v));
  blosc2_context *cc = blosc2_create_cctx(cp);
  show("create_cctx", cc != NULL);
  const void *srcs[2] = {data, data + 100};
  int32_t sizes[2] = {400, 800};
  show("vlcompress_ctx", blosc2_vlcompress_ctx(cc, srcs, sizes, 2, out, sizeof out));
  show("compress_ctx", blosc2_compress_ctx(cc, data, sizeof data, out, sizeof out));
  blosc2_free_ctx(cc);
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  show("schunk_new", sc != NULL);
  show("schunk_fill_special", blosc2_schunk_fill_special(sc, 100000, BLOSC2_SPECIAL_ZERO, 40000));
  show("schunk_append_buffer", blosc2_schunk_append_buffer(sc, data, sizeof data));
  blosc2_schunk_free(sc);
  show("(frees)", 0);

  blosc2_cparams bad = BLOSC2_CPARAMS_DEFAULTS;
  bad.typesize = 4;
  bad.filters[0] = 20; /* undefined built-in filter id: no context */
  show("zeros, undefined filter", blosc2_chunk_zeros(bad, 400, out, sizeof out));
  bad.filters[0] = 0;
  bad.tuner_id = 250; /* never registered */
  show("zeros, unknown tuner", blosc2_chunk_zeros(bad, 400, out, sizeof out));
  show("nans, unknown tuner, short", blosc2_chunk_nans(bad, 400, out, 8));
  blosc2_destroy();
  return 0;
}
