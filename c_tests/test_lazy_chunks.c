// c_tests: compare-output
// Lazy chunks (blosc2_schunk_get_lazychunk on on-disk frames: header and block starts only,
// plus a trailer saying where the blocks are) decode through every context that names their
// super-chunk: schunk->dctx, schunk->cctx (getitem), and contexts the caller makes with
// dparams.schunk. Covers regular, memcpyed, dictionary and VL-block chunks, slices and sparse
// reads, contiguous and sparse frames, a user I/O backend, a decode from inside a postfilter
// the super-chunk is running, and the error codes of damaged trailers.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"
#include "blosc2/blosc2-stdio.h"

enum { N = 40000, NB = N * 4 };

static int32_t in[3][N];

static void fill_inputs(void) {
  uint32_t x = 777;
  for (int i = 0; i < N; i++) {
    in[0][i] = 3 * i;                                      /* compressible */
    x = x * 1103515245u + 12345u;
    in[1][i] = (int32_t)x;                                 /* incompressible: memcpyed */
    in[2][i] = (i / 7) % 250 + (i % 3) * 1000;             /* dictionary chunk */
  }
}

static blosc2_context *cctx_for(int compcode, int clevel, int use_dict, int filter) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = compcode;
  cp.clevel = clevel;
  cp.use_dict = use_dict;
  cp.blocksize = 16 * 1024;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  return blosc2_create_cctx(cp);
}

static void append_compressed(blosc2_schunk *sc, blosc2_context *cctx, const void *src) {
  uint8_t *chunk = malloc(NB + BLOSC2_MAX_OVERHEAD);
  int cb = blosc2_compress_ctx(cctx, src, NB, chunk, NB + BLOSC2_MAX_OVERHEAD);
  int64_t n = blosc2_schunk_append_chunk(sc, chunk, true);
  printf("  append: cbytes>0=%d memcpyed=%d dict=%d nchunks=%lld\n", cb > 0,
         cb > 0 && (chunk[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED) != 0,
         cb > 0 && (chunk[BLOSC2_CHUNK_BLOSC2_FLAGS] & BLOSC2_USEDICT) != 0, (long long)n);
  free(chunk);
}

/* Every way of decoding lazy chunk `i` of `sc`. */
static void decode_lazy(blosc2_schunk *sc, int i) {
  uint8_t *lazy = NULL;
  bool nf = false;
  int lcb = blosc2_schunk_get_lazychunk(sc, i, &lazy, &nf);
  printf("  chunk %d: lazy=%d\n", i, lcb > 0 && (lazy[BLOSC2_CHUNK_BLOSC2_FLAGS] & 0x08) != 0);
  int32_t *out = malloc(NB);
  int32_t items[100];

  memset(out, 0, NB);
  int rc = blosc2_decompress_ctx(sc->dctx, lazy, lcb, out, NB);
  printf("    schunk->dctx decompress: rc=%d data=%s\n", rc, memcmp(out, in[i], NB) ? "WRONG" : "ok");
  int starts[4] = {0, 4090, 20001, N - 100};
  for (int k = 0; k < 4; k++) {
    memset(items, 0, sizeof items);
    rc = blosc2_getitem_ctx(sc->dctx, lazy, lcb, starts[k], 100, items, sizeof items);
    printf("    schunk->dctx getitem(%d, 100): rc=%d data=%s\n", starts[k], rc,
           memcmp(items, in[i] + starts[k], sizeof items) ? "WRONG" : "ok");
  }
  /* (not on the dictionary chunk: the reference's getitem on a compression context fails on
     dictionary chunks, -3, where this library reads them; REFERENCE-DEFECTS.md) */
  if (!(lazy[BLOSC2_CHUNK_BLOSC2_FLAGS] & BLOSC2_USEDICT)) {
    memset(items, 0, sizeof items);
    rc = blosc2_getitem_ctx(sc->cctx, lazy, lcb, 8190, 10, items, 40);
    printf("    schunk->cctx getitem(8190, 10): rc=%d data=%s\n", rc, memcmp(items, in[i] + 8190, 40) ? "WRONG" : "ok");
  }

  for (int nthreads = 1; nthreads <= 2; nthreads++) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = nthreads;
    dp.schunk = sc;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    memset(out, 0, NB);
    rc = blosc2_decompress_ctx(dctx, lazy, lcb, out, NB);
    printf("    own dctx (nthreads=%d) decompress: rc=%d data=%s\n", nthreads, rc, memcmp(out, in[i], NB) ? "WRONG" : "ok");
    memset(items, 0, sizeof items);
    rc = blosc2_getitem_bytes_ctx(dctx, lazy, lcb, 4 * 12000, 400, items, sizeof items);
    printf("    own dctx getitem_bytes(48000, 400): rc=%d data=%s\n", rc,
           memcmp(items, in[i] + 12000, sizeof items) ? "WRONG" : "ok");
    blosc2_free_ctx(dctx);
  }

  /* Without a super-chunk in the context the blocks cannot be found. */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *plain = blosc2_create_dctx(dp);
  printf("    dctx without schunk decompress: rc=%d\n", blosc2_decompress_ctx(plain, lazy, lcb, out, NB));
  blosc2_free_ctx(plain);
  printf("    global blosc2_decompress: rc=%d\n", blosc2_decompress(lazy, lcb, out, NB));
  printf("    global blosc2_getitem: rc=%d\n", blosc2_getitem(lazy, lcb, 100, 10, items, sizeof items));
  if (nf) free(lazy);
  free(out);
}

/* Damaged trailers: the compressed size recorded for block 0. */
static void damaged_trailer(blosc2_schunk *sc, int i) {
  uint8_t *lazy = NULL;
  bool nf = false;
  int lcb = blosc2_schunk_get_lazychunk(sc, i, &lazy, &nf);
  int32_t nbytes, cbytes, blocksize;
  blosc2_cbuffer_sizes(lazy, &nbytes, &cbytes, &blocksize);
  int nblocks = (nbytes + blocksize - 1) / blocksize;
  uint8_t *bad = malloc(lcb);
  int32_t *out = malloc(NB);
  int32_t sizes[4] = {0, -5, blocksize + 4 * 4 + 1, blocksize + 4 * 4};
  for (int k = 0; k < 4; k++) {
    memcpy(bad, lazy, lcb);
    memcpy(bad + BLOSC_EXTENDED_HEADER_LENGTH + 4 * nblocks + 12, &sizes[k], 4);
    int rc = blosc2_decompress_ctx(sc->dctx, bad, lcb, out, NB);
    int32_t item = 0;
    int rc2 = blosc2_getitem_ctx(sc->dctx, bad, lcb, 5, 1, &item, 4);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *plain = blosc2_create_dctx(dp);
    int rc3 = blosc2_decompress_ctx(plain, bad, lcb, out, NB);
    blosc2_free_ctx(plain);
    printf("  chunk %d block 0 csize %s: decompress rc=%d getitem rc=%d, without schunk rc=%d\n", i,
           k == 0 ? "0" : k == 1 ? "-5" : k == 2 ? "max+1" : "max", rc < 0 ? rc : 0, rc2 < 0 ? rc2 : 0, rc3 < 0 ? rc3 : 0);
  }
  /* A lazy chunk cut before the end of its trailer. */
  int rc = blosc2_decompress_ctx(sc->dctx, lazy, lcb - 4, out, NB);
  printf("  chunk %d trailer cut short: decompress rc=%d\n", i, rc);
  free(bad);
  free(out);
  if (nf) free(lazy);
}

static void slices(blosc2_schunk *sc) {
  int32_t buf[300];
  int64_t ranges[3][2] = {{0, 3}, {N - 150, N + 150}, {2 * N - 300, 2 * N}};
  for (int k = 0; k < 3; k++) {
    int64_t a = ranges[k][0], b = ranges[k][1];
    memset(buf, 0, sizeof buf);
    int rc = blosc2_schunk_get_slice_buffer(sc, a, b, buf);
    int ok = 1;
    for (int64_t j = a; j < b; j++) ok &= buf[j - a] == in[j / N][j % N];
    printf("  slice %lld..%lld: rc=%d data=%s\n", (long long)a, (long long)b, rc, ok ? "ok" : "WRONG");
  }
  int64_t coords[6] = {1, 4097, N - 1, N, N + 16385, 2 * N - 1};
  int32_t got[6] = {0};
  int rc = blosc2_schunk_get_sparse_buffer(sc, 6, coords, got);
  int ok = 1;
  for (int k = 0; k < 6; k++) ok &= got[k] == in[coords[k] / N][coords[k] % N];
  printf("  sparse buffer: rc=%d data=%s\n", rc, ok ? "ok" : "WRONG");
}

static void regular_frame(int contiguous) {
  const char *path = contiguous ? "lazy_regular.b2frame" : "lazy_regular_dir.b2frame";
  printf("-- regular chunks, %s frame\n", contiguous ? "contiguous" : "sparse");
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16 * 1024;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  blosc2_context *c0 = cctx_for(BLOSC_BLOSCLZ, 5, 0, BLOSC_SHUFFLE);
  blosc2_context *c1 = cctx_for(BLOSC_BLOSCLZ, 5, 0, BLOSC_NOSHUFFLE);
  blosc2_context *c2 = cctx_for(BLOSC_ZSTD, 5, 1, BLOSC_SHUFFLE);
  append_compressed(sc, c0, in[0]);
  append_compressed(sc, c1, in[1]);
  append_compressed(sc, c2, in[2]);
  blosc2_free_ctx(c0);
  blosc2_free_ctx(c1);
  blosc2_free_ctx(c2);
  for (int i = 0; i < 3; i++) decode_lazy(sc, i);
  slices(sc);
  blosc2_schunk_free(sc);

  /* The same after reopening the frame. */
  sc = blosc2_schunk_open(path);
  printf("  reopened: nchunks=%lld\n", (long long)sc->nchunks);
  for (int i = 0; i < 3; i++) decode_lazy(sc, i);
  slices(sc);
  damaged_trailer(sc, 0);
  damaged_trailer(sc, 1);

  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

static void vl_frame(int contiguous) {
  const char *path = contiguous ? "lazy_vl.b2frame" : "lazy_vl_dir.b2frame";
  printf("-- VL-block chunk, %s frame\n", contiguous ? "contiguous" : "sparse");
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  enum { NBLK = 4 };
  char *parts[NBLK];
  int32_t lens[NBLK] = {6, 3000, 25, 1200};
  for (int b = 0; b < NBLK; b++) {
    parts[b] = malloc(lens[b]);
    for (int j = 0; j < lens[b]; j++) parts[b][j] = (char)('a' + (j * (b + 1)) % 26);
  }
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t chunk[8192];
  int cb = blosc2_vlcompress_ctx(cctx, (const void *const *)parts, lens, NBLK, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  printf("  vlcompress ok=%d append=%lld\n", cb > 0, (long long)blosc2_schunk_append_chunk(sc, chunk, true));

  uint8_t *lazy = NULL;
  bool nf = false;
  int lcb = blosc2_schunk_get_lazychunk(sc, 0, &lazy, &nf);
  int32_t nblocks = 0;
  int nrc = blosc2_vlchunk_get_nblocks(lazy, lcb, &nblocks);
  printf("  lazy=%d get_nblocks rc=%d nblocks=%d\n", (lazy[BLOSC2_CHUNK_BLOSC2_FLAGS] & 0x08) != 0, nrc, nblocks);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = sc;
  blosc2_context *own = blosc2_create_dctx(dp);
  for (int b = 0; b < NBLK; b++) {
    blosc2_context *ctxs[2] = {sc->dctx, own};
    for (int k = 0; k < 2; k++) {
      uint8_t *blk = NULL;
      int32_t blen = -1;
      int rc = blosc2_vldecompress_block_ctx(ctxs[k], lazy, lcb, b, &blk, &blen);
      printf("  %s vldecompress_block(%d): rc=%d size=%d data=%s\n", k ? "own dctx" : "schunk->dctx", b, rc, blen,
             rc == lens[b] && memcmp(blk, parts[b], lens[b]) == 0 ? "ok" : "WRONG");
      free(blk);
    }
  }
  blosc2_dparams dp0 = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *plain = blosc2_create_dctx(dp0);
  uint8_t *blk = NULL;
  int32_t blen = -1;
  printf("  dctx without schunk vldecompress_block(1): rc=%d\n",
         blosc2_vldecompress_block_ctx(plain, lazy, lcb, 1, &blk, &blen));
  free(blk);
  blosc2_free_ctx(plain);

  /* Damaged trailers: block csize 1 (too small for the size prefix), 4, 0, and huge. */
  uint8_t *bad = malloc(lcb);
  int32_t sizes[4] = {1, 4, 0, 1 << 20};
  for (int k = 0; k < 4; k++) {
    memcpy(bad, lazy, lcb);
    memcpy(bad + BLOSC_EXTENDED_HEADER_LENGTH + 4 * nblocks + 12 + 4, &sizes[k], 4);   /* block 1 */
    blk = NULL;
    int rc = blosc2_vldecompress_block_ctx(sc->dctx, bad, lcb, 1, &blk, &blen);
    printf("  block 1 csize %d: vldecompress_block rc=%d\n", sizes[k], rc);
    free(blk);
  }
  /* A block start before the end of the block-starts table. */
  memcpy(bad, lazy, lcb);
  int32_t early = BLOSC_EXTENDED_HEADER_LENGTH;
  memcpy(bad + BLOSC_EXTENDED_HEADER_LENGTH + 4, &early, 4);
  blk = NULL;
  printf("  block start inside the table: vldecompress_block rc=%d\n",
         blosc2_vldecompress_block_ctx(sc->dctx, bad, lcb, 0, &blk, &blen));
  free(blk);
  free(bad);

  /* Super-chunk level reads of the same blocks. */
  for (int b = 0; b < NBLK; b += 3) {
    blk = NULL;
    int rc = blosc2_schunk_get_vlblock(sc, 0, b, &blk, &blen);
    printf("  get_vlblock(%d): rc=%d data=%s\n", b, rc, rc == lens[b] && memcmp(blk, parts[b], lens[b]) == 0 ? "ok" : "WRONG");
    free(blk);
  }
  blosc2_free_ctx(own);
  if (nf) free(lazy);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  for (int b = 0; b < NBLK; b++) free(parts[b]);
}

/* A user I/O backend that passes through to stdio and counts reads. */
static int backend_reads = 0;
static int64_t counting_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream) {
  backend_reads++;
  return blosc2_stdio_read(ptr, size, nitems, position, stream);
}

static void user_io(void) {
  printf("-- user I/O backend, contiguous frame\n");
  blosc2_io_cb cb = {.id = 203, .name = "lazycount", .is_allocation_necessary = true, .open = blosc2_stdio_open,
                     .close = blosc2_stdio_close, .size = blosc2_stdio_size, .write = blosc2_stdio_write,
                     .read = counting_read, .truncate = blosc2_stdio_truncate, .destroy = blosc2_stdio_destroy};
  printf("  register_io_cb rc=%d\n", blosc2_register_io_cb(&cb));
  blosc2_io io = {.id = 203, .name = "lazycount", .params = NULL};
  const char *path = "lazy_udio.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16 * 1024;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  printf("  new: %s\n", sc ? "ok" : "NULL");
  if (sc == NULL) return;
  blosc2_context *c0 = cctx_for(BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE);
  blosc2_context *c1 = cctx_for(BLOSC_LZ4, 5, 0, BLOSC_NOSHUFFLE);
  append_compressed(sc, c0, in[0]);
  append_compressed(sc, c1, in[1]);
  blosc2_free_ctx(c0);
  blosc2_free_ctx(c1);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open_udio(path, &io);
  printf("  open_udio: %s\n", sc ? "ok" : "NULL");
  if (sc == NULL) return;
  for (int i = 0; i < 2; i++) {
    uint8_t *lazy = NULL;
    bool nf = false;
    int lcb = blosc2_schunk_get_lazychunk(sc, i, &lazy, &nf);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.schunk = sc;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int32_t *out = malloc(NB);
    backend_reads = 0;
    int rc = blosc2_decompress_ctx(dctx, lazy, lcb, out, NB);
    printf("  chunk %d lazy=%d: decompress rc=%d data=%s reads through the backend=%s\n", i,
           (lazy[BLOSC2_CHUNK_BLOSC2_FLAGS] & 0x08) != 0, rc, memcmp(out, in[i], NB) ? "WRONG" : "ok",
           backend_reads > 0 ? "yes" : "no");
    int32_t items[5] = {0};
    rc = blosc2_getitem_ctx(sc->dctx, lazy, lcb, N - 5, 5, items, sizeof items);
    printf("  chunk %d getitem via schunk->dctx: rc=%d data=%s\n", i, rc, memcmp(items, in[i] + N - 5, 20) ? "WRONG" : "ok");
    free(out);
    blosc2_free_ctx(dctx);
    if (nf) free(lazy);
  }
  slices(sc);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

/* A postfilter the super-chunk runs, which decodes one of that super-chunk's lazy chunks. */
static blosc2_schunk *pf_schunk = NULL;
static uint8_t *pf_lazy = NULL;
static int pf_lazy_len = 0;
static int pf_rc = 1;
static int pf_ok = 0;

static int decoding_postfilter(blosc2_postfilter_params *p) {
  memcpy(p->output, p->input, p->size);
  if (pf_lazy != NULL && p->nblock == 0 && pf_rc == 1) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.schunk = pf_schunk;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int32_t items[4] = {0};
    pf_rc = blosc2_getitem_ctx(dctx, pf_lazy, pf_lazy_len, 30000, 4, items, sizeof items);
    pf_ok = memcmp(items, in[0] + 30000, sizeof items) == 0;
    blosc2_free_ctx(dctx);
  }
  return 0;
}

static void inside_callback(void) {
  printf("-- lazy decode inside the super-chunk's postfilter\n");
  const char *path = "lazy_pf.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16 * 1024;
  blosc2_postfilter_params pp = {0};
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.postfilter = decoding_postfilter;
  dp.postparams = &pp;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  printf("  append=%lld\n", (long long)blosc2_schunk_append_buffer(sc, in[0], NB));
  bool nf = false;
  pf_schunk = sc;
  pf_lazy_len = blosc2_schunk_get_lazychunk(sc, 0, &pf_lazy, &nf);
  int32_t *out = malloc(NB);
  int rc = blosc2_schunk_decompress_chunk(sc, 0, out, NB);
  printf("  decompress_chunk rc=%d data=%s; getitem on the lazy chunk inside: rc=%d data=%s\n", rc,
         memcmp(out, in[0], NB) ? "WRONG" : "ok", pf_rc, pf_ok ? "ok" : "WRONG");
  free(out);
  if (nf) free(pf_lazy);
  pf_lazy = NULL;
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  fill_inputs();
  regular_frame(1);
  regular_frame(0);
  vl_frame(1);
  vl_frame(0);
  user_io();
  inside_callback();
  blosc2_destroy();
  return 0;
}
