// c_tests: compare-output
// Lazy chunks of a contiguous frame file read through a caller's context (dparams.schunk)
// while the file changes under the open super-chunk: replaced by another frame (reads follow
// the new file; a lazy chunk taken before the change no longer decodes) and removed (reads
// keep coming from the open file, as the reference's kept read handle gives them).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "blosc2.h"
static void make(const char* path, int seed) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.nthreads = 1; cp.blocksize = 4096;
  blosc2_storage st = {.contiguous = true, .urlpath = (char*)path, .cparams = &cp};
  blosc2_schunk* s = blosc2_schunk_new(&st);
  int32_t d[8192]; for (int i = 0; i < 8192; i++) d[i] = i * seed;
  for (int c = 0; c < 2; c++) blosc2_schunk_append_buffer(s, d, sizeof(d));
  blosc2_schunk_free(s);
}
static void probe(const char* tag, blosc2_schunk* s, blosc2_context* dctx, int nchunk) {
  uint8_t* ch; bool nf; int32_t out[8192], item[4];
  int cb = blosc2_schunk_get_lazychunk(s, nchunk, &ch, &nf);
  int rc = cb > 0 ? blosc2_decompress_ctx(dctx, ch, cb, out, sizeof(out)) : cb;
  int g = cb > 0 ? blosc2_getitem_ctx(dctx, ch, cb, 5000, 4, item, sizeof(item)) : cb;
  printf("%s: lazy=%d decompress=%d first=%d last=%d getitem=%d item=%d\n", tag, cb > 0, rc, rc > 0 ? out[1] : -1, rc > 0 ? out[8191] : -1, g, g > 0 ? item[0] : -1);
  if (cb > 0 && nf) free(ch);
}
int main(void) {
  blosc2_init();
  make("tlk_kept.b2frame", 3); make("tlk_kept2.b2frame", 7);
  blosc2_schunk* s = blosc2_schunk_open("tlk_kept.b2frame");
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS; dp.nthreads = 1; dp.schunk = s;
  blosc2_context* dctx = blosc2_create_dctx(dp);
  probe("first", s, dctx, 0);
  uint8_t* held; bool hnf; int hcb = blosc2_schunk_get_lazychunk(s, 1, &held, &hnf);
  rename("tlk_kept2.b2frame", "tlk_kept.b2frame");
  probe("after replace", s, dctx, 0);
  int32_t out[8192];
  printf("held chunk after replace: %d\n", blosc2_decompress_ctx(dctx, held, hcb, out, sizeof(out)));
  unlink("tlk_kept.b2frame");
  printf("held chunk after remove: %d\n", blosc2_decompress_ctx(dctx, held, hcb, out, sizeof(out)));
  probe("after remove", s, dctx, 0);
  if (hnf) free(held);
  blosc2_free_ctx(dctx); blosc2_schunk_free(s); blosc2_destroy();
  return 0;
}
