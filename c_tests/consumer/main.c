/* A tiny program built against an installed libblosc2, via pkg-config and via CMake. */
#include <stdio.h>
#include <string.h>
#include <blosc2.h>

int main(void) {
  char src[4000], back[4000], comp[4000 + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 4000; i++) src[i] = (char)(i % 13);
  blosc2_init();
  int c = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, sizeof(src), comp, sizeof(comp));
  int d = blosc2_decompress(comp, c, back, sizeof(back));
  blosc2_destroy();
  if (c <= 0 || d != (int)sizeof(src) || memcmp(src, back, sizeof(src)) != 0) {
    fprintf(stderr, "round trip failed: %d %d\n", c, d);
    return 1;
  }
  printf("consumer ok: %s, %d -> %d bytes\n", blosc2_get_version_string(), (int)sizeof(src), c);
  return 0;
}
