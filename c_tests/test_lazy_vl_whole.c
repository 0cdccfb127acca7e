// c_tests: differential
// A lazy VL-block chunk decoded whole: blosc2_vldecompress_ctx and blosc2_decompress_ctx
// through schunk->dctx must give back every block, reading them from the frame (contiguous
// and sparse). The reference fails both with -6 (REFERENCE-DEFECTS.md: "A lazy chunk that
// uses variable-length blocks cannot be decompressed with blosc2_decompress_ctx"); this
// library decodes them. Run against the reference (BLOSC_TEST_IMPL=reference) only that
// known failure is tolerated; anything else is an error with either library.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

static int failures = 0;
#define CHECK(cond, ...)                 \
  do {                                   \
    if (!(cond)) {                       \
      failures++;                        \
      fprintf(stderr, "FAIL: ");         \
      fprintf(stderr, __VA_ARGS__);      \
      fprintf(stderr, "\n");             \
    }                                    \
  } while (0)

static void check(int contiguous, int reference) {
  const char *path = contiguous ? "lazy_vlwhole.b2frame" : "lazy_vlwhole_dir.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  const char *parts[3] = {"alpha", "bravo-bravo", "charlie-charlie-charlie"};
  int32_t lens[3];
  int32_t total = 0;
  for (int i = 0; i < 3; i++) total += lens[i] = (int32_t)strlen(parts[i]) + 1;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t chunk[512];
  int cb = blosc2_vlcompress_ctx(cctx, (const void *const *)parts, lens, 3, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  CHECK(cb > 0 && blosc2_schunk_append_chunk(sc, chunk, true) == 1, "setup (%s)", path);

  uint8_t *lazy = NULL;
  bool nf = false;
  int lcb = blosc2_schunk_get_lazychunk(sc, 0, &lazy, &nf);
  CHECK(lcb > 0 && (lazy[BLOSC2_CHUNK_BLOSC2_FLAGS] & 0x08), "[%s] not a lazy chunk", path);

  void *dests[3] = {0};
  int32_t sizes[3] = {0};
  int rc = blosc2_vldecompress_ctx(sc->dctx, lazy, lcb, dests, sizes, 3);
  if (!(reference && rc == BLOSC2_ERROR_WRITE_BUFFER)) {
    CHECK(rc == 3, "[%s] vldecompress_ctx on the lazy chunk = %d (want 3)", path, rc);
    for (int i = 0; i < 3 && rc == 3; i++)
      CHECK(sizes[i] == lens[i] && strcmp(dests[i], parts[i]) == 0, "[%s] block %d wrong", path, i);
  }
  for (int i = 0; i < 3 && rc == 3; i++) free(dests[i]);

  char out[64] = {0};
  rc = blosc2_decompress_ctx(sc->dctx, lazy, lcb, out, sizeof out);
  if (!(reference && rc == BLOSC2_ERROR_WRITE_BUFFER)) {
    CHECK(rc == total, "[%s] decompress_ctx on the lazy chunk = %d (want %d)", path, rc, total);
    CHECK(strcmp(out, "alpha") == 0 && strcmp(out + 6, "bravo-bravo") == 0 &&
              strcmp(out + 18, "charlie-charlie-charlie") == 0,
          "[%s] decompress_ctx data wrong", path);
  }

  /* Without a super-chunk in the context, the blocks cannot be found (both libraries). */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *plain = blosc2_create_dctx(dp);
  rc = blosc2_vldecompress_ctx(plain, lazy, lcb, dests, sizes, 3);
  CHECK(rc < 0, "[%s] vldecompress_ctx without schunk = %d (want an error)", path, rc);
  blosc2_free_ctx(plain);

  if (nf) free(lazy);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  const char *impl = getenv("BLOSC_TEST_IMPL");
  int reference = impl != NULL && strcmp(impl, "reference") == 0;
  blosc2_init();
  check(1, reference);
  check(0, reference);
  blosc2_destroy();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
