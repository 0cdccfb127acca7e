/* The exported shuffle kernels of two libraries side by side, in one process.
 *   kernels OURS.so REF.so [ROUNDS] [MS]
 * For each kernel (shuffle, unshuffle, bitshuffle, bitunshuffle), type size
 * (1-18, 24, 32, 64), block size (8, 32, 256 KiB) and offset from a page (0, 16 bytes), the
 * two libraries are timed alternately, ROUNDS rounds (default 61) of MS milliseconds
 * (default 2) each, and the best round of each kept (a busy spell only slows a round
 * down). Each output is checked against the other library's, byte for byte. One line each:
 *   kernel ts KiB offset ours_GBps ref_GBps ratio
 * A benchmark, not a test (scripts/bench-kernels.sh). KERNELS_TS / KERNELS_KIB restrict
 * the type sizes / block sizes to a comma-separated list; KERNELS_OFF replaces the
 * offsets (up to 8, each below 4096). */
#define _GNU_SOURCE /* RTLD_DEEPBIND, dladdr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "side_by_side.h"

typedef int32_t (*kernel_fn)(int32_t, int32_t, const void *, void *);

static const char *const names[4] = {"blosc2_shuffle", "blosc2_unshuffle", "blosc2_bitshuffle",
                                     "blosc2_bitunshuffle"};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Calls per round are fixed before timing so both libraries do the same work. */
static double round_time(kernel_fn k, int32_t ts, int32_t n, const void *src, void *dst, int calls) {
  double t0 = now();
  for (int i = 0; i < calls; i++)
    if (k(ts, n, src, dst) < 0) return -1;
  return now() - t0;
}

static int listed(const char *env, int v) {
  const char *s = getenv(env);
  if (!s || !*s) return 1;
  while (*s) {
    if (atoi(s) == v) return 1;
    s = strchr(s, ',');
    if (!s) break;
    s++;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kernels OURS.so REF.so [ROUNDS] [MS]\n");
    return 2;
  }
  int rounds = argc > 3 ? atoi(argv[3]) : 61;
  double ms = argc > 4 ? atof(argv[4]) : 2.0;
  kernel_fn ours[4], ref[4];
  void **so[4] = {(void **)&ours[0], (void **)&ours[1], (void **)&ours[2], (void **)&ours[3]};
  void **sr[4] = {(void **)&ref[0], (void **)&ref[1], (void **)&ref[2], (void **)&ref[3]};
  if (open_side(argv[1], "ours", names, so, 4, 0) || open_side(argv[2], "ref", names, sr, 4, 0)) return 2;
  const int tss[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 24, 32, 64};
  /* 48, 64, 96 and 128 KiB only when KERNELS_KIB lists them. */
  const int kibs[] = {8, 32, 48, 64, 96, 128, 256};
  int offs[8] = {0, 16}, noffs = 2;
  const char *off_env = getenv("KERNELS_OFF");
  if (off_env && *off_env) {
    noffs = 0;
    for (const char *p = off_env; p && *p && noffs < 8; p = strchr(p, ','), p = p ? p + 1 : p) {
      int v = atoi(p);
      if (v < 0 || v >= 4096) {
        fprintf(stderr, "KERNELS_OFF: %d out of range\n", v);
        return 2;
      }
      offs[noffs++] = v;
    }
  }
  const size_t cap = (256u << 10) + 4096;
  unsigned char *a = aligned_alloc(4096, cap), *b = aligned_alloc(4096, cap), *c = aligned_alloc(4096, cap);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < cap; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    a[i] = (unsigned char)(x & 0x0f);
  }
  int bad = 0;
  for (int k = 0; k < 4; k++)
    for (size_t t = 0; t < sizeof tss / sizeof *tss; t++) {
      if (!listed("KERNELS_TS", tss[t])) continue;
      /* KERNELS_BYTES: one block size in bytes (a chunk's odd size) instead of the list. */
      const char *bytes_env = getenv("KERNELS_BYTES");
      int one = bytes_env && *bytes_env ? atoi(bytes_env) : 0;
      if (one < 0 || (size_t)one > (256u << 10)) {
        fprintf(stderr, "KERNELS_BYTES: %d out of range\n", one);
        return 2;
      }
      for (size_t z = 0; z < (one ? 1 : sizeof kibs / sizeof *kibs); z++) {
        const char *kib_env = getenv("KERNELS_KIB");
        if (!one && (kib_env && *kib_env ? !listed("KERNELS_KIB", kibs[z]) : (kibs[z] != 8 && kibs[z] != 32 && kibs[z] != 256))) continue;
        char size[24];
        if (one) snprintf(size, sizeof size, "%dB", one);
        else snprintf(size, sizeof size, "%dKiB", kibs[z]);
        for (int o = 0; o < noffs; o++) {
          int32_t ts = tss[t], n = one ? one : kibs[z] << 10;
          const unsigned char *src = a + offs[o];
          unsigned char *dst = b + offs[o];
          if (ours[k](ts, n, src, dst) < 0 || ref[k](ts, n, src, c) < 0 || memcmp(dst, c, (size_t)n) != 0) {
            printf("%s ts%d %s +%d MISMATCH\n", names[k] + 7, ts, size, offs[o]);
            bad = 1;
            continue;
          }
          /* Calls per round: about MS ms of the reference's speed. */
          int calls = 1;
          while (round_time(ref[k], ts, n, src, dst, calls) < ms * 1e-3 && calls < (1 << 20)) calls *= 2;
          double bo = 1e9, br = 1e9;
          for (int r = 0; r < rounds; r++) {
            double to, tr;
            if (r % 2) {
              to = round_time(ours[k], ts, n, src, dst, calls);
              tr = round_time(ref[k], ts, n, src, dst, calls);
            } else {
              tr = round_time(ref[k], ts, n, src, dst, calls);
              to = round_time(ours[k], ts, n, src, dst, calls);
            }
            if (to < bo) bo = to;
            if (tr < br) br = tr;
          }
          double go = (double)n * calls / bo / 1e9, gr = (double)n * calls / br / 1e9;
          printf("%s ts%d %s +%d %.2f %.2f %.3f%s\n", names[k] + 7, ts, size, offs[o], go, gr, go / gr,
                 go / gr < 0.95 ? "  <0.95" : "");
          fflush(stdout);
        }
      }
    }
  free(a); free(b); free(c);
  return bad;
}
