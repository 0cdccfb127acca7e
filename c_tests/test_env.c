// c_tests: compare-output
// The BLOSC_* environment variables change the global API's decisions exactly as in the
// reference: print the resulting chunk headers and a checksum of each chunk.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "blosc2.h"

static uint32_t fnv(const unsigned char *p, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static int run(const char *label, int with_sum) {
  enum { N = 200000 };
  static float src[N / 4];
  static unsigned char dest[N + 64], back[N];
  for (int i = 0; i < N / 4; i++) src[i] = (float)(i % 1000) * 0.5f;
  int c = blosc1_compress(5, BLOSC_SHUFFLE, 4, N, src, dest, sizeof(dest));
  if (c <= 0) { printf("%s: compress -> %d\n", label, c); return 0; }
  int d = blosc1_decompress(dest, back, N);
  if (d != N || memcmp(back, src, N) != 0) { fprintf(stderr, "%s: round trip failed (%d)\n", label, d); return 1; }
  printf("%-28s cbytes=%d hdr:", label, c);
  for (int i = 0; i < 16; i++) printf("%02x", dest[i]);
  if (with_sum) printf(" sum=%08x", fnv(dest, c));
  printf("\n");
  return 0;
}

int main(void) {
  blosc2_init();
  int bad = 0;
  bad |= run("defaults", 1);
  setenv("BLOSC_CLEVEL", "9", 1); bad |= run("BLOSC_CLEVEL=9", 1);
  setenv("BLOSC_CLEVEL", "0", 1); bad |= run("BLOSC_CLEVEL=0", 1);
  setenv("BLOSC_CLEVEL", "22", 1); bad |= run("BLOSC_CLEVEL=22 (ignored)", 1);
  unsetenv("BLOSC_CLEVEL");
  setenv("BLOSC_SHUFFLE", "NOSHUFFLE", 1); bad |= run("BLOSC_SHUFFLE=NOSHUFFLE", 1);
  setenv("BLOSC_SHUFFLE", "BITSHUFFLE", 1); bad |= run("BLOSC_SHUFFLE=BITSHUFFLE", 1);
  setenv("BLOSC_SHUFFLE", "bogus", 1); bad |= run("BLOSC_SHUFFLE=bogus", 1);
  unsetenv("BLOSC_SHUFFLE");
  setenv("BLOSC_TYPESIZE", "8", 1); bad |= run("BLOSC_TYPESIZE=8", 1);
  unsetenv("BLOSC_TYPESIZE");
  setenv("BLOSC_DELTA", "1", 1); bad |= run("BLOSC_DELTA=1", 1);
  setenv("BLOSC_DELTA", "0", 1); bad |= run("BLOSC_DELTA=0", 1);
  unsetenv("BLOSC_DELTA");
  setenv("BLOSC_COMPRESSOR", "lz4", 1); bad |= run("BLOSC_COMPRESSOR=lz4", 0);
  setenv("BLOSC_COMPRESSOR", "zstd", 1); bad |= run("BLOSC_COMPRESSOR=zstd", 0);
  setenv("BLOSC_COMPRESSOR", "nope", 1); bad |= run("BLOSC_COMPRESSOR=nope", 0);
  setenv("BLOSC_COMPRESSOR", "blosclz", 1); bad |= run("BLOSC_COMPRESSOR=blosclz", 1);
  unsetenv("BLOSC_COMPRESSOR");
  setenv("BLOSC_BLOCKSIZE", "16384", 1); bad |= run("BLOSC_BLOCKSIZE=16384", 1);
  unsetenv("BLOSC_BLOCKSIZE");
  blosc1_set_blocksize(0);
  setenv("BLOSC_SPLITMODE", "NEVER", 1); bad |= run("BLOSC_SPLITMODE=NEVER", 1);
  setenv("BLOSC_SPLITMODE", "ALWAYS", 1); bad |= run("BLOSC_SPLITMODE=ALWAYS", 1);
  unsetenv("BLOSC_SPLITMODE");
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  setenv("BLOSC_NTHREADS", "2", 1); bad |= run("BLOSC_NTHREADS=2", 0);
  printf("nthreads now %d\n", blosc2_get_nthreads());
  unsetenv("BLOSC_NTHREADS");
  setenv("BLOSC_NOLOCK", "1", 1); bad |= run("BLOSC_NOLOCK=1", 0);
  unsetenv("BLOSC_NOLOCK");
  blosc2_set_nthreads(1);
  bad |= run("back to defaults", 1);
  blosc2_destroy();
  return bad;
}
