// c_tests: compare-output
// Prefilters, postfilters, user filters and user codecs registered from C; maskout.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "blosc2.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

static int prefilter(blosc2_prefilter_params *p) {
  /* Output = input + 1 for every int32 item. */
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  int add = *(int *)p->user_data;
  for (int i = 0; i < p->output_size / 4; i++) out[i] = in[i] + add;
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int i = 0; i < p->size / 4; i++) out[i] = in[i] * 2;
  return 0;
}

static int fwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_cparams *cp, uint8_t id) {
  for (int i = 0; i < size; i++) dest[i] = src[i] ^ meta;
  return 0;
}
static int bwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_dparams *dp, uint8_t id) {
  for (int i = 0; i < size; i++) dest[i] = src[i] ^ meta;
  return 0;
}

/* A trivial codec: stores the input as-is preceded by a marker byte. */
static int enc(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  if (out_len < in_len) return 0;
  /* run-length of equal bytes pairs: (count, byte) */
  int o = 0;
  for (int i = 0; i < in_len;) {
    int j = i;
    while (j < in_len && in[j] == in[i] && j - i < 255) j++;
    if (o + 2 > out_len) return 0;
    out[o++] = (uint8_t)(j - i);
    out[o++] = in[i];
    i = j;
  }
  return o;
}
static int dec(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  int o = 0;
  for (int i = 0; i + 1 < in_len; i += 2) {
    if (o + in[i] > out_len) return -1;
    memset(out + o, in[i + 1], in[i]);
    o += in[i];
  }
  return o;
}

int main(void) {
  blosc2_init();
  enum { N = 100000 };
  int32_t *src = malloc(N * 4), *back = malloc(N * 4);
  unsigned char *comp = malloc(N * 4 + 64);
  for (int i = 0; i < N; i++) src[i] = i;

  /* Prefilter adds 1. */
  int add = 1;
  blosc2_prefilter_params pp = {0};
  pp.user_data = &add;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.prefilter = prefilter;
  cp.preparams = &pp;
  blosc2_context *cc = blosc2_create_cctx(cp);
  int c = blosc2_compress_ctx(cc, src, N * 4, comp, N * 4 + 64);
  CHECK(c > 0);
  blosc2_context *dc = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  CHECK(blosc2_decompress_ctx(dc, comp, c, back, N * 4) == N * 4);
  for (int i = 0; i < N; i++) CHECK(back[i] == i + 1);
  printf("prefilter ok, cbytes %d\n", c);
  blosc2_free_ctx(cc);

  /* Postfilter doubles. */
  blosc2_postfilter_params po = {0};
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.postfilter = postfilter;
  dp.postparams = &po;
  blosc2_context *dcp = blosc2_create_dctx(dp);
  CHECK(blosc2_decompress_ctx(dcp, comp, c, back, N * 4) == N * 4);
  for (int i = 0; i < N; i++) CHECK(back[i] == 2 * (i + 1));
  printf("postfilter ok\n");
  blosc2_free_ctx(dcp);

  /* Maskout: skip every other block. */
  int32_t nbytes, cbytes, bsize;
  blosc2_cbuffer_sizes(comp, &nbytes, &cbytes, &bsize);
  int nblocks = (nbytes + bsize - 1) / bsize;
  bool *mask = calloc(nblocks, 1);
  for (int b = 0; b < nblocks; b += 2) mask[b] = true;
  memset(back, 0xff, N * 4);
  CHECK(blosc2_set_maskout(dc, mask, nblocks) == 0);
  int m = blosc2_decompress_ctx(dc, comp, c, back, N * 4);
  printf("maskout nblocks %d -> %d\n", nblocks, m);
  for (int b = 0; b < nblocks; b++) {
    int32_t first = back[b * bsize / 4];
    CHECK(mask[b] ? first == -1 : first == b * bsize / 4 + 1);
  }

  /* User filter 200 (xor with meta). */
  blosc2_filter f = {200, "xor", 1, fwd, bwd};
  printf("register filter -> %d\n", blosc2_register_filter(&f));
  printf("register again -> %d\n", blosc2_register_filter(&f));
  blosc2_filter low = {100, "low", 1, fwd, bwd};
  printf("register id 100 -> %d\n", blosc2_register_filter(&low));
  blosc2_cparams cpf = BLOSC2_CPARAMS_DEFAULTS;
  cpf.typesize = 4;
  cpf.filters[4] = 200;
  cpf.filters_meta[4] = 0x5a;
  cc = blosc2_create_cctx(cpf);
  c = blosc2_compress_ctx(cc, src, N * 4, comp, N * 4 + 64);
  CHECK(c > 0);
  CHECK(blosc2_decompress_ctx(dc, comp, c, back, N * 4) == N * 4);
  CHECK(memcmp(back, src, N * 4) == 0);
  printf("user filter ok, filters byte 4 = %d\n", comp[16 + 4]);
  blosc2_free_ctx(cc);

  /* User codec 170 (byte run-length). */
  blosc2_codec codec = {170, "rle", 170, 1, enc, dec};
  printf("register codec -> %d\n", blosc2_register_codec(&codec));
  printf("register codec again -> %d\n", blosc2_register_codec(&codec));
  printf("compname_to_compcode(rle) -> %d\n", blosc2_compname_to_compcode("rle"));
  const char *name = NULL;
  int code170 = blosc2_compcode_to_compname(170, &name);
  printf("compcode_to_compname(170) -> %d %s\n", code170, name ? name : "(null)");
  blosc2_cparams cpc = BLOSC2_CPARAMS_DEFAULTS;
  cpc.typesize = 4;
  cpc.compcode = 170;
  cpc.compcode_meta = 7;
  cc = blosc2_create_cctx(cpc);
  for (int i = 0; i < N; i++) src[i] = i / 1000;
  c = blosc2_compress_ctx(cc, src, N * 4, comp, N * 4 + 64);
  CHECK(c > 0);
  printf("user codec cbytes %d flags %02x udcodec %d meta %d\n", c, comp[2], comp[22], comp[23]);
  CHECK(blosc2_decompress_ctx(dc, comp, c, back, N * 4) == N * 4);
  CHECK(memcmp(back, src, N * 4) == 0);
  blosc2_free_ctx(cc);
  blosc2_free_ctx(dc);
  free(src); free(back); free(comp); free(mask);
  blosc2_destroy();
  return 0;
}
