// c_tests: compare-output
// User I/O backends (blosc2_register_io_cb) for contiguous and sparse frames:
// - every stream the library opens is closed before the API call returns (the reference
//   opens one per operation), for new, append, decompress, update, insert, delete, getitem,
//   vlmeta, open_udio and free;
// - sparse frames (contiguous=false) are created, edited and reopened through the backend,
//   and the files written equal those of the default backend (checksums printed);
// - the open modes the library asks for.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

typedef struct { int open, close, modes; } counts_t;
typedef struct { blosc2_stdio_file* f; counts_t* c; } wrap_t;

static int mode_bit(const char* m) {
  if (strcmp(m, "rb") == 0) return 1;
  if (strcmp(m, "rb+") == 0 || strcmp(m, "r+b") == 0) return 2;
  if (strcmp(m, "wb") == 0) return 4;
  if (strcmp(m, "wb+") == 0 || strcmp(m, "w+b") == 0) return 8;
  if (strcmp(m, "ab") == 0) return 32;
  return 16;
}

static void* w_open(const char* u, const char* mode, void* params) {
  counts_t* c = params;
  c->modes |= mode_bit(mode);
  blosc2_stdio_file* f = blosc2_stdio_open(u, mode, NULL);
  if (f == NULL) return NULL;
  wrap_t* w = malloc(sizeof(*w));
  w->f = f;
  w->c = c;
  c->open++;
  return w;
}
static int w_close(void* s) {
  wrap_t* w = s;
  w->c->close++;
  int r = blosc2_stdio_close(w->f);
  free(w);
  return r;
}
static int64_t w_size(void* s) { return blosc2_stdio_size(((wrap_t*)s)->f); }
static int64_t w_write(const void* p, int64_t sz, int64_t n, int64_t pos, void* s) {
  return blosc2_stdio_write(p, sz, n, pos, ((wrap_t*)s)->f);
}
static int64_t w_read(void** p, int64_t sz, int64_t n, int64_t pos, void* s) {
  return blosc2_stdio_read(p, sz, n, pos, ((wrap_t*)s)->f);
}
static int w_trunc(void* s, int64_t n) { return blosc2_stdio_truncate(((wrap_t*)s)->f, n); }
static int w_destroy(void* p) { (void)p; return 0; }

static uint32_t fnv(const uint8_t* p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static uint32_t file_sum(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* b = malloc(n > 0 ? n : 1);
  size_t got = fread(b, 1, n, f);
  fclose(f);
  uint32_t h = got == (size_t)n ? fnv(b, n) : 0;
  free(b);
  return h;
}

static counts_t c;

static void balance(const char* what) {
  printf("  %-16s balanced=%s\n", what, c.open > 0 && c.open == c.close ? "yes" : "NO");
}

static void data(int32_t* buf, int k) {
  for (int i = 0; i < 1000; i++) buf[i] = k * 1000 + i * (k + 1);
}

// Build the same super-chunk through `io` (NULL: default backend); prints what it sees.
static void build(const char* path, bool contiguous, blosc2_io* io) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 1024;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char*)path, .cparams = &cp, .io = io};
  blosc2_schunk* sc = blosc2_schunk_new(&st);
  if (sc == NULL) { printf("  new: NULL\n"); return; }
  if (io) balance("new");
  int32_t buf[1000], out[1000];
  for (int k = 0; k < 3; k++) {
    data(buf, k);
    blosc2_schunk_append_buffer(sc, buf, sizeof(buf));
  }
  if (io) balance("append");
  int rc = blosc2_schunk_decompress_chunk(sc, 1, out, sizeof(out));
  printf("  decompress=%d out[999]=%d\n", rc, out[999]);
  if (io) balance("decompress");
  data(buf, 7);
  uint8_t chunk[4000 + BLOSC2_MAX_OVERHEAD];
  blosc2_context* cctx = blosc2_create_cctx(cp);
  int csize = blosc2_compress_ctx(cctx, buf, sizeof(buf), chunk, sizeof(chunk));
  printf("  csize>0=%d\n", csize > 0);
  blosc2_free_ctx(cctx);
  printf("  update=%lld", (long long)blosc2_schunk_update_chunk(sc, 0, chunk, true));
  printf(" insert=%lld", (long long)blosc2_schunk_insert_chunk(sc, 2, chunk, true));
  printf(" delete=%lld\n", (long long)blosc2_schunk_delete_chunk(sc, 1));
  if (io) balance("update/insert");
  uint8_t meta[5] = {1, 2, 3, 4, 5};
  printf("  vlmeta_add=%d\n", blosc2_vlmeta_add(sc, "fio", meta, sizeof(meta), NULL));
  if (io) balance("vlmeta");
  int32_t items[10];
  rc = blosc2_schunk_get_slice_buffer(sc, 1500, 1510, items);
  printf("  slice=%d items[3]=%d\n", rc, items[3]);
  if (io) balance("slice");
  blosc2_schunk_free(sc);
  if (io) balance("free");
}

static void reopen(const char* path, blosc2_io* io) {
  blosc2_schunk* sc = io ? blosc2_schunk_open_udio(path, io) : blosc2_schunk_open(path);
  if (sc == NULL) { printf("  reopen: NULL\n"); return; }
  if (io) balance("open_udio");
  printf("  reopened: nchunks=%lld nbytes=%lld nvl=%d\n", (long long)sc->nchunks, (long long)sc->nbytes,
         sc->nvlmetalayers);
  int32_t out[1000];
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, out, sizeof(out));
    h ^= rc > 0 ? fnv((uint8_t*)out, rc) : (uint32_t)rc;
  }
  printf("  data fnv=%08x\n", h);
  int32_t items[10];
  int rc = blosc2_schunk_get_slice_buffer(sc, 2500, 2510, items);
  printf("  slice=%d items[9]=%d\n", rc, items[9]);
  if (io) balance("read back");
  blosc2_schunk_free(sc);
  if (io) balance("free");
}

int main(void) {
  blosc2_init();
  blosc2_io_cb cb = {.id = 211, .name = "fio_counting", .is_allocation_necessary = true, .open = w_open,
                     .close = w_close, .size = w_size, .write = w_write, .read = w_read, .truncate = w_trunc,
                     .destroy = w_destroy};
  printf("register=%d\n", blosc2_register_io_cb(&cb));
  blosc2_io io = {.id = 211, .params = &c};
  const char* names[2] = {"fio_u.b2frame", "fio_us.b2frame"};
  const char* plain[2] = {"fio_p.b2frame", "fio_ps.b2frame"};
  for (int sparse = 0; sparse < 2; sparse++) {
    printf("%s frame, user backend\n", sparse ? "sparse" : "contiguous");
    build(names[sparse], !sparse, &io);
    reopen(names[sparse], &io);
    printf("%s frame, default backend\n", sparse ? "sparse" : "contiguous");
    build(plain[sparse], !sparse, NULL);
    reopen(plain[sparse], NULL);
    if (sparse) {
      // (00000001.chunk, of the deleted chunk, is gone with the default backend; the
      // reference leaves an empty file of that name behind with a user backend.)
      const char* files[] = {"chunks.b2frame", "00000000.chunk", "00000002.chunk", "00000003.chunk"};
      for (int i = 0; i < 4; i++) {
        char a[256], b[256];
        snprintf(a, sizeof(a), "%s/%s", names[1], files[i]);
        snprintf(b, sizeof(b), "%s/%s", plain[1], files[i]);
        printf("  %s: same=%s present=%s\n", files[i], file_sum(a) == file_sum(b) ? "yes" : "no",
               file_sum(a) != 0 ? "yes" : "no");
      }
    } else {
      printf("  frame files equal=%s\n", file_sum(names[0]) == file_sum(plain[0]) ? "yes" : "no");
    }
  }
  // An in-memory frame on a user backend writes to_file/append_file output through it.
  printf("in-memory frame on the user backend\n");
  int before = c.open;
  blosc2_cparams mcp = BLOSC2_CPARAMS_DEFAULTS;
  mcp.typesize = 4;
  blosc2_storage mst = {.contiguous = true, .cparams = &mcp, .io = &io};
  blosc2_schunk* m = blosc2_schunk_new(&mst);
  int32_t buf[1000];
  data(buf, 3);
  blosc2_schunk_append_buffer(m, buf, sizeof(buf));
  printf("  opens while in memory=%d\n", c.open - before);
  blosc2_remove_urlpath("fio_m.b2frame");
  int64_t len = blosc2_schunk_to_file(m, "fio_m.b2frame");
  printf("  to_file=%lld opened=%s\n", (long long)len, c.open > before ? "yes" : "no");
  balance("to_file");
  int64_t off = blosc2_schunk_append_file(m, "fio_m.b2frame");
  printf("  append_file=%lld\n", (long long)off);
  balance("append_file");
  blosc2_remove_urlpath("fio_m2.b2frame");
  off = blosc2_schunk_append_file(m, "fio_m2.b2frame");
  printf("  append_file(new file)=%lld\n", (long long)off);
  printf("  to_file(bad dir)=%lld\n", (long long)blosc2_schunk_to_file(m, "fio_no/such/dir.b2frame"));
  printf("  append_file(bad dir)=%lld\n", (long long)blosc2_schunk_append_file(m, "fio_no/such/dir.b2frame"));
  balance("errors");
  blosc2_schunk* r = blosc2_schunk_open_offset("fio_m.b2frame", len);
  int32_t out[1000];
  int rc = r ? blosc2_schunk_decompress_chunk(r, 0, out, sizeof(out)) : -999;
  printf("  reopened at offset: rc=%d out[999]=%d\n", rc, out[999]);
  blosc2_schunk_free(r);
  blosc2_schunk_free(m);
  blosc2_remove_urlpath("fio_m.b2frame");
  blosc2_remove_urlpath("fio_m2.b2frame");
  printf("modes used=%d\n", c.modes);
  // The sparse directory must not exist yet, whatever the backend.
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = false, .urlpath = (char*)names[1], .cparams = &cp, .io = &io};
  printf("new over existing sparse dir: %s\n", blosc2_schunk_new(&st) == NULL ? "NULL" : "schunk");
  blosc2_io bad = {.id = 250, .params = NULL};
  printf("open_udio unregistered id: %s\n", blosc2_schunk_open_udio(names[0], &bad) == NULL ? "NULL" : "schunk");
  // Sparse frames cannot be memory-mapped (one mapping per struct): the index is created,
  // the first chunk file is refused.
  blosc2_remove_urlpath("fio_mm");
  blosc2_stdio_mmap mp = BLOSC2_STDIO_MMAP_DEFAULTS;
  mp.mode = "w+";
  blosc2_io mio = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mp};
  blosc2_storage mmst = {.contiguous = false, .urlpath = "fio_mm", .cparams = &cp, .io = &mio};
  blosc2_schunk* mm = blosc2_schunk_new(&mmst);
  printf("sparse on mmap: new=%s", mm ? "schunk" : "NULL");
  if (mm) {
    int32_t z[100] = {1};
    printf(" append=%lld", (long long)blosc2_schunk_append_buffer(mm, z, sizeof(z)));
    blosc2_schunk_free(mm);
  }
  printf("\n");
  blosc2_remove_urlpath("fio_mm");
  for (int i = 0; i < 2; i++) {
    blosc2_remove_urlpath(names[i]);
    blosc2_remove_urlpath(plain[i]);
  }
  blosc2_destroy();
  return 0;
}
