/* What a library makes of frame files: for each file, blosc2_schunk_from_buffer (copy or
 * not, COPY=0|1 in the environment), then up to 64 chunks read and decompressed into
 * exactly sized buffers (at most 1 MiB), as the `frame` fuzz target does. One line per file:
 * the chunks seen at open (-1: refused), the bytes decompressed and the failed chunks.
 * Used by scripts/fuzz-frame-differential.sh, once per library. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *copy_env = getenv("COPY");
  bool copy = !(copy_env && strcmp(copy_env, "0") == 0);
  blosc2_init();
  for (int a = 1; a < argc; a++) {
    FILE *f = fopen(argv[a], "rb");
    if (!f) continue;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(b); continue; }
    fclose(f);
    const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
    blosc2_schunk *sc = blosc2_schunk_from_buffer(b, n, copy);
    long long total = 0;
    int errors = 0;
    long long nchunks = -1;
    if (sc) {
      nchunks = sc->nchunks;
      for (int64_t i = 0; i < nchunks && i < 64; i++) {
        uint8_t *c = NULL;
        bool needs_free = false;
        int cl = blosc2_schunk_get_chunk(sc, i, &c, &needs_free);
        int32_t nb = 0;
        if (cl > 0 && c) blosc2_cbuffer_sizes(c, &nb, NULL, NULL);
        if (cl > 0 && needs_free) free(c);
        if (nb < 0) nb = 0;
        if (nb > (1 << 20)) nb = 1 << 20;
        uint8_t *d = malloc((size_t)nb + 1);
        int r = blosc2_schunk_decompress_chunk(sc, i, d, nb);
        if (r > 0) total += r; else errors++;
        free(d);
      }
      blosc2_schunk_free(sc);
    }
    printf("%s: nchunks %lld, decompressed %lld bytes, %d failed\n", name, nchunks, total, errors);
    fflush(stdout);
    free(b);
  }
  blosc2_destroy();
  return 0;
}
