/* c-blosc 1.x API benchmark: compiled once against blosc.h, run with each libblosc.so.1 on
 * LD_LIBRARY_PATH by scripts/bench-blosc1.sh (which alternates the libraries). Uses the
 * global API (blosc_set_compressor/nthreads, blosc_compress, blosc_decompress), as
 * python-blosc, numcodecs, PyTables and the HDF5 plugin do.
 *   bench1 CODEC   one line per (data, filter, clevel, threads):
 *                  data codec filter clevel threads ratio comp_GBps decomp_GBps */
#include <blosc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define N (4u << 20)

int main(int argc, char **argv) {
  const char *codec = argc > 1 ? argv[1] : "blosclz";
  static uint8_t src[3][N], dest[N + 16], back[N];
  const char *names[3] = {"smooth-f32", "ramp-i64", "random"};
  const size_t ts[3] = {4, 8, 4};
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i < N / 4; i++) {
    float f = (float)(sin((double)i / 300.0) * 1000.0);
    memcpy(src[0] + 4 * i, &f, 4);
    src[0][4 * i] ^= (uint8_t)(i * 7);
  }
  for (size_t i = 0; i < N / 8; i++) { int64_t v = (int64_t)i * 3; memcpy(src[1] + 8 * i, &v, 8); }
  for (size_t i = 0; i < N; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; src[2][i] = (uint8_t)x; }
  blosc_init();
  if (blosc_set_compressor(codec) < 0) return 1;
  static const char *filters[3] = {"nofilter", "shuffle", "bitshuffle"};
  const int clevels[3] = {1, 5, 9};
  for (int d = 0; d < 3; d++)
    for (int f = 0; f < 3; f++)
      for (int c = 0; c < 3; c++)
        for (int th = 1; th <= 2; th++) {
          blosc_set_nthreads(th);
          double best_c = 1e9, best_d = 1e9;
          int csize = 0;
          double t_end = now() + 0.12;
          int reps = 0;
          do {
            double t0 = now();
            csize = blosc_compress(clevels[c], f, ts[d], N, src[d], dest, sizeof dest);
            double t1 = now();
            int dsize = blosc_decompress(dest, back, N);
            double t2 = now();
            if (csize <= 0 || dsize != (int)N) { fprintf(stderr, "failed %d %d\n", csize, dsize); return 1; }
            if (t1 - t0 < best_c) best_c = t1 - t0;
            if (t2 - t1 < best_d) best_d = t2 - t1;
            reps++;
          } while (now() < t_end || reps < 3);
          if (memcmp(back, src[d], N) != 0) { fprintf(stderr, "roundtrip\n"); return 1; }
          printf("%s %s %s %d %d %.2f %.3f %.3f\n", names[d], codec, filters[f], clevels[c], th,
                 (double)N / csize, N / best_c / 1e9, N / best_d / 1e9);
        }
  blosc_destroy();
  return 0;
}
