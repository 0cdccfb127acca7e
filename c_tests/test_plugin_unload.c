// c_tests: compare-output
// Plugin libraries that are found but rejected (their `info` names missing functions, or
// they have no `info` at all) are unloaded again, as the reference dlcloses them; a good
// plugin stays loaded. Checked in /proc/self/maps after the codec or filter is first used.
// (A filter plugin without `info` crashes the reference: test_plugin_unload_noinfo.c checks
// that case on this library only.)
#include <stdio.h>
#include <stdlib.h>
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

static void use_codec(int id, const char *name) {
  blosc2_codec k = {0};
  k.compcode = (uint8_t)id; k.compname = (char *)name; k.complib = (uint8_t)id; k.version = 1;
  int r = blosc2_register_codec(&k);
  int32_t d[1000]; for (int i = 0; i < 1000; i++) d[i] = i % 100;
  uint8_t out[9000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.compcode = (uint8_t)id;
  blosc2_context *c = blosc2_create_cctx(cp);
  int rc = c ? blosc2_compress_ctx(c, d, sizeof d, out, sizeof out) : 0;
  if (c) blosc2_free_ctx(c);
  char lib[64]; snprintf(lib, sizeof lib, "libblosc2_%s.so", name);
  printf("codec %s: register %d, ctx %s, compress %s, mapped afterwards %d\n", name, r, c ? "yes" : "NULL",
         rc > 0 ? "ok" : rc < 0 ? "error" : "0", mapped(lib));
}

static void use_filter(int id, const char *name) {
  blosc2_filter f = {0};
  f.id = (uint8_t)id; f.name = (char *)name; f.version = 1;
  int r = blosc2_register_filter(&f);
  int32_t d[1000]; for (int i = 0; i < 1000; i++) d[i] = i % 100;
  uint8_t out[9000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.filters[0] = (uint8_t)id;
  blosc2_context *c = blosc2_create_cctx(cp);
  int rc = c ? blosc2_compress_ctx(c, d, sizeof d, out, sizeof out) : 0;
  if (c) blosc2_free_ctx(c);
  char lib[64]; snprintf(lib, sizeof lib, "libblosc2_%s.so", name);
  printf("filter %s: register %d, ctx %s, compress %s, mapped afterwards %d\n", name, r, c ? "yes" : "NULL",
         rc > 0 ? "ok" : rc < 0 ? "error" : "0", mapped(lib));
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  use_codec(210, "brokenplug");
  use_codec(211, "noinfoplug");
  use_codec(212, "myplug");
  use_filter(201, "brokenplug");
  blosc2_destroy();
  return 0;
}
