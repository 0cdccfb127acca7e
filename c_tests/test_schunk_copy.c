// c_tests: compare-output
// blosc2_schunk_copy and blosc2_schunk_to_buffer from every kind of store into every kind of
// store, with the source's parameters (storage->cparams NULL), with equal parameters given
// explicitly, and with new parameters that force a recompression (other codec, other
// clevel, other filters). Serialised frames must be byte-identical to the reference's; the
// copies must decompress to the source data and carry its metalayers and vlmetalayers.
// (Chunks are all full here: the reference pads a partial last chunk to the full chunk
// size when it recompresses, a defect our Rust test `copy_recompresses_partial_last_chunk`
// covers.)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static unsigned fnv(const unsigned char *p, int64_t n) {
  unsigned h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void show(const char *what, blosc2_schunk *s) {
  if (s == NULL) { printf("  %-12s NULL\n", what); return; }
  uint8_t *buf;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(s, &buf, &nf);
  unsigned data = 2166136261u;
  int32_t out[1000];
  for (int64_t i = 0; i < s->nchunks; i++) {
    int n = blosc2_schunk_decompress_chunk(s, i, out, sizeof out);
    data ^= n > 0 ? fnv((unsigned char *)out, n) : 0;
  }
  uint8_t *content = NULL;
  int32_t clen = 0;
  int vl = blosc2_vlmeta_get(s, "vl1", &content, &clen);
  printf("  %-12s len=%lld frame=%08x data=%08x nchunks=%lld nbytes=%lld cbytes=%lld codec=%d clevel=%d "
         "blocksize=%d meta=%d vl=%d/%d\n",
         what, (long long)len, len > 0 ? fnv(buf, len) : 0, data, (long long)s->nchunks,
         (long long)s->nbytes, (long long)s->cbytes, s->compcode, s->clevel, s->blocksize,
         blosc2_meta_exists(s, "meta1"), vl, clen);
  free(content);
  if (nf) free(buf);
}

int main(void) {
  blosc2_init();
  const char *paths[] = {NULL, NULL, "test_schunk_copy_src.b2frame", "test_schunk_copy_src.b2dir"};
  int contig[] = {0, 1, 1, 0};
  for (int k = 0; k < 4; k++) {
    printf("-- source contiguous=%d urlpath=%s\n", contig[k], paths[k] ? paths[k] : "(memory)");
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = {.contiguous = contig[k], .urlpath = (char *)paths[k], .cparams = &cp};
    blosc2_remove_urlpath(paths[k]);
    blosc2_schunk *s = blosc2_schunk_new(&st);
    uint8_t m[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    blosc2_meta_add(s, "meta1", m, 8);
    int32_t buf[1000];
    for (int c = 0; c < 3; c++) {
      for (int i = 0; i < 1000; i++) buf[i] = c * 7 + i / 3;
      blosc2_schunk_append_buffer(s, buf, 4000);
    }
    blosc2_vlmeta_add(s, "vl1", (uint8_t *)"hello world", 11, NULL);
    show("source", s);

    blosc2_storage same = {.contiguous = true};
    blosc2_schunk *c1 = blosc2_schunk_copy(s, &same);
    show("same/frame", c1);
    blosc2_schunk_free(c1);

    blosc2_storage given = {.contiguous = true, .cparams = &cp};
    blosc2_schunk *c2 = blosc2_schunk_copy(s, &given);
    show("given/frame", c2);
    blosc2_schunk_free(c2);

    blosc2_storage given_mem = {.contiguous = false, .cparams = &cp};
    blosc2_schunk *c3 = blosc2_schunk_copy(s, &given_mem);
    show("given/memory", c3);
    blosc2_schunk_free(c3);

    blosc2_cparams lz4 = cp;
    lz4.compcode = BLOSC_LZ4;
    lz4.clevel = 9;
    blosc2_storage other = {.contiguous = true, .cparams = &lz4};
    blosc2_schunk *c4 = blosc2_schunk_copy(s, &other);
    show("lz4/frame", c4);
    blosc2_schunk_free(c4);

    blosc2_cparams bit = cp;
    bit.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
    blosc2_remove_urlpath("test_schunk_copy_dst.b2frame");
    blosc2_storage other_file = {.contiguous = true, .urlpath = "test_schunk_copy_dst.b2frame", .cparams = &bit};
    blosc2_schunk *c5 = blosc2_schunk_copy(s, &other_file);
    show("bit/file", c5);
    blosc2_schunk_free(c5);
    blosc2_remove_urlpath("test_schunk_copy_dst.b2frame");

    blosc2_schunk_free(s);
    blosc2_remove_urlpath(paths[k]);
  }
  blosc2_destroy();
  return 0;
}
