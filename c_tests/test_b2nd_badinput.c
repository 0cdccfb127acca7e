// b2nd with bad input: every call returns a negative error code (or NULL) and leaves the
// caller's data alone; nothing crashes. Several of these cases crash or misbehave in the
// reference 3.3.5 (see REFERENCE-DEFECTS.md, b2nd section), so this runs with ours only.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "b2nd.h"

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      printf("FAIL line %d: %s\n", __LINE__, #cond);                  \
      failures++;                                                     \
    }                                                                 \
  } while (0)

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static uint64_t array_hash(const b2nd_array_t *a) {
  int64_t n = a->nitems * a->sc->typesize;
  uint8_t *b = malloc(n);
  int rc = b2nd_to_cbuffer(a, b, n);
  uint64_t h = rc == 0 ? fnv(b, n) : 0;
  free(b);
  return h;
}

int main(void) {
  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 2;
  blosc2_storage st = {.cparams = &cparams};
  int64_t shape[17];
  int32_t chunk[17], block[17];
  for (int i = 0; i < 17; i++) { shape[i] = 2; chunk[i] = 2; block[i] = 1; }

  /* Contexts */
  CHECK(b2nd_create_ctx(&st, 17, shape, chunk, block, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, -1, shape, chunk, block, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, 2, NULL, chunk, block, NULL, 0, NULL, 0) == NULL);
  int64_t neg[2] = {4, -3};
  CHECK(b2nd_create_ctx(&st, 2, neg, chunk, block, NULL, 0, NULL, 0) == NULL);
  int32_t zero_block[2] = {2, 0}, zero_chunk[2] = {0, 0}, neg_chunk[2] = {2, -2};
  CHECK(b2nd_create_ctx(&st, 2, shape, chunk, zero_block, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&st, 2, shape, zero_chunk, zero_chunk, NULL, 0, NULL, 0) == NULL);  // ref: SIGFPE later
  CHECK(b2nd_create_ctx(&st, 2, shape, neg_chunk, block, NULL, 0, NULL, 0) == NULL);
  int32_t huge_block[2] = {1 << 20, 1 << 20};
  int32_t huge_chunk[2] = {1 << 20, 1 << 20};
  CHECK(b2nd_create_ctx(&st, 2, shape, huge_chunk, huge_block, NULL, 0, NULL, 0) == NULL);
  blosc2_metalayer metas[16];
  for (int i = 0; i < 16; i++) {
    metas[i].name = "m";
    metas[i].content = (uint8_t *)"x";
    metas[i].content_len = 1;
  }
  CHECK(b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, metas, 16) == NULL);  // ref: overflow
  CHECK(b2nd_free_ctx(NULL) < 0);

  /* Creation */
  b2nd_array_t *a = (b2nd_array_t *)1;
  CHECK(b2nd_zeros(NULL, &a) < 0);
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  CHECK(b2nd_zeros(ctx, NULL) < 0);
  a = (b2nd_array_t *)1;
  CHECK(b2nd_nans(ctx, &a) == BLOSC2_ERROR_DATA);  // typesize 2
  CHECK(a == NULL);
  uint8_t small[7] = {0};
  a = (b2nd_array_t *)1;
  CHECK(b2nd_from_cbuffer(ctx, &a, small, sizeof small) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(a == NULL);
  CHECK(b2nd_full(ctx, &a, NULL) < 0);
  b2nd_free_ctx(ctx);

  /* Slices out of bounds, short buffers, small buffer shapes */
  int64_t s2[2] = {10, 7};
  int32_t c2[2] = {4, 3}, b2[2] = {3, 2};
  ctx = b2nd_create_ctx(&st, 2, s2, c2, b2, NULL, 0, NULL, 0);
  int16_t data[70];
  for (int i = 0; i < 70; i++) data[i] = (int16_t)(i * 3);
  CHECK(b2nd_from_cbuffer(ctx, &a, data, sizeof data) == 0);
  uint64_t before = array_hash(a);
  int16_t buf[100];
  memset(buf, 0x5a, sizeof buf);
  int64_t start[2] = {0, 0}, past[2] = {11, 7}, back[2] = {5, 2}, negs[2] = {-1, 0}, full[2] = {10, 7};
  int64_t bs[2] = {10, 7}, bsmall[2] = {9, 7};
  CHECK(b2nd_get_slice_cbuffer(a, start, past, buf, past, sizeof buf) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_get_slice_cbuffer(a, back, start, buf, bs, sizeof buf) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_get_slice_cbuffer(a, negs, full, buf, bs, sizeof buf) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_get_slice_cbuffer(a, start, full, buf, bsmall, sizeof buf) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_get_slice_cbuffer(a, start, full, buf, bs, 139) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_get_slice_cbuffer(a, start, full, buf, bs, -1) < 0);
  CHECK(b2nd_get_slice_cbuffer(a, NULL, full, buf, bs, sizeof buf) == BLOSC2_ERROR_NULL_POINTER);
  CHECK(b2nd_get_slice_cbuffer(a, start, full, NULL, bs, sizeof buf) == BLOSC2_ERROR_NULL_POINTER);
  uint8_t untouched = 1;
  for (size_t i = 0; i < sizeof buf; i++) untouched &= ((uint8_t *)buf)[i] == 0x5a;
  CHECK(untouched);
  CHECK(b2nd_set_slice_cbuffer(buf, past, sizeof buf, start, past, a) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_set_slice_cbuffer(buf, bs, sizeof buf, back, start, a) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_set_slice_cbuffer(buf, bs, 139, start, full, a) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_set_slice_cbuffer(buf, bsmall, sizeof buf, start, full, a) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(array_hash(a) == before);
  CHECK(b2nd_to_cbuffer(a, buf, 139) == BLOSC2_ERROR_INVALID_PARAM);
  int64_t w0[2] = {2, 1}, w1[2] = {9, 6}, ws[2] = {7, 5};
  CHECK(b2nd_get_slice_cbuffer(a, w0, w1, buf, ws, 70) == 0);
  CHECK(buf[0] == data[2 * 7 + 1] && buf[34] == data[8 * 7 + 5]);

  /* Pointers that are not arrays, frames that are not frames */
  int64_t not_an_array[64] = {0};
  CHECK(b2nd_free(NULL) == BLOSC2_ERROR_NULL_POINTER);
  CHECK(b2nd_free((b2nd_array_t *)not_an_array) < 0);
  CHECK(b2nd_to_cbuffer((b2nd_array_t *)not_an_array, buf, sizeof buf) < 0);
  b2nd_array_t *b = NULL;
  CHECK(b2nd_open("b2nd_badinput_does_not_exist.b2nd", &b) < 0 && b == NULL);
  uint8_t junk[300];
  for (int i = 0; i < 300; i++) junk[i] = (uint8_t)(i * 7);
  CHECK(b2nd_from_cframe(junk, sizeof junk, true, &b) < 0);
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  CHECK(b2nd_to_cframe(a, &cframe, &len, &needs_free) == 0);
  for (int64_t cut = 0; cut < len; cut += 7) {
    b = NULL;
    int rc = b2nd_from_cframe(cframe, cut, true, &b);
    if (rc == 0) {
      // A cut frame may open only when it still describes the array; reads then fail cleanly.
      int16_t all[70];
      (void)b2nd_to_cbuffer(b, all, sizeof all);
      b2nd_free(b);
    }
  }
  if (needs_free) free(cframe);

  /* A super-chunk without a b2nd metalayer, and crafted metalayers */
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(b2nd_from_schunk(sc, &b) == BLOSC2_ERROR_METALAYER_NOT_FOUND);
  int64_t cs[1] = {10};
  int32_t cc[1] = {0}, cb[1] = {0};
  uint8_t *smeta;
  int slen = b2nd_serialize_meta(1, cs, cc, cb, "<i2", 0, &smeta);
  CHECK(slen > 0);
  CHECK(blosc2_meta_add(sc, "b2nd", smeta, slen) >= 0);
  CHECK(b2nd_from_schunk(sc, &b) == BLOSC2_ERROR_INVALID_PARAM);
  free(smeta);
  blosc2_schunk_free(sc);
  CHECK(b2nd_serialize_meta(17, shape, chunk, block, NULL, 0, &smeta) < 0);
  CHECK(b2nd_serialize_meta(1, shape, chunk, block, NULL, -1, &smeta) < 0);
  uint8_t bad_meta[4] = {0x97, 0, 17, 0x91};
  int8_t nd;
  int64_t dshape[B2ND_MAX_DIM];
  int32_t dchunk[B2ND_MAX_DIM], dblock[B2ND_MAX_DIM];
  CHECK(b2nd_deserialize_meta(bad_meta, 4, &nd, dshape, dchunk, dblock, NULL, NULL) == BLOSC2_ERROR_FAILURE);
  CHECK(b2nd_deserialize_meta(bad_meta, 0, &nd, dshape, dchunk, dblock, NULL, NULL) == BLOSC2_ERROR_FAILURE);

  /* copy_buffer2 outside its buffers */
  uint8_t src[12], dst[12];
  int64_t pad[2] = {3, 4}, s0[2] = {0, 0}, s1[2] = {3, 4}, d1[2] = {1, 0};
  CHECK(b2nd_copy_buffer2(2, 1, src, pad, s0, s1, dst, pad, d1) < 0);

  b2nd_free(a);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  if (failures == 0) printf("OK\n");
  return failures != 0;
}
