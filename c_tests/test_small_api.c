// c_tests: compare-output
// The small global API returns exactly what the reference returns, bad input included.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); return 1; } } while (0)

int main(void) {
  blosc2_init();
  printf("version %s\n", blosc2_get_version_string());
  CHECK(strcmp(blosc2_get_version_string(), BLOSC2_VERSION_STRING) == 0);
  printf("compressors %s\n", blosc2_list_compressors());

  for (int code = -2; code <= 40; code++) {
    const char *name = (const char *)0x1;
    int rc = blosc2_compcode_to_compname(code, &name);
    printf("compcode %d -> %d %s\n", code, rc, name ? name : "(null)");
  }
  const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd", "snappy", "LZ4", "", "zstd ", "ndlz"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    printf("compname '%s' -> %d\n", names[i], blosc2_compname_to_compcode(names[i]));
  }
  for (int i = 0; i < 5; i++) {
    char *lib = NULL, *ver = NULL;
    int rc = blosc2_get_complib_info(names[i], &lib, &ver);
    printf("complib %s -> %d %s %s\n", names[i], rc, lib, ver);
    CHECK(lib != NULL && ver != NULL);
    free(lib);
    free(ver);
  }
  for (int e = 3; e >= -40; e--) {
    printf("error %d: %s\n", e, blosc2_error_string(e));
  }

  printf("nthreads %d\n", blosc2_get_nthreads());
  printf("set 3 -> %d\n", blosc2_set_nthreads(3));
  printf("nthreads %d\n", blosc2_get_nthreads());
  printf("set 1 -> %d\n", blosc2_set_nthreads(1));

  printf("compressor %s\n", blosc1_get_compressor());
  printf("set lz4 -> %d\n", blosc1_set_compressor("lz4"));
  printf("compressor %s\n", blosc1_get_compressor());
  printf("set bogus -> %d\n", blosc1_set_compressor("bogus"));
  printf("set blosclz -> %d\n", blosc1_set_compressor("blosclz"));
  printf("blocksize %d\n", blosc1_get_blocksize());
  blosc1_set_blocksize(4096);
  printf("blocksize %d\n", blosc1_get_blocksize());
  blosc1_set_blocksize(0);

  blosc2_cparams cp = blosc2_get_blosc2_cparams_defaults();
  blosc2_cparams cpd = BLOSC2_CPARAMS_DEFAULTS;
  /* Field by field: the padding between fields is unspecified in both libraries (valgrind
     flags a memcmp over it). */
  CHECK(cp.compcode == cpd.compcode && cp.compcode_meta == cpd.compcode_meta && cp.clevel == cpd.clevel &&
        cp.use_dict == cpd.use_dict && cp.typesize == cpd.typesize && cp.nthreads == cpd.nthreads &&
        cp.blocksize == cpd.blocksize && cp.splitmode == cpd.splitmode);
  printf("cparams %d %d %d %d %d %d %d %d f5=%d\n", cp.compcode, cp.compcode_meta, cp.clevel, cp.use_dict,
         cp.typesize, cp.nthreads, cp.blocksize, cp.splitmode, cp.filters[5]);
  blosc2_dparams dp = blosc2_get_blosc2_dparams_defaults();
  printf("dparams %d %d\n", dp.nthreads, dp.typesize);
  blosc2_storage st = blosc2_get_blosc2_storage_defaults();
  printf("storage %d %p %p\n", st.contiguous, (void *)st.urlpath, (void *)st.cparams);
  blosc2_io io = blosc2_get_blosc2_io_defaults();
  printf("io %d %s\n", io.id, io.name);
  blosc2_stdio_mmap mm = blosc2_get_blosc2_stdio_mmap_defaults();
  printf("mmap %s %lld %d\n", mm.mode, (long long)mm.initial_mapping_size, (int)mm.needs_free);

  blosc_timestamp_t t0, t1;
  blosc_set_timestamp(&t0);
  volatile double x = 0;
  for (int i = 0; i < 1000000; i++) x += i;
  blosc_set_timestamp(&t1);
  double ns = blosc_elapsed_nsecs(t0, t1);
  double s = blosc_elapsed_secs(t0, t1);
  CHECK(ns > 0 && s > 0 && ns / 1e9 - s < 1e-9 && s - ns / 1e9 < 1e-9);
  printf("timestamps ok\n");

  printf("free_resources %d\n", blosc2_free_resources());
  blosc2_destroy();
  printf("free_resources after destroy %d\n", blosc2_free_resources());
  return 0;
}
