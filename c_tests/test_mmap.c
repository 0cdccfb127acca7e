// c_tests: compare-output
// Memory-mapped I/O (BLOSC2_IO_FILESYSTEM_MMAP): the registered callbacks, the
// blosc2_stdio_mmap_* functions used directly (modes r, r+, w+, c, growth of the mapping,
// reads that point into the mapping, truncation, destroy, needs_free), and super-chunks
// created, appended to and reopened through mmap, whose files must be byte-identical to the
// ones written with the default filesystem I/O (the checksums are printed, so both libraries
// must produce the same frames).
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

static uint32_t fnv(const uint8_t* p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void file_sum(const char* tag, const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) { printf("  %s: no file\n", tag); return; }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* b = malloc(n > 0 ? n : 1);
  size_t got = fread(b, 1, n, f);
  fclose(f);
  printf("  %s: size=%ld fnv=%08x\n", tag, n, got == (size_t)n ? fnv(b, n) : 0);
  free(b);
}

static void check_data(const char* tag, blosc2_schunk* s) {
  if (s == NULL) { printf("  %s: NULL schunk\n", tag); return; }
  printf("  %s: nchunks=%lld nbytes=%lld cbytes=%lld nmeta=%d nvl=%d\n", tag, (long long)s->nchunks,
         (long long)s->nbytes, (long long)s->cbytes, s->nmetalayers, s->nvlmetalayers);
  int32_t out[1000];
  for (int64_t i = 0; i < s->nchunks; i++) {
    int r = blosc2_schunk_decompress_chunk(s, i, out, sizeof(out));
    printf("    chunk %lld: %d fnv=%08x\n", (long long)i, r, r > 0 ? fnv((uint8_t*)out, r) : 0);
  }
  uint8_t* content; int32_t len;
  if (blosc2_meta_get(s, "m1", &content, &len) >= 0) { printf("    meta m1 len=%d fnv=%08x\n", len, fnv(content, len)); free(content); }
  if (blosc2_vlmeta_get(s, "v1", &content, &len) >= 0) { printf("    vlmeta v1 len=%d fnv=%08x\n", len, fnv(content, len)); free(content); }
}

static void raw_backend(void) {
  printf("== raw backend\n");
  const char* path = "tmm_raw.bin";
  remove(path);
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  printf("open NULL params=%d\n", blosc2_stdio_mmap_open(path, "r", NULL) == NULL);
  mm.mode = "x";
  printf("open bad mode=%d\n", blosc2_stdio_mmap_open(path, "r", &mm) == NULL);
  mm.mode = "r";
  printf("open missing file=%d\n", blosc2_stdio_mmap_open(path, "r", &mm) == NULL);

  mm.mode = "w+";
  mm.initial_mapping_size = 1;
  void* s = blosc2_stdio_mmap_open(path, "ignored", &mm);
  printf("open w+: same=%d mode_null=%d mapped=%d file_size=%zu mapping=%zu memonly=%d url=%s\n", s == &mm,
         mm.mode == NULL, mm.addr != NULL, mm.file_size, mm.mapping_size, mm.is_memory_only, mm.urlpath);
  int same = blosc2_stdio_mmap_open(path, "rb", &mm) == s;
  printf("reopen same=%d other=%d\n", same, blosc2_stdio_mmap_open("tmm_other.bin", "rb", &mm) == NULL);
  printf("size=%lld\n", (long long)blosc2_stdio_mmap_size(s));
  const char* hello = "hello mmap";
  int64_t w = blosc2_stdio_mmap_write(hello, 1, 10, 0, s);
  printf("write=%lld size=%lld mapping=%zu\n", (long long)w, (long long)blosc2_stdio_mmap_size(s), mm.mapping_size);
  w = blosc2_stdio_mmap_write(hello, 2, 4, 100, s);
  printf("write items=%lld size=%lld mapping=%zu\n", (long long)w, (long long)blosc2_stdio_mmap_size(s),
         mm.mapping_size);
  printf("write bad=%lld,%lld,%lld\n", (long long)blosc2_stdio_mmap_write(NULL, 1, 1, 0, s),
         (long long)blosc2_stdio_mmap_write(hello, -1, 1, 0, s), (long long)blosc2_stdio_mmap_write(hello, 1, 1, -1, s));
  void* p = NULL;
  int64_t r = blosc2_stdio_mmap_read(&p, 1, 10, 0, s);
  printf("read=%lld in_mapping=%d data=%.10s\n", (long long)r, p == mm.addr, (char*)p);
  r = blosc2_stdio_mmap_read(&p, 2, 4, 100, s);
  printf("read=%lld at=%d data=%.8s\n", (long long)r, (char*)p == mm.addr + 100, (char*)p);
  r = blosc2_stdio_mmap_read(&p, 1, 40, 60, s);
  printf("read gap=%lld zeros=%d\n", (long long)r, p != NULL && ((char*)p)[0] == 0 && ((char*)p)[39] == 0);
  p = mm.addr;
  r = blosc2_stdio_mmap_read(&p, 1, 10, 105, s);
  printf("read past end=%lld null=%d\n", (long long)r, p == NULL);
  p = mm.addr;
  r = blosc2_stdio_mmap_read(&p, 1, -1, 0, s);
  printf("read bad=%lld null=%d\n", (long long)r, p == NULL);
  int t = blosc2_stdio_mmap_truncate(s, 50);
  printf("truncate=%d size=%lld\n", t, (long long)blosc2_stdio_mmap_size(s));
  printf("truncate neg=%d\n", blosc2_stdio_mmap_truncate(s, -1));
  printf("close=%d\n", blosc2_stdio_mmap_close(s));
  t = blosc2_stdio_mmap_destroy(&mm);
  printf("destroy=%d addr_null=%d url_null=%d file_null=%d\n", t, mm.addr == NULL, mm.urlpath == NULL,
         mm.file == NULL);
  file_sum("after w+", path);

  // r+: extend an existing file.
  mm.mode = "r+";
  mm.initial_mapping_size = 4096;
  s = blosc2_stdio_mmap_open(path, "rb+", &mm);
  printf("open r+: ok=%d file_size=%zu mapping=%zu\n", s == &mm, mm.file_size, mm.mapping_size);
  w = blosc2_stdio_mmap_write("tail", 1, 4, 50, s);
  printf("write=%lld size=%lld\n", (long long)w, (long long)blosc2_stdio_mmap_size(s));
  printf("destroy=%d\n", blosc2_stdio_mmap_destroy(&mm));
  file_sum("after r+", path);

  // r: read only, the mapping is the file size.
  mm.mode = "r";
  s = blosc2_stdio_mmap_open(path, "rb", &mm);
  printf("open r: ok=%d file_size=%zu mapping=%zu\n", s == &mm, mm.file_size, mm.mapping_size);
  r = blosc2_stdio_mmap_read(&p, 1, 4, 50, s);
  printf("read=%lld data=%.4s\n", (long long)r, (char*)p);
  printf("destroy=%d\n", blosc2_stdio_mmap_destroy(&mm));

  // c: modifications stay in memory.
  mm.mode = "c";
  mm.initial_mapping_size = BLOSC2_STDIO_MMAP_DEFAULTS.initial_mapping_size;
  s = blosc2_stdio_mmap_open(path, "rb", &mm);
  printf("open c: ok=%d file_size=%zu memonly=%d\n", s == &mm, mm.file_size, mm.is_memory_only);
  w = blosc2_stdio_mmap_write("HELLO", 1, 5, 0, s);
  printf("write=%lld size=%lld\n", (long long)w, (long long)blosc2_stdio_mmap_size(s));
  w = blosc2_stdio_mmap_write("more", 1, 4, 60, s);
  printf("write=%lld size=%lld\n", (long long)w, (long long)blosc2_stdio_mmap_size(s));
  r = blosc2_stdio_mmap_read(&p, 1, 64, 0, s);
  printf("read=%lld data=%.5s %.4s\n", (long long)r, (char*)p, (char*)p + 60);
  t = blosc2_stdio_mmap_truncate(s, 20);
  printf("truncate=%d size=%lld\n", t, (long long)blosc2_stdio_mmap_size(s));
  printf("destroy=%d\n", blosc2_stdio_mmap_destroy(&mm));
  file_sum("after c", path);

  // needs_free: the destroy callback frees a heap-allocated struct.
  blosc2_stdio_mmap* heap = malloc(sizeof(blosc2_stdio_mmap));
  *heap = BLOSC2_STDIO_MMAP_DEFAULTS;
  heap->needs_free = true;
  s = blosc2_stdio_mmap_open(path, "rb", heap);
  printf("heap open=%d size=%lld\n", s == heap, (long long)blosc2_stdio_mmap_size(s));
  printf("heap destroy=%d\n", blosc2_stdio_mmap_destroy(heap));
  printf("destroy NULL=%d\n", blosc2_stdio_mmap_destroy(NULL));
  remove(path);
}

static blosc2_schunk* fill(blosc2_storage* st, const int32_t* data) {
  blosc2_schunk* s = blosc2_schunk_new(st);
  if (s == NULL) { printf("  new: NULL\n"); return NULL; }
  printf("  meta_add=%d\n", blosc2_meta_add(s, "m1", (uint8_t*)"abcd", 4));
  printf("  vlmeta_add=%d\n", blosc2_vlmeta_add(s, "v1", (uint8_t*)"hello world", 11, NULL));
  for (int k = 0; k < 4; k++) {
    printf("  append=%lld\n", (long long)blosc2_schunk_append_buffer(s, data + k * 7, k == 3 ? 400 : 4000));
  }
  return s;
}

static void schunks(size_t initial_mapping_size) {
  printf("== schunk initial_mapping_size=%zu\n", initial_mapping_size);
  int32_t data[1100];
  for (int i = 0; i < 1100; i++) data[i] = i * 3 + (i % 7);
  const char* pdef = "tmm_default.b2frame";
  const char* pmm = "tmm_mmap.b2frame";
  blosc2_remove_urlpath(pdef);
  blosc2_remove_urlpath(pmm);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.compcode = BLOSC_BLOSCLZ; cp.clevel = 9; cp.nthreads = 1;

  blosc2_storage sd = {.contiguous = true, .urlpath = (char*)pdef, .cparams = &cp};
  blosc2_schunk* a = fill(&sd, data);
  check_data("default", a);
  blosc2_schunk_free(a);

  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  mm.initial_mapping_size = initial_mapping_size;
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  blosc2_storage sm = {.contiguous = true, .urlpath = (char*)pmm, .cparams = &cp, .io = &io};
  blosc2_schunk* b = fill(&sm, data);
  check_data("mmap w+", b);
  if (b) printf("  io id=%d\n", b->storage->io->id);
  blosc2_schunk_free(b);
  printf("  mmap struct after free: addr_null=%d file_null=%d\n", mm.addr == NULL, mm.file == NULL);
  file_sum("default file", pdef);
  file_sum("mmap file", pmm);

  // Read it back through mmap.
  mm.mode = "r";
  blosc2_schunk* c = blosc2_schunk_open_udio(pmm, &io);
  check_data("mmap r", c);
  blosc2_schunk_free(c);

  // Append through mmap (r+) and read the result with the default I/O.
  mm.mode = "r+";
  mm.initial_mapping_size = initial_mapping_size;
  blosc2_schunk* d = blosc2_schunk_open_udio(pmm, &io);
  if (d) {
    printf("  append r+=%lld\n", (long long)blosc2_schunk_append_buffer(d, data + 50, 4000));
    printf("  vlmeta_update r+=%d\n", blosc2_vlmeta_update(d, "v1", (uint8_t*)"bye", 3, NULL));
  }
  check_data("mmap r+", d);
  blosc2_schunk_free(d);
  file_sum("mmap file after r+", pmm);
  blosc2_schunk* e = blosc2_schunk_open(pmm);
  check_data("default reopen", e);
  blosc2_schunk_free(e);

  // c: a copy-on-write session; the file stays as it was. (The growth stays inside the
  // file's last page: past it, the reference's private file mapping raises SIGBUS, while
  // this library keeps those pages in anonymous memory; see the unit tests in stdio.rs.)
  mm.mode = "c";
  mm.initial_mapping_size = initial_mapping_size;
  blosc2_schunk* g = blosc2_schunk_open_udio(pmm, &io);
  if (g) {
    printf("  append c=%lld\n", (long long)blosc2_schunk_append_buffer(g, data + 60, 400));
    printf("  vlmeta_update c=%d\n", blosc2_vlmeta_update(g, "v1", (uint8_t*)"copy", 4, NULL));
  }
  check_data("mmap c", g);
  blosc2_schunk_free(g);
  file_sum("mmap file after c", pmm);

  // Offsets and the default file through mmap.
  mm.mode = "r";
  blosc2_schunk* f = blosc2_schunk_open_offset_udio(pdef, 0, &io);
  check_data("default file via mmap", f);
  blosc2_schunk_free(f);

  blosc2_remove_urlpath(pdef);
  blosc2_remove_urlpath(pmm);
}

// The name of a storage's blosc2_io is the caller's label: the library must never read it.
// python-blosc2 mallocs its mmap blosc2_io and sets only id and params, so the name holds
// whatever malloc left there; here it is a pointer no process can read, and the super-chunk's
// storage keeps the pointer as given.
static void io_name_unread(void) {
  printf("== io name never read\n");
  const char* path = "tmm_noname.b2frame";
  blosc2_remove_urlpath(path);
  int32_t data[1100];
  for (int i = 0; i < 1100; i++) data[i] = i * 5;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4; cp.nthreads = 1;
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "w+";
  for (int id = BLOSC2_IO_FILESYSTEM; id <= BLOSC2_IO_FILESYSTEM_MMAP; id++) {
    blosc2_io* io = malloc(sizeof(blosc2_io));
    memset(io, 0xa5, sizeof(blosc2_io));
    io->id = (uint8_t)id;
    io->params = id == BLOSC2_IO_FILESYSTEM_MMAP ? &mm : NULL;
    mm.mode = "w+";
    blosc2_storage st = {.contiguous = true, .urlpath = (char*)path, .cparams = &cp, .io = io};
    blosc2_schunk* s = blosc2_schunk_new(&st);
    printf("  id %d new=%d", id, s != NULL);
    if (s) {
      printf(" append=%lld name kept=%d", (long long)blosc2_schunk_append_buffer(s, data, sizeof(data)),
             s->storage->io->name == io->name);
      blosc2_schunk_free(s);
    }
    mm.mode = "r";
    s = blosc2_schunk_open_offset_udio(path, 0, io);
    printf(" open_offset_udio=%d", s != NULL);
    if (s) {
      int32_t out[1100];
      int r = blosc2_schunk_decompress_chunk(s, 0, out, sizeof(out));
      printf(" decompress=%d same=%d name kept=%d", r, memcmp(out, data, sizeof(data)) == 0,
             s->storage->io->name == io->name);
      blosc2_schunk_free(s);
    }
    s = blosc2_schunk_open_udio(path, io);
    printf(" open_udio=%d\n", s != NULL);
    if (s) blosc2_schunk_free(s);  // the reference's free crashes on NULL
    free(io);
    blosc2_remove_urlpath(path);
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  blosc2_io_cb* cb = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM_MMAP);
  if (cb == NULL) { printf("no mmap callbacks\n"); return 1; }
  printf("io_cb id=%d name=%s alloc=%d open=%d close=%d size=%d write=%d read=%d truncate=%d destroy=%d\n", cb->id,
         cb->name, cb->is_allocation_necessary, cb->open == blosc2_stdio_mmap_open,
         cb->close == blosc2_stdio_mmap_close, cb->size == blosc2_stdio_mmap_size,
         cb->write == blosc2_stdio_mmap_write, cb->read == blosc2_stdio_mmap_read,
         cb->truncate == blosc2_stdio_mmap_truncate, cb->destroy == blosc2_stdio_mmap_destroy);
  blosc2_io_cb* cb0 = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  printf("io_cb 0 id=%d name=%s alloc=%d\n", cb0->id, cb0->name, cb0->is_allocation_necessary);
  blosc2_stdio_mmap dm = blosc2_get_blosc2_stdio_mmap_defaults();
  printf("defaults mode=%s initial=%zu needs_free=%d fd=%d\n", dm.mode, dm.initial_mapping_size, dm.needs_free, dm.fd);

  raw_backend();
  schunks(1);
  schunks(BLOSC2_STDIO_MMAP_DEFAULTS.initial_mapping_size);
  io_name_unread();
  blosc2_destroy();
  return 0;
}
