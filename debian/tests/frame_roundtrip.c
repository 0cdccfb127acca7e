/* autopkgtest: a super-chunk written to a frame file on disk, reopened and read back. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "roundtrip.b2frame";
  enum { N = 100000, CHUNKS = 5 };
  static int32_t data[N], back[N];
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(int32_t);
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 5;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .dparams = &dp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *s = blosc2_schunk_new(&st);
  if (!s) return 1;
  for (int c = 0; c < CHUNKS; c++) {
    for (int i = 0; i < N; i++) data[i] = i * (c + 1);
    if (blosc2_schunk_append_buffer(s, data, sizeof data) != c + 1) return 2;
  }
  blosc2_schunk_free(s);
  s = blosc2_schunk_open(path);
  if (!s || s->nchunks != CHUNKS) return 3;
  for (int c = 0; c < CHUNKS; c++) {
    if (blosc2_schunk_decompress_chunk(s, c, back, sizeof back) != (int)sizeof back) return 4;
    for (int i = 0; i < N; i++) if (back[i] != i * (c + 1)) return 5;
  }
  printf("frame round trip OK: %lld chunks, %lld bytes on disk, library %s\n",
         (long long)s->nchunks, (long long)s->cbytes, BLOSC2_VERSION_STRING);
  blosc2_schunk_free(s);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  return 0;
}
