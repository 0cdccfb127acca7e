/* A codec plugin whose `info` names functions the library does not have: loaders must
   reject it and unload it again (c_tests/test_plugin_unload.c). */
#include "blosc2.h"
#include "blosc2/codecs-registry.h"
int brokenplug_something(void) { return 1; }
codec_info info = {"brokenplug_enc_missing", "brokenplug_dec_missing"};
