// c_tests: compare-output
// The public `data` array of an in-memory super-chunk: C code may read `schunk->data[i]` to
// reach chunk i directly, and `data_len` (bytes, grown by 4 KiB pages). Both must follow
// appends, inserts, updates, deletes and reorders exactly as the reference's do; frames keep
// `data` NULL.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static void show(const char *what, blosc2_schunk *s, long long rc) {
  printf("%-14s rc=%lld nchunks=%lld chunksize=%d data=%s data_len=%zu:", what, rc,
         (long long)s->nchunks, s->chunksize, s->data ? "set" : "NULL", s->data_len);
  if (s->data) {
    for (int64_t i = 0; i < s->nchunks; i++) {
      int32_t nbytes = -1;
      int32_t first = -1;
      if (s->data[i] != NULL && blosc2_cbuffer_sizes(s->data[i], &nbytes, NULL, NULL) >= 0) {
        blosc2_getitem_ctx(s->dctx, s->data[i], BLOSC2_MAX_OVERHEAD + nbytes, 0, 1, &first, 4);
      }
      printf(" %d/%d", nbytes, first);
    }
  }
  printf("\n");
}

static void run(int contiguous, const char *urlpath) {
  printf("-- contiguous=%d urlpath=%s\n", contiguous, urlpath ? urlpath : "(memory)");
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp};
  blosc2_remove_urlpath(urlpath);
  blosc2_schunk *s = blosc2_schunk_new(&st);
  show("new", s, 0);
  int32_t buf[1000];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 1000; i++) buf[i] = k * 1000 + i;
    show("append", s, blosc2_schunk_append_buffer(s, buf, sizeof buf));
  }
  uint8_t chunk[sizeof buf + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 1000; i++) buf[i] = 7000 + i;
  blosc2_compress_ctx(s->cctx, buf, 2000, chunk, sizeof chunk);
  show("insert small", s, blosc2_schunk_insert_chunk(s, 1, chunk, true));
  for (int i = 0; i < 1000; i++) buf[i] = 8000 + i;
  blosc2_compress_ctx(s->cctx, buf, sizeof buf, chunk, sizeof chunk);
  show("insert front", s, blosc2_schunk_insert_chunk(s, 0, chunk, true));
  for (int i = 0; i < 1000; i++) buf[i] = 9000 + i;
  blosc2_compress_ctx(s->cctx, buf, sizeof buf, chunk, sizeof chunk);
  show("update", s, blosc2_schunk_update_chunk(s, 2, chunk, true));
  show("delete", s, blosc2_schunk_delete_chunk(s, 0));
  int64_t order[] = {3, 2, 1, 0};
  show("reorder", s, blosc2_schunk_reorder_offsets(s, order));
  for (int k = 0; k < 600; k++) {
    blosc2_schunk_append_buffer(s, buf, 400);
  }
  printf("after 600 appends: nchunks=%lld data_len=%zu last=%s\n", (long long)s->nchunks,
         s->data_len, s->data ? (s->data[s->nchunks - 1] ? "set" : "NULL") : "-");
  blosc2_schunk_free(s);
  blosc2_remove_urlpath(urlpath);
}

int main(void) {
  blosc2_init();
  run(0, NULL);
  run(1, NULL);
  run(1, "test_schunk_data.b2frame");
  blosc2_destroy();
  return 0;
}
