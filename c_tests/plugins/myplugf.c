/* A filter plugin as the reference loads them: libblosc2_<name>.so exporting `info`, the
   names of its forward and backward functions. Built by c_tests/run.sh for test_plugins.c. */
#include <stdint.h>
#include "blosc2.h"
#include "blosc2/filters-registry.h"
int myplugf_fwd(const uint8_t *src, uint8_t *dst, int32_t size, uint8_t meta, blosc2_cparams *cp, uint8_t id) {
  for (int32_t i = 0; i < size; i++) dst[i] = src[i] ^ 0x5a;
  return 0;
}
int myplugf_bwd(const uint8_t *src, uint8_t *dst, int32_t size, uint8_t meta, blosc2_dparams *dp, uint8_t id) {
  for (int32_t i = 0; i < size; i++) dst[i] = src[i] ^ 0x5a;
  return 0;
}
filter_info info = {"myplugf_fwd", "myplugf_bwd"};
