// c_tests: compare-output
// b2nd arrays built by every creator (zeros, empty, uninit, nans, full, from_cbuffer, plus
// partial slice writes) over ndim 1..8, shapes not divisible by the chunkshape, chunkshapes
// not divisible by the blockshape, typesizes 1..16, in memory / contiguous file / sparse
// directory. Prints the array fields and hashes of the frames (b2nd_to_cframe and the file)
// and of slices read back, so the output must equal the reference's byte for byte.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <unistd.h>
#include "b2nd.h"

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ULL; }
  return h;
}

static uint64_t rng = 0x243F6A8885A308D3ULL;
static uint32_t rnd(uint32_t n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)((rng >> 33) % n);
}

static uint64_t file_hash(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { *len = -1; return 0; }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? n : 1);
  if (fread(b, 1, n, f) != (size_t)n) n = -1;
  fclose(f);
  uint64_t h = fnv(b, n);
  free(b);
  *len = n;
  return h;
}

static void print_fields(const b2nd_array_t *a) {
  printf("  ndim=%d nitems=%" PRId64 " extnitems=%" PRId64 " chunknitems=%d blocknitems=%d extchunknitems=%" PRId64 "\n",
         a->ndim, a->nitems, a->extnitems, a->chunknitems, a->blocknitems, a->extchunknitems);
  printf("  ext/extchunk/strides:");
  for (int i = 0; i < a->ndim; i++) {
    printf(" [%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "]",
           a->extshape[i], a->extchunkshape[i], a->item_array_strides[i], a->item_chunk_strides[i],
           a->item_extchunk_strides[i], a->item_block_strides[i], a->block_chunk_strides[i]);
  }
  printf(" dtype=%s fmt=%d sc.typesize=%d nchunks=%" PRId64 "\n", a->dtype ? a->dtype : "(null)", a->dtype_format,
         a->sc->typesize, a->sc->nchunks);
}

static void print_frame(const b2nd_array_t *a) {
  uint8_t *cframe;
  int64_t len;
  bool needs_free;
  int rc = b2nd_to_cframe(a, &cframe, &len, &needs_free);
  printf("  cframe rc=%d len=%" PRId64 " hash=%016" PRIx64 "\n", rc, len, rc == 0 ? fnv(cframe, len) : 0);
  if (rc == 0 && needs_free) free(cframe);
}

/* Read a random window and the whole array, print their hashes. */
static void print_reads(const b2nd_array_t *a, int typesize) {
  int nd = a->ndim;
  int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM] = {0}, bshape[B2ND_MAX_DIM] = {0};
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    start[i] = a->shape[i] ? rnd((uint32_t)a->shape[i]) : 0;
    stop[i] = start[i] + (a->shape[i] - start[i] ? rnd((uint32_t)(a->shape[i] - start[i])) + 1 : 0);
    bshape[i] = stop[i] - start[i];
    n *= bshape[i];
  }
  int64_t nbytes = n * typesize;
  uint8_t *buf = calloc(1, nbytes + 1);
  int rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, nbytes);
  printf("  window");
  for (int i = 0; i < nd; i++) printf(" %" PRId64 ":%" PRId64, start[i], stop[i]);
  printf(" rc=%d hash=%016" PRIx64 "\n", rc, fnv(buf, nbytes));
  free(buf);
  nbytes = a->nitems * typesize;
  buf = malloc(nbytes + 1);
  rc = b2nd_to_cbuffer(a, buf, nbytes);
  printf("  all rc=%d hash=%016" PRIx64 "\n", rc, fnv(buf, nbytes));
  free(buf);
}

/* Overwrite a random window with a pattern. */
static void write_window(b2nd_array_t *a, int typesize) {
  int nd = a->ndim;
  int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM] = {0}, bshape[B2ND_MAX_DIM] = {0};
  int64_t n = 1;
  for (int i = 0; i < nd; i++) {
    start[i] = a->shape[i] ? rnd((uint32_t)a->shape[i]) : 0;
    stop[i] = start[i] + (a->shape[i] - start[i] ? rnd((uint32_t)(a->shape[i] - start[i])) + 1 : 0);
    bshape[i] = stop[i] - start[i];
    n *= bshape[i];
  }
  int64_t nbytes = n * typesize;
  uint8_t *buf = calloc(1, nbytes + 1);
  for (int64_t i = 0; i < nbytes; i++) buf[i] = (uint8_t)(i * 13 + 7);
  int rc = b2nd_set_slice_cbuffer(buf, bshape, nbytes, start, stop, a);
  printf("  set");
  for (int i = 0; i < nd; i++) printf(" %" PRId64 ":%" PRId64, start[i], stop[i]);
  printf(" rc=%d\n", rc);
  free(buf);
}

static const char *creators[] = {"zeros", "empty", "uninit", "nans", "full", "from_cbuffer"};
static const char *storages[] = {"memory", "contiguous", "sparse"};

int main(void) {
  blosc2_init();
  int ncase = 0;
  for (int round = 0; round < 14; round++) {
    for (int ndim = 1; ndim <= 8; ndim++) {
      int64_t shape[B2ND_MAX_DIM];
      int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
      int64_t nitems = 1;
      int max_side = ndim <= 2 ? 40 : ndim <= 4 ? 9 : 4;
      for (int i = 0; i < ndim; i++) {
        shape[i] = 1 + rnd(max_side);
        if (round == 3 && i == ndim - 1) shape[i] = 0;  // empty arrays
        chunkshape[i] = 1 + rnd((uint32_t)shape[i] + 2);
        blockshape[i] = 1 + rnd((uint32_t)chunkshape[i]);
        nitems *= shape[i];
      }
      static const int typesizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16};
      int creator = (round + ndim) % 6;
      int typesize = typesizes[rnd(9)];
      if (creator == 3) typesize = rnd(2) ? 4 : 8;
      int storage = (round * 8 + ndim) % 3;

      blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
      cparams.typesize = typesize;
      cparams.nthreads = 1;
      char urlpath[64];
      snprintf(urlpath, sizeof urlpath, "b2nd_create_%d.b2nd", ncase);
      blosc2_remove_urlpath(urlpath);
      blosc2_storage st = {.cparams = &cparams, .contiguous = storage != 2,
                           .urlpath = storage == 0 ? NULL : urlpath};
      const char *dtype = rnd(2) ? NULL : "<f4";
      b2nd_context_t *ctx = b2nd_create_ctx(&st, (int8_t)ndim, shape, chunkshape, blockshape, dtype, 0, NULL, 0);
      printf("case %d: %s %s ts=%d shape", ncase, creators[creator], storages[storage], typesize);
      for (int i = 0; i < ndim; i++) printf(" %" PRId64 "/%d/%d", shape[i], chunkshape[i], blockshape[i]);
      printf(" ctx=%s\n", ctx ? "ok" : "NULL");
      ncase++;
      if (!ctx) continue;

      b2nd_array_t *a = NULL;
      int rc;
      uint8_t fill[16];
      for (int i = 0; i < 16; i++) fill[i] = (uint8_t)(0x40 + i);
      uint8_t *data = NULL;
      switch (creator) {
        case 0: rc = b2nd_zeros(ctx, &a); break;
        case 1: rc = b2nd_empty(ctx, &a); break;
        case 2: rc = b2nd_uninit(ctx, &a); break;
        case 3: rc = b2nd_nans(ctx, &a); break;
        case 4: rc = b2nd_full(ctx, &a, fill); break;
        default:
          data = malloc(nitems * typesize + 1);
          for (int64_t i = 0; i < nitems * typesize; i++) data[i] = (uint8_t)((i / typesize) % 7 + i % typesize);
          rc = b2nd_from_cbuffer(ctx, &a, data, nitems * typesize);
          free(data);
      }
      printf("  create rc=%d\n", rc);
      if (rc < 0) { b2nd_free_ctx(ctx); continue; }
      print_fields(a);
      if (creator != 2) print_reads(a, typesize);
      print_frame(a);
      if (nitems > 0 && creator != 2) {
        write_window(a, typesize);
        write_window(a, typesize);
        print_reads(a, typesize);
        print_frame(a);
      }
      b2nd_free(a);
      b2nd_free_ctx(ctx);
      if (storage == 1) {
        int64_t flen;
        uint64_t h = file_hash(urlpath, &flen);
        printf("  file len=%" PRId64 " hash=%016" PRIx64 "\n", flen, h);
      }
      if (storage != 0) {
        rc = b2nd_open(urlpath, &a);
        printf("  open rc=%d\n", rc);
        if (rc == 0) {
          print_fields(a);
          if (creator != 2) print_reads(a, typesize);
          b2nd_free(a);
        }
        blosc2_remove_urlpath(urlpath);
      }
    }
  }
  blosc2_destroy();
  return 0;
}
