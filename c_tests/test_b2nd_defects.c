// b2nd cases where the reference 3.3.5 is wrong (REFERENCE-DEFECTS.md, b2nd section); this
// library must get them right, so this runs with ours only:
// - b2nd_append of one chunk's bytes along axis 0 when other axes hold several chunks
//   (the reference's fast path loses the data and grows by a whole chunk);
// - shrink then grow shows zeros, not the items the shrink cut off;
// - negative axes are rejected by insert/append/delete;
// - append/insert along an axis when another axis is empty is an error (the reference
//   divides by zero);
// - views: NULL arrays, an axis list that drops dimensions, squeezing a length-1 dimension
//   whose chunks span more than one item (the reference's view reads the wrong items), and
//   resizing a view are errors; a view of a freed array fails cleanly.
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

static b2nd_array_t *make(int8_t nd, const int64_t *shape, const int32_t *chunk, const int32_t *block,
                          const int32_t *data, int64_t n) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, nd, shape, chunk, block, NULL, 0, NULL, 0);
  b2nd_array_t *a = NULL;
  CHECK(b2nd_from_cbuffer(ctx, &a, data, n * 4) == 0);
  b2nd_free_ctx(ctx);
  return a;
}

int main(void) {
  blosc2_init();
  int32_t data[200];
  for (int i = 0; i < 200; i++) data[i] = i + 1;

  /* Append one chunk's worth of bytes along axis 0 with two chunks across axis 1. */
  int64_t s[2] = {8, 6};
  int32_t c[2] = {4, 3}, b[2] = {2, 3};
  b2nd_array_t *a = make(2, s, c, b, data, 48);
  int32_t extra[12];
  for (int i = 0; i < 12; i++) extra[i] = 1000 + i;
  CHECK(b2nd_append(a, extra, sizeof extra, 0) == 0);
  CHECK(a->shape[0] == 10 && a->shape[1] == 6);
  int32_t all[60] = {0};
  CHECK(b2nd_to_cbuffer(a, all, sizeof all) == 0);
  CHECK(memcmp(all, data, 48 * 4) == 0);
  CHECK(memcmp(all + 48, extra, sizeof extra) == 0);

  /* Negative axes. */
  CHECK(b2nd_append(a, extra, 6 * 4, -1) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_insert(a, extra, 6 * 4, -2, 0) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_delete(a, -1, 0, 1) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_delete(a, 0, 5, 6) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_insert(a, extra, 7 * 4, 0, 0) == BLOSC2_ERROR_INVALID_PARAM);  // not whole rows
  int64_t bad_start[2] = {1, 0}, bigger[2] = {14, 6};
  CHECK(b2nd_resize(a, bigger, bad_start) == BLOSC2_ERROR_INVALID_PARAM);  // not a chunk boundary
  CHECK(a->shape[0] == 10);
  b2nd_free(a);

  /* Appending to (or inserting into) an array whose other axes are empty: the buffer's
   * extent along the axis cannot be told from its size (the reference divides by zero,
   * SIGFPE). An error, and the array unchanged. */
  int64_t s0[2] = {0, 5};
  int32_t c0[2] = {2, 2}, b0[2] = {1, 1};
  a = make(2, s0, c0, b0, data, 0);
  CHECK(b2nd_append(a, extra, 0, 1) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_insert(a, extra, 0, 1, 0) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(a->shape[0] == 0 && a->shape[1] == 5);
  b2nd_free(a);

  /* Shrink, then grow again: the cut items must not come back. */
  int64_t s1[1] = {10};
  int32_t c1[1] = {8}, b1[1] = {4};
  a = make(1, s1, c1, b1, data, 10);
  int64_t small[1] = {5}, large[1] = {12};
  CHECK(b2nd_resize(a, small, NULL) == 0);
  CHECK(b2nd_resize(a, large, NULL) == 0);
  int32_t got[12];
  CHECK(b2nd_to_cbuffer(a, got, sizeof got) == 0);
  CHECK(memcmp(got, data, 5 * 4) == 0);
  for (int i = 5; i < 12; i++) CHECK(got[i] == 0);
  b2nd_free(a);

  int64_t s2[2] = {7, 5};
  int32_t c2[2] = {4, 4}, b2[2] = {2, 3};
  a = make(2, s2, c2, b2, data, 35);
  int64_t shrunk[2] = {5, 3}, grown[2] = {8, 8};
  CHECK(b2nd_resize(a, shrunk, NULL) == 0);
  CHECK(b2nd_resize(a, grown, NULL) == 0);
  int32_t g2[64];
  CHECK(b2nd_to_cbuffer(a, g2, sizeof g2) == 0);
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j++) {
      int32_t want = (i < 5 && j < 3) ? data[i * 5 + j] : 0;
      CHECK(g2[i * 8 + j] == want);
    }
  }
  b2nd_free(a);

  /* Views */
  b2nd_array_t *v = NULL;
  CHECK(b2nd_squeeze_index(NULL, &v, NULL) == BLOSC2_ERROR_NULL_POINTER);  // ref: crash
  bool ax[3] = {true, false, false};
  CHECK(b2nd_expand_dims(NULL, &v, ax, 3) == BLOSC2_ERROR_NULL_POINTER);  // ref: crash
  int64_t s3[3] = {4, 1, 5};
  int32_t c3[3] = {2, 2, 5}, b3[3] = {1, 1, 5};
  a = make(3, s3, c3, b3, data, 20);
  bool mid[3] = {false, true, false};
  CHECK(b2nd_squeeze_index(a, &v, mid) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(v == NULL);
  bool drop[2] = {true, false};  // keeps 1 of the 3 dimensions
  CHECK(b2nd_expand_dims(a, &v, drop, 2) == BLOSC2_ERROR_INVALID_PARAM);
  bool add[4] = {false, false, false, true};
  CHECK(b2nd_expand_dims(a, &v, add, 4) == 0);
  int64_t vshape[4] = {4, 1, 5, 2};
  CHECK(b2nd_resize(v, vshape, NULL) == BLOSC2_ERROR_INVALID_PARAM);
  CHECK(b2nd_append(v, data, 20 * 4, 0) == BLOSC2_ERROR_INVALID_PARAM);
  int32_t vbuf[20];
  CHECK(b2nd_to_cbuffer(v, vbuf, sizeof vbuf) == 0);
  CHECK(memcmp(vbuf, data, sizeof vbuf) == 0);
  b2nd_free(a);
  CHECK(b2nd_to_cbuffer(v, vbuf, sizeof vbuf) < 0);  // the viewed array is gone
  CHECK(b2nd_free(v) == 0);

  /* An array joined to itself in place (the chunks it reads move while it grows). */
  for (int axis = 0; axis < 2; axis++) {
    int64_t sj[2] = {4, 4};
    int32_t cj[2] = {2, 2}, bj[2] = {1, 2};
    a = make(2, sj, cj, bj, data, 16);
    b2nd_array_t *r = NULL;
    CHECK(b2nd_concatenate(NULL, a, a, (int8_t)axis, false, &r) == 0);
    CHECK(r == a);
    CHECK(a->shape[axis] == 8 && a->shape[1 - axis] == 4);
    int32_t joined[32];
    CHECK(b2nd_to_cbuffer(a, joined, sizeof joined) == 0);
    for (int i = 0; i < 32; i++) {
      int row = axis == 0 ? i / 4 : i / 8, col = axis == 0 ? i % 4 : i % 8;
      CHECK(joined[i] == data[(row % 4) * 4 + col % 4]);
    }
    b2nd_free(a);
  }

  blosc2_destroy();
  if (failures == 0) printf("OK\n");
  return failures != 0;
}
