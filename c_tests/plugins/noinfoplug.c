/* A library named like a plugin but without the `info` symbol: rejected and unloaded
   (c_tests/test_plugin_unload.c). */
int noinfoplug_something(void) { return 2; }
