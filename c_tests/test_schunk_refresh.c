// c_tests: compare-output
// A reader handle sees a writer's appends after blosc2_schunk_refresh (SWMR), on a
// contiguous file frame and on a sparse frame directory.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static int run(const char *path, bool contiguous) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *w = blosc2_schunk_new(&st);
  if (!w) { fprintf(stderr, "new failed\n"); return 1; }
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  blosc2_schunk_append_buffer(w, data, sizeof(data));
  blosc2_schunk *r = blosc2_schunk_open(path);
  if (!r) { fprintf(stderr, "open failed\n"); return 1; }
  printf("%s reader nchunks %lld\n", path, (long long)r->nchunks);
  printf("refresh current -> %d\n", blosc2_schunk_refresh(r));
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 1000; i++) data[i] = i * (k + 2);
    blosc2_schunk_append_buffer(w, data, sizeof(data));
  }
  printf("lock -> %d unlock -> %d\n", blosc2_schunk_lock(r), blosc2_schunk_unlock(r));
  printf("refresh after appends -> %d\n", blosc2_schunk_refresh(r));
  printf("reader nchunks %lld nbytes %lld\n", (long long)r->nchunks, (long long)r->nbytes);
  int32_t back[1000];
  int n = blosc2_schunk_decompress_chunk(r, 3, back, sizeof(back));
  printf("chunk 3 -> %d, back[999] = %d\n", n, back[999]);
  printf("refresh again -> %d\n", blosc2_schunk_refresh(r));
  blosc2_schunk_free(r);
  blosc2_schunk_free(w);
  blosc2_remove_urlpath(path);
  return 0;
}

int main(void) {
  blosc2_init();
  int bad = run("refresh_test.b2frame", true) | run("refresh_test.b2sframe", false);
  blosc2_schunk *m = blosc2_schunk_new(&(blosc2_storage){.contiguous = true});
  printf("in-memory refresh -> %d\n", blosc2_schunk_refresh(m));
  blosc2_schunk_free(m);
  blosc2_destroy();
  return bad;
}
