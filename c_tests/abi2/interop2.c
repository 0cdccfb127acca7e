/* Differential driver for the c-blosc2 2.x face: compiled against c-blosc2 2.23.1's headers
 * and run once with the reference libblosc2.so.7 and once with ours (c_tests/abi2/run.sh).
 *
 *   interop2 write DIR   compress a matrix of chunks, build super-chunks (in memory,
 *                        contiguous and sparse frames, on disk), b2nd arrays; write them under
 *                        DIR and print one line per case: return codes, the public struct
 *                        fields read through 2.23's layout, and a hash of every written byte
 *   interop2 read DIR    decode everything under DIR (written by either library), check it
 *                        against the regenerated input and print one line per case
 *
 * Both modes print only facts both libraries must agree on, so run.sh compares the outputs of
 * the two libraries line by line. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blosc2.h"
#include "b2nd.h"

static uint64_t fnv(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
  return h;
}

/* Deterministic input of one of three kinds: 0 ramp, 1 noisy ramp, 2 text-like tokens. */
static void fill(uint8_t *d, size_t n, int kind, int typesize) {
  uint64_t x = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(kind * 131 + typesize);
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    switch (kind) {
      case 0: d[i] = (uint8_t)((i / (size_t)typesize) * 3 + (i % (size_t)typesize == 0)); break;
      case 1: d[i] = (uint8_t)((i / 64) + (x % 4)); break;
      default: d[i] = (uint8_t)("blosc2 rust face compresses tokens "[(x >> 8) % 34 + (i % 3 == 0)]); break;
    }
  }
}

static const char *codec_names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const int codec_ids[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const char *filter_names[] = {"none", "shuf", "bit", "dshuf"};
static const int typesizes[] = {1, 2, 4, 8, 16};
static const int clevels[] = {0, 1, 5, 9};
static const int32_t sizes[] = {0, 7, 1000, 65539, 300000};

static void set_filters(blosc2_cparams *cp, int f) {
  memset(cp->filters, 0, sizeof cp->filters);
  switch (f) {
    case 1: cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE; break;
    case 2: cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE; break;
    case 3: cp->filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
            cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE; break;
    default: break;
  }
}

static int save(const char *dir, const char *name, const void *p, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(p, 1, n, f);
  fclose(f);
  return w == n ? 0 : -1;
}

static uint8_t *load(const char *dir, const char *name, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
  *n = fread(b, 1, (size_t)len, f);
  fclose(f);
  return b;
}

/* ---------------------------------------------------------------- chunks */

struct chunk_case { int codec, filter, typesize, clevel, size, kind, dict, nthreads, splitmode; };

static void case_name(const struct chunk_case *c, char *out, size_t n) {
  snprintf(out, n, "c-%s-%s-ts%d-cl%d-n%d-k%d-d%d-t%d-sp%d", codec_names[c->codec],
           filter_names[c->filter], c->typesize, c->clevel, (int)sizes[c->size], c->kind,
           c->dict, c->nthreads, c->splitmode);
}

typedef void (*case_fn)(const struct chunk_case *, const char *dir);

static void each_chunk_case(case_fn fn, const char *dir) {
  struct chunk_case c;
  for (c.codec = 0; c.codec < 5; c.codec++)
  for (c.filter = 0; c.filter < 4; c.filter++)
  for (int t = 0; t < 5; t++)
  for (int l = 0; l < 4; l++)
  for (c.size = 0; c.size < 5; c.size++) {
    c.typesize = typesizes[t]; c.clevel = clevels[l];
    c.kind = (c.codec + c.filter + t + l + c.size) % 3;
    c.dict = 0; c.nthreads = 1; c.splitmode = BLOSC_FORWARD_COMPAT_SPLIT;
    fn(&c, dir);
  }
  /* split modes, threads and dictionaries on a few sizes */
  for (c.codec = 0; c.codec < 5; c.codec++)
  for (c.size = 2; c.size < 5; c.size++) {
    c.filter = 1; c.typesize = 4; c.clevel = 5; c.kind = 1;
    for (c.splitmode = 1; c.splitmode <= 4; c.splitmode++) {
      c.dict = 0; c.nthreads = 1; fn(&c, dir);
    }
    c.splitmode = BLOSC_FORWARD_COMPAT_SPLIT;
    c.dict = 0; c.nthreads = 2; fn(&c, dir);
    c.dict = 1; c.nthreads = 1; fn(&c, dir);
  }
}

static void write_chunk(const struct chunk_case *c, const char *dir) {
  char name[256];
  case_name(c, name, sizeof name);
  int32_t n = sizes[c->size];
  uint8_t *src = malloc((size_t)n + 1);
  fill(src, (size_t)n, c->kind, c->typesize);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec_ids[c->codec];
  cp.clevel = (uint8_t)c->clevel;
  cp.typesize = c->typesize;
  cp.nthreads = (int16_t)c->nthreads;
  cp.splitmode = c->splitmode;
  cp.use_dict = c->dict;
  set_filters(&cp, c->filter);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int32_t cap = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *dest = malloc((size_t)cap);
  int rc = blosc2_compress_ctx(cctx, src, n, dest, cap);
  blosc2_free_ctx(cctx);
  if (rc > 0) {
    int32_t nbytes = 0, cbytes = 0, blocksize = 0;
    blosc2_cbuffer_sizes(dest, &nbytes, &cbytes, &blocksize);
    /* Two threads may lay blocks out in another order: only sizes and layout then. */
    uint64_t h = c->nthreads > 1 ? 0 : fnv(dest, (size_t)rc);
    printf("%s rc=%d nbytes=%d cbytes=%d blocksize=%d ver=%d flags=%d hash=%016" PRIx64 "\n",
           name, rc, nbytes, cbytes, blocksize, dest[0], dest[2], h);
    save(dir, name, dest, (size_t)rc);
  } else {
    printf("%s rc=%d\n", name, rc);
  }
  free(src);
  free(dest);
}

static void read_chunk(const struct chunk_case *c, const char *dir) {
  char name[256];
  case_name(c, name, sizeof name);
  size_t clen = 0;
  uint8_t *chunk = load(dir, name, &clen);
  if (!chunk) { printf("%s absent\n", name); return; }
  int32_t n = sizes[c->size];
  uint8_t *want = malloc((size_t)n + 1), *out = malloc((size_t)n + 1);
  fill(want, (size_t)n, c->kind, c->typesize);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)c->nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int rc = blosc2_decompress_ctx(dctx, chunk, (int32_t)clen, out, n);
  int ok = rc == n && memcmp(out, want, (size_t)n) == 0;
  /* getitem of a middle range of whole items */
  int32_t items = n / c->typesize, start = items / 3, nitems = items / 3;
  int grc = 0, gok = 1;
  if (nitems > 0) {
    grc = blosc2_getitem_ctx(dctx, chunk, (int32_t)clen, start, nitems, out, n);
    gok = grc == nitems * c->typesize &&
          memcmp(out, want + (size_t)start * c->typesize, (size_t)grc) == 0;
  }
  blosc2_free_ctx(dctx);
  printf("%s drc=%d ok=%d grc=%d gok=%d\n", name, rc, ok, grc, gok);
  free(chunk); free(want); free(out);
}

/* Chunks of special values and refusals of bad parameters. */
static void write_specials(const char *dir) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  uint8_t buf[BLOSC_EXTENDED_HEADER_LENGTH + 8];
  int rc = blosc2_chunk_zeros(cp, 80000, buf, sizeof buf);
  printf("special-zeros rc=%d hash=%016" PRIx64 "\n", rc, rc > 0 ? fnv(buf, (size_t)rc) : 0);
  if (rc > 0) save(dir, "special-zeros", buf, (size_t)rc);
  rc = blosc2_chunk_nans(cp, 80000, buf, sizeof buf);
  printf("special-nans rc=%d hash=%016" PRIx64 "\n", rc, rc > 0 ? fnv(buf, (size_t)rc) : 0);
  if (rc > 0) save(dir, "special-nans", buf, (size_t)rc);
  double v = 3.25;
  rc = blosc2_chunk_repeatval(cp, 80000, buf, sizeof buf, &v);
  printf("special-repeat rc=%d hash=%016" PRIx64 "\n", rc, rc > 0 ? fnv(buf, (size_t)rc) : 0);
  if (rc > 0) save(dir, "special-repeat", buf, (size_t)rc);
  /* refusals */
  cp.clevel = 10;
  blosc2_context *c = blosc2_create_cctx(cp);
  uint8_t src[1000] = {0}, dst[2000];
  printf("refuse-clevel10 rc=%d\n", c ? blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst) : -999);
  blosc2_free_ctx(c);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  printf("refuse-small-dest rc=%d\n", blosc2_compress(5, 1, 4, src, sizeof src, dst, 10));
  printf("version=%s\n", blosc2_get_version_string());
  printf("compressors=%s\n", blosc2_list_compressors());
  const char *name = NULL;
  printf("compcode_to_compname(4)=%d %s\n", blosc2_compcode_to_compname(4, &name), name ? name : "-");
  printf("compname_to_compcode(zstd)=%d\n", blosc2_compname_to_compcode("zstd"));
  for (int e = 0; e >= -40; e--) printf("error_string(%d)=%s\n", e, blosc2_error_string(e));
}

static void read_specials(const char *dir) {
  const char *names[] = {"special-zeros", "special-nans", "special-repeat"};
  for (int i = 0; i < 3; i++) {
    size_t clen = 0;
    uint8_t *chunk = load(dir, names[i], &clen);
    if (!chunk) { printf("%s absent\n", names[i]); continue; }
    double out[10000];
    int rc = blosc2_decompress(chunk, (int32_t)clen, out, sizeof out);
    int ok = rc == (int)sizeof out;
    for (int k = 0; ok && k < 10000; k++) {
      if (i == 0) ok = out[k] == 0.0;
      if (i == 1) ok = isnan(out[k]);
      if (i == 2) ok = out[k] == 3.25;
    }
    printf("%s drc=%d ok=%d\n", names[i], rc, ok);
    free(chunk);
  }
}

/* ---------------------------------------------------------------- super-chunks */

enum { ST_MEMORY, ST_CFRAME, ST_CONTIG, ST_SPARSE, NSTORE };
static const char *store_names[] = {"memory", "cframe", "contig", "sparse"};
#define NCHUNKS 6
#define CHUNKSIZE 40000

static void print_schunk(const char *name, const blosc2_schunk *s) {
  /* every field a 2.x caller can read, through 2.23's struct layout */
  printf("%s fields nchunks=%" PRId64 " nbytes=%" PRId64 " chunksize=%d typesize=%d "
         "compcode=%d clevel=%d splitmode=%d filters=%d,%d,%d,%d,%d,%d meta=%d,%d,%d,%d,%d,%d "
         "nmeta=%d nvlmeta=%d frame=%d storage=%d contiguous=%d\n",
         name, s->nchunks, s->nbytes, s->chunksize, s->typesize, s->compcode, s->clevel,
         s->splitmode, s->filters[0], s->filters[1], s->filters[2], s->filters[3], s->filters[4],
         s->filters[5], s->filters_meta[0], s->filters_meta[1], s->filters_meta[2],
         s->filters_meta[3], s->filters_meta[4], s->filters_meta[5], s->nmetalayers,
         s->nvlmetalayers, s->frame != NULL, s->storage != NULL,
         s->storage ? s->storage->contiguous : -1);
  for (int i = 0; i < s->nmetalayers; i++)
    printf("%s meta[%d]=%s len=%d hash=%016" PRIx64 "\n", name, i, s->metalayers[i]->name,
           s->metalayers[i]->content_len,
           fnv(s->metalayers[i]->content, (size_t)s->metalayers[i]->content_len));
}

static void chunk_data(uint8_t *d, int nchunk, int32_t n) { fill(d, (size_t)n, nchunk % 3, 4); d[0] = (uint8_t)nchunk; }

static void write_schunk(const char *dir, int store, int codec, int last_small, int edits) {
  char name[256], path[1024];
  snprintf(name, sizeof name, "%s-%s-%s-last%d", edits ? "s" : "p", store_names[store], codec_names[codec], last_small);
  snprintf(path, sizeof path, "%s/%s.b2frame", dir, name);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)codec_ids[codec];
  cp.clevel = 5;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = store != ST_SPARSE && store != ST_MEMORY,
                       .urlpath = (store == ST_CONTIG || store == ST_SPARSE) ? path : NULL,
                       .cparams = &cp, .dparams = &dp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *s = blosc2_schunk_new(&st);
  if (!s) { printf("%s new=NULL\n", name); return; }
  /* metalayers go in before the chunks (2.23 adds them to its struct, refuses to write them
     and is then out of step with its own frame when asked later) */
  uint8_t content[5] = {1, 2, 3, 4, 5};
  printf("%s meta_add=%d\n", name, blosc2_meta_add(s, "m1", content, 5));
  uint8_t *buf = malloc(CHUNKSIZE);
  for (int i = 0; i < NCHUNKS; i++) {
    int32_t n = (last_small && i == NCHUNKS - 1) ? CHUNKSIZE / 3 : CHUNKSIZE;
    chunk_data(buf, i, n);
    int64_t rc = blosc2_schunk_append_buffer(s, buf, n);
    if (rc != i + 1) printf("%s append[%d]=%" PRId64 "\n", name, i, rc);
  }
  printf("%s vlmeta_add=%d meta_update=%d\n", name, blosc2_vlmeta_add(s, "v1", content, 3, NULL),
         blosc2_meta_update(s, "m1", (uint8_t *)"abcde", 5));
  /* a larger chunk is refused */
  uint8_t *big = calloc(1, 2 * CHUNKSIZE);
  printf("%s larger-append=%" PRId64 "\n", name, blosc2_schunk_append_buffer(s, big, 2 * CHUNKSIZE));
  free(big);
  /* update, insert and delete keep the chunk size */
  uint8_t *chunk = malloc(CHUNKSIZE + BLOSC2_MAX_OVERHEAD);
  /* a context of its own: the super-chunk's remembers the block size of its last chunk */
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (edits) {
  chunk_data(buf, 7, CHUNKSIZE);
  int csize = blosc2_compress_ctx(cctx, buf, CHUNKSIZE, chunk, CHUNKSIZE + BLOSC2_MAX_OVERHEAD);
  int64_t urc = csize > 0 ? blosc2_schunk_update_chunk(s, 1, chunk, true) : -999;
  int64_t irc = csize > 0 ? blosc2_schunk_insert_chunk(s, 2, chunk, true) : -999;
  int64_t drc = blosc2_schunk_delete_chunk(s, 0);
  printf("%s update=%" PRId64 " insert=%" PRId64 " delete=%" PRId64 "\n", name, urc, irc, drc);
  chunk_data(buf, 8, CHUNKSIZE / 2);
  csize = blosc2_compress_ctx(cctx, buf, CHUNKSIZE / 2, chunk, CHUNKSIZE + BLOSC2_MAX_OVERHEAD);
  /* a smaller chunk that would not be the last is refused */
  printf("%s small-update=%" PRId64 "\n", name,
         csize > 0 ? blosc2_schunk_update_chunk(s, 1, chunk, true) : -999);
  }
  blosc2_free_ctx(cctx);
  print_schunk(name, s);
  for (int i = 0; i < s->nchunks; i++) {
    uint8_t *c = NULL;
    bool cfree = false;
    int crc = blosc2_schunk_get_chunk(s, i, &c, &cfree);
    int32_t nb = 0, cb = 0, bs = 0;
    if (crc > 0) blosc2_cbuffer_sizes(c, &nb, &cb, &bs);
    printf("%s chunk[%d] rc=%d nbytes=%d cbytes=%d blocksize=%d hash=%016" PRIx64 "\n", name, i,
           crc, nb, cb, bs, crc > 0 ? fnv(c, (size_t)cb) : 0);
    if (cfree) free(c);
  }
  if (store == ST_MEMORY || store == ST_CFRAME) {
    bool needs_free = false;
    uint8_t *frame = NULL;
    int64_t len = blosc2_schunk_to_buffer(s, &frame, &needs_free);
    printf("%s to_buffer=%" PRId64 " hash=%016" PRIx64 "\n", name, len,
           len > 0 ? fnv(frame, (size_t)len) : 0);
    if (len > 0) save(dir, strrchr(path, '/') + 1, frame, (size_t)len);
    if (needs_free) free(frame);
  } else if (store == ST_CONTIG) {
    size_t n = 0;
    blosc2_schunk_free(s);
    s = NULL;
    uint8_t *frame = load(dir, strrchr(path, '/') + 1, &n);
    printf("%s file hash=%016" PRIx64 " len=%zu\n", name, frame ? fnv(frame, n) : 0, n);
    free(frame);
  }
  if (s) blosc2_schunk_free(s);
  free(buf);
  free(chunk);
}

static void read_schunk(const char *dir, int store, int codec, int last_small, int edits) {
  char name[256], path[1024];
  snprintf(name, sizeof name, "%s-%s-%s-last%d", edits ? "s" : "p", store_names[store], codec_names[codec], last_small);
  snprintf(path, sizeof path, "%s/%s.b2frame", dir, name);
  blosc2_schunk *s = blosc2_schunk_open(path);
  if (!s) { printf("%s open=NULL\n", name); return; }
  print_schunk(name, s);
  /* expected order after the edits: 7, 7, 2, 3, 4, 5(small or not) */
  int edited[NCHUNKS] = {7, 7, 2, 3, 4, 5}, plain[NCHUNKS] = {0, 1, 2, 3, 4, 5};
  int *order = edits ? edited : plain;
  uint8_t *buf = malloc(CHUNKSIZE), *want = malloc(CHUNKSIZE);
  int ok = s->nchunks == NCHUNKS;
  for (int i = 0; ok && i < NCHUNKS; i++) {
    int32_t n = (last_small && i == NCHUNKS - 1) ? CHUNKSIZE / 3 : CHUNKSIZE;
    chunk_data(want, order[i], n);
    int rc = blosc2_schunk_decompress_chunk(s, i, buf, CHUNKSIZE);
    ok = rc == n && memcmp(buf, want, (size_t)n) == 0;
    if (!ok) printf("%s chunk %d rc=%d\n", name, i, rc);
  }
  uint8_t *content = NULL;
  int32_t clen = 0;
  int vrc = blosc2_vlmeta_get(s, "v1", &content, &clen);
  printf("%s data_ok=%d vlmeta=%d len=%d\n", name, ok, vrc, clen);
  free(content);
  blosc2_schunk_free(s);
  free(buf);
  free(want);
}

/* ---------------------------------------------------------------- b2nd */

static void write_b2nd(const char *dir, int ndim) {
  char name[64], path[1024];
  snprintf(name, sizeof name, "a-%dd", ndim);
  snprintf(path, sizeof path, "%s/%s.b2nd", dir, name);
  int64_t shape[3] = {37, 23, 11};
  int32_t chunkshape[3] = {10, 8, 6}, blockshape[3] = {5, 4, 3};
  int64_t nitems = 1;
  for (int i = 0; i < ndim; i++) nitems *= shape[i];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  b2nd_context_t *ctx = b2nd_create_ctx(&st, (int8_t)ndim, shape, chunkshape, blockshape, "<f8",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  double *src = malloc((size_t)nitems * 8);
  for (int64_t i = 0; i < nitems; i++) src[i] = (double)i * 0.5;
  b2nd_array_t *a = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, src, nitems * 8);
  printf("%s from_cbuffer=%d", name, rc);
  if (rc == 0) {
    printf(" ndim=%d nitems=%" PRId64 " chunknitems=%d blocknitems=%d extnitems=%" PRId64
           " dtype=%s sc.nchunks=%" PRId64 " sc.chunksize=%d sc.typesize=%d",
           a->ndim, a->nitems, a->chunknitems, a->blocknitems, a->extnitems, a->dtype,
           a->sc->nchunks, a->sc->chunksize, a->sc->typesize);
    for (int i = 0; i < ndim; i++) printf(" shape%d=%" PRId64 "/%" PRId64, i, a->shape[i], a->extshape[i]);
    uint8_t *cframe = NULL;
    int64_t len = 0;
    bool needs_free = false;
    int trc = b2nd_to_cframe(a, &cframe, &len, &needs_free);
    printf(" to_cframe=%d len=%" PRId64 " hash=%016" PRIx64, trc, len, trc == 0 ? fnv(cframe, (size_t)len) : 0);
    if (needs_free) free(cframe);
    b2nd_free(a);
  }
  printf("\n");
  b2nd_free_ctx(ctx);
  free(src);
}

static void read_b2nd(const char *dir, int ndim) {
  char name[64], path[1024];
  snprintf(name, sizeof name, "a-%dd", ndim);
  snprintf(path, sizeof path, "%s/%s.b2nd", dir, name);
  b2nd_array_t *a = NULL;
  int rc = b2nd_open(path, &a);
  printf("%s open=%d", name, rc);
  if (rc == 0) {
    int64_t start[3] = {1, 2, 3}, stop[3] = {30, 20, 9}, sshape[3];
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) { sshape[i] = stop[i] - start[i]; n *= sshape[i]; }
    double *out = malloc((size_t)n * 8);
    int grc = b2nd_get_slice_cbuffer(a, start, stop, out, sshape, n * 8);
    /* check against the row-major values i * 0.5 */
    int ok = grc == 0;
    int64_t shape[3] = {37, 23, 11}, idx = 0;
    for (int64_t i = start[0]; ok && i < stop[0]; i++)
      for (int64_t j = ndim > 1 ? start[1] : 0; ok && j < (ndim > 1 ? stop[1] : 1); j++)
        for (int64_t k = ndim > 2 ? start[2] : 0; ok && k < (ndim > 2 ? stop[2] : 1); k++) {
          int64_t flat = ndim == 1 ? i : ndim == 2 ? i * shape[1] + j : (i * shape[1] + j) * shape[2] + k;
          ok = out[idx++] == (double)flat * 0.5;
        }
    printf(" slice=%d ok=%d ndim=%d nitems=%" PRId64 " dtype=%s", grc, ok, a->ndim, a->nitems, a->dtype);
    free(out);
    b2nd_free(a);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "read"))) {
    fprintf(stderr, "usage: %s write|read DIR\n", argv[0]);
    return 2;
  }
  const char *dir = argv[2];
  int writing = strcmp(argv[1], "write") == 0;
  if (writing) mkdir(dir, 0755);
  blosc2_init();
  each_chunk_case(writing ? write_chunk : read_chunk, dir);
  if (writing) write_specials(dir); else read_specials(dir);
  for (int store = 0; store < NSTORE; store++)
    for (int codec = 0; codec < 5; codec += 2)
      for (int last_small = 0; last_small < 2; last_small++)
        for (int edits = 0; edits < 2; edits++) {
          /* in-memory super-chunks were saved with to_buffer: read back from that file */
          if (writing) write_schunk(dir, store, codec, last_small, edits);
          else read_schunk(dir, store, codec, last_small, edits);
        }
  for (int ndim = 1; ndim <= 3; ndim++) {
    if (writing) write_b2nd(dir, ndim); else read_b2nd(dir, ndim);
  }
  blosc2_destroy();
  return 0;
}
