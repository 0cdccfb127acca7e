// c_tests: compare-output
// Truncated frame files: a small contiguous frame (four data chunks, a zeros chunk, a
// metalayer, two vlmetalayers) cut at every byte offset is opened with blosc2_schunk_open
// and every chunk decompressed. Each cut must fail to open or give back exactly the original
// chunks (or an error per chunk): never different data, never a crash. Prints one line per
// cut that opens and a summary of the cuts that fail.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>

static int32_t orig[5][1000];
static int orig_len[5];

static void make(const char* path, int compcode, int filter) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.compcode = compcode; cp.clevel = 5; cp.nthreads = 1;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  blosc2_storage st = {.contiguous = true, .urlpath = (char*)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk* s = blosc2_schunk_new(&st);
  if (s == NULL) { printf("new failed\n"); exit(1); }
  blosc2_meta_add(s, "grid", (uint8_t*)"\x93\x01\x02\x03", 4);
  blosc2_vlmeta_add(s, "author", (uint8_t*)"someone", 7, NULL);
  uint8_t big[300];
  memset(big, 42, sizeof(big));
  blosc2_vlmeta_add(s, "big", big, sizeof(big), NULL);
  for (int k = 0; k < 5; k++) {
    if (k == 3) {
      uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
      blosc2_chunk_zeros(cp, 4000, z, sizeof(z));
      blosc2_schunk_append_chunk(s, z, true);
      memset(orig[k], 0, 4000);
      orig_len[k] = 4000;
      continue;
    }
    int n = k == 4 ? 300 : 1000;
    for (int i = 0; i < n; i++) orig[k][i] = i * 7 + k * 1000 + (i % 13);
    orig_len[k] = n * 4;
    blosc2_schunk_append_buffer(s, orig[k], n * 4);
  }
  blosc2_schunk_free(s);
}

static void run(const char* tag, int compcode, int filter) {
  const char* full = "ttr_full.b2frame";
  const char* cut = "ttr_cut.b2frame";
  make(full, compcode, filter);
  FILE* f = fopen(full, "rb");
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* bytes = malloc(len);
  if (fread(bytes, 1, len, f) != (size_t)len) { printf("read failed\n"); exit(1); }
  fclose(f);
  printf("== %s: frame of %ld bytes\n", tag, len);
  int failed = 0, bad = 0;
  for (long n = 0; n <= len; n++) {
    f = fopen(cut, "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
    blosc2_schunk* s = blosc2_schunk_open(cut);
    if (s == NULL) { failed++; continue; }
    printf("  cut %ld: nchunks=%lld nmeta=%d nvl=%d:", n, (long long)s->nchunks, s->nmetalayers, s->nvlmetalayers);
    int32_t out[2000];
    for (int64_t i = 0; i < s->nchunks && i < 5; i++) {
      int r = blosc2_schunk_decompress_chunk(s, i, out, sizeof(out));
      if (r >= 0 && (r != orig_len[i] || memcmp(out, orig[i], r) != 0)) { bad++; printf(" GARBAGE"); }
      printf(" %d", r);
    }
    printf("\n");
    blosc2_schunk_free(s);
  }
  printf("  %d cuts fail to open, %d chunks with wrong data\n", failed, bad);
  free(bytes);
  blosc2_remove_urlpath(full);
  blosc2_remove_urlpath(cut);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  run("blosclz shuffle", BLOSC_BLOSCLZ, BLOSC_SHUFFLE);
  run("lz4 bitshuffle", BLOSC_LZ4, BLOSC_BITSHUFFLE);
  blosc2_destroy();
  return 0;
}
