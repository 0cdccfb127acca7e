// c_tests: compare-output
// What a failed call leaves in its output pointers. The reference resets the chunk pointer
// and `needs_free` of blosc2_schunk_get_chunk/_get_lazychunk (frame-backed super-chunks;
// the pointer may then point into the frame, never to something to free)
// and of blosc2_schunk_to_buffer before doing any work, so a caller that frees whenever
// `needs_free` is set, without looking at the result, never frees a pointer an earlier call
// handed out. A fuzzed frame showed ours leaving them untouched (the caller then freed the
// previous chunk twice). Out-of-range chunk numbers leave them untouched in both.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

#define NCHUNKS 3
#define CHUNK_ITEMS 2000

static void probe(const char *what, blosc2_schunk *sc, int64_t n, int lazy) {
  uint8_t stale = 0;
  uint8_t *chunk = &stale;  // what an earlier call could have left
  bool needs_free = true;
  int rc = lazy ? blosc2_schunk_get_lazychunk(sc, n, &chunk, &needs_free)
                : blosc2_schunk_get_chunk(sc, n, &chunk, &needs_free);
  printf("%-26s chunk %lld: %s, chunk %s, needs_free %d\n", what, (long long)n,
         rc < 0 ? "error" : "ok", chunk == &stale ? "untouched" : "replaced",
         (int)needs_free);
  if (rc >= 0 && needs_free) {
    free(chunk);
  }
}

int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.contiguous = true;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t data[CHUNK_ITEMS];
  for (int c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) {
      data[i] = i * (c + 1);
    }
    if (blosc2_schunk_append_buffer(sc, data, sizeof data) != c + 1) {
      printf("append failed\n");
      return 1;
    }
  }
  uint8_t *cframe = NULL;
  bool cframe_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &cframe_free);
  if (len <= 0) {
    printf("to_buffer failed\n");
    return 1;
  }
  uint8_t *frame = malloc((size_t)len);
  memcpy(frame, cframe, (size_t)len);
  if (cframe_free) {
    free(cframe);
  }

  // Damage the second chunk: its cbytes field now claims more than the frame holds.
  int32_t header_len = 0;
  memcpy(&header_len, frame + 11, 4);  // msgpack int32 after "b2frame\0" + 0xd2
  header_len = (int32_t)__builtin_bswap32((uint32_t)header_len);
  uint8_t *first = frame + header_len;
  int32_t first_cbytes;
  memcpy(&first_cbytes, first + 12, 4);
  uint8_t *second = first + first_cbytes;
  int32_t huge = 0x7fff0000;
  memcpy(second + 12, &huge, 4);

  blosc2_schunk *view = blosc2_schunk_from_buffer(frame, len, false);
  printf("from_buffer(copy=false) of the damaged frame: %s\n", view ? "opened" : "refused");
  if (view) {
    probe("get_chunk, good", view, 0, 0);
    probe("get_chunk, damaged", view, 1, 0);
    probe("get_lazychunk, damaged", view, 1, 1);
    probe("get_chunk, out of range", view, NCHUNKS, 0);
    probe("get_chunk, negative", view, -1, 0);
    blosc2_schunk_free(view);
  }

  // to_buffer clears its outputs first, and sets them on success.
  uint8_t stale = 0;
  uint8_t *out = &stale;
  bool out_free = true;
  int64_t n = blosc2_schunk_to_buffer(sc, &out, &out_free);
  printf("to_buffer: %s, dest %s, needs_free %d\n", n > 0 ? "ok" : "error",
         out == &stale ? "untouched" : "replaced", (int)out_free);
  if (n > 0 && out_free) {
    free(out);
  }
  blosc2_schunk_free(sc);
  free(frame);
  blosc2_destroy();
  return 0;
}
