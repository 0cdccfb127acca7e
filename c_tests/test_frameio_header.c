// c_tests: compare-output
// Thread counts recorded in frame headers (bytes 0x3e..0x43: d1 <int16 BE comp> d1 <int16 BE
// decomp>) and frame bytes produced by the serialisers:
// - blosc2_schunk_to_buffer/to_file of a plain super-chunk (copied with default dparams),
//   of an in-memory frame (as stored), of on-disk frames;
// - blosc2_schunk_copy with and without dparams in the target storage;
// - to_buffer of a plain super-chunk equals to_buffer of its to_file output re-opened;
// - argument errors of to_buffer/to_file/append_file/from_buffer/open.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>

static uint32_t fnv(const uint8_t* p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void show(const char* tag, blosc2_schunk* s) {
  if (s == NULL) { printf("%-28s NULL\n", tag); return; }
  uint8_t* f;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(s, &f, &nf);
  if (len < 0x44) { printf("%-28s to_buffer=%lld\n", tag, (long long)len); return; }
  printf("%-28s len=%lld threads comp=%d decomp=%d fnv=%08x\n", tag, (long long)len, (f[0x3f] << 8) | f[0x40],
         (f[0x42] << 8) | f[0x43], fnv(f, len));
  if (nf) free(f);
}

static void fill(blosc2_schunk* s) {
  int32_t buf[1000];
  for (int c = 0; c < 2; c++) {
    for (int i = 0; i < 1000; i++) buf[i] = c * 7 + i;
    blosc2_schunk_append_buffer(s, buf, sizeof(buf));
  }
}

int main(void) {
  blosc2_init();
  const char* files[] = {"fih_plain.b2frame", "fih_disk.b2frame", "fih_sparse.b2frame", "fih_copy.b2frame"};
  for (int i = 0; i < 4; i++) blosc2_remove_urlpath(files[i]);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 4;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 3;

  blosc2_storage plain_st = {.cparams = &cp, .dparams = &dp};
  blosc2_schunk* plain = blosc2_schunk_new(&plain_st);
  fill(plain);
  show("plain", plain);
  blosc2_storage mem_st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk* mem = blosc2_schunk_new(&mem_st);
  fill(mem);
  show("in-memory frame", mem);
  blosc2_storage disk_st = {.contiguous = true, .urlpath = (char*)files[1], .cparams = &cp, .dparams = &dp};
  blosc2_schunk* disk = blosc2_schunk_new(&disk_st);
  fill(disk);
  show("on-disk frame", disk);
  blosc2_storage sp_st = {.contiguous = false, .urlpath = (char*)files[2], .cparams = &cp, .dparams = &dp};
  blosc2_schunk* sparse = blosc2_schunk_new(&sp_st);
  fill(sparse);
  show("sparse frame", sparse);

  printf("to_file plain=%lld\n", (long long)blosc2_schunk_to_file(plain, files[0]));
  blosc2_schunk* re = blosc2_schunk_open(files[0]);
  show("plain re-opened", re);
  blosc2_schunk_free(re);
  re = blosc2_schunk_open(files[1]);
  show("on-disk re-opened", re);
  blosc2_schunk_free(re);

  blosc2_storage c1 = {.contiguous = true};
  blosc2_schunk* copy = blosc2_schunk_copy(plain, &c1);
  show("copy, no dparams", copy);
  blosc2_schunk_free(copy);
  blosc2_dparams dp5 = BLOSC2_DPARAMS_DEFAULTS;
  dp5.nthreads = 5;
  blosc2_storage c2 = {.contiguous = true, .dparams = &dp5};
  copy = blosc2_schunk_copy(mem, &c2);
  show("copy, dparams 5", copy);
  blosc2_schunk_free(copy);
  blosc2_cparams cp2 = cp;
  cp2.nthreads = 2;
  blosc2_storage c3 = {.contiguous = true, .cparams = &cp2, .dparams = &dp5};
  copy = blosc2_schunk_copy(disk, &c3);
  show("copy, cparams 2 dparams 5", copy);
  blosc2_schunk_free(copy);
  blosc2_storage c4 = {.contiguous = true, .urlpath = (char*)files[3], .dparams = &dp5};
  copy = blosc2_schunk_copy(plain, &c4);
  blosc2_schunk_free(copy);
  re = blosc2_schunk_open(files[3]);
  show("copy to file, re-opened", re);
  blosc2_schunk_free(re);

  printf("errors:\n");
  printf("  to_file(NULL)=%lld append_file(NULL)=%lld\n", (long long)blosc2_schunk_to_file(plain, NULL),
         (long long)blosc2_schunk_append_file(plain, NULL));
  printf("  to_file(existing, plain)=%lld\n", (long long)blosc2_schunk_to_file(plain, files[0]));
  printf("  to_file(bad dir)=%lld\n", (long long)blosc2_schunk_to_file(mem, "fih_no/such/dir.b2frame"));
  printf("  append_file(bad dir)=%lld\n", (long long)blosc2_schunk_append_file(mem, "fih_no/such/dir.b2frame"));
  uint8_t junk[100];
  memset(junk, 0x5a, sizeof(junk));
  printf("  from_buffer(junk)=%s\n", blosc2_schunk_from_buffer(junk, sizeof(junk), true) == NULL ? "NULL" : "schunk");
  printf("  from_buffer(NULL)=%s\n", blosc2_schunk_from_buffer(NULL, 10, true) == NULL ? "NULL" : "schunk");
  printf("  open(NULL)=%s\n", blosc2_schunk_open(NULL) == NULL ? "NULL" : "schunk");
  printf("  open(missing)=%s\n", blosc2_schunk_open("fih_missing") == NULL ? "NULL" : "schunk");
  printf("  open_offset(-1)=%s\n", blosc2_schunk_open_offset(files[0], -1) == NULL ? "NULL" : "schunk");
  printf("  open_offset(past end)=%s\n", blosc2_schunk_open_offset(files[0], 1 << 20) == NULL ? "NULL" : "schunk");
  printf("  open_offset(1)=%s\n", blosc2_schunk_open_offset(files[0], 1) == NULL ? "NULL" : "schunk");

  blosc2_schunk_free(plain);
  blosc2_schunk_free(mem);
  blosc2_schunk_free(disk);
  blosc2_schunk_free(sparse);
  for (int i = 0; i < 4; i++) blosc2_remove_urlpath(files[i]);
  blosc2_destroy();
  return 0;
}
