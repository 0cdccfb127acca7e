// c_tests: ours-only (c-blosc2 3.3.5 corrupts its heap here, see README "Reference defects")
// A super-chunk opened from a frame buffer with `copy = true` holds its chunks in memory;
// appending to it must grow the public `data` array past the chunks it was opened with.
// The reference sizes that array for none of them and writes the new chunk's address past
// its end once the frame holds 512 chunks or more (valgrind: invalid write of size 8).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  int fails = 0;
  for (int n = 510; n <= 1030; n += 520) {
    blosc2_schunk *s = blosc2_schunk_new(&st);
    int32_t v[16];
    for (int c = 0; c < n; c++) {
      for (int i = 0; i < 16; i++) v[i] = c * 16 + i;
      if (blosc2_schunk_append_buffer(s, v, sizeof v) != c + 1) return 1;
    }
    uint8_t *frame;
    bool nf;
    int64_t len = blosc2_schunk_to_buffer(s, &frame, &nf);
    blosc2_schunk *copy = blosc2_schunk_from_buffer(frame, len, true);
    if (nf) free(frame);
    blosc2_schunk_free(s);
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 16; i++) v[i] = -k - i;
      if (blosc2_schunk_append_buffer(copy, v, sizeof v) != n + k + 1) fails++;
    }
    if (copy->data_len < (size_t)copy->nchunks * sizeof(uint8_t *)) fails++;
    for (int64_t c = 0; c < copy->nchunks; c += 97) {
      int32_t out[16];
      int32_t first = c < n ? (int32_t)c * 16 : -(int32_t)(c - n);
      if (blosc2_schunk_decompress_chunk(copy, c, out, sizeof out) != sizeof out || out[0] != first) fails++;
      if (!copy->data[c]) fails++;
    }
    printf("n=%d: %lld chunks after 3 appends, data_len %zu\n", n, (long long)copy->nchunks, copy->data_len);
    blosc2_schunk_free(copy);
  }
  blosc2_destroy();
  printf(fails ? "FAIL\n" : "OK\n");
  return fails != 0;
}
