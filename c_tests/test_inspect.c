// c_tests: compare-output
// The cbuffer inspectors and getitem report what the reference reports, for valid chunks of
// every codec and for damaged ones.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static void inspect(const char *label, const unsigned char *c, int len) {
  int32_t nb = -1, cb = -1, bs = -1;
  int rc = blosc2_cbuffer_sizes(c, &nb, &cb, &bs);
  size_t nb1 = 0, cb1 = 0, bs1 = 0, ts = 0, vn = 0;
  blosc1_cbuffer_sizes(c, &nb1, &cb1, &bs1);
  int flags = -1, ver = -1, verlz = -1;
  blosc1_cbuffer_metainfo(c, &ts, &flags);
  blosc2_cbuffer_versions(c, &ver, &verlz);
  int vrc = blosc1_cbuffer_validate(c, (size_t)len, &vn);
  const char *lib = blosc2_cbuffer_complib(c);
  printf("%-22s sizes=%d %d %d %d | %zu %zu %zu | ts=%zu flags=%02x ver=%d/%d | validate=%d %zu | lib=%s\n",
         label, rc, nb, cb, bs, nb1, cb1, bs1, ts, flags, ver, verlz, vrc, vn, lib ? lib : "(null)");
}

int main(void) {
  blosc2_init();
  enum { N = 50000 };
  static int32_t src[N / 4];
  static unsigned char c[N + 64], back[N];
  for (int i = 0; i < N / 4; i++) src[i] = i / 3;
  const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  for (int k = 0; k < 5; k++) {
    blosc1_set_compressor(codecs[k]);
    int n = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, N, c, sizeof(c));
    inspect(codecs[k], c, n);
    /* getitem: several ranges, compared by content */
    for (int start = 0; start < N / 4; start += 4099) {
      int got = blosc2_getitem(c, n, start, 100, back, sizeof(back));
      printf("  getitem %d -> %d %s\n", start, got, got > 0 && memcmp(back, src + start, got) == 0 ? "ok" : "differs");
    }
    printf("  getitem past end -> %d\n", blosc2_getitem(c, n, N / 4 - 10, 100, back, sizeof(back)));
    printf("  getitem small dest -> %d\n", blosc2_getitem(c, n, 0, 100, back, 10));
    printf("  blosc1_getitem -> %d\n", blosc1_getitem(c, 5, 10, back));
    /* damage */
    unsigned char bad[64];
    memcpy(bad, c, 64);
    bad[0] = 9; inspect("  version 9", bad, n);
    memcpy(bad, c, 64); bad[3] = 0; inspect("  typesize 0", bad, n);
    memcpy(bad, c, 64); memset(bad + 8, 0, 4); inspect("  blocksize 0", bad, n);
    memcpy(bad, c, 64); memset(bad + 12, 0, 4); inspect("  cbytes 0", bad, n);
    inspect("  wrong length", c, n - 1);
  }
  blosc2_destroy();
  return 0;
}
