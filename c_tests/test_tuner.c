// c_tests: compare-output
// User tuners (blosc2_register_tuner): registration codes, which hooks run and in what order
// for contexts and super-chunks, hook failures, and the chunks written with a tuner (which
// keeps the block size given in cparams). Without tuner parameters, as the reference calls
// them (it never hands tuner_params to its contexts: see test_tuner_params.c for that case).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static char log_[4096];
static int fail_at = 0; /* 1 init, 2 next_blocksize */
static void note(const char *s) { strncat(log_, s, sizeof log_ - strlen(log_) - 1); strncat(log_, " ", sizeof log_ - strlen(log_) - 1); }
static void flush(const char *what) { printf("%s: %s\n", what, log_); log_[0] = 0; }

static int t_init(void *config, blosc2_context *cctx, blosc2_context *dctx) {
  char b[64]; snprintf(b, sizeof b, "init(config=%s,cctx=%s,dctx=%s)", config ? "set" : "NULL", cctx ? "set" : "NULL", dctx ? "set" : "NULL");
  note(b); return fail_at == 1 ? -1 : 0;
}
static int t_next_blocksize(blosc2_context *c) {
  blosc2_cparams cp; blosc2_ctx_get_cparams(c, &cp);
  char b[64]; snprintf(b, sizeof b, "next_blocksize(bs=%d,ts=%d)", cp.blocksize, cp.typesize);
  note(b); return fail_at == 2 ? -1 : 0;
}
static int t_next_cparams(blosc2_context *c) { note("next_cparams"); return 0; }
static int t_update(blosc2_context *c, double ctime) { note("update"); return 0; }
static int t_free(blosc2_context *c) { note("free"); return 0; }

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  blosc2_tuner t = {t_init, t_next_blocksize, t_next_cparams, t_update, t_free, 170, "mytuner"};
  printf("register 170 -> %d\n", blosc2_register_tuner(&t));
  printf("register 170 again -> %d\n", blosc2_register_tuner(&t));
  blosc2_tuner t2 = t; t2.name = "other";
  printf("register 170 other name -> %d\n", blosc2_register_tuner(&t2));
  blosc2_tuner t3 = t; t3.id = 40; t3.name = "low";
  printf("register 40 -> %d\n", blosc2_register_tuner(&t3));
  blosc2_tuner t4 = t; t4.id = 32; t4.name = "btune2";
  printf("register 32 -> %d\n", blosc2_register_tuner(&t4));
  flush("registration");

  int32_t data[25000];
  for (int i = 0; i < 25000; i++) data[i] = i * 3;
  static uint8_t out[120000], out2[120000];
  int32_t back[25000];

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.blocksize = 16384; cp.tuner_id = 170;
  blosc2_context *c = blosc2_create_cctx(cp);
  flush("create_cctx");
  int n1 = blosc2_compress_ctx(c, data, sizeof data, out, sizeof out);
  flush("compress 1");
  int n2 = blosc2_compress_ctx(c, data, 40000, out2, sizeof out2);
  flush("compress 2");
  blosc2_free_ctx(c);
  flush("free_ctx");
  int32_t nb, cb, bs;
  blosc2_cbuffer_sizes(out, &nb, &cb, &bs);
  printf("chunk 1: cbytes %d nbytes %d blocksize %d\n", n1, nb, bs);
  blosc2_cbuffer_sizes(out2, &nb, &cb, &bs);
  printf("chunk 2: cbytes %d nbytes %d blocksize %d\n", n2, nb, bs);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  int dn = blosc2_decompress_ctx(d, out, n1, back, sizeof back);
  printf("decompress -> %d equal %d\n", dn, memcmp(back, data, sizeof data) == 0);
  blosc2_free_ctx(d);
  flush("decompression");

  /* Same parameters without a tuner: same chunk. */
  cp.tuner_id = 0;
  c = blosc2_create_cctx(cp);
  int n3 = blosc2_compress_ctx(c, data, sizeof data, out2, sizeof out2);
  printf("without tuner: cbytes %d same bytes %d\n", n3, n3 == n1 && memcmp(out, out2, n1) == 0);
  blosc2_free_ctx(c);

  /* Super-chunk with the tuner. */
  cp.tuner_id = 170;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *s = blosc2_schunk_new(&st);
  flush("schunk_new");
  for (int i = 0; i < 2; i++) blosc2_schunk_append_buffer(s, data, sizeof data);
  flush("two appends");
  blosc2_schunk_decompress_chunk(s, 1, back, sizeof back);
  printf("schunk nchunks %lld equal %d\n", (long long)s->nchunks, memcmp(back, data, sizeof data) == 0);
  blosc2_schunk_free(s);
  flush("schunk_free");

  /* Failing hooks. */
  fail_at = 1;
  c = blosc2_create_cctx(cp);
  printf("init fails: create_cctx -> %s\n", c ? "context" : "NULL");
  if (c) blosc2_free_ctx(c);
  flush("failing init");
  fail_at = 2;
  c = blosc2_create_cctx(cp);
  printf("next_blocksize fails: compress -> %d\n", blosc2_compress_ctx(c, data, sizeof data, out, sizeof out));
  blosc2_free_ctx(c);
  flush("failing next_blocksize");
  fail_at = 0;

  /* The reference's btune tuner (id 32), with no btune plugin installed. */
  cp.tuner_id = 32;
  c = blosc2_create_cctx(cp);
  printf("btune without plugin: create_cctx -> %s\n", c ? "context" : "NULL");
  if (c) blosc2_free_ctx(c);
  blosc2_destroy();
  return 0;
}
