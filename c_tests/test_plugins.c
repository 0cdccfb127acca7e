// c_tests: compare-output
// Plugins loaded at first use, as the reference loads them: codecs and filters registered
// without functions come from libblosc2_<name>.so on the library path (c_tests/run.sh builds
// c_tests/plugins/ into c_tests/bin), or from the path a Python package blosc2_<name> prints
// (run.sh writes c_tests/bin/py/blosc2_pyplug.py); the reference's own loadable plugin codecs
// (ids 36-40) are not installed here; bad names and missing plugins fail as in the reference.
#include <stdio.h>
#include <string.h>
#include "blosc2.h"
int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  int32_t d[1000]; for (int i = 0; i < 1000; i++) d[i] = i % 200;
  uint8_t out[9000]; int32_t back[1000];
  for (int cc = 36; cc <= 40; cc++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.compcode = cc;
    blosc2_context *c = blosc2_create_cctx(cp);
    printf("codec %d: ctx %s rc %d\n", cc, c ? "yes" : "NULL", c ? blosc2_compress_ctx(c, d, 4000, out, 9000) : 0);
    if (c) blosc2_free_ctx(c);
  }
  blosc2_codec k = {0}; k.compcode = 200; k.compname = "myplug"; k.complib = 200; k.version = 1;
  printf("register myplug codec: %d\n", blosc2_register_codec(&k));
  blosc2_codec k2 = {0}; k2.compcode = 201; k2.compname = "noplug"; k2.complib = 201;
  printf("register noplug codec: %d\n", blosc2_register_codec(&k2));
  blosc2_codec k3 = {0}; k3.compcode = 202; k3.compname = "bad-name"; k3.complib = 202;
  printf("register bad-name codec: %d\n", blosc2_register_codec(&k3));
  blosc2_codec k4 = {0}; k4.compcode = 203; k4.compname = "pyplug"; k4.complib = 203;
  printf("register pyplug codec: %d\n", blosc2_register_codec(&k4));
  int ids[] = {200, 201, 202, 203};
  for (int i = 0; i < 4; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.compcode = ids[i];
    cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;  /* the toy codec wants whole int32s */
    blosc2_context *c = blosc2_create_cctx(cp);
    int rc = c ? blosc2_compress_ctx(c, d, 4000, out, 9000) : 0;
    printf("codec %d: ctx %s rc %d\n", ids[i], c ? "yes" : "NULL", rc);
    if (c) blosc2_free_ctx(c);
    if (rc > 0) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_context *dc = blosc2_create_dctx(dp);
      memset(back, 0, sizeof back);
      int dr = blosc2_decompress_ctx(dc, out, rc, back, sizeof back);
      printf("  decompress %d equal %d\n", dr, memcmp(back, d, 4000) == 0);
      blosc2_free_ctx(dc);
    }
  }
  blosc2_filter f = {0}; f.id = 220; f.name = "myplugf";
  printf("register myplugf filter: %d\n", blosc2_register_filter(&f));
  blosc2_filter f2 = {0}; f2.id = 221; f2.name = "nofilterplug";
  printf("register nofilterplug filter: %d\n", blosc2_register_filter(&f2));
  int fids[] = {220, 221};
  for (int i = 0; i < 2; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.filters[0] = fids[i];
    blosc2_context *c = blosc2_create_cctx(cp);
    int rc = c ? blosc2_compress_ctx(c, d, 4000, out, 9000) : 0;
    printf("filter %d: ctx %s rc %d\n", fids[i], c ? "yes" : "NULL", rc);
    if (c) blosc2_free_ctx(c);
    if (rc > 0) {
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_context *dc = blosc2_create_dctx(dp);
      memset(back, 0, sizeof back);
      int dr = blosc2_decompress_ctx(dc, out, rc, back, sizeof back);
      printf("  decompress %d equal %d\n", dr, memcmp(back, d, 4000) == 0);
      blosc2_free_ctx(dc);
    }
  }
  blosc2_destroy();
  return 0;
}
