// b2nd_get_slice_cbuffer on arrays compressed with DELTA, where the reference 3.3.5 is
// wrong: a slice that needs more than a sixteenth of a chunk's blocks (a quarter on disk)
// but not the chunk's first block decompresses with that block masked out, and every other
// block then decodes against whatever the scratch buffer held there (with two threads the
// reference waits for the masked block for ever). This library must return the array's
// items, so this runs with ours only, in every storage, with one and two threads (and with
// two, for a large read, through the threaded masked decompression).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2nd.h"

int main(void) {
  blosc2_init();
  /* 128x128 in 64x64 chunks of 16x16 blocks, and one 256x256 chunk of 32x32 blocks */
  int64_t shapes[2][2] = {{128, 128}, {256, 256}};
  int32_t chunks[2][2] = {{64, 64}, {256, 256}}, blocks[2][2] = {{16, 16}, {32, 32}};
  /* rows 32..64 of the first chunk column (half the blocks, not block 0), a window across
     all four chunks that misses the first block of each; the second half of the big chunk */
  int64_t starts[3][2] = {{32, 0}, {20, 20}, {128, 0}}, stops[3][2] = {{64, 64}, {120, 120}, {256, 256}};
  int failures = 0;
  for (int gi = 0; gi < 2; gi++) {
  int64_t *shape = shapes[gi];
  int n = (int)(shape[0] * shape[1]);
  int32_t *src = malloc(n * 4);
  for (int i = 0; i < n; i++) src[i] = i * 3 + (i % 17);
  for (int kind = 0; kind < 4; kind++) {
    for (int nt = 1; nt <= 2; nt++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.nthreads = 1;
      cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = nt;
      const char *path = "getslice_delta.b2nd";
      blosc2_remove_urlpath(path);
      blosc2_storage st = {.contiguous = kind == 1 || kind == 2, .urlpath = kind >= 2 ? (char *)path : NULL,
                           .cparams = &cp, .dparams = &dp};
      b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks[gi], blocks[gi], NULL, 0, NULL, 0);
      b2nd_array_t *a = NULL;
      if (b2nd_from_cbuffer(ctx, &a, src, n * 4) < 0) {
        printf("store %d: cannot create\n", kind);
        return 1;
      }
      for (int s = gi == 0 ? 0 : 2; s < (gi == 0 ? 2 : 3); s++) {
        int64_t rows = stops[s][0] - starts[s][0], cols = stops[s][1] - starts[s][1];
        int64_t bshape[2] = {rows, cols};
        int32_t *buf = malloc(rows * cols * 4);
        int rc = b2nd_get_slice_cbuffer(a, starts[s], stops[s], buf, bshape, rows * cols * 4);
        int bad = 0;
        for (int64_t r = 0; r < rows; r++)
          for (int64_t c = 0; c < cols; c++)
            bad += buf[r * cols + c] != src[(r + starts[s][0]) * shape[1] + c + starts[s][1]];
        if (rc < 0 || bad) {
          printf("store %d threads %d slice %d: rc=%d, %d wrong items\n", kind, nt, s, rc, bad);
          failures++;
        }
        free(buf);
      }
      b2nd_free(a);
      b2nd_free_ctx(ctx);
      blosc2_remove_urlpath(path);
    }
  }
  free(src);
  }
  blosc2_destroy();
  printf("%s\n", failures ? "FAILED" : "OK");
  return failures != 0;
}
