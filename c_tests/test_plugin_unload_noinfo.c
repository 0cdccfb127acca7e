// A filter registered without functions whose plugin library has no `info` symbol: the
// filter fails at compression (BLOSC2_ERROR_FILTER_PIPELINE) and the library is unloaded
// again. The reference crashes (SIGSEGV) here, so this runs on this library only.
#include <stdio.h>
#include <string.h>
#include "blosc2.h"

static int mapped(const char *lib) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, f)) found |= strstr(line, lib) != NULL;
  fclose(f);
  return found;
}

int main(void) {
  blosc2_init();
  blosc2_filter f = {0};
  f.id = 200; f.name = "noinfoplug"; f.version = 1;
  int r = blosc2_register_filter(&f);
  int32_t d[1000]; for (int i = 0; i < 1000; i++) d[i] = i % 100;
  uint8_t out[9000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.filters[0] = 200;
  blosc2_context *c = blosc2_create_cctx(cp);
  int rc = c ? blosc2_compress_ctx(c, d, sizeof d, out, sizeof out) : 0;
  int rc2 = c ? blosc2_compress_ctx(c, d, sizeof d, out, sizeof out) : 0;
  if (c) blosc2_free_ctx(c);
  int m = mapped("libblosc2_noinfoplug.so");
  blosc2_destroy();
  int ok = r == 0 && c != NULL && rc < 0 && rc2 < 0 && m == 0;
  printf("register %d ctx %s compress %d again %d mapped %d: %s\n", r, c ? "yes" : "NULL", rc, rc2, m, ok ? "OK" : "FAILED");
  return !ok;
}
