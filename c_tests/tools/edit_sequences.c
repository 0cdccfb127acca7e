/* Random edit sequences on a frame file, written by one library and checked by another
 * (scripts/edit-interop.sh runs every writer/reader pair; compiled against the reference's
 * headers). usage: edit_sequences PATH c|s SEED w   -> edits, prints the expected content
 *                  edit_sequences PATH c|s SEED r   <- reads that line, checks the frame
 * The edits: metalayer, appends, inserts, updates, deletes, vlmetalayer add/update,
 * reorders (new chunks one in four all-zeros special chunks); every fourth seed then deletes every chunk; every chunk is CS bytes of a seeded pattern, so the
 * expected content is the list of seeds. The reader compares chunk count, every chunk
 * (blosc2_schunk_get_chunk + blosc2_decompress_ctx) and the vlmetalayer. */
#include <blosc2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CS 4000
static uint64_t st;
static uint32_t rnd(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return (uint32_t)st; }
static void fill(int32_t *b, int seed) { for (int i = 0; i < CS / 4; i++) b[i] = seed * 1000 + (i % (seed % 7 + 1)); }
int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: %s PATH c|s SEED w|r\n", argv[0]); return 2; }
  const char *path = argv[1]; st = strtoull(argv[3], 0, 10) * 2654435761u + 1;
  /* c: contiguous frame file; s: sparse frame directory; m: a contiguous frame in memory,
   * passed on as the bytes of blosc2_schunk_to_buffer and opened with
   * blosc2_schunk_from_buffer (copy = false). */
  int contiguous = argv[2][0] != 's', in_memory = argv[2][0] == 'm';
  int write = argv[4][0] == 'w';
  blosc2_init();
  int model[4096]; int n = 0; int vl = -1;
  if (write) {
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.nthreads = 1;
    blosc2_storage sto = {.contiguous = contiguous, .urlpath = in_memory ? NULL : (char *)path, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&sto);
    if (rnd() % 2) { uint8_t m[8] = {1,2,3,4,5,6,7,8}; blosc2_meta_add(sc, "m", m, 8); }
    int nops = 5 + rnd() % 40; int32_t buf[CS / 4]; uint8_t chunk[CS + BLOSC2_MAX_OVERHEAD];
    for (int k = 0; k < nops; k++) {
      int op = rnd() % 10, seed = 1 + rnd() % 1000; int64_t rc = 0;
      if (op < 3 || n == 0) { fill(buf, seed); rc = blosc2_schunk_append_buffer(sc, buf, CS); if (rc >= 0) model[n++] = seed; }
      else if (op < 6) {
        /* A new chunk: compressed, or (one in four) a special all-zeros chunk (seed 0). */
        if (rnd() % 4 == 0) { seed = 0; blosc2_chunk_zeros(cp, CS, chunk, sizeof chunk); }
        else { fill(buf, seed); blosc2_compress(5, 1, 4, buf, CS, chunk, sizeof chunk); }
        if (op < 5) { int pos = rnd() % (n + 1);
          rc = blosc2_schunk_insert_chunk(sc, pos, chunk, true);
          if (rc >= 0) { memmove(model + pos + 1, model + pos, (n - pos) * sizeof(int)); model[pos] = seed; n++; } }
        else { int pos = rnd() % n;
          rc = blosc2_schunk_update_chunk(sc, pos, chunk, true); if (rc >= 0) model[pos] = seed; } }
      else if (op < 8) { int pos = rnd() % n; rc = blosc2_schunk_delete_chunk(sc, pos);
        if (rc >= 0) { memmove(model + pos, model + pos + 1, (n - pos - 1) * sizeof(int)); n--; } }
      else if (op < 9) { uint8_t v[16]; memset(v, seed & 0xff, sizeof v); int len = 1 + seed % 16;
        rc = vl < 0 ? blosc2_vlmeta_add(sc, "vl", v, len, NULL) : blosc2_vlmeta_update(sc, "vl", v, len, NULL);
        if (rc >= 0) vl = seed; }
      else if (n > 1) { int64_t ord[4096]; for (int i = 0; i < n; i++) ord[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = rnd() % (i + 1); int64_t t = ord[i]; ord[i] = ord[j]; ord[j] = t; }
        rc = blosc2_schunk_reorder_offsets(sc, ord);
        if (rc >= 0) { int nm[4096]; for (int i = 0; i < n; i++) nm[i] = model[ord[i]]; memcpy(model, nm, n * sizeof(int)); } }
      if (rc < 0) { printf("op %d failed %lld\n", op, (long long)rc); }
    }
    /* One seed in four ends with every chunk deleted (the frame then has no payload and
     * no index), one in eight of those with a vlmetalayer written afterwards. */
    int seed_no = atoi(argv[3]);
    if (seed_no % 4 == 0) {
      while (n > 0) {
        int pos = rnd() % n;
        if (blosc2_schunk_delete_chunk(sc, pos) < 0) { printf("delete failed\n"); break; }
        memmove(model + pos, model + pos + 1, (n - pos - 1) * sizeof(int)); n--;
      }
      if (seed_no % 8 == 0) {
        uint8_t v[16]; int seed = 1 + rnd() % 1000; memset(v, seed & 0xff, sizeof v);
        int len = 1 + seed % 16;
        int rc = vl < 0 ? blosc2_vlmeta_add(sc, "vl", v, len, NULL) : blosc2_vlmeta_update(sc, "vl", v, len, NULL);
        if (rc >= 0) vl = seed;
      }
    }
    if (in_memory) {
      uint8_t *fr; bool nf; int64_t len = blosc2_schunk_to_buffer(sc, &fr, &nf);
      FILE *f = fopen(path, "wb");
      if (len < 0 || !f || fwrite(fr, 1, (size_t)len, f) != (size_t)len) { printf("to_buffer %lld\n", (long long)len); return 1; }
      fclose(f); if (nf) free(fr);
    }
    blosc2_schunk_free(sc);
    printf("%d %d", n, vl); for (int i = 0; i < n; i++) printf(" %d", model[i]); printf("\n");
  } else {
    if (scanf("%d %d", &n, &vl) != 2) return 2;
    for (int i = 0; i < n; i++) if (scanf("%d", &model[i]) != 1) return 2;
    static uint8_t frame[64 << 20]; int64_t flen = 0;
    blosc2_schunk *sc;
    if (in_memory) {
      FILE *f = fopen(path, "rb"); if (!f) { printf("no frame\n"); return 1; }
      flen = (int64_t)fread(frame, 1, sizeof frame, f); fclose(f);
      sc = blosc2_schunk_from_buffer(frame, flen, false);
    } else {
      sc = blosc2_schunk_open(path);
    }
    if (!sc) { printf("OPEN FAILED\n"); return 1; }
    int bad = 0; if (sc->nchunks != n) { printf("nchunks %lld want %d\n", (long long)sc->nchunks, n); bad = 1; }
    int32_t buf[CS / 4], want[CS / 4];
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    for (int i = 0; i < n && !bad; i++) {
      uint8_t *c; bool nf; int d = -1;
      int cb = blosc2_schunk_get_chunk(sc, i, &c, &nf);
      if (cb > 0) { d = blosc2_decompress_ctx(dctx, c, cb, buf, CS); if (nf) free(c); }
      fill(want, model[i]);
      if (d != CS || memcmp(buf, want, CS)) { printf("chunk %d wrong (%d)\n", i, d); bad = 1; } }
    blosc2_free_ctx(dctx);
    if (vl >= 0) { uint8_t *c; int32_t cl; int rc = blosc2_vlmeta_get(sc, "vl", &c, &cl);
      if (rc < 0 || cl != 1 + vl % 16 || c[0] != (vl & 0xff)) { printf("vlmeta wrong rc %d\n", rc); bad = 1; } if (rc >= 0) free(c); }
    blosc2_schunk_free(sc);
    printf(bad ? "BAD\n" : "OK\n"); return bad;
  }
  blosc2_destroy();
  return 0;
}
