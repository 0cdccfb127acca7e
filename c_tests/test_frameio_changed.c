// c_tests: compare-output
// Frame files changed under an open handle, as the reference sees them: another handle
// appends (the first one follows), the file is truncated, removed, or grows garbage at its
// end; blosc2_schunk_refresh and blosc2_frame_get_offsets on such handles.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <blosc2.h>

enum { N = 5000 };

static void make(const char* path, bool contiguous, int nchunks) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char*)path, .cparams = &cp};
  blosc2_schunk* sc = blosc2_schunk_new(&st);
  int32_t v[N];
  for (int c = 0; c < nchunks; c++) {
    for (int i = 0; i < N; i++) v[i] = c * N + i;
    blosc2_schunk_append_buffer(sc, v, sizeof(v));
  }
  blosc2_schunk_free(sc);
}

static void probe(const char* tag, blosc2_schunk* sc) {
  int32_t v[N];
  printf("  %-22s nchunks=%lld nbytes=%lld", tag, (long long)sc->nchunks, (long long)sc->nbytes);
  for (int64_t i = 0; i < 3; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, v, sizeof(v));
    printf(" c%lld=%d", (long long)i, rc);
    if (rc > 0) printf("/%d", v[N - 1]);
  }
  printf("\n");
}

static long file_len(const char* p) {
  FILE* f = fopen(p, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

static void contiguous(void) {
  const char* p = "fic.b2frame";
  printf("contiguous\n");
  make(p, true, 2);
  blosc2_schunk* a = blosc2_schunk_open(p);
  blosc2_schunk* b = blosc2_schunk_open(p);
  int32_t v[N];
  for (int i = 0; i < N; i++) v[i] = -i;
  printf("  other handle append=%lld\n", (long long)blosc2_schunk_append_buffer(b, v, sizeof(v)));
  probe("after other append", a);
  printf("  refresh=%d\n", blosc2_schunk_refresh(a));
  probe("after refresh", a);
  int64_t* offs = blosc2_frame_get_offsets(a);
  printf("  offsets: %s", offs ? "" : "NULL");
  for (int i = 0; offs && i < a->nchunks; i++) printf(" %lld", (long long)offs[i]);
  printf("\n");
  free(offs);
  blosc2_schunk_free(b);

  long len = file_len(p);
  if (truncate(p, len / 2) != 0) printf("  truncate failed\n");
  probe("truncated to half", a);
  printf("  refresh=%d\n", blosc2_schunk_refresh(a));
  if (truncate(p, len + 100) != 0) printf("  truncate failed\n");
  probe("grown with zeros", a);
  if (truncate(p, 10) != 0) printf("  truncate failed\n");
  probe("cut inside the header", a);
  printf("  refresh=%d\n", blosc2_schunk_refresh(a));
  if (truncate(p, len + 100) != 0) printf("  truncate failed\n");
  blosc2_schunk_free(a);
  a = blosc2_schunk_open(p);
  printf("  reopen grown: %s\n", a ? "schunk" : "NULL");
  if (a) blosc2_schunk_free(a);

  make(p, true, 2);
  a = blosc2_schunk_open(p);
  remove(p);
  probe("removed", a);
  int32_t w[N];
  for (int i = 0; i < N; i++) w[i] = i;
  printf("  append after remove=%lld exists=%d\n", (long long)blosc2_schunk_append_buffer(a, w, sizeof(w)),
         file_len(p) >= 0);
  // (The reference counts the chunk it failed to append in nchunks and nbytes; this library
  // keeps the counters of the chunks there are.)
  printf("  after failed append: c0=%d c1=%d\n", blosc2_schunk_decompress_chunk(a, 0, w, sizeof(w)),
         blosc2_schunk_decompress_chunk(a, 1, w, sizeof(w)));
  blosc2_schunk_free(a);
  blosc2_remove_urlpath(p);
}

static void sparse(void) {
  const char* p = "fis.b2frame";
  printf("sparse\n");
  make(p, false, 2);
  blosc2_schunk* a = blosc2_schunk_open(p);
  blosc2_schunk* b = blosc2_schunk_open(p);
  int32_t v[N];
  for (int i = 0; i < N; i++) v[i] = -i;
  printf("  other handle append=%lld\n", (long long)blosc2_schunk_append_buffer(b, v, sizeof(v)));
  probe("after other append", a);
  printf("  other handle delete=%lld\n", (long long)blosc2_schunk_delete_chunk(b, 0));
  probe("after other delete", a);
  blosc2_schunk_free(b);
  if (truncate("fis.b2frame/chunks.b2frame", 20) != 0) printf("  truncate failed\n");
  probe("index truncated", a);
  blosc2_schunk_free(a);
  a = blosc2_schunk_open(p);
  printf("  reopen truncated index: %s\n", a ? "schunk" : "NULL");
  if (a) blosc2_schunk_free(a);
  blosc2_remove_urlpath(p);
}

int main(void) {
  blosc2_init();
  contiguous();
  sparse();
  blosc2_destroy();
  return 0;
}
