// c_tests: compare-output
// Opt-in frame locking (blosc2_stdio_params.locking, BLOSC_LOCKING): the sidecar lock file
// and its generation counter, two handles on one frame following each other's changes,
// the lock/unlock bracket, the environment switch, removal of the sidecar, mmap ignoring
// locking, and two processes appending concurrently under the lock. Output must match the
// reference's line for line (same files, same counter values, same change ticks).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blosc2.h"

#define FRAME "test_locking.b2frame"
#define DIR "test_locking.b2dir"
#define CHUNKITEMS 500

static blosc2_stdio_params locking_params = {true};
static blosc2_io locking_io = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &locking_params};

static const char *sidecar(const char *urlpath, int contiguous) {
  static char buf[512];
  snprintf(buf, sizeof buf, contiguous ? "%s.b2lock" : "%s/.b2lock", urlpath);
  return buf;
}

static void show_sidecar(const char *what, const char *urlpath, int contiguous) {
  const char *p = sidecar(urlpath, contiguous);
  struct stat st;
  if (stat(p, &st) != 0) {
    printf("  %-28s sidecar: none\n", what);
    return;
  }
  unsigned long long seq = 0;
  FILE *f = fopen(p, "rb");
  unsigned char b[16] = {0};
  size_t n = fread(b, 1, 16, f);
  fclose(f);
  if (n == 16) memcpy(&seq, b + 8, 8);
  int zeros = 1;
  for (size_t i = 0; i < 8 && i < n; i++) zeros &= b[i] == 0;
  printf("  %-28s sidecar: %lld bytes, head zero=%d, generation=%llu\n", what, (long long)st.st_size,
         zeros, seq);
}

static blosc2_schunk *create(const char *urlpath, int contiguous, blosc2_io *io) {
  blosc2_remove_urlpath(urlpath);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp, .io = io};
  return blosc2_schunk_new(&st);
}

static int append(blosc2_schunk *s, int value) {
  int32_t buf[CHUNKITEMS];
  for (int i = 0; i < CHUNKITEMS; i++) buf[i] = value + i;
  return (int)blosc2_schunk_append_buffer(s, buf, sizeof buf);
}

static int first_item(blosc2_schunk *s, int64_t nchunk) {
  int32_t buf[CHUNKITEMS];
  int n = blosc2_schunk_decompress_chunk(s, nchunk, buf, sizeof buf);
  return n < 0 ? n : buf[0];
}

static void handles(const char *urlpath, int contiguous) {
  printf("-- %s\n", contiguous ? "contiguous" : "sparse");
  blosc2_schunk *s = create(urlpath, contiguous, &locking_io);
  show_sidecar("after new", urlpath, contiguous);
  for (int i = 0; i < 3; i++) append(s, 1000 * i);
  show_sidecar("after 3 appends", urlpath, contiguous);
  blosc2_schunk_free(s);

  blosc2_schunk *h1 = blosc2_schunk_open_udio(urlpath, &locking_io);
  blosc2_schunk *h2 = blosc2_schunk_open_udio(urlpath, &locking_io);
  printf("  open: %s %s ticks %lld %lld\n", h1 ? "ok" : "NULL", h2 ? "ok" : "NULL",
         (long long)h1->change_tick, (long long)h2->change_tick);
  show_sidecar("after two opens", urlpath, contiguous);
  printf("  h2 chunk0 first=%d\n", first_item(h2, 0));

  // Same-length update through h1: only the generation tells h2.
  int32_t buf[CHUNKITEMS];
  for (int i = 0; i < CHUNKITEMS; i++) buf[i] = 77 + i;
  uint8_t chunk[sizeof buf + BLOSC2_MAX_OVERHEAD];
  int cb = blosc2_compress_ctx(h1->cctx, buf, sizeof buf, chunk, sizeof chunk);
  printf("  h1 update rc=%lld (cbytes %d)\n", (long long)blosc2_schunk_update_chunk(h1, 0, chunk, true), cb > 0);
  int v = first_item(h2, 0);
  printf("  h2 chunk0 first=%d nchunks=%lld tick=%lld\n", v, (long long)h2->nchunks, (long long)h2->change_tick);

  // Growth through h2, seen by h1's explicit refresh.
  printf("  h2 append rc=%d\n", append(h2, 5000));
  int r = blosc2_schunk_refresh(h1);
  (void)r;
  printf("  h1 refresh=%d nchunks=%lld nbytes=%lld tick=%lld\n", r, (long long)h1->nchunks,
         (long long)h1->nbytes, (long long)h1->change_tick);
  printf("  h1 refresh again=%d\n", blosc2_schunk_refresh(h1));

  // vlmetalayers follow without data access.
  printf("  h1 vlmeta_add=%d\n", blosc2_vlmeta_add(h1, "foo", (uint8_t *)"bar", 3, NULL));
  v = blosc2_vlmeta_exists(h2, "foo");
  printf("  h2 vlmeta_exists=%d tick=%lld\n", v, (long long)h2->change_tick);
  printf("  h1 vlmeta_delete=%d\n", blosc2_vlmeta_delete(h1, "foo"));
  v = blosc2_vlmeta_exists(h2, "foo");
  printf("  h2 vlmeta_exists=%d tick=%lld\n", v, (long long)h2->change_tick);

  // The bracket: re-entrant, counter bumped once per outermost exclusive hold.
  printf("  lock=%d lock=%d\n", blosc2_schunk_lock(h1), blosc2_schunk_lock(h1));
  printf("  append inside=%d\n", append(h1, 9000));
  printf("  unlock=%d unlock=%d extra unlock=%d\n", blosc2_schunk_unlock(h1), blosc2_schunk_unlock(h1),
         blosc2_schunk_unlock(h1));
  show_sidecar("after bracket", urlpath, contiguous);
  v = first_item(h2, 4);
  printf("  h2 after bracket: chunk4 first=%d nchunks=%lld\n", v, (long long)h2->nchunks);
  uint8_t *c4;
  bool nf;
  v = blosc2_schunk_get_chunk(h2, 4, &c4, &nf);
  if (v > 0 && nf) free(c4);
  printf("  h2 get_chunk(4) rc>0=%d nchunks=%lld tick=%lld\n", v > 0, (long long)h2->nchunks, (long long)h2->change_tick);
  v = blosc2_schunk_get_lazychunk(h2, 4, &c4, &nf);
  if (v > 0 && nf) free(c4);
  printf("  h2 get_lazychunk(4) rc>0=%d nchunks=%lld\n", v > 0, (long long)h2->nchunks);
  v = first_item(h2, 4);
  printf("  h2 again: chunk4 first=%d nchunks=%lld tick=%lld\n", v, (long long)h2->nchunks, (long long)h2->change_tick);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  printf("  remove=%d\n", blosc2_remove_urlpath(urlpath));
  show_sidecar("after remove", urlpath, contiguous);
}

static void unlocked_and_env(void) {
  printf("-- off, env, mmap\n");
  unsetenv("BLOSC_LOCKING");
  blosc2_schunk *s = create(FRAME, 1, NULL);
  append(s, 1);
  printf("  lock=%d unlock=%d refresh=%d\n", blosc2_schunk_lock(s), blosc2_schunk_unlock(s),
         blosc2_schunk_refresh(s));
  blosc2_schunk_free(s);
  show_sidecar("locking off", FRAME, 1);
  const char *values[] = {"1", "0", "", "false", "off"};
  for (int i = 0; i < 5; i++) {
    setenv("BLOSC_LOCKING", values[i], 1);
    s = create(FRAME, 1, NULL);
    append(s, 1);
    blosc2_schunk_free(s);
    char what[64];
    snprintf(what, sizeof what, "BLOSC_LOCKING=\"%s\"", values[i]);
    show_sidecar(what, FRAME, 1);
    blosc2_remove_urlpath(FRAME);
  }
  // The variable is read at creation/open time only.
  setenv("BLOSC_LOCKING", "1", 1);
  s = create(FRAME, 1, NULL);
  unsetenv("BLOSC_LOCKING");
  append(s, 1);
  blosc2_schunk_free(s);
  show_sidecar("env set at creation only", FRAME, 1);
  blosc2_remove_urlpath(FRAME);
  // Explicit false does not override the variable.
  blosc2_stdio_params off = {false};
  blosc2_io off_io = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &off};
  setenv("BLOSC_LOCKING", "1", 1);
  s = create(FRAME, 1, &off_io);
  append(s, 1);
  blosc2_schunk_free(s);
  unsetenv("BLOSC_LOCKING");
  show_sidecar("env on, params false", FRAME, 1);
  blosc2_remove_urlpath(FRAME);
  // mmap ignores locking.
  setenv("BLOSC_LOCKING", "1", 1);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  blosc2_io mmap_io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  s = create(FRAME, 1, &mmap_io);
  append(s, 1);
  printf("  mmap lock=%d unlock=%d\n", blosc2_schunk_lock(s), blosc2_schunk_unlock(s));
  blosc2_schunk_free(s);
  unsetenv("BLOSC_LOCKING");
  show_sidecar("mmap", FRAME, 1);
  blosc2_remove_urlpath(FRAME);
  // In memory: no-ops.
  s = create(NULL, 1, &locking_io);
  append(s, 1);
  printf("  memory lock=%d unlock=%d refresh=%d\n", blosc2_schunk_lock(s), blosc2_schunk_unlock(s),
         blosc2_schunk_refresh(s));
  blosc2_schunk_free(s);
}

// Two processes append through their own locked handles; every chunk must land.
static void two_appenders(void) {
  printf("-- two processes appending\n");
  blosc2_schunk *s = create(FRAME, 1, &locking_io);
  append(s, 0);
  blosc2_schunk_free(s);
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      blosc2_init();
      blosc2_schunk *h = blosc2_schunk_open_udio(FRAME, &locking_io);
      int bad = h == NULL;
      for (int i = 0; i < 40 && !bad; i++) bad = append(h, (k + 1) * 100000 + i * 1000) < 0;
      if (h) blosc2_schunk_free(h);
      blosc2_destroy();
      _exit(bad);
    }
  }
  int ok = 1;
  for (int k = 0; k < 2; k++) {
    int status;
    waitpid(kids[k], &status, 0);
    ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  s = blosc2_schunk_open(FRAME);
  int from[3] = {0, 0, 0};
  int garbage = 0;
  for (int64_t i = 0; i < s->nchunks; i++) {
    int v = first_item(s, i);
    if (v == 0) from[0]++;
    else if (v >= 100000 && v < 200000) from[1]++;
    else if (v >= 200000 && v < 300000) from[2]++;
    else garbage++;
  }
  printf("  children ok=%d nchunks=%lld nbytes=%lld from: %d %d %d garbage=%d\n", ok, (long long)s->nchunks,
         (long long)s->nbytes, from[0], from[1], from[2], garbage);
  blosc2_schunk_free(s);
  show_sidecar("after appenders", FRAME, 1);
  blosc2_remove_urlpath(FRAME);
}

int main(void) {
  blosc2_init();
  unsetenv("BLOSC_LOCKING");
  handles(FRAME, 1);
  handles(DIR, 0);
  unlocked_and_env();
  two_appenders();
  blosc2_destroy();
  return 0;
}
