// A user tuner given tuner parameters: its init sees them, and every chunk runs
// next_cparams before and update after, then free when the context goes (contexts and
// super-chunks). The reference never hands tuner_params to its contexts and calls only
// init and next_blocksize (REFERENCE-DEFECTS.md), so this test checks our behaviour alone.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static char log_[4096];
static int config_value = 0;
static void note(const char *s) { strncat(log_, s, sizeof log_ - strlen(log_) - 2); strcat(log_, " "); }
static int t_init(void *config, blosc2_context *cctx, blosc2_context *dctx) {
  config_value = config ? *(int *)config : -1;
  note(cctx && !dctx ? "init" : "init(bad contexts)");
  return 0;
}
static int t_next_blocksize(blosc2_context *c) { note("next_blocksize"); return 0; }
static int t_next_cparams(blosc2_context *c) {
  blosc2_cparams cp;
  note(blosc2_ctx_get_cparams(c, &cp) == 0 && cp.typesize == 4 ? "next_cparams" : "next_cparams(bad ctx)");
  return 0;
}
static int t_update(blosc2_context *c, double ctime) { note(ctime >= 0 ? "update" : "update(bad time)"); return 0; }
static int t_free(blosc2_context *c) { note("free"); return 0; }

static int expect(const char *what, const char *want) {
  int ok = strcmp(log_, want) == 0;
  printf("%s: %s%s\n", what, log_, ok ? "" : " (WRONG)");
  if (!ok) printf("  expected: %s\n", want);
  log_[0] = 0;
  return ok;
}

int main(void) {
  blosc2_init();
  blosc2_tuner t = {t_init, t_next_blocksize, t_next_cparams, t_update, t_free, 171, "paramtuner"};
  if (blosc2_register_tuner(&t) != 0) { printf("register failed\n"); return 1; }
  int params = 42, ok = 1;
  int32_t data[10000];
  for (int i = 0; i < 10000; i++) data[i] = i;
  static uint8_t out[50000];

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.tuner_id = 171; cp.tuner_params = &params;
  blosc2_context *c = blosc2_create_cctx(cp);
  ok &= c != NULL && config_value == 42;
  ok &= blosc2_compress_ctx(c, data, sizeof data, out, sizeof out) > 0;
  ok &= blosc2_compress_ctx(c, data, 4000, out, sizeof out) > 0;
  blosc2_free_ctx(c);
  ok &= expect("context", "init next_cparams update next_cparams update free ");

  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *s = blosc2_schunk_new(&st);
  ok &= s != NULL;
  ok &= blosc2_schunk_append_buffer(s, data, sizeof data) == 1;
  blosc2_schunk_free(s);
  ok &= expect("schunk", "init next_cparams update free ");

  cp.tuner_params = NULL;
  c = blosc2_create_cctx(cp);
  ok &= blosc2_compress_ctx(c, data, sizeof data, out, sizeof out) > 0;
  blosc2_free_ctx(c);
  ok &= expect("no parameters", "init next_blocksize ");
  blosc2_destroy();
  printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
