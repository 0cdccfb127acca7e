// c_tests: compare-output
// Files changed under open handles and the stdio/mmap helpers used directly:
// - a contiguous frame replaced on disk (new inode renamed over it) is read from the new file;
// - sparse frames whose chunk files were emptied, cut short or removed give the reference's
//   error codes from get_chunk, decompress_chunk, get_lazychunk and getitem;
// - blosc2_stdio_size leaves the FILE position alone; blosc2_stdio_* argument checks;
// - blosc2_stdio_mmap_read/_write on a caller-filled blosc2_stdio_mmap (no file).
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

enum { N = 10000 };

static void write_frame(const char* path, int32_t base, int nchunks) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = (char*)path, .cparams = &cp};
  blosc2_schunk* sc = blosc2_schunk_new(&st);
  int32_t* v = malloc(N * 4);
  for (int c = 0; c < nchunks; c++) {
    for (int i = 0; i < N; i++) v[i] = base + c * N + i;
    blosc2_schunk_append_buffer(sc, v, N * 4);
  }
  blosc2_schunk_free(sc);
  free(v);
}

static void replaced_file(void) {
  printf("replaced contiguous frame file\n");
  write_frame("fio_a.b2frame", 0, 1);
  blosc2_schunk* sc = blosc2_schunk_open("fio_a.b2frame");
  int32_t* out = malloc(N * 4);
  int rc = blosc2_schunk_decompress_chunk(sc, 0, out, N * 4);
  printf("  before: rc=%d out[7]=%d\n", rc, out[7]);
  // Same shape, other data.
  write_frame("fio_b.b2frame", 5000000, 1);
  blosc2_remove_urlpath("fio_a.b2frame");
  rename("fio_b.b2frame", "fio_a.b2frame");
  rc = blosc2_schunk_decompress_chunk(sc, 0, out, N * 4);
  printf("  same shape: rc=%d out[7]=%d nchunks=%lld\n", rc, out[7], (long long)sc->nchunks);
  // More chunks than before.
  write_frame("fio_b.b2frame", 7000000, 3);
  rename("fio_b.b2frame", "fio_a.b2frame");
  rc = blosc2_schunk_decompress_chunk(sc, 2, out, N * 4);
  printf("  three chunks: rc=%d out[7]=%d nchunks=%lld nbytes=%lld\n", rc, out[7], (long long)sc->nchunks,
         (long long)sc->nbytes);
  // Appending goes to the new file.
  for (int i = 0; i < N; i++) out[i] = -i;
  int64_t n = blosc2_schunk_append_buffer(sc, out, N * 4);
  printf("  append: %lld\n", (long long)n);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open("fio_a.b2frame");
  rc = blosc2_schunk_decompress_chunk(sc, 3, out, N * 4);
  printf("  reopened: nchunks=%lld rc=%d out[7]=%d\n", (long long)sc->nchunks, rc, out[7]);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath("fio_a.b2frame");
  free(out);
}

static void cut_chunk_file(const char* path, long len) {
  if (len < 0) { remove(path); return; }
  FILE* f = fopen(path, "rb");
  uint8_t buf[4096];
  size_t got = fread(buf, 1, sizeof(buf), f);
  fclose(f);
  f = fopen(path, "wb");
  fwrite(buf, 1, (size_t)len < got ? (size_t)len : got, f);
  fclose(f);
}

static void sparse_cut(long len) {
  const char* dir = "fio_s.b2frame";
  blosc2_remove_urlpath(dir);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = false, .urlpath = (char*)dir, .cparams = &cp};
  blosc2_schunk* sc = blosc2_schunk_new(&st);
  int64_t v[500];
  for (int c = 0; c < 2; c++) {
    for (int i = 0; i < 500; i++) v[i] = c * 500 + i * 3;
    blosc2_schunk_append_buffer(sc, v, sizeof(v));
  }
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(dir);
  cut_chunk_file("fio_s.b2frame/00000000.chunk", len);
  uint8_t* chunk;
  bool nf;
  int rc = blosc2_schunk_get_chunk(sc, 0, &chunk, &nf);
  if (rc >= 0 && nf) free(chunk);
  printf("  cut to %ld: get_chunk=%d", len, rc);
  rc = blosc2_schunk_decompress_chunk(sc, 0, v, sizeof(v));
  printf(" decompress_chunk=%d", rc);
  rc = blosc2_schunk_get_lazychunk(sc, 0, &chunk, &nf);
  if (rc >= 0 && nf) free(chunk);
  printf(" get_lazychunk=%d", rc);
  rc = blosc2_schunk_decompress_chunk(sc, 1, v, sizeof(v));
  printf(" other chunk=%d v[499]=%lld\n", rc, (long long)v[499]);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(dir);
}

static void stdio_helpers(void) {
  printf("stdio\n");
  blosc2_stdio_file f;
  f.file = tmpfile();
  const char bytes[10] = "0123456789";
  printf("  write=%lld\n", (long long)blosc2_stdio_write(bytes, 1, 10, 0, &f));
  fseek(f.file, 4, SEEK_SET);
  int64_t size = blosc2_stdio_size(&f);
  printf("  size=%lld position=%ld\n", (long long)size, ftell(f.file));
  printf("  write at 20=%lld size=%lld\n", (long long)blosc2_stdio_write(bytes, 2, 3, 20, &f),
         (long long)blosc2_stdio_size(&f));
  char got[16] = {0};
  void* p = got;
  printf("  read 4 at 2=%lld '%.4s'\n", (long long)blosc2_stdio_read(&p, 1, 4, 2, &f), got);
  printf("  read past end=%lld\n", (long long)blosc2_stdio_read(&p, 1, 16, 20, &f));
  printf("  bad args: write=%lld %lld read=%lld %lld\n", (long long)blosc2_stdio_write(bytes, -1, 1, 0, &f),
         (long long)blosc2_stdio_write(bytes, 1, 1, -5, &f), (long long)blosc2_stdio_read(&p, 1, -1, 0, &f),
         (long long)blosc2_stdio_read(NULL, 1, 1, 0, &f));
  printf("  truncate=%d size=%lld\n", blosc2_stdio_truncate(&f, 3), (long long)blosc2_stdio_size(&f));
  // Positioned I/O: the FILE position stays, and bytes still buffered in the FILE are not
  // seen (nor flushed by truncate).
  fseek(f.file, 3, SEEK_SET);
  p = got;
  int64_t r = blosc2_stdio_read(&p, 1, 4, 5, &f);
  printf("  read keeps position: %lld pos=%ld\n", (long long)r, ftell(f.file));
  r = blosc2_stdio_write(bytes, 1, 2, 1, &f);
  printf("  write keeps position: %lld pos=%ld\n", (long long)r, ftell(f.file));
  fseek(f.file, 0, SEEK_SET);
  fwrite("AB", 1, 2, f.file);
  r = blosc2_stdio_read(&p, 1, 2, 0, &f);
  printf("  unflushed FILE bytes: %lld '%c%c'\n", (long long)r, got[0], got[1]);
  fwrite("ABCDEFGH", 1, 8, f.file);
  int t = blosc2_stdio_truncate(&f, 2);
  printf("  truncate with buffered bytes=%d size=%lld\n", t, (long long)blosc2_stdio_size(&f));
  printf("  truncate(-1)=%d zero-size items: read=%lld write=%lld\n", blosc2_stdio_truncate(&f, -1),
         (long long)blosc2_stdio_read(&p, 0, 2, 0, &f), (long long)blosc2_stdio_write(bytes, 0, 2, 0, &f));
  printf("  NULL stream: size=%lld close=%d truncate=%d\n", (long long)blosc2_stdio_size(NULL), blosc2_stdio_close(NULL),
         blosc2_stdio_truncate(NULL, 0));
  printf("  open missing=%s\n", blosc2_stdio_open("fio_no/such", "rb", NULL) == NULL ? "NULL" : "stream");
  fclose(f.file);
}

static void mmap_caller_struct(void) {
  printf("mmap on a caller-filled struct\n");
  uint8_t mem[64];
  memset(mem, 0, sizeof(mem));
  blosc2_stdio_mmap m = BLOSC2_STDIO_MMAP_DEFAULTS;
  m.addr = (char*)mem;
  m.file_size = sizeof(mem);
  m.mapping_size = sizeof(mem);
  const uint8_t src[3] = {9, 8, 7};
  int64_t n = blosc2_stdio_mmap_write(src, 1, 3, 20, &m);
  printf("  write 3 at 20=%lld mem[20..22]=%d,%d,%d\n", (long long)n, mem[20], mem[21], mem[22]);
  void* p = NULL;
  n = blosc2_stdio_mmap_read(&p, 1, 3, 20, &m);
  printf("  read 3 at 20=%lld ptr %s\n", (long long)n, p == (void*)(mem + 20) ? "= addr+20" : "wrong");
  p = (void*)1;
  n = blosc2_stdio_mmap_read(&p, 1, 8, 60, &m);
  printf("  read past end=%lld ptr %s\n", (long long)n, p == NULL ? "NULL" : "set");
  n = blosc2_stdio_mmap_read(&p, 4, 16, 0, &m);
  printf("  read all=%lld size=%lld\n", (long long)n, (long long)blosc2_stdio_mmap_size(&m));
}

int main(void) {
  blosc2_init();
  replaced_file();
  printf("sparse frame with a damaged chunk file\n");
  sparse_cut(0);
  sparse_cut(10);
  sparse_cut(-1);
  stdio_helpers();
  mmap_caller_struct();
  blosc2_destroy();
  return 0;
}
