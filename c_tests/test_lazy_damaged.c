// c_tests: compare-output
// Damaged lazy chunks must fail with the reference's error codes. Lazy chunks of regular,
// memcpyed and VL-block chunks (contiguous and sparse frames) get one trailer or block-start
// field changed at a time (block compressed sizes, tiny sizes, block starts, the chunk's
// position, the chunk number) and are decoded through schunk->dctx; the program prints, per
// chunk kind and kind of damage, how often each return code came back.
// The frames hold BloscLZ chunks, which both libraries write byte for byte alike (the first
// lines print each chunk's size and hash: if those differ, the premise broke, not the lazy
// reads). Dictionary chunks are left out: the reference's getitem never loads a chunk's
// dictionary (REFERENCE-DEFECTS.md), so its codes there depend on the context's history.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2.h"

enum { ITERS = 600, KINDS = 7, MAXRC = 64 };

static uint32_t rs = 12345;
static uint32_t rnd(void) {
  rs = rs * 1103515245u + 12345u;
  return rs >> 8;
}

static uint64_t hash(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static const char *kind_name[KINDS] = {"csize", "bstart", "chunk-offset", "nchunk", "tiny-csize", "bstart-in-table",
                                       "csize+bstart"};

/* counts[kind][-rc] for decompress (d) and getitem (g) / vldecompress_block (d only) */
static void damage(blosc2_schunk *sc, int i, const char *tag, int vl) {
  uint8_t *lazy = NULL;
  bool nf = false;
  int lcb = blosc2_schunk_get_lazychunk(sc, i, &lazy, &nf);
  int32_t nbytes, cbytes, bs;
  blosc2_cbuffer_sizes(lazy, &nbytes, &cbytes, &bs);
  int nblocks = vl ? bs : (nbytes + bs - 1) / bs;
  int tr = BLOSC_EXTENDED_HEADER_LENGTH + 4 * nblocks;
  uint8_t *bad = malloc(lcb);
  uint8_t *out = malloc(nbytes + 64);
  int d[KINDS][MAXRC] = {{0}}, g[KINDS][MAXRC] = {{0}};
  for (int it = 0; it < ITERS; it++) {
    memcpy(bad, lazy, lcb);
    int kind = it % KINDS;
    int32_t v;
    int pos;
    switch (kind) {
      case 0: pos = tr + 12 + 4 * (rnd() % nblocks); v = (int32_t)(rnd() % 70000) - 100; break;
      case 1: pos = 32 + 4 * (rnd() % nblocks); v = (int32_t)(rnd() % (cbytes + 100)) - 50; break;
      case 2: pos = tr + 4; v = (int32_t)(rnd() % 4000) - 100; break;
      case 3: pos = tr; v = (int32_t)(rnd() % 5) - 1; break;
      case 4: pos = tr + 12 + 4 * (rnd() % nblocks); v = (int32_t)(rnd() % 9); break;
      case 5: pos = 32 + 4 * (rnd() % nblocks); v = 32 + (int32_t)(rnd() % (4 * nblocks + 8)); break;
      default: {
        int p2 = tr + 12 + 4 * (rnd() % nblocks);
        int32_t v2 = (int32_t)(rnd() % 300);
        memcpy(bad + p2, &v2, 4);
        pos = 32 + 4 * (rnd() % nblocks);
        v = (int32_t)(rnd() % (cbytes + 10));
      }
    }
    if (kind == 2) {
      int64_t o;
      memcpy(&o, bad + pos, 8);
      o += v;
      memcpy(bad + pos, &o, 8);
    } else {
      memcpy(bad + pos, &v, 4);
    }
    int rc1, rc2 = 0;
    if (vl) {
      uint8_t *blk = NULL;
      int32_t bl;
      rc1 = blosc2_vldecompress_block_ctx(sc->dctx, bad, lcb, (int32_t)(rnd() % nblocks), &blk, &bl);
      free(blk);
    } else {
      rc1 = blosc2_decompress_ctx(sc->dctx, bad, lcb, out, nbytes);
      rc2 = blosc2_getitem_ctx(sc->dctx, bad, lcb, (int)(rnd() % (nbytes / 4 - 4)), 4, out, 64);
    }
    d[kind][rc1 < 0 && -rc1 < MAXRC ? -rc1 : 0]++;
    g[kind][rc2 < 0 && -rc2 < MAXRC ? -rc2 : 0]++;
  }
  for (int k = 0; k < KINDS; k++) {
    printf("  %s %-15s %s:", tag, kind_name[k], vl ? "vldecompress_block" : "decompress");
    for (int r = 0; r < MAXRC; r++)
      if (d[k][r]) printf(" %d x%d", -r, d[k][r]);
    if (!vl) {
      printf(" | getitem:");
      for (int r = 0; r < MAXRC; r++)
        if (g[k][r]) printf(" %d x%d", -r, g[k][r]);
    }
    printf("\n");
  }
  free(bad);
  free(out);
  if (nf) free(lazy);
}

static void show_chunks(blosc2_schunk *sc, const char *tag) {
  for (int64_t i = 0; i < sc->nchunks; i++) {
    uint8_t *c = NULL;
    bool nf = false;
    int cb = blosc2_schunk_get_chunk(sc, i, &c, &nf);
    printf("  %s chunk %lld: cbytes=%d memcpyed=%d hash=%016llx\n", tag, (long long)i, cb,
           cb > 0 && (c[BLOSC2_CHUNK_FLAGS] & BLOSC_MEMCPYED) != 0, cb > 0 ? (unsigned long long)hash(c, (size_t)cb) : 0ULL);
    if (nf) free(c);
  }
}

int main(void) {
  blosc2_init();
  int32_t *buf = malloc(40000 * 4);
  uint8_t *ch = malloc(170000);
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    const char *path = contiguous ? "lazy_damaged.b2frame" : "lazy_damaged_dir.b2frame";
    const char *pathv = contiguous ? "lazy_damaged_vl.b2frame" : "lazy_damaged_vl_dir.b2frame";
    printf("-- %s frames\n", contiguous ? "contiguous" : "sparse");
    blosc2_remove_urlpath(path);
    blosc2_remove_urlpath(pathv);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 8192;
    blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    for (int i = 0; i < 40000; i++) buf[i] = i * 3 + (i % 17);
    blosc2_schunk_append_buffer(sc, buf, 160000);
    uint32_t x = 99;
    for (int i = 0; i < 40000; i++) {
      x = x * 1103515245u + 12345u;
      buf[i] = (int32_t)(x * 2654435761u);
    }
    cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
    blosc2_context *cc = blosc2_create_cctx(cp);
    blosc2_compress_ctx(cc, buf, 160000, ch, 160000 + BLOSC2_MAX_OVERHEAD);   /* too small: memcpyed */
    blosc2_schunk_append_chunk(sc, ch, true);
    blosc2_free_ctx(cc);
    blosc2_schunk_free(sc);

    blosc2_cparams cv = BLOSC2_CPARAMS_DEFAULTS;
    cv.typesize = 1;
    blosc2_storage sv = {.contiguous = contiguous, .urlpath = (char *)pathv, .cparams = &cv};
    blosc2_schunk *sv_sc = blosc2_schunk_new(&sv);
    const void *parts[5];
    int32_t lens[5] = {100, 2000, 7, 500, 3000};
    for (int b = 0; b < 5; b++) {
      char *p = malloc(lens[b]);
      for (int j = 0; j < lens[b]; j++) p[j] = (char)('a' + (j * (b + 3)) % 20);
      parts[b] = p;
    }
    cc = blosc2_create_cctx(cv);
    blosc2_vlcompress_ctx(cc, parts, lens, 5, ch, 170000);
    blosc2_free_ctx(cc);
    blosc2_schunk_append_chunk(sv_sc, ch, true);
    for (int b = 0; b < 5; b++) free((void *)parts[b]);
    blosc2_schunk_free(sv_sc);

    /* Read them back reopened, as another program would. */
    sc = blosc2_schunk_open(path);
    sv_sc = blosc2_schunk_open(pathv);
    show_chunks(sc, "regular+memcpyed");
    show_chunks(sv_sc, "vl");
    rs = 12345;
    damage(sc, 0, "regular", 0);
    damage(sc, 1, "memcpyed", 0);
    damage(sv_sc, 0, "vl", 1);
    blosc2_schunk_free(sc);
    blosc2_schunk_free(sv_sc);
    blosc2_remove_urlpath(path);
    blosc2_remove_urlpath(pathv);
  }
  free(buf);
  free(ch);
  blosc2_destroy();
  return 0;
}
