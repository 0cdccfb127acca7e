/* A codec plugin as the reference loads them: libblosc2_<name>.so exporting `info`, the
   names of its encoder and decoder. Built by c_tests/run.sh for test_plugins.c. */
#include <stdint.h>
#include <string.h>
#include "blosc2.h"
#include "blosc2/codecs-registry.h"
int myplug_enc(const uint8_t *src, int32_t n, uint8_t *dst, int32_t cap, uint8_t meta, blosc2_cparams *cp, const void *chunk) {
  if (n % 4 != 0 || cap < n / 4) return 0;
  for (int32_t i = 0; i < n; i += 4) { if (src[i+1] | src[i+2] | src[i+3]) return 0; dst[i/4] = src[i]; }
  return n / 4;
}
int myplug_dec(const uint8_t *src, int32_t n, uint8_t *dst, int32_t cap, uint8_t meta, blosc2_dparams *dp, const void *chunk) {
  if (cap < 4 * n) return -1;
  memset(dst, 0, 4 * n);
  for (int32_t i = 0; i < n; i++) dst[4*i] = src[i];
  return 4 * n;
}
codec_info info = {"myplug_enc", "myplug_dec"};
