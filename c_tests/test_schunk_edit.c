// c_tests: compare-output
// Insert, update, delete and reorder on super-chunks in memory, in a contiguous file and in a
// sparse directory: counters, chunk contents and (where the reference is deterministic) the
// serialised frame are the same as with the reference; the edited file reopens.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static unsigned fnv(const unsigned char *p, int64_t n) {
  unsigned h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void show(const char *what, blosc2_schunk *sc, int64_t rc) {
  printf("  %-22s rc=%lld nchunks=%lld nbytes=%lld cbytes=%lld chunksize=%d:", what, (long long)rc,
         (long long)sc->nchunks, (long long)sc->nbytes, (long long)sc->cbytes, sc->chunksize);
  int32_t buf[1000];
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int n = blosc2_schunk_decompress_chunk(sc, i, buf, sizeof(buf));
    printf(" %d/%d", n, n > 0 ? buf[n / 4 - 1] : -1);
  }
  printf("\n");
}

int main(void) {
  blosc2_init();
  const char *paths[] = {NULL, "edit_test.b2frame", "edit_test.b2sframe"};
  for (int mode = 0; mode < 3; mode++) {
    blosc2_remove_urlpath("edit_test.b2frame");
    blosc2_remove_urlpath("edit_test.b2sframe");
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = BLOSC_LZ4;
    blosc2_storage st = {.contiguous = mode != 2, .urlpath = (char *)paths[mode], .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    printf("mode %d\n", mode);
    int32_t d[1000];
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 1000; i++) d[i] = i + 1000 * k;
      blosc2_schunk_append_buffer(sc, d, sizeof(d));
    }
    show("appended", sc, 0);
    unsigned char c[5000];
    for (int i = 0; i < 1000; i++) d[i] = -i;
    int cb = blosc2_compress_ctx(sc->cctx, d, sizeof(d), c, sizeof(c));
    show("insert 2", sc, blosc2_schunk_insert_chunk(sc, 2, c, true));
    show("insert 0", sc, blosc2_schunk_insert_chunk(sc, 0, c, true));
    show("insert bad", sc, blosc2_schunk_insert_chunk(sc, 99, c, true));
    for (int i = 0; i < 1000; i++) d[i] = 7 * i;
    cb = blosc2_compress_ctx(sc->cctx, d, sizeof(d), c, sizeof(c));
    show("update 1", sc, blosc2_schunk_update_chunk(sc, 1, c, true));
    show("update bad", sc, blosc2_schunk_update_chunk(sc, -1, c, true));
    show("delete 3", sc, blosc2_schunk_delete_chunk(sc, 3));
    show("delete last", sc, blosc2_schunk_delete_chunk(sc, sc->nchunks - 1));
    show("delete bad", sc, blosc2_schunk_delete_chunk(sc, 42));
    int64_t order[] = {3, 0, 2, 1};
    show("reorder", sc, blosc2_schunk_reorder_offsets(sc, order));
    int64_t badorder[] = {0, 0, 1, 2};
    show("reorder bad", sc, blosc2_schunk_reorder_offsets(sc, badorder));
    (void)cb;
    if (mode == 0) {
      uint8_t *frame;
      bool needs_free;
      int64_t len = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
      printf("  frame len %lld fnv %08x\n", (long long)len, fnv(frame, len));
      if (needs_free) free(frame);
    }
    blosc2_schunk_free(sc);
    if (paths[mode]) {
      blosc2_schunk *re = blosc2_schunk_open(paths[mode]);
      if (!re) { printf("  reopen failed\n"); return 1; }
      show("reopened", re, 0);
      blosc2_schunk_free(re);
    }
  }
  blosc2_remove_urlpath("edit_test.b2frame");
  blosc2_remove_urlpath("edit_test.b2sframe");
  blosc2_destroy();
  return 0;
}
