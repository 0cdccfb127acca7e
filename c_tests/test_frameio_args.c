// c_tests: compare-output
// Frame calls on odd arguments and odd files, as the reference answers them:
// blosc2_frame_get_offsets and blosc2_schunk_refresh on plain, in-memory and NULL super-chunks;
// open of an empty file and of a directory without an index; to_file/append_file onto
// directories, empty and existing files; to_buffer of a plain super-chunk.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <blosc2.h>
int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk* p = blosc2_schunk_new(&st);
  int32_t buf[100] = {0};
  blosc2_schunk_append_buffer(p, buf, sizeof(buf));
  int64_t* o = blosc2_frame_get_offsets(p);
  free(o);
  printf("offsets plain: %s\n", o ? "set" : "NULL");
  printf("refresh plain=%d\n", blosc2_schunk_refresh(p));
  blosc2_storage ms = {.contiguous = true, .cparams = &cp};
  blosc2_schunk* m = blosc2_schunk_new(&ms);
  blosc2_schunk_append_buffer(m, buf, sizeof(buf));
  o = blosc2_frame_get_offsets(m);
  printf("offsets mem: %s %lld\n", o ? "set" : "NULL", o ? (long long)o[0] : -1LL);
  free(o);
  printf("refresh mem=%d refresh NULL=%d\n", blosc2_schunk_refresh(m), blosc2_schunk_refresh(NULL));
  FILE* f = fopen("empty.b2frame", "wb"); fclose(f);
  blosc2_remove_urlpath("emptydir");
  printf("open empty=%s\n", blosc2_schunk_open("empty.b2frame") ? "schunk" : "NULL");
  mkdir("emptydir", 0777);
  printf("open emptydir=%s\n", blosc2_schunk_open("emptydir") ? "schunk" : "NULL");
  printf("to_file dir=%lld\n", (long long)blosc2_schunk_to_file(m, "emptydir"));
  printf("append_file dir=%lld\n", (long long)blosc2_schunk_append_file(m, "emptydir"));
  printf("append_file empty=%lld\n", (long long)blosc2_schunk_append_file(m, "empty.b2frame"));
  blosc2_schunk* e = blosc2_schunk_open_offset("empty.b2frame", 0);
  printf("open_offset empty@0=%s nchunks=%lld\n", e ? "schunk" : "NULL", e ? (long long)e->nchunks : -1LL);
  blosc2_schunk_free(e);
  printf("to_file plain over existing file=%lld\n", (long long)blosc2_schunk_to_file(p, "empty.b2frame"));
  printf("to_file mem over existing file=%lld\n", (long long)blosc2_schunk_to_file(m, "empty.b2frame"));
  uint8_t* fr; bool nf;
  int64_t n = blosc2_schunk_to_buffer(p, &fr, &nf);
  printf("to_buffer plain=%lld nf=%d\n", (long long)n, nf);
  if (nf) free(fr);
  blosc2_schunk_free(p);
  blosc2_schunk_free(m);
  remove("empty.b2frame"); rmdir("emptydir");
  blosc2_destroy();
  return 0;
}
