// c_tests: compare-output
// b2nd_get_slice_cbuffer over every kind of storage (separate chunks, in-memory frame,
// contiguous frame file, sparse frame), one and two threads, with shuffle and bitshuffle
// (delta, where the reference is wrong, is test_b2nd_getslice_delta.c): slices inside one block, exactly one chunk, across chunk edges, whole arrays and
// buffers larger than the slice (the rest reads as zeros). Then a frame file changed under an
// open array: rewritten by another handle, replaced by rename, removed, cut short and grown
// again. Then arrays on a user I/O backend (every stream it opens is closed by the time a
// call returns) and on the mmap backend. Then a user filter whose backward step calls back
// into the array's super-chunk while slices are read (it must find it free). Prints hashes
// and return codes only.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#include <unistd.h>
#include "b2nd.h"
#include "blosc2/blosc2-stdio.h"

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

typedef struct {
  const char *name;
  int8_t ndim;
  int64_t shape[3];
  int32_t chunk[3], block[3];
  int32_t typesize;
} geom;

static const geom GEOMS[] = {
  {"2d", 2, {50, 37, 1}, {16, 10, 1}, {5, 4, 1}, 8},
  {"3d", 3, {13, 11, 9}, {6, 5, 4}, {3, 2, 3}, 4},
  {"1d", 1, {1000, 1, 1}, {300, 1, 1}, {64, 1, 1}, 2},
};

static uint8_t *source(const geom *g, int64_t *nbytes) {
  int64_t n = 1;
  for (int i = 0; i < g->ndim; i++) n *= g->shape[i];
  *nbytes = n * g->typesize;
  uint8_t *d = malloc(*nbytes);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = i * 3 + (i % 11) * 1000;
    memcpy(d + i * g->typesize, &v, g->typesize);
  }
  return d;
}

static b2nd_array_t *make(const geom *g, int kind, int nthreads, int filter, const char *path, blosc2_storage *st,
                          blosc2_cparams *cp, blosc2_dparams *dp) {
  *cp = BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = g->typesize;
  cp->clevel = 5;
  cp->nthreads = 1;
  cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  if (filter == 0) cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  if (filter == 1) cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  if (filter == 2) {
    cp->filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  }
  *dp = BLOSC2_DPARAMS_DEFAULTS;
  dp->nthreads = nthreads;
  blosc2_remove_urlpath(path);
  memset(st, 0, sizeof *st);
  st->contiguous = kind != 0 && kind != 3;
  st->urlpath = kind >= 2 ? (char *)path : NULL;
  st->cparams = cp;
  st->dparams = dp;
  b2nd_context_t *ctx = b2nd_create_ctx(st, g->ndim, g->shape, g->chunk, g->block, NULL, 0, NULL, 0);
  int64_t nbytes;
  uint8_t *src = source(g, &nbytes);
  b2nd_array_t *a = NULL;
  int rc = b2nd_from_cbuffer(ctx, &a, src, nbytes);
  free(src);
  b2nd_free_ctx(ctx);
  return rc < 0 ? NULL : a;
}

/* Read [start, stop) into a buffer of bufshape (plus `extra` bytes) and print its hash. */
static void read_slice(const char *tag, b2nd_array_t *a, const int64_t *start, const int64_t *stop,
                       const int64_t *bufshape, int64_t extra) {
  int64_t n = a->sc->typesize;
  for (int i = 0; i < a->ndim; i++) n *= bufshape[i];
  n += extra;
  uint8_t *buf = malloc(n);
  memset(buf, 0xa5, n);
  int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bufshape, n);
  printf("  %-8s rc=%d hash=%016" PRIx64 "\n", tag, rc, fnv(buf, n));
  free(buf);
}

static void slices(const geom *g, b2nd_array_t *a) {
  int nd = g->ndim;
  int64_t start[3] = {0}, stop[3] = {0}, shape[3] = {0}, big[3] = {0};
  /* inside one block */
  for (int i = 0; i < nd; i++) {
    start[i] = g->chunk[i] + 1; stop[i] = start[i] + 1 + (i == nd - 1); shape[i] = stop[i] - start[i];
  }
  read_slice("small", a, start, stop, shape, 0);
  /* exactly the second chunk along each axis */
  for (int i = 0; i < nd; i++) { start[i] = g->chunk[i]; stop[i] = 2 * g->chunk[i]; shape[i] = g->chunk[i]; }
  read_slice("chunk", a, start, stop, shape, 0);
  /* across chunk edges, into a larger buffer with bytes to spare */
  for (int i = 0; i < nd; i++) {
    start[i] = g->chunk[i] / 2 + 1; stop[i] = g->shape[i] - 1; shape[i] = stop[i] - start[i]; big[i] = shape[i] + 2;
  }
  read_slice("across", a, start, stop, shape, 0);
  read_slice("padded", a, start, stop, big, 24);
  /* the whole array; an empty slice */
  for (int i = 0; i < nd; i++) { start[i] = 0; stop[i] = g->shape[i]; }
  read_slice("whole", a, start, stop, g->shape, 0);
  for (int i = 0; i < nd; i++) { start[i] = 3; stop[i] = i == 0 ? 3 : 4; shape[i] = 1; }
  read_slice("empty", a, start, stop, shape, 0);
}

static void stores(void) {
  const char *kinds[] = {"memory", "cframe", "file", "sparse"};
  const char *filters[] = {"shuffle", "bitshuffle"};
  for (int gi = 0; gi < 3; gi++) {
    for (int kind = 0; kind < 4; kind++) {
      for (int f = 0; f < 2; f++) {
        for (int nt = 1; nt <= 2; nt++) {
          blosc2_storage st; blosc2_cparams cp; blosc2_dparams dp;
          b2nd_array_t *a = make(&GEOMS[gi], kind, nt, f, "getslice.b2nd", &st, &cp, &dp);
          printf("%s %s %s threads=%d%s\n", GEOMS[gi].name, kinds[kind], filters[f], nt, a ? "" : " (not made)");
          if (a == NULL) continue;
          slices(&GEOMS[gi], a);
          b2nd_free(a);
          blosc2_remove_urlpath("getslice.b2nd");
        }
      }
    }
  }
}

static void changed_files(void) {
  const geom *g = &GEOMS[0];
  const char *p = "getslice_changed.b2nd";
  int64_t start[2] = {3, 4}, stop[2] = {45, 30}, shape[2] = {42, 26};
  blosc2_storage st; blosc2_cparams cp; blosc2_dparams dp;
  printf("changed files\n");
  b2nd_array_t *w = make(g, 2, 1, 0, p, &st, &cp, &dp);
  b2nd_array_t *r = NULL;
  printf("  open=%d\n", b2nd_open(p, &r));
  read_slice("first", r, start, stop, shape, 0);
  /* another handle rewrites part of the array in place */
  int64_t wstart[2] = {10, 0}, wstop[2] = {30, 20}, wshape[2] = {20, 20};
  double vals[400];
  for (int i = 0; i < 400; i++) vals[i] = -i;
  printf("  other handle set=%d\n", b2nd_set_slice_cbuffer(vals, wshape, sizeof vals, wstart, wstop, w));
  read_slice("rewritten", r, start, stop, shape, 0);
  read_slice("again", r, start, stop, shape, 0);
  b2nd_free(w);
  /* a different array renamed over the path */
  b2nd_array_t *o = make(g, 2, 1, 1, "getslice_other.b2nd", &st, &cp, &dp);
  for (int i = 0; i < 400; i++) vals[i] = 2 * i + 1;
  printf("  other array set=%d\n", b2nd_set_slice_cbuffer(vals, wshape, sizeof vals, wstart, wstop, o));
  b2nd_free(o);
  printf("  rename=%d\n", rename("getslice_other.b2nd", p));
  read_slice("replaced", r, start, stop, shape, 0);
  /* removed: the open file still reads */
  remove(p);
  read_slice("removed", r, start, stop, shape, 0);
  b2nd_free(r);
  /* cut short and grown back */
  w = make(g, 2, 1, 0, p, &st, &cp, &dp);
  b2nd_free(w);
  printf("  open=%d\n", b2nd_open(p, &r));
  FILE *f = fopen(p, "rb");
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fclose(f);
  if (truncate(p, len / 2) != 0) printf("  truncate failed\n");
  int64_t tail[2] = {40, 30}, end[2] = {50, 37}, tshape[2] = {10, 7};
  double tbuf[70];
  printf("  cut short: rc<0 %d\n", b2nd_get_slice_cbuffer(r, tail, end, tbuf, tshape, sizeof tbuf) < 0);
  if (truncate(p, 10) != 0) printf("  truncate failed\n");
  printf("  cut in the header: rc<0 %d\n", b2nd_get_slice_cbuffer(r, tail, end, tbuf, tshape, sizeof tbuf) < 0);
  b2nd_free(r);
  blosc2_remove_urlpath(p);
}

/* A user I/O backend over the stdio one, counting streams. */
static int opened, closed;
static void *u_open(const char *u, const char *mode, void *params) {
  void *f = blosc2_stdio_open(u, mode, NULL);
  if (f != NULL) opened++;
  return f;
}
static int u_close(void *s) { closed++; return blosc2_stdio_close(s); }
static int64_t u_size(void *s) { return blosc2_stdio_size(s); }
static int64_t u_write(const void *p, int64_t sz, int64_t n, int64_t pos, void *s) {
  return blosc2_stdio_write(p, sz, n, pos, s);
}
static int64_t u_read(void **p, int64_t sz, int64_t n, int64_t pos, void *s) {
  return blosc2_stdio_read(p, sz, n, pos, s);
}
static int u_trunc(void *s, int64_t n) { return blosc2_stdio_truncate(s, n); }
static int u_destroy(void *p) { return 0; }

static void io_backends(void) {
  blosc2_io_cb cb = {.id = 212, .name = "getslice_io", .is_allocation_necessary = true, .open = u_open,
                     .close = u_close, .size = u_size, .write = u_write, .read = u_read, .truncate = u_trunc,
                     .destroy = u_destroy};
  printf("register io=%d\n", blosc2_register_io_cb(&cb));
  for (int gi = 0; gi < 2; gi++) {
    for (int b = 0; b < 2; b++) {
      for (int contiguous = 1; contiguous >= b; contiguous--) {
        /* (an mmap parameter struct serves one file) */
        blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
        mm.mode = "w+";
        blosc2_io ios[2] = {{.id = 212, .name = "getslice_io", .params = NULL},
                            {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm}};
        const geom *g = &GEOMS[gi];
        const char *p = "getslice_io.b2nd";
        blosc2_remove_urlpath(p);
        blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.typesize = g->typesize;
        cp.nthreads = 1;
        blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
        blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)p, .cparams = &cp, .dparams = &dp, .io = &ios[b]};
        b2nd_context_t *ctx = b2nd_create_ctx(&st, g->ndim, g->shape, g->chunk, g->block, NULL, 0, NULL, 0);
        int64_t nbytes;
        uint8_t *src = source(g, &nbytes);
        b2nd_array_t *a = NULL;
        opened = closed = 0;
        int rc = b2nd_from_cbuffer(ctx, &a, src, nbytes);
        printf("%s io %s %s: from_cbuffer=%d\n", g->name, b ? "mmap" : "user", contiguous ? "contiguous" : "sparse", rc);
        free(src);
        b2nd_free_ctx(ctx);
        if (rc < 0) continue;
        slices(g, a);
        if (b == 0) printf("  streams opened>0 %d all closed %d\n", opened > 0, opened == closed);
        b2nd_free(a);
        blosc2_remove_urlpath(p);
      }
    }
  }
}

/* A user filter whose backward step uses the super-chunk it decodes for. */
enum { FILTER = 251 };
static blosc2_schunk *G;
static int calls, failures;

static int fwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_cparams *cp, uint8_t id) {
  memcpy(dest, src, size);
  return 0;
}

static int bwd(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, blosc2_dparams *dp, uint8_t id) {
  if (G != NULL) {
    calls++;
    blosc2_cparams *cp = NULL;
    if (blosc2_schunk_get_cparams(G, &cp) < 0) failures++;
    free(cp);
    if (blosc2_meta_exists(G, "b2nd") < 0) failures++;
    uint8_t *chunk; bool nf;
    int cb = blosc2_schunk_get_chunk(G, 0, &chunk, &nf);
    if (cb <= 0) failures++;
    else if (nf) free(chunk);
  }
  memcpy(dest, src, size);
  return 0;
}

static void reentrant_filter(void) {
  blosc2_filter f = {.id = FILTER, .name = "getslice_copy", .version = 1, .forward = fwd, .backward = bwd};
  printf("register filter=%d\n", blosc2_register_filter(&f));
  const geom *g = &GEOMS[0];
  for (int kind = 0; kind < 4; kind++) {
    blosc2_storage st; blosc2_cparams cp; blosc2_dparams dp;
    b2nd_array_t *a = make(g, kind, 1, 3, "getslice_filter.b2nd", &st, &cp, &dp);
    if (a == NULL) { printf("  not made\n"); continue; }
    b2nd_free(a);
    cp.filters[BLOSC2_MAX_FILTERS - 1] = FILTER;
    blosc2_remove_urlpath("getslice_filter.b2nd");
    b2nd_context_t *ctx = b2nd_create_ctx(&st, g->ndim, g->shape, g->chunk, g->block, NULL, 0, NULL, 0);
    int64_t nbytes;
    uint8_t *src = source(g, &nbytes);
    printf("filter store %d: from_cbuffer=%d\n", kind, b2nd_from_cbuffer(ctx, &a, src, nbytes));
    free(src);
    b2nd_free_ctx(ctx);
    G = a->sc;
    calls = failures = 0;
    slices(g, a);
    printf("  backward calls>0 %d failures %d\n", calls > 0, failures);
    G = NULL;
    b2nd_free(a);
    blosc2_remove_urlpath("getslice_filter.b2nd");
  }
}

int main(void) {
  blosc2_init();
  stores();
  changed_files();
  io_backends();
  reentrant_filter();
  blosc2_destroy();
  return 0;
}
