/* Allocation failures (run by c_tests/faults/run.sh with alloc_shim.c preloaded): a workload
   that reaches every allocation libblosc2 hands to C (the public super-chunk and its storage,
   metalayers, the chunk address array of an in-memory super-chunk, chunk and frame copies,
   parameter copies, offsets, VL blocks, vlmetalayer contents and names, the stdio handle of a
   frame file, b2nd arrays, frames and metalayers) runs once per such allocation, with that
   one failing. Every call must return an error code or a correct result (checked), the
   public structs must stay consistent (every published metalayer and chunk address valid),
   outputs of failed calls untouched, and nothing may leak (heap in use compared with
   mallinfo2 before and after the runs). Prints "alloc faults: R runs, B bad, L bytes leaked". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "blosc2.h"
#include "b2nd.h"

/* From alloc_shim.c (preloaded), found at run time. */
static void (*allocfault_arm)(long n);
static long (*allocfault_disarm)(void);

static long run_n, bad;
#define BAD(...) do { printf("BAD (fault %ld): ", run_n); printf(__VA_ARGS__); printf("\n"); bad++; } while (0)

/* Without the shim (ALLOC_DRY=1, e.g. under valgrind): nothing fails, a fixed run count. */
static void dry_arm(long n) { (void)n; }
static long dry_disarm(void) { return 70; }

#define NITEMS 256
static void fill(int32_t *b, int k) { for (int i = 0; i < NITEMS; i++) b[i] = k * 1000 + i; }

/* Every published metalayer and vlmetalayer is a complete struct. */
static void check_public(blosc2_schunk *s, const char *when) {
  for (int i = 0; i < s->nmetalayers; i++)
    if (!s->metalayers[i] || !s->metalayers[i]->name || (!s->metalayers[i]->content && s->metalayers[i]->content_len))
      BAD("%s: metalayer %d incomplete", when, i);
  for (int i = 0; i < s->nvlmetalayers; i++)
    if (!s->vlmetalayers[i] || !s->vlmetalayers[i]->name) BAD("%s: vlmetalayer %d incomplete", when, i);
  if (s->storage && (!s->storage->cparams || !s->storage->dparams || !s->storage->io))
    BAD("%s: storage incomplete", when);
}

static void check_chunk(blosc2_schunk *s, int64_t n, int k, const char *when) {
  int32_t out[NITEMS], want[NITEMS];
  fill(want, k);
  int rc = blosc2_schunk_decompress_chunk(s, n, out, sizeof out);
  if (rc < 0 && rc != BLOSC2_ERROR_MEMORY_ALLOC) BAD("%s: chunk %lld: %d", when, (long long)n, rc);
  if (rc > 0 && memcmp(out, want, sizeof out)) BAD("%s: chunk %lld wrong", when, (long long)n);
}

static void in_memory(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  if (!s) return;
  check_public(s, "new");
  if (blosc2_meta_add(s, "meta", (uint8_t *)"12345", 5) >= 0) {
    check_public(s, "meta_add");
    if (s->nmetalayers == 1 && memcmp(s->metalayers[0]->content, "12345", 5)) BAD("meta content");
  }
  int rc = blosc2_vlmeta_add(s, "vl", (uint8_t *)"hello", 5, NULL);
  check_public(s, "vlmeta_add");
  if (rc >= 0) {
    uint8_t *c = (uint8_t *)"untouched";
    int32_t clen = -7;
    rc = blosc2_vlmeta_get(s, "vl", &c, &clen);
    if (rc >= 0 && (clen != 5 || memcmp(c, "hello", 5))) BAD("vlmeta_get");
    if (rc >= 0) free(c);
    else if (clen != -7) BAD("vlmeta_get failed but wrote its length");
    char *names[4] = {0};
    rc = blosc2_vlmeta_get_names(s, names);
    if (rc == 1 && (!names[0] || strcmp(names[0], "vl"))) BAD("vlmeta_get_names");
  }
  /* 600 appends: the chunk address array grows past 4 KiB. */
  int32_t buf[NITEMS];
  int appended[700], count = 0;
  for (int k = 0; k < 600; k++) {
    fill(buf, k);
    int64_t n = blosc2_schunk_append_buffer(s, buf, sizeof buf);
    if (n > 0) appended[count++] = k;
    if (s->nchunks != count) { BAD("append %d: nchunks %lld, %d appended", k, (long long)s->nchunks, count); break; }
    if (count && (!s->data || s->data_len < (size_t)count * sizeof(uint8_t *) || !s->data[count - 1]))
      BAD("append %d: chunk address array", k);
  }
  for (int i = 0; i < count; i += 97) check_chunk(s, i, appended[i], "after appends");
  if (count > 3) {
    uint8_t *ch = (uint8_t *)1;
    bool nf = false;
    rc = blosc2_schunk_get_chunk(s, 3, &ch, &nf);
    if (rc > 0) {
      int32_t out[NITEMS], want[NITEMS];
      fill(want, appended[3]);
      if (blosc2_decompress(ch, rc, out, sizeof out) != (int)sizeof out || memcmp(out, want, sizeof out)) BAD("get_chunk");
      if (nf) free(ch);
    }
  }
  blosc2_cparams *pc = NULL;
  if (blosc2_schunk_get_cparams(s, &pc) == 0) {
    if (!pc || pc->typesize != 4) BAD("get_cparams");
    free(pc);
  }
  blosc2_dparams *pd = NULL;
  if (blosc2_schunk_get_dparams(s, &pd) == 0) {
    if (!pd) BAD("get_dparams");
    free(pd);
  }
  uint8_t *frame = NULL;
  bool nf = false;
  int64_t flen = blosc2_schunk_to_buffer(s, &frame, &nf);
  if (flen > 0) {
    if (!frame) BAD("to_buffer: NULL frame");
    blosc2_schunk *copy = blosc2_schunk_from_buffer(frame, flen, true);
    if (copy) {
      check_public(copy, "from_buffer copy");
      if (copy->nchunks != count) BAD("from_buffer copy: nchunks");
      else if (count > 5) check_chunk(copy, 5, appended[5], "from_buffer copy");
      blosc2_schunk_free(copy);
    }
    blosc2_schunk *view = blosc2_schunk_from_buffer(frame, flen, false);
    if (view) {
      int64_t *offs = blosc2_frame_get_offsets(view);
      if (offs) {
        for (int i = 0; i < count; i++)
          if (offs[i] < 0) { BAD("offsets"); break; }
        free(offs);
      }
      blosc2_schunk_free(view);
    }
    if (nf) free(frame);
  }
  check_public(s, "end");
  blosc2_schunk_free(s);
}

static void vlblocks(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_context *c = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  if (!c || !d) { BAD("contexts"); return; }
  const char *blocks[3] = {"first block", "the second one, longer", "3"};
  const void *srcs[3] = {blocks[0], blocks[1], blocks[2]};
  int32_t sizes[3] = {(int32_t)strlen(blocks[0]), (int32_t)strlen(blocks[1]), (int32_t)strlen(blocks[2])};
  uint8_t chunk[512];
  int n = blosc2_vlcompress_ctx(c, srcs, sizes, 3, chunk, sizeof chunk);
  if (n <= 0) BAD("vlcompress %d", n);
  void *dests[3] = {(void *)1, (void *)2, (void *)3};
  int32_t dsizes[3] = {-1, -1, -1};
  int rc = blosc2_vldecompress_ctx(d, chunk, n, dests, dsizes, 3);
  if (rc == 3) {
    for (int i = 0; i < 3; i++) {
      if (!dests[i] || dsizes[i] != sizes[i] || memcmp(dests[i], blocks[i], sizes[i])) BAD("vldecompress block %d", i);
      free(dests[i]);
    }
  } else if (rc >= 0) {
    BAD("vldecompress returned %d", rc);
  } else if (dests[0] != (void *)1 || dests[2] != (void *)3 || dsizes[1] != -1) {
    BAD("vldecompress failed (%d) but wrote its outputs", rc);
  }
  uint8_t *b = (uint8_t *)7;
  int32_t bs = -1;
  rc = blosc2_vldecompress_block_ctx(d, chunk, n, 1, &b, &bs);
  if (rc > 0) {
    if (!b || bs != sizes[1] || memcmp(b, blocks[1], bs)) BAD("vldecompress_block");
    free(b);
  } else if (b != (uint8_t *)7) {
    BAD("vldecompress_block failed (%d) but wrote its output", rc);
  }
  blosc2_free_ctx(c);
  blosc2_free_ctx(d);
}

static void on_disk(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/alloc.b2frame", dir);
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *s = blosc2_schunk_new(&st);
  int count = 0, appended[3];
  if (s) {
    int32_t buf[NITEMS];
    for (int k = 0; k < 3; k++) {
      fill(buf, k);
      if (blosc2_schunk_append_buffer(s, buf, sizeof buf) > 0) appended[count++] = k;
    }
    blosc2_schunk_free(s);
  }
  s = blosc2_schunk_open(path);
  if (s) {
    check_public(s, "open");
    if (s->nchunks != count) BAD("reopened: %lld chunks, %d appended", (long long)s->nchunks, count);
    for (int i = 0; i < s->nchunks && i < count; i++) check_chunk(s, i, appended[i], "reopened");
    blosc2_schunk_free(s);
  }
  blosc2_remove_urlpath(path);
}

static void arrays(void) {
  int64_t shape[2] = {10, 10};
  int32_t cs[2] = {5, 5}, bs[2] = {5, 5};
  double data[100];
  for (int i = 0; i < 100; i++) data[i] = i * 0.5;
  b2nd_context_t *ctx = b2nd_create_ctx(NULL, 2, shape, cs, bs, "<f8", 0, NULL, 0);
  if (!ctx) return;
  b2nd_array_t *a = NULL;
  if (b2nd_from_cbuffer(ctx, &a, data, sizeof data) == 0) {
    if (!a || !a->sc || !a->dtype || strcmp(a->dtype, "<f8")) BAD("from_cbuffer");
    double out[100];
    int rc = b2nd_to_cbuffer(a, out, sizeof out);
    if (rc == 0 && memcmp(out, data, sizeof out)) BAD("to_cbuffer");
    uint8_t *cf = NULL;
    int64_t cflen = 0;
    bool nf = false;
    if (b2nd_to_cframe(a, &cf, &cflen, &nf) == 0) {
      b2nd_array_t *back = NULL;
      if (b2nd_from_cframe(cf, cflen, true, &back) == 0) {
        rc = b2nd_to_cbuffer(back, out, sizeof out);
        if (rc == 0 && memcmp(out, data, sizeof out)) BAD("from_cframe");
        b2nd_free(back);
      }
      if (nf) free(cf);
    }
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
  uint8_t *smeta = NULL;
  int len = b2nd_serialize_meta(2, shape, cs, bs, "<f8", 0, &smeta);
  if (len > 0) {
    int8_t ndim;
    int64_t sh[B2ND_MAX_DIM];
    int32_t c2[B2ND_MAX_DIM], b2[B2ND_MAX_DIM];
    char *dtype = NULL;
    int8_t fmt;
    if (b2nd_deserialize_meta(smeta, len, &ndim, sh, c2, b2, &dtype, &fmt) >= 0) {
      if (ndim != 2 || sh[1] != 10 || !dtype || strcmp(dtype, "<f8")) BAD("deserialize_meta");
      free(dtype);
    }
    free(smeta);
  }
}

static void workload(const char *dir) {
  in_memory();
  vlblocks();
  on_disk(dir);
  arrays();
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  allocfault_arm = (void (*)(long))dlsym(RTLD_DEFAULT, "allocfault_arm");
  allocfault_disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "allocfault_disarm");
  if ((!allocfault_arm || !allocfault_disarm) && getenv("ALLOC_DRY")) {
    allocfault_arm = dry_arm;
    allocfault_disarm = dry_disarm;
  }
  if (!allocfault_arm || !allocfault_disarm) { printf("alloc faults: alloc_shim.so is not preloaded\n"); return 1; }
  blosc2_init();
  /* A first run fills the library's process-wide state (registries, thread pools). */
  allocfault_arm(0);
  workload(argv[1]);
  allocfault_disarm();
  allocfault_arm(0);
  workload(argv[1]);
  long total = allocfault_disarm();
  if (total < 10) { printf("alloc faults: only %ld allocations counted: is the shim active?\n", total); return 1; }
  /* Caches the library keeps for later calls (idle scratch areas and thread pools, a bounded
     set whose content depends on which contexts ended when) are emptied before both
     measurements, so that only memory nothing can reach any more counts as leaked. */
  blosc2_free_resources();
  size_t before = mallinfo2().uordblks;
  /* ALLOC_DRY=1: the same runs without failures (to tell leaks on error paths from growth). */
  int dry = getenv("ALLOC_DRY") != NULL;
  long repeat = getenv("ALLOC_REPEAT") ? atol(getenv("ALLOC_REPEAT")) : 1;
  for (run_n = 1; run_n <= total * repeat; run_n++) {
    allocfault_arm(dry ? 0 : (run_n - 1) % total + 1);
    workload(argv[1]);
    allocfault_disarm();
  }
  run_n = 0;
  allocfault_arm(0);
  workload(argv[1]);
  allocfault_disarm();
  blosc2_free_resources();
  long leaked = (long)mallinfo2().uordblks - (long)before;
  blosc2_destroy();
  printf("alloc faults: %ld runs (one per allocation handed to C), %ld bad, %ld bytes leaked\n", total, bad, leaked);
  return bad || leaked > 4096 ? 1 : 0;
}
