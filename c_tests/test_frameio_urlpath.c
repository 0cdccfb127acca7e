// c_tests: compare-output
// "file:///" prefixes in urlpaths: blosc2_schunk_new (contiguous and sparse), _copy, _open,
// _open_offset and _open_udio treat "file:///name" as the local path "name" and record the
// stripped path in schunk->storage->urlpath; the file helpers (to_file, append_file,
// remove_urlpath, remove_dir) take paths literally, as in the reference.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <blosc2.h>

static const char* exists(const char* p) {
  struct stat st;
  if (stat(p, &st) != 0) return "missing";
  return S_ISDIR(st.st_mode) ? "dir" : "file";
}

static void show(const char* tag, blosc2_schunk* s) {
  if (s == NULL) { printf("%s: NULL\n", tag); return; }
  printf("%s: nchunks=%lld contiguous=%d urlpath=%s\n", tag, (long long)s->nchunks, s->storage->contiguous,
         s->storage->urlpath ? s->storage->urlpath : "(null)");
}

int main(void) {
  blosc2_init();
  const char* local[] = {"fiu_new.b2frame", "fiu_sparse.b2frame", "fiu_copy.b2frame", "fiu_file.b2frame"};
  for (int i = 0; i < 4; i++) blosc2_remove_urlpath(local[i]);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  int32_t buf[256];
  for (int i = 0; i < 256; i++) buf[i] = i;

  blosc2_storage st = {.contiguous = true, .urlpath = "file:///fiu_new.b2frame", .cparams = &cp};
  blosc2_schunk* a = blosc2_schunk_new(&st);
  if (a) blosc2_schunk_append_buffer(a, buf, sizeof(buf));
  show("new contiguous", a);
  printf("  fiu_new.b2frame: %s\n", exists("fiu_new.b2frame"));

  blosc2_storage sst = {.contiguous = false, .urlpath = "file:///fiu_sparse.b2frame", .cparams = &cp};
  blosc2_schunk* b = blosc2_schunk_new(&sst);
  if (b) blosc2_schunk_append_buffer(b, buf, sizeof(buf));
  show("new sparse", b);
  printf("  fiu_sparse.b2frame: %s\n", exists("fiu_sparse.b2frame"));

  blosc2_storage cst = {.contiguous = true, .urlpath = "file:///fiu_copy.b2frame"};
  blosc2_schunk* c = a ? blosc2_schunk_copy(a, &cst) : NULL;
  show("copy", c);
  printf("  fiu_copy.b2frame: %s\n", exists("fiu_copy.b2frame"));
  blosc2_schunk_free(c);
  blosc2_schunk_free(b);

  // The file helpers take the path as given.
  int64_t r = a ? blosc2_schunk_to_file(a, "file:///fiu_file.b2frame") : -1;
  printf("to_file(file:///...) ok=%d local=%s\n", r > 0, exists("fiu_file.b2frame"));
  blosc2_schunk_free(a);

  blosc2_storage mst = {.cparams = &cp};
  blosc2_schunk* m = blosc2_schunk_new(&mst);
  blosc2_schunk_append_buffer(m, buf, sizeof(buf));
  blosc2_schunk_to_file(m, "fiu_file.b2frame");
  int64_t off = blosc2_schunk_append_file(m, "fiu_file.b2frame");
  printf("append_file offset>0=%d\n", off > 0);
  blosc2_schunk_free(m);

  blosc2_schunk* o = blosc2_schunk_open("file:///fiu_file.b2frame");
  show("open", o);
  blosc2_schunk_free(o);
  o = blosc2_schunk_open_offset("file:///fiu_file.b2frame", off);
  show("open_offset", o);
  blosc2_schunk_free(o);
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  o = blosc2_schunk_open_udio("file:///fiu_file.b2frame", &io);
  show("open_udio", o);
  blosc2_schunk_free(o);
  o = blosc2_schunk_open("file:///fiu_sparse.b2frame");
  show("open sparse", o);
  blosc2_schunk_free(o);
  o = blosc2_schunk_open("file:///fiu_sparse.b2frame/");
  show("open sparse/", o);
  blosc2_schunk_free(o);
  o = blosc2_schunk_open("file://fiu_file.b2frame");
  show("open file://", o);
  o = blosc2_schunk_open("file:///fiu_missing.b2frame");
  show("open missing", o);

  printf("remove_urlpath(file:///...)=%d local=%s\n", blosc2_remove_urlpath("file:///fiu_new.b2frame"),
         exists("fiu_new.b2frame"));
  printf("remove_dir(file:///...)=%d local=%s\n", blosc2_remove_dir("file:///fiu_sparse.b2frame"),
         exists("fiu_sparse.b2frame"));
  // Trailing slashes of sparse frame directories.
  blosc2_remove_urlpath("fiu_sl");
  blosc2_remove_urlpath("fiu_slc");
  blosc2_storage slst = {.contiguous = false, .urlpath = "file:///fiu_sl/", .cparams = &cp};
  blosc2_schunk* s = blosc2_schunk_new(&slst);
  if (s) blosc2_schunk_append_buffer(s, buf, sizeof(buf));
  show("new sparse, file:/// and /", s);
  blosc2_schunk_free(s);
  s = blosc2_schunk_open("fiu_sl/");
  show("open sparse/", s);
  blosc2_storage slc = {.contiguous = false, .urlpath = "fiu_slc/"};
  blosc2_schunk* sc = s ? blosc2_schunk_copy(s, &slc) : NULL;
  show("copy to sparse/", sc);
  blosc2_schunk_free(sc);
  blosc2_schunk_free(s);
  blosc2_remove_urlpath("fiu_sl");
  blosc2_remove_urlpath("fiu_slc");
  for (int i = 0; i < 4; i++) blosc2_remove_urlpath(local[i]);
  blosc2_destroy();
  return 0;
}
