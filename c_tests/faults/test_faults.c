/* Faults at every file I/O call of a super-chunk workload (run by c_tests/faults/run.sh
   with shim.c preloaded). For each frame kind (contiguous file, sparse directory), each
   failure mode (ENOSPC, EIO, EINTR once, short write) and each call index N of the
   workload: the workload runs with call N failing; every library call must return (an
   error code or success), the process goes on; then the frame is reopened without faults
   and every chunk it shows must decompress to one of the chunks the workload wrote (each
   chunk carries its own tag) or fail with an error code: never other bytes. Counts how
   often chunks reported committed are missing after reopening (not counting the chunk a
   failed call was replacing or deleting; not promised: README, "Reliability") and prints "faults: N passed, M failed". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

#define ITEMS 5000
static void (*arm)(long, int);
static long (*disarm)(void);

static void fill(int32_t *b, int tag) { for (int i = 0; i < ITEMS; i++) b[i] = tag * 100003 + i * (tag % 7 + 1); }
/* The tag a buffer was filled with, or -1. */
static int tag_of(const int32_t *b) {
  int tag = b[0] / 100003;
  int32_t want[ITEMS];
  fill(want, tag);
  return memcmp(want, b, sizeof want) == 0 ? tag : -1;
}

/* The workload; returns the number of library calls that reported success, and records
   which tags are committed: appended, inserted or written by an update that succeeded, and
   not replaced or deleted since. A call that fails may still take effect (its journal record
   was written: it completes when the frame is next opened), so the tag such a call was
   replacing or deleting is marked in `leaving` and not counted as lost. */
static int workload(const char *path, int sparse, int *committed, int *leaving) {
  int32_t buf[ITEMS];
  int live[64], nlive = 0;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = !sparse;
  st.urlpath = (char *)path;
  int ok = 0;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (!sc) return 0;
  uint8_t meta[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  if (blosc2_meta_add(sc, "mymeta", meta, 8) >= 0) ok++;
  for (int k = 1; k <= 5; k++) {
    fill(buf, k);
    if (blosc2_schunk_append_buffer(sc, buf, sizeof buf) == nlive + 1) { ok++; committed[k] = 1; live[nlive++] = k; }
    else break;
  }
  /* Update chunk 2 with tag 20, insert tag 30 at 1, delete chunk 3, add a vlmetalayer. */
  fill(buf, 20);
  uint8_t chunk[ITEMS * 4 + BLOSC2_MAX_OVERHEAD];
  blosc2_context *cc = blosc2_create_cctx(cp);
  int cb = blosc2_compress_ctx(cc, buf, sizeof buf, chunk, sizeof chunk);
  if (cb > 0 && nlive > 2) {
    if (blosc2_schunk_update_chunk(sc, 2, chunk, true) >= 0) {
      ok++;
      committed[live[2]] = 0;
      live[2] = 20;
      committed[20] = 1;
    } else {
      leaving[live[2]] = 1;
    }
  }
  fill(buf, 30);
  cb = blosc2_compress_ctx(cc, buf, sizeof buf, chunk, sizeof chunk);
  if (cb > 0 && nlive > 1 && blosc2_schunk_insert_chunk(sc, 1, chunk, true) >= 0) {
    ok++;
    committed[30] = 1;
    memmove(live + 2, live + 1, (size_t)(nlive - 1) * sizeof *live);
    live[1] = 30;
    nlive++;
  }
  blosc2_free_ctx(cc);
  if (nlive > 3) {
    if (blosc2_schunk_delete_chunk(sc, 3) >= 0) {
      ok++;
      committed[live[3]] = 0;
      memmove(live + 3, live + 4, (size_t)(nlive - 4) * sizeof *live);
      nlive--;
    } else {
      leaving[live[3]] = 1;
    }
  }
  uint8_t vl[5] = "hello";
  if (blosc2_vlmeta_add(sc, "myvl", vl, 5, NULL) >= 0) ok++;
  blosc2_schunk_free(sc);
  return ok;
}

int main(int argc, char **argv) {
  arm = (void (*)(long, int))dlsym(RTLD_DEFAULT, "faultinject_arm");
  disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "faultinject_disarm");
  if (!arm || !disarm) { printf("run with c_tests/faults/shim.so preloaded\n"); return 2; }
  const char *dir = argc > 1 ? argv[1] : ".";
  blosc2_init();
  int pass = 0, fail = 0;
  long lost_runs = 0, runs = 0, unopenable = 0;
  const char *modes[] = {"ENOSPC", "EIO", "EINTR", "short write"};
  for (int sparse = 0; sparse <= 1; sparse++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/faultzone-%s", dir, sparse ? "sparse.b2frame" : "contig.b2frame");
    /* How many calls the workload makes with no fault. */
    int committed[64], leaving[64];
    memset(committed, 0, sizeof committed);
    memset(leaving, 0, sizeof leaving);
    blosc2_remove_urlpath(path);
    arm(-1, 0);
    workload(path, sparse, committed, leaving);
    long calls = disarm();
    for (int mode = 0; mode < 4; mode++) {
      for (long n = 1; n <= calls; n++) {
        blosc2_remove_urlpath(path);
        memset(committed, 0, sizeof committed);
        memset(leaving, 0, sizeof leaving);
        arm(n, mode);
        workload(path, sparse, committed, leaving);
        disarm();
        runs++;
        /* Reopen without faults: every chunk shown is one the workload wrote, or an error. */
        blosc2_schunk *sc = blosc2_schunk_open(path);
        int bad = 0, seen[64];
        memset(seen, 0, sizeof seen);
        if (!sc) {
          unopenable++;
        } else {
          for (int64_t c = 0; c < sc->nchunks && c < 64; c++) {
            int32_t back[ITEMS + 16];
            int rc = blosc2_schunk_decompress_chunk(sc, c, back, sizeof back);
            if (rc < 0) continue;
            int t = rc == (int)(ITEMS * 4) ? tag_of(back) : -1;
            if (t < 0 || t >= 64) { bad = 1; printf("%s %s call %ld: chunk %lld decodes to other bytes (rc %d)\n", sparse ? "sparse" : "contiguous", modes[mode], n, (long long)c, rc); }
            else seen[t] = 1;
          }
          blosc2_schunk_free(sc);
        }
        int lost = 0;
        for (int t = 1; t < 64; t++) if (committed[t] && !seen[t] && !leaving[t]) lost = 1;
        lost_runs += lost;
        if (bad) fail++; else pass++;
      }
    }
    blosc2_remove_urlpath(path);
    printf("%s frame: %ld I/O calls in the workload\n", sparse ? "sparse" : "contiguous", calls);
  }
  blosc2_destroy();
  printf("faults: %ld runs; frame did not reopen after %ld; committed chunks missing after %ld\n", runs, unopenable, lost_runs);
  printf("faults: %d passed, %d failed\n", pass, fail);
  return fail != 0;
}
