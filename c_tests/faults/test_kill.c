/* Writers killed at random points (run by c_tests/faults/run.sh). For each frame kind
   (contiguous file, sparse directory) and RUNS runs: a child process writes a super-chunk
   (metalayer, then appends, with every few steps an update of an earlier chunk, an insert, a
   delete and a vlmetalayer update) and reports every call that returned success through a
   pipe; the parent sends it SIGKILL once it has reported a random number of events (and a
   random fraction of a millisecond more), then reopens the frame and reads
   every chunk. Each chunk shown must decompress to one of the chunks the writer wrote (each
   carries its tag) or fail with an error code: never other bytes. Counts how often the
   frame does not reopen and how often chunks reported committed are missing (not counting a
   chunk the call in flight was replacing or deleting; not promised: README, "Reliability"). Prints "kill: N passed, M failed".
   usage: test_kill DIR [RUNS] [SEED] [append]  (append: the writer only appends) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "blosc2.h"

#define ITEMS 4000
#define MAXTAG 4096

static void fill(int32_t *b, int tag) { for (int i = 0; i < ITEMS; i++) b[i] = tag * 100003 + i * (tag % 7 + 1); }
static int tag_of(const int32_t *b) {
  int tag = b[0] / 100003;
  int32_t want[ITEMS];
  if (tag <= 0 || tag >= MAXTAG) return -1;
  fill(want, tag);
  return memcmp(want, b, sizeof want) == 0 ? tag : -1;
}

/* Event codes sent to the parent: +tag committed (appended, inserted or written by an
   update), -tag replaced or deleted, -(MAXTAG + tag) tag about to be replaced or deleted
   (the call in flight when the writer is killed may have taken effect without reporting). */
static void report(int fd, int event) { if (write(fd, &event, sizeof event) != sizeof event) _exit(3); }

static int append_only;

static void writer(const char *path, int sparse, int fd) {
  int32_t buf[ITEMS];
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = !sparse;
  st.urlpath = (char *)path;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (!sc) _exit(2);
  uint8_t meta[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  blosc2_meta_add(sc, "mymeta", meta, 8);
  blosc2_context *cc = blosc2_create_cctx(cp);
  uint8_t chunk[ITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  int next = 1;
  int live[MAXTAG];
  int nlive = 0;
  for (int step = 0; next < MAXTAG - 4; step++) {
    fill(buf, next);
    if (blosc2_schunk_append_buffer(sc, buf, sizeof buf) < 0) _exit(4);
    live[nlive++] = next;
    report(fd, next++);
    if (append_only) continue;
    if (step % 5 == 4 && nlive > 2) {
      /* update the middle chunk */
      int at = nlive / 2;
      fill(buf, next);
      int cb = blosc2_compress_ctx(cc, buf, sizeof buf, chunk, sizeof chunk);
      report(fd, -(MAXTAG + live[at]));
      if (cb > 0 && blosc2_schunk_update_chunk(sc, at, chunk, true) >= 0) {
        report(fd, -live[at]);
        live[at] = next;
        report(fd, next++);
      }
    }
    if (step % 7 == 6 && nlive > 2) {
      /* insert at 1, delete the first */
      fill(buf, next);
      int cb = blosc2_compress_ctx(cc, buf, sizeof buf, chunk, sizeof chunk);
      if (cb > 0 && blosc2_schunk_insert_chunk(sc, 1, chunk, true) >= 0) {
        memmove(live + 2, live + 1, (size_t)(nlive - 1) * sizeof *live);
        live[1] = next;
        nlive++;
        report(fd, next++);
      }
      report(fd, -(MAXTAG + live[0]));
      if (blosc2_schunk_delete_chunk(sc, 0) >= 0) {
        report(fd, -live[0]);
        memmove(live, live + 1, (size_t)(nlive - 1) * sizeof *live);
        nlive--;
      }
    }
    if (step % 11 == 10) {
      char vl[32];
      int n = snprintf(vl, sizeof vl, "step %d", step);
      if (blosc2_vlmeta_exists(sc, "myvl") >= 0) blosc2_vlmeta_update(sc, "myvl", (uint8_t *)vl, n, NULL);
      else blosc2_vlmeta_add(sc, "myvl", (uint8_t *)vl, n, NULL);
    }
  }
  _exit(0);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  int runs = argc > 2 ? atoi(argv[2]) : 100;
  unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : 12345;
  append_only = argc > 4 && strcmp(argv[4], "append") == 0;
  srand(seed);
  blosc2_init();
  int pass = 0, fail = 0;
  for (int sparse = 0; sparse <= 1; sparse++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/killzone-%s", dir, sparse ? "sparse.b2frame" : "contig.b2frame");
    long unopenable = 0, lost_runs = 0, chunks_seen = 0, events_total = 0;
    for (int r = 0; r < runs; r++) {
      blosc2_remove_urlpath(path);
      int p[2];
      if (pipe(p) != 0) return 2;
      pid_t pid = fork();
      if (pid == 0) {
        close(p[0]);
        writer(path, sparse, p[1]);
      }
      close(p[1]);
      static int committed[MAXTAG], leaving[MAXTAG];
      memset(committed, 0, sizeof committed);
      memset(leaving, 0, sizeof leaving);
      int ev;
      /* let the writer report a random number of events, then kill it a random fraction of
         a millisecond later: the same points of the workload whatever its speed */
      int target = 1 + rand() % 400;
      for (int k = 0; k < target && read(p[0], &ev, sizeof ev) == sizeof ev; k++) {
        events_total++;
        if (ev > 0 && ev < MAXTAG) committed[ev] = 1;
        else if (ev < 0 && -ev < MAXTAG) committed[-ev] = 0;
        else if (ev <= -MAXTAG && -ev - MAXTAG < MAXTAG) leaving[-ev - MAXTAG] = 1;
      }
      struct timespec ts = {0, (long)(rand() % 1000) * 1000L};
      nanosleep(&ts, NULL);
      kill(pid, SIGKILL);
      int status;
      waitpid(pid, &status, 0);
      while (read(p[0], &ev, sizeof ev) == sizeof ev) {
        events_total++;
        if (ev > 0 && ev < MAXTAG) committed[ev] = 1;
        else if (ev < 0 && -ev < MAXTAG) committed[-ev] = 0;
        else if (ev <= -MAXTAG && -ev - MAXTAG < MAXTAG) leaving[-ev - MAXTAG] = 1;
      }
      close(p[0]);
      int bad = 0;
      static int seen[MAXTAG];
      memset(seen, 0, sizeof seen);
      blosc2_schunk *sc = blosc2_schunk_open(path);
      if (!sc) {
        unopenable++;
        if (getenv("KILL_KEEP")) {
          char cmd[9000];
          snprintf(cmd, sizeof cmd, "cp -r %s %s.bad%d", path, path, r);
          if (system(cmd) != 0) printf("could not keep %s\n", path);
        }
      } else {
        for (int64_t c = 0; c < sc->nchunks; c++) {
          int32_t back[ITEMS + 16];
          int rc = blosc2_schunk_decompress_chunk(sc, c, back, sizeof back);
          if (rc < 0) continue;
          int t = rc == (int)(ITEMS * 4) ? tag_of(back) : -1;
          if (t < 0) {
            bad = 1;
            printf("%s run %d: chunk %lld decodes to other bytes (rc %d)\n", sparse ? "sparse" : "contiguous", r, (long long)c, rc);
          } else {
            seen[t] = 1;
            chunks_seen++;
          }
        }
        uint8_t *content = NULL;
        int32_t len = 0;
        if (blosc2_meta_get(sc, "mymeta", &content, &len) >= 0) {
          if (len != 8 || content[0] != 1 || content[7] != 8) { bad = 1; printf("run %d: metalayer changed\n", r); }
          free(content);
        }
        blosc2_schunk_free(sc);
      }
      int lost = 0;
      /* KILL_STRICT: a frame that does not reopen, or a committed chunk missing, fails too
         (what the write order and the journal promise: README, "Reliability"). */
      int strict = getenv("KILL_STRICT") != NULL;
      /* A chunk the call in flight was replacing or deleting may be gone: not a loss. */
      for (int t = 1; t < MAXTAG; t++) if (committed[t] && !seen[t] && !leaving[t]) lost = 1;
      lost_runs += lost;
      if (strict && (lost || !sc)) {
        bad = 1;
        printf("%s run %d: %s\n", sparse ? "sparse" : "contiguous", r, !sc ? "frame does not reopen" : "committed chunk missing");
      }
      if (bad) fail++; else pass++;
    }
    blosc2_remove_urlpath(path);
    printf("kill %s: %d runs, %ld writer events, %ld chunks read back; frame did not reopen after %ld; committed chunks missing after %ld\n",
           sparse ? "sparse" : "contiguous", runs, events_total, chunks_seen, unopenable, lost_runs);
  }
  blosc2_destroy();
  printf("kill: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
