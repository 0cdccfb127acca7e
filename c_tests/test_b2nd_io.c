// c_tests: compare-output
// b2nd metalayer bytes (b2nd_serialize_meta / b2nd_deserialize_meta), b2nd_print_meta text,
// frames in memory (to_cframe / from_cframe with and without copy), b2nd_save to contiguous
// and sparse storage, b2nd_save_append + b2nd_open_offset, b2nd_copy_buffer2, blockshapes
// larger than the chunkshape, multi-threaded reads, 0-dim arrays and the fixture arrays written
// by the reference: everything printed must equal the reference's output.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include "b2nd.h"

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static void print_all(const char *what, const b2nd_array_t *a) {
  int64_t nbytes = a->nitems * a->sc->typesize;
  uint8_t *buf = calloc(1, nbytes + 1);
  int rc = b2nd_to_cbuffer(a, buf, nbytes);
  printf("%s: ndim=%d nitems=%" PRId64 " typesize=%d rc=%d hash=%016" PRIx64 "\n", what, a->ndim, a->nitems,
         a->sc->typesize, rc, fnv(buf, nbytes));
  free(buf);
}

static void meta_bytes(void) {
  int64_t shape[3] = {10, 0, 300000000000LL};
  int32_t chunk[3] = {4, 0, 7}, block[3] = {2, 0, 3};
  for (int nd = 0; nd <= 3; nd++) {
    for (int d = 0; d < 3; d++) {
      const char *dtype = d == 0 ? NULL : d == 1 ? "<f8" : "";
      uint8_t *smeta = NULL;
      int len = b2nd_serialize_meta((int8_t)nd, shape, chunk, block, dtype, (int8_t)(d * 3), &smeta);
      printf("serialize nd=%d dtype=%s len=%d:", nd, dtype ? dtype : "NULL", len);
      for (int i = 0; i < len; i++) printf(" %02x", smeta[i]);
      printf("\n");
      int8_t ndim;
      int64_t s[B2ND_MAX_DIM];
      int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
      char *dt;
      int8_t fmt;
      int rc = b2nd_deserialize_meta(smeta, len, &ndim, s, c, b, &dt, &fmt);
      printf("  deserialize rc=%d ndim=%d dtype=%s fmt=%d", rc, ndim, dt ? dt : "NULL", fmt);
      for (int i = 0; i < ndim; i++) printf(" %" PRId64 "/%d/%d", s[i], c[i], b[i]);
      printf("\n");
      free(dt);
      rc = b2nd_deserialize_meta(smeta, len, &ndim, s, c, b, NULL, NULL);
      printf("  without dtype rc=%d\n", rc);
      printf("  truncated:");
      for (int cut = 0; cut < len; cut += 3) {
        dt = NULL;
        rc = b2nd_deserialize_meta(smeta, cut, &ndim, s, c, b, &dt, &fmt);
        printf(" %d", rc);
        free(dt);
      }
      printf("\n");
      free(smeta);
    }
  }
}

static b2nd_array_t *make(int8_t ndim, const int64_t *shape, const int32_t *chunk, const int32_t *block, int typesize,
                          int nthreads, const char *urlpath, bool contiguous) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = typesize;
  cparams.nthreads = nthreads;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = nthreads;
  blosc2_storage st = {.cparams = &cparams, .dparams = &dparams, .contiguous = contiguous, .urlpath = (char *)urlpath};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, ndim, shape, chunk, block, "<i4", 0, NULL, 0);
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  uint8_t *data = malloc(n * typesize + 1);
  for (int64_t i = 0; i < n * typesize; i++) data[i] = (uint8_t)(i % 251 ^ (i >> 8));
  b2nd_array_t *a = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, data, n * typesize);
  printf("from_cbuffer rc=%d\n", rc);
  free(data);
  b2nd_free_ctx(ctx);
  return a;
}

static void frames(void) {
  int64_t shape[3] = {13, 9, 5};
  int32_t chunk[3] = {6, 4, 5}, block[3] = {4, 3, 2};
  b2nd_array_t *a = make(3, shape, chunk, block, 4, 1, NULL, false);
  b2nd_print_meta(a);
  fflush(stdout);
  print_all("original", a);
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  int rc = b2nd_to_cframe(a, &cframe, &len, &needs_free);
  printf("to_cframe rc=%d len=%" PRId64 " hash=%016" PRIx64 "\n", rc, len, fnv(cframe, len));
  for (int copy = 0; copy < 2; copy++) {
    b2nd_array_t *b;
    rc = b2nd_from_cframe(cframe, len, copy, &b);
    printf("from_cframe copy=%d rc=%d\n", copy, rc);
    print_all("  from_cframe", b);
    b2nd_free(b);
  }
  if (needs_free) free(cframe);

  for (int contiguous = 0; contiguous < 2; contiguous++) {
    const char *path = contiguous ? "b2nd_io_saved.b2nd" : "b2nd_io_saved_dir.b2nd";
    blosc2_remove_urlpath(path);
    rc = b2nd_save(a, (char *)path);
    printf("save contiguous=%d rc=%d\n", contiguous, rc);
    b2nd_array_t *b;
    rc = b2nd_open(path, &b);
    printf("open rc=%d\n", rc);
    print_all("  saved", b);
    rc = b2nd_to_cframe(b, &cframe, &len, &needs_free);
    printf("  saved cframe rc=%d len=%" PRId64 " hash=%016" PRIx64 "\n", rc, len, fnv(cframe, len));
    if (needs_free) free(cframe);
    b2nd_free(b);
    blosc2_remove_urlpath(path);
  }

  const char *path = "b2nd_io_append.bin";
  blosc2_remove_urlpath(path);
  FILE *f = fopen(path, "wb");
  fwrite("0123456789", 1, 10, f);
  fclose(f);
  int64_t off = b2nd_save_append(a, path);
  printf("save_append offset=%" PRId64 "\n", off);
  b2nd_array_t *b;
  rc = b2nd_open_offset(path, &b, off);
  printf("open_offset rc=%d\n", rc);
  print_all("  appended", b);
  b2nd_free(b);
  blosc2_remove_urlpath(path);
  b2nd_free(a);
}

static void odd_shapes(void) {
  // Blockshape larger than the chunkshape, threads, one huge dimension of 1s.
  int64_t s1[2] = {17, 11};
  int32_t c1[2] = {5, 3}, b1[2] = {7, 4};
  b2nd_array_t *a = make(2, s1, c1, b1, 2, 2, NULL, false);
  if (a) {
    printf("extchunkshape %" PRId64 " %" PRId64 " blocknitems %d\n", a->extchunkshape[0], a->extchunkshape[1],
           a->blocknitems);
    print_all("block>chunk", a);
    b2nd_free(a);
  }
  int64_t s2[8] = {3, 1, 4, 1, 5, 1, 2, 6};
  int32_t c2[8] = {2, 1, 3, 1, 4, 1, 2, 5}, b2[8] = {1, 1, 2, 1, 3, 1, 1, 2};
  a = make(8, s2, c2, b2, 16, 2, "b2nd_io_8d.b2nd", true);
  print_all("8-dim", a);
  int64_t start[8] = {1, 0, 1, 0, 2, 0, 1, 1}, stop[8] = {3, 1, 4, 1, 5, 1, 2, 6};
  int64_t bshape[8] = {3, 2, 4, 1, 4, 1, 2, 6};
  uint8_t buf[3 * 2 * 4 * 4 * 2 * 6 * 16];
  int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, sizeof buf);
  printf("8-dim slice into a larger buffer rc=%d hash=%016" PRIx64 "\n", rc, fnv(buf, sizeof buf));
  b2nd_free(a);
  blosc2_remove_urlpath("b2nd_io_8d.b2nd");

  // 0-dim arrays: one item.
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 8;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 0, NULL, NULL, NULL, NULL, 0, NULL, 0);
  double v = 2.5;
  rc = b2nd_full(ctx, &a, &v);
  printf("0-dim full rc=%d nitems=%" PRId64 " nchunks=%" PRId64 "\n", rc, a->nitems, a->sc->nchunks);
  print_all("0-dim", a);
  double w = -1.0;
  int64_t none[1] = {0};
  rc = b2nd_set_slice_cbuffer(&w, none, 8, none, none, a);
  printf("0-dim set rc=%d\n", rc);
  print_all("0-dim after set", a);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
}

/* Small windows out of chunks of many blocks (read block by block), also from run-length
   chunks (full) and zero chunks, in memory and on disk. */
static void small_windows(void) {
  int64_t shape[2] = {70, 64};
  int32_t chunk[2] = {64, 64}, block[2] = {8, 8};
  for (int disk = 0; disk < 2; disk++) {
    const char *path = disk ? "b2nd_io_small.b2nd" : NULL;
    blosc2_remove_urlpath(path);
    b2nd_array_t *a = make(2, shape, chunk, block, 4, 1, path, true);
    int64_t wins[3][4] = {{10, 20, 13, 23}, {6, 30, 10, 42}, {60, 60, 70, 64}};
    for (int w = 0; w < 3; w++) {
      int64_t start[2] = {wins[w][0], wins[w][1]}, stop[2] = {wins[w][2], wins[w][3]};
      int64_t bs[2] = {stop[0] - start[0], stop[1] - start[1]};
      uint8_t buf[4 * 64 * 64];
      int64_t n = bs[0] * bs[1] * 4;
      int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bs, n);
      printf("small window %d disk=%d rc=%d hash=%016" PRIx64 "\n", w, disk, rc, fnv(buf, n));
    }
    b2nd_free(a);
    blosc2_remove_urlpath(path);
  }
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage st = {.cparams = &cparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunk, block, NULL, 0, NULL, 0);
  int32_t v = 0x01020304;
  b2nd_array_t *a;
  for (int kind = 0; kind < 2; kind++) {
    int rc = kind ? b2nd_full(ctx, &a, &v) : b2nd_zeros(ctx, &a);
    int64_t start[2] = {9, 17}, stop[2] = {12, 19}, bs[2] = {3, 2};
    int32_t out[6];
    rc = b2nd_get_slice_cbuffer(a, start, stop, out, bs, sizeof out);
    printf("special window kind=%d rc=%d: %x %x %x\n", kind, rc, out[0], out[3], out[5]);
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
}

static void copy_buffers(void) {
  uint8_t src[6 * 7 * 3];
  for (int i = 0; i < (int)sizeof src; i++) src[i] = (uint8_t)i;
  uint8_t dst[5 * 8 * 3];
  memset(dst, 0xee, sizeof dst);
  int64_t src_pad[2] = {6, 7}, src_start[2] = {1, 2}, src_stop[2] = {4, 6};
  int64_t dst_pad[2] = {5, 8}, dst_start[2] = {2, 3};
  int rc = b2nd_copy_buffer2(2, 3, src, src_pad, src_start, src_stop, dst, dst_pad, dst_start);
  printf("copy_buffer2 rc=%d hash=%016" PRIx64 "\n", rc, fnv(dst, sizeof dst));
  rc = b2nd_copy_buffer(2, 3, src, src_pad, src_start, src_stop, dst, dst_pad, dst_start);
  printf("copy_buffer rc=%d hash=%016" PRIx64 "\n", rc, fnv(dst, sizeof dst));
}

static void fixtures(void) {
  const char *names[] = {"example_day_month_temp.b2nd", "example_item_prices.b2nd"};
  for (int i = 0; i < 2; i++) {
    char path[256];
    snprintf(path, sizeof path, "../../../shared/fixtures/b2nd/%s", names[i]);
    FILE *f = fopen(path, "rb");
    if (!f) { printf("fixture %s missing\n", names[i]); continue; }
    fclose(f);
    b2nd_array_t *a;
    int rc = b2nd_open(path, &a);
    printf("fixture %s open rc=%d\n", names[i], rc);
    if (rc < 0) continue;
    b2nd_print_meta(a);
    fflush(stdout);
    print_all("  items", a);
    int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM], bshape[B2ND_MAX_DIM];
    int64_t n = 1;
    for (int d = 0; d < a->ndim; d++) {
      start[d] = a->shape[d] / 3;
      stop[d] = a->shape[d] - a->shape[d] / 4;
      bshape[d] = stop[d] - start[d];
      n *= bshape[d];
    }
    uint8_t *buf = malloc(n * a->sc->typesize + 1);
    rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, n * a->sc->typesize);
    printf("  window rc=%d hash=%016" PRIx64 "\n", rc, fnv(buf, n * a->sc->typesize));
    free(buf);
    b2nd_free(a);
  }
}

int main(void) {
  blosc2_init();
  meta_bytes();
  frames();
  odd_shapes();
  copy_buffers();
  small_windows();
  fixtures();
  blosc2_destroy();
  return 0;
}
