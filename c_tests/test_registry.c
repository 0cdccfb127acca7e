// c_tests: compare-output
// User codec/filter registration and tuner ids as C programs see them: duplicate ids,
// names shadowing built-in plugins, unregistered filters, unknown tuner ids, the typesize
// decoders receive, and the block size a used context reports.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "blosc2.h"

static int last_dec_typesize = -1, last_fwd_typesize = -1, last_bwd_typesize = -1;

/* A toy codec for little-endian int32 values below 256: keeps the low byte of each. */
static int enc(const uint8_t *src, int32_t n, uint8_t *dst, int32_t cap, uint8_t meta,
               blosc2_cparams *cp, const void *chunk) {
  if (n % 4 != 0 || cap < n / 4) return 0;
  for (int32_t i = 0; i < n; i += 4) {
    if (src[i + 1] | src[i + 2] | src[i + 3]) return 0;
    dst[i / 4] = src[i];
  }
  return n / 4;
}
static int dec(const uint8_t *src, int32_t n, uint8_t *dst, int32_t cap, uint8_t meta,
               blosc2_dparams *dp, const void *chunk) {
  last_dec_typesize = dp->typesize;
  if (cap < 4 * n) return -1;
  memset(dst, 0, 4 * n);
  for (int32_t i = 0; i < n; i++) dst[4 * i] = src[i];
  return 4 * n;
}
static int fwd(const uint8_t *src, uint8_t *dst, int32_t size, uint8_t meta, blosc2_cparams *cp, uint8_t id) {
  last_fwd_typesize = cp->typesize;
  memcpy(dst, src, size);
  return 0;
}
static int bwd(const uint8_t *src, uint8_t *dst, int32_t size, uint8_t meta, blosc2_dparams *dp, uint8_t id) {
  last_bwd_typesize = dp->typesize;
  memcpy(dst, src, size);
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  blosc2_codec c = {0};
  c.compcode = 180; c.compname = "mycodec180"; c.complib = 180; c.version = 1;
  c.encoder = enc; c.decoder = dec;
  printf("codec 180 -> %d\n", blosc2_register_codec(&c));
  printf("codec 180 same name -> %d\n", blosc2_register_codec(&c));
  blosc2_codec c2 = c; c2.compname = "othername";
  printf("codec 180 other name -> %d\n", blosc2_register_codec(&c2));
  blosc2_codec c3 = c; c3.compcode = 100;
  printf("codec 100 -> %d\n", blosc2_register_codec(&c3));
  blosc2_codec c4 = c; c4.compcode = 181; c4.compname = "ndlz";
  printf("codec 181 named ndlz -> %d\n", blosc2_register_codec(&c4));
  printf("compname_to_compcode(ndlz) -> %d\n", blosc2_compname_to_compcode("ndlz"));
  printf("compname_to_compcode(mycodec180) -> %d\n", blosc2_compname_to_compcode("mycodec180"));
  const char *nm = NULL;
  printf("compcode_to_compname(181) -> %d %s\n", blosc2_compcode_to_compname(181, &nm), nm ? nm : "(null)");
  printf("compcode_to_compname(180) -> %d %s\n", blosc2_compcode_to_compname(180, &nm), nm ? nm : "(null)");
  const char *names[] = {"ndlz", "zfp_acc", "zfp_prec", "zfp_rate", "openhtj2k", "grok", "openzl", "j2k", "htj2k", "mycodec180"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char *lib = NULL, *ver = NULL;
    int rc = blosc2_get_complib_info(names[i], &lib, &ver);
    printf("complib_info(%s) -> %d %s %s\n", names[i], rc, lib ? lib : "(null)", ver ? ver : "(null)");
    free(lib); free(ver);
  }

  blosc2_filter f = {0};
  f.id = 200; f.name = "myfilter200"; f.version = 1; f.forward = fwd; f.backward = bwd;
  printf("filter 200 -> %d\n", blosc2_register_filter(&f));
  printf("filter 200 same name -> %d\n", blosc2_register_filter(&f));
  blosc2_filter f2 = f; f2.name = "other";
  printf("filter 200 other name -> %d\n", blosc2_register_filter(&f2));

  /* An unregistered user filter: context creation vs compression. */
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i % 200;
  uint8_t out[8000], back[4000];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.filters[0] = 210;
  blosc2_context *cc = blosc2_create_cctx(cp);
  printf("cctx with unregistered filter 210 -> %s\n", cc ? "context" : "NULL");
  if (cc) {
    printf("compress with it -> %d\n", blosc2_compress_ctx(cc, data, sizeof data, out, sizeof out));
    blosc2_free_ctx(cc);
  }

  /* Which filter ids a context accepts, and what compressing with them gives. */
  int fids[] = {5, 10, 31, 32, 33, 36, 37, 100, 159, 160, 210, 255};
  for (size_t k = 0; k < sizeof fids / sizeof *fids; k++) {
    blosc2_cparams fp = BLOSC2_CPARAMS_DEFAULTS;
    fp.typesize = 4;
    fp.filters[0] = (uint8_t)fids[k];
    blosc2_context *fc = blosc2_create_cctx(fp);
    int rc = fc ? blosc2_compress_ctx(fc, data, sizeof data, out, sizeof out) : 0;
    printf("filter %d: context %s, compress %d\n", fids[k], fc ? "yes" : "NULL", rc);
    if (fc) blosc2_free_ctx(fc);
  }

  /* Unknown tuner ids. */
  int tuners[] = {-1, 0, 1, 2, 31, 33, 160, 200, 255};
  for (size_t i = 0; i < sizeof tuners / sizeof *tuners; i++) {
    blosc2_cparams tp = BLOSC2_CPARAMS_DEFAULTS;
    tp.tuner_id = tuners[i];
    blosc2_context *t = blosc2_create_cctx(tp);
    printf("cctx tuner_id %d -> %s\n", tuners[i], t ? "context" : "NULL");
    if (t) blosc2_free_ctx(t);
  }
  blosc2_cparams sp = BLOSC2_CPARAMS_DEFAULTS;
  sp.tuner_id = 200;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &sp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  printf("schunk_new with tuner_id 200 -> %s\n", sc ? "schunk" : "NULL");
  if (sc) blosc2_schunk_free(sc);
  sp.tuner_id = 0;
  sp.filters[0] = 50;
  sc = blosc2_schunk_new(&st);
  printf("schunk_new with filter 50 -> %s\n", sc ? "schunk" : "NULL");
  if (sc) blosc2_schunk_free(sc);

  /* Typesize seen by a decoder and a backward filter: chunk's (4) vs context's (8). */
  blosc2_cparams ucp = BLOSC2_CPARAMS_DEFAULTS;
  ucp.typesize = 4; ucp.compcode = 180; ucp.clevel = 5;
  ucp.filters[BLOSC2_MAX_FILTERS - 1] = 200;
  blosc2_context *uc = blosc2_create_cctx(ucp);
  int cs = blosc2_compress_ctx(uc, data, sizeof data, out, sizeof out);
  printf("user codec + filter compress -> %d, forward typesize %d\n", cs, last_fwd_typesize);
  blosc2_cparams got;
  blosc2_ctx_get_cparams(uc, &got);
  printf("ctx_get_cparams after use: blocksize %d typesize %d clevel %d compcode %d\n",
         got.blocksize, got.typesize, got.clevel, got.compcode);
  blosc2_free_ctx(uc);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.typesize = 8;
  blosc2_context *dc = blosc2_create_dctx(dp);
  int ds = blosc2_decompress_ctx(dc, out, cs, back, sizeof back);
  printf("decompress -> %d, decoder typesize %d, backward typesize %d, equal %d\n", ds,
         last_dec_typesize, last_bwd_typesize, memcmp(back, data, sizeof data) == 0);
  blosc2_free_ctx(dc);

  /* A plain context's reported block size after compressing. */
  blosc2_cparams pp = BLOSC2_CPARAMS_DEFAULTS;
  pp.typesize = 4;
  blosc2_context *pc = blosc2_create_cctx(pp);
  blosc2_ctx_get_cparams(pc, &got);
  printf("plain ctx before use: blocksize %d\n", got.blocksize);
  cs = blosc2_compress_ctx(pc, data, sizeof data, out, sizeof out);
  blosc2_ctx_get_cparams(pc, &got);
  printf("plain ctx after use: blocksize %d\n", got.blocksize);
  blosc2_free_ctx(pc);
  blosc2_destroy();
  return 0;
}
