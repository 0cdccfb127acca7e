/* Random edits of a b2nd array on disk, written by one library and read by another
 * (scripts/edit-interop.sh; compiled against the reference's headers).
 * usage: b2nd_edit_sequences PATH c|s SEED w DUMP  -> creates and edits the array (b2nd_full,
 *          then resize, insert, append, delete and slice writes along random axes), dumps
 *          its shape and items (b2nd_to_cbuffer) to DUMP, prints "OK n items"
 *        b2nd_edit_sequences PATH c|s SEED r DUMP  -> opens the array, prints OK when shape
 *          and items equal DUMP's. Refused edits (unaligned inserts and deletes) are skipped. */
#include <b2nd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static uint64_t st;
static uint32_t rnd(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return (uint32_t)st; }
int main(int argc, char **argv) {
  if (argc != 6) { fprintf(stderr, "usage: %s PATH c|s SEED w|r DUMP\n", argv[0]); return 2; }
  const char *path = argv[1]; int contiguous = argv[2][0] == 'c'; st = strtoull(argv[3], 0, 10) * 2654435761u + 7;
  int write = argv[4][0] == 'w'; const char *dump = argv[5];
  blosc2_init();
  b2nd_array_t *a = NULL; int rc;
  if (write) {
    blosc2_remove_urlpath(path);
    int8_t nd = 1 + rnd() % 3; int64_t shape[3]; int32_t cs[3], bs[3];
    for (int i = 0; i < nd; i++) { shape[i] = rnd() % 20; cs[i] = 1 + rnd() % 8; bs[i] = 1 + rnd() % cs[i]; }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.nthreads = 1;
    blosc2_storage sto = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
    b2nd_context_t *ctx = b2nd_create_ctx(&sto, nd, shape, cs, bs, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
    int32_t fillv = 7;
    rc = b2nd_full(ctx, &a, &fillv); if (rc < 0) { printf("full %d\n", rc); return 1; }
    int nops = 1 + rnd() % 8;
    for (int k = 0; k < nops; k++) {
      int op = rnd() % 5, ax = rnd() % nd;
      int64_t sz = a->shape[ax];
      if (op == 0) { int64_t ns[3]; for (int i = 0; i < nd; i++) ns[i] = a->shape[i] + (int)(rnd() % 9) - 3; for (int i = 0; i < nd; i++) if (ns[i] < 0) ns[i] = 0;
        rc = b2nd_resize(a, ns, NULL); }
      else if (op == 1 || op == 2) { /* insert or append a slab of width w along ax */
        int64_t w = 1 + rnd() % 4; int64_t bshape_n = w; for (int i = 0; i < nd; i++) if (i != ax) bshape_n *= a->shape[i];
        int32_t *buf = malloc((bshape_n + 1) * 4); for (int64_t i = 0; i < bshape_n; i++) buf[i] = (int32_t)(rnd() % 1000);
        if (op == 1) rc = b2nd_insert(a, buf, bshape_n * 4, ax, sz ? rnd() % (sz + 1) : 0);
        else rc = b2nd_append(a, buf, bshape_n * 4, ax);
        free(buf);
        if (rc < 0 && op == 1) rc = 0; /* inserts need aligned positions: skip refused ones */ }
      else if (op == 3 && sz > 0) { int64_t d = 1 + rnd() % sz; rc = b2nd_delete(a, ax, rnd() % (sz - d + 1), d); if (rc < 0) rc = 0; }
      else { int64_t start[3] = {0}, stop[3]; for (int i = 0; i < nd; i++) stop[i] = a->shape[i] ? 1 + rnd() % a->shape[i] : 0;
        int64_t n = 1; for (int i = 0; i < nd; i++) n *= stop[i];
        int32_t *buf = malloc(n * 4 + 4); for (int64_t i = 0; i < n; i++) buf[i] = (int32_t)(rnd() % 1000);
        rc = b2nd_set_slice_cbuffer(buf, stop, n * 4, start, stop, a); free(buf); }
      if (rc < 0) { printf("op %d rc %d\n", op, rc); }
    }
  } else {
    rc = b2nd_open(path, &a); if (rc < 0) { printf("OPEN FAILED %d\n", rc); return 1; }
  }
  int64_t n = 1; for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
  int32_t *all = malloc(n * 4 + 4);
  rc = b2nd_to_cbuffer(a, all, n * 4);
  if (rc < 0) { printf("to_cbuffer %d\n", rc); return 1; }
  if (write) { FILE *f = fopen(dump, "wb"); fwrite(&a->ndim, 1, 1, f); fwrite(a->shape, 8, a->ndim, f); fwrite(all, 4, n, f); fclose(f); printf("OK %lld items\n", (long long)n); }
  else { FILE *f = fopen(dump, "rb"); int8_t nd = 0; int64_t sh[8];
    if (fread(&nd, 1, 1, f) != 1 || nd < 0 || nd > 8 || fread(sh, 8, nd, f) != (size_t)nd) { printf("bad dump\n"); return 1; }
    int32_t *w = malloc(n * 4 + 4); size_t got = fread(w, 4, n + 1, f); fclose(f);
    int bad = nd != a->ndim || got != (size_t)n || memcmp(w, all, n * 4) != 0;
    for (int i = 0; i < nd && !bad; i++) bad |= sh[i] != a->shape[i];
    printf(bad ? "BAD\n" : "OK\n"); }
  b2nd_free(a);
  blosc2_destroy();
  return 0;
}
