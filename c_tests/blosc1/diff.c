/* Differential driver for the c-blosc 1.x API. Compiled once against Debian's blosc.h and
 * run with each library (Debian's libblosc.so.1, ours) on LD_LIBRARY_PATH; c_tests/blosc1/
 * run.sh compares what the two print.
 *
 *   diff gen OUT.bin     compress the case matrix; print one line per case (parameters,
 *                        return code, FNV-1a hash of the chunk, and what decompressing it,
 *                        getitem and the cbuffer functions say); write the chunks to OUT.bin
 *   diff read IN.bin     decode chunks written by the other library; one line per chunk
 *   diff mutate IN.bin [STRIDE]  decode damaged copies of the chunks, each in a child process (the
 *                        reference may crash on them); one line per mutant
 *   diff api             names, versions, settings and argument errors
 *
 * Lines start with a tag the runner uses to decide what must match: "C" lines are compared
 * byte for byte (except for codecs listed in the runner's accepted differences), "S" lines
 * (threads) only compare sizes, "R"/"M"/"A" lines must be identical. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <blosc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t fnv(const void *p, size_t n) {
  const uint8_t *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
  return h;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* Data kinds: zeros, int32 ramp, noise, text-like, smooth floats, runs, few distinct bytes. */
static void fill(uint8_t *p, size_t n, int kind) {
  for (size_t i = 0; i < n; i++) {
    switch (kind) {
      case 0: p[i] = 0; break;
      case 1: { uint32_t v = (uint32_t)(i / 4) * 3; p[i] = (uint8_t)(v >> (8 * (i % 4))); break; }
      case 2: p[i] = (uint8_t)next(); break;
      case 3: p[i] = "the quick brown fox jumps over the lazy dog "[(i * 7 + i / 45) % 44]; break;
      case 4: { float f = (float)(1000.0 + (double)(i / 4) * 0.37); uint8_t b[4]; memcpy(b, &f, 4); p[i] = b[i % 4]; break; }
      case 5: p[i] = (uint8_t)((i / 300) % 7); break;
      default: p[i] = (uint8_t)(next() % 3); break;
    }
  }
}

static const char *codecs[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
static FILE *chunks;

static void store(const char *id, const uint8_t *c, int n) {
  if (!chunks || n <= 0) return;
  uint32_t len = (uint32_t)n, idlen = (uint32_t)strlen(id);
  fwrite(&idlen, 4, 1, chunks); fwrite(id, 1, idlen, chunks);
  fwrite(&len, 4, 1, chunks); fwrite(c, 1, len, chunks);
}

/* What decoding `c` gives: decompress (1 and 2 threads), getitem ranges, cbuffer info. */
static void describe(const uint8_t *c, size_t nbytes_hint) {
  size_t nbytes = 0, cbytes = 0, bs = 0, ts = 0;
  int flags = 0, ver = 0, verlz = 0;
  blosc_cbuffer_sizes(c, &nbytes, &cbytes, &bs);
  blosc_cbuffer_metainfo(c, &ts, &flags);
  blosc_cbuffer_versions(c, &ver, &verlz);
  const char *lib = blosc_cbuffer_complib(c);
  size_t vn = 0;
  int valid = blosc_cbuffer_validate(c, cbytes, &vn);
  printf(" info=%zu/%zu/%zu/%zu/%d/%d/%d/%s/%d", nbytes, cbytes, bs, ts, flags, ver, verlz,
         lib ? lib : "NULL", valid);
  size_t cap = nbytes_hint + 64;
  uint8_t *out = malloc(cap + 1);
  for (int t = 1; t <= 2; t++) {
    memset(out, 0xA5, cap);
    int d = blosc_decompress_ctx(c, out, nbytes_hint, t);
    printf(" d%d=%d:%016llx", t, d, (unsigned long long)fnv(out, d > 0 ? (size_t)d : 0));
  }
  if (nbytes_hint > 0) {
    int d = blosc_decompress_ctx(c, out, nbytes_hint - 1, 1);
    printf(" dshort=%d", d);
  }
  if (ts > 0 && nbytes >= ts && nbytes < (1u << 30)) {
    int nitems = (int)(nbytes / ts);
    int starts[3] = {0, nitems / 3, nitems > 0 ? nitems - 1 : 0};
    for (int k = 0; k < 3; k++) {
      int cnt = k == 1 ? (nitems / 2 > 0 ? nitems / 2 : 1) : 1;
      if (starts[k] + cnt > nitems) cnt = nitems - starts[k];
      uint8_t *g = malloc((size_t)cnt * ts + 1);
      int r = blosc_getitem(c, starts[k], cnt, g);
      printf(" g%d=%d:%016llx", k, r, (unsigned long long)fnv(g, r > 0 ? (size_t)r : 0));
      free(g);
    }
    uint8_t g[8];
    printf(" gbad=%d,%d", blosc_getitem(c, -1, 1, g), blosc_getitem(c, nitems, 1, g));
  }
  free(out);
}

static void one_case(const char *codec, int clevel, int shuffle, size_t ts, size_t n, int kind,
                     size_t forced, int split, int dest_kind, int threads) {
  uint8_t *src = malloc(n + 1);
  fill(src, n, kind);
  size_t destsize = dest_kind == 0 ? n + BLOSC_MAX_OVERHEAD : dest_kind == 1 ? n / 2 + 16 : 15;
  uint8_t *dest = malloc(destsize + 64);
  memset(dest, 0, destsize + 64);
  blosc_set_splitmode(split);
  char id[160];
  snprintf(id, sizeof id, "%s/l%d/s%d/t%zu/n%zu/k%d/b%zu/p%d/d%d/th%d", codec, clevel, shuffle, ts,
           n, kind, forced, split, dest_kind, threads);
  int c = blosc_compress_ctx(clevel, shuffle, ts, n, src, dest, destsize, codec, forced, threads);
  if (threads == 1) {
    printf("C %s rc=%d h=%016llx", id, c, (unsigned long long)fnv(dest, c > 0 ? (size_t)c : 0));
  } else {
    printf("S %s rc=%d", id, c);
  }
  if (c > 0) {
    uint8_t *back = malloc(n + 1);
    int d = blosc_decompress_ctx(dest, back, n, 1);
    printf(" rt=%s", d == (int)n && memcmp(back, src, n) == 0 ? "ok" : "BAD");
    free(back);
    if (threads == 1) {
      describe(dest, n);
      store(id, dest, c);
    }
  }
  printf("\n");
  free(src);
  free(dest);
}

static int gen(const char *path) {
  chunks = fopen(path, "wb");
  if (!chunks) return 1;
  blosc_init();
  /* Every codec, filter and clevel over small and medium sizes and a few typesizes. */
  static const size_t sizes[] = {0, 1, 15, 127, 128, 129, 1000, 4099, 32768, 70001};
  static const size_t tss[] = {1, 2, 4, 8, 16, 17};
  for (int ci = 0; ci < 6; ci++)
    for (int sh = 0; sh <= 2; sh++)
      for (int cl = 0; cl <= 9; cl++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
          for (size_t ti = 0; ti < sizeof tss / sizeof *tss; ti += (si % 2) + 1)
            one_case(codecs[ci], cl, sh, tss[ti], sizes[si], (int)((si + ti + cl) % 7), 0,
                     BLOSC_FORWARD_COMPAT_SPLIT, 0, 1);
  /* Random corners: any typesize 1..300, forced block sizes, split modes, small outputs,
   * large buffers. */
  for (int i = 0; i < 2500; i++) {
    const char *codec = codecs[next() % 6];
    int cl = (int)(next() % 10), sh = (int)(next() % 3);
    size_t ts = 1 + next() % 300;
    size_t n;
    switch (next() % 4) {
      case 0: n = next() % 300; break;
      case 1: n = next() % 20000; break;
      case 2: n = next() % 300000; break;
      default: n = (next() % 4 == 0) ? (1u << 20) + next() % 5000000 : next() % 1200000; break;
    }
    size_t forced = 0;
    if (next() % 3 == 0) {
      static const size_t fb[] = {1, 64, 128, 1000, 4096, 65536, 300000, 1u << 21};
      forced = fb[next() % 8];
    }
    int split = 1 + (int)(next() % 4);
    int dk = next() % 6 == 0 ? 1 : next() % 40 == 0 ? 2 : 0;
    one_case(codec, cl, sh, ts, n, (int)(next() % 7), forced, split, dk, 1);
    if (i % 10 == 0) one_case(codec, cl, sh, ts, n, (int)(next() % 7), forced, split, dk, 2);
  }
  blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  fclose(chunks);
  return 0;
}

typedef struct { char id[200]; uint8_t *c; uint32_t len; } chunk_t;

static size_t nbytes_of(const chunk_t *ch) {
  const char *p = strstr(ch->id, "/n");
  return p ? (size_t)strtoull(p + 2, NULL, 10) : 0;
}

/* Reads the chunks of `path`. With `stride` > 1 only every stride-th chunk of at most
 * `max_nbytes` decoded bytes gets its bytes loaded (the others keep c == NULL): `mutate`
 * forks once per mutant, and a parent holding the whole file (hundreds of MB) made each
 * fork copy its page tables. */
static chunk_t *load(const char *path, size_t *count, size_t stride, size_t max_nbytes) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1024, n = 0;
  chunk_t *v = malloc(cap * sizeof *v);
  uint32_t idlen;
  while (fread(&idlen, 4, 1, f) == 1) {
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    if (idlen >= sizeof v[n].id || fread(v[n].id, 1, idlen, f) != idlen) break;
    v[n].id[idlen] = 0;
    if (fread(&v[n].len, 4, 1, f) != 1) break;
    v[n].c = NULL;
    if (n % stride != 0 || nbytes_of(&v[n]) > max_nbytes) {
      if (fseek(f, v[n].len, SEEK_CUR) != 0) break;
      n++;
      continue;
    }
    v[n].c = malloc(v[n].len + 64);
    memset(v[n].c, 0, v[n].len + 64);
    if (fread(v[n].c, 1, v[n].len, f) != v[n].len) break;
    n++;
  }
  fclose(f);
  *count = n;
  return v;
}

static int readall(const char *path) {
  size_t n;
  chunk_t *v = load(path, &n, 1, SIZE_MAX);
  if (!v) return 1;
  for (size_t i = 0; i < n; i++) {
    printf("R %s", v[i].id);
    describe(v[i].c, nbytes_of(&v[i]));
    printf("\n");
  }
  return 0;
}

/* Damage a copy of every chunk a few ways; decode each in a child (the reference can crash
 * or read out of bounds on crafted input: that is recorded as CRASH). */
static int mutate(const char *path, size_t stride) {
  size_t n;
  chunk_t *v = load(path, &n, stride, 300000);
  if (!v) return 1;
  fflush(stdout);
  for (size_t i = 0; i < n; i += stride) {
    size_t nb = nbytes_of(&v[i]);
    if (!v[i].c) continue;
    for (int m = 0; m < 12; m++) {
      /* Slack after the chunk: the reference trusts chunk headers and reads past the end. */
      uint8_t *c = calloc(1, v[i].len + 65536);
      memcpy(c, v[i].c, v[i].len);
      uint32_t len = v[i].len;
      char what[64];
      uint64_t r = next();
      switch (m) {
        case 0: c[0] = (uint8_t)(r % 6); snprintf(what, sizeof what, "ver%d", c[0]); break;
        case 1: c[1] ^= 1; snprintf(what, sizeof what, "verlz"); break;
        case 2: c[2] ^= (uint8_t)(1 << (r % 8)); snprintf(what, sizeof what, "flag%d", (int)(r % 8)); break;
        case 3: c[3] = (uint8_t)(r % 40); snprintf(what, sizeof what, "ts%d", c[3]); break;
        case 4: { int32_t bs; memcpy(&bs, c + 8, 4); bs = (int32_t)(r % 3 == 0 ? bs / 2 : r % 3 == 1 ? bs + 1 : 0);
                  memcpy(c + 8, &bs, 4); snprintf(what, sizeof what, "bs%d", bs); break; }
        case 5: { int32_t cb = (int32_t)len - 1 - (int32_t)(r % 16); if (cb < 0) cb = 0;
                  memcpy(c + 12, &cb, 4); snprintf(what, sizeof what, "cb%d", cb); break; }
        case 6: { int32_t nbv; memcpy(&nbv, c + 4, 4); nbv += (int32_t)(r % 64) + 1; memcpy(c + 4, &nbv, 4);
                  snprintf(what, sizeof what, "nb+%d", (int)(r % 64) + 1); break; }
        default: {
          if (len <= 16) { free(c); continue; }
          size_t at = 16 + r % (len - 16);
          c[at] ^= (uint8_t)(1 + (r >> 20) % 255);
          snprintf(what, sizeof what, "byte%zu", at);
          break;
        }
      }
      fflush(stdout);
      int fd[2];
      if (pipe(fd) != 0) return 1;
      pid_t pid = fork();
      if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        describe(c, nb);
        fflush(stdout);
        _exit(0);
      }
      close(fd[1]);
      char buf[4096];
      size_t got = 0;
      ssize_t k;
      while ((k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)k;
      buf[got] = 0;
      close(fd[0]);
      int st;
      waitpid(pid, &st, 0);
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0) printf("M %s %s%s\n", v[i].id, what, buf);
      else printf("M %s %s CRASH\n", v[i].id, what);
      free(c);
    }
  }
  return 0;
}

static int api(void) {
  const char *name;
  printf("A version=%s list=%s\n", blosc_get_version_string(), blosc_list_compressors());
  for (int code = -1; code <= 7; code++) {
    int r = blosc_compcode_to_compname(code, &name);
    printf("A compcode %d -> %d %s\n", code, r, name ? name : "NULL");
  }
  const char *names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd", "LZ4", "", "zfp"};
  for (int i = 0; i < 9; i++) {
    char *lib = NULL, *ver = NULL;
    int r = blosc_get_complib_info(names[i], &lib, &ver);
    printf("A compname %s -> %d; complib %d %s\n", names[i], blosc_compname_to_compcode(names[i]), r,
           lib ? lib : "NULL");
    free(lib); free(ver);
  }
  printf("A free_resources before init %d\n", blosc_free_resources());
  blosc_init();
  printf("A defaults nthreads=%d compressor=%s blocksize=%d\n", blosc_get_nthreads(),
         blosc_get_compressor(), blosc_get_blocksize());
  printf("A set_compressor zstd %d now %s\n", blosc_set_compressor("zstd"), blosc_get_compressor());
  printf("A set_compressor bogus %d now %s\n", blosc_set_compressor("bogus"), blosc_get_compressor() ? blosc_get_compressor() : "NULL");
  uint8_t src[5000], dst[6000];
  fill(src, sizeof src, 1);
  printf("A compress with unknown compressor %d\n", blosc_compress(5, 1, 4, sizeof src, src, dst, sizeof dst));
  blosc_set_compressor("lz4");
  printf("A set_nthreads 3 -> %d, now %d\n", blosc_set_nthreads(3), blosc_get_nthreads());
  printf("A set_nthreads 1 -> %d\n", blosc_set_nthreads(1));
  blosc_set_blocksize(256);
  printf("A blocksize %d\n", blosc_get_blocksize());
  int c = blosc_compress(5, 1, 4, sizeof src, src, dst, sizeof dst);
  printf("A forced 256 -> %d %016llx\n", c, (unsigned long long)fnv(dst, c > 0 ? (size_t)c : 0));
  blosc_set_blocksize(0);
  printf("A clevel -1 %d, 10 %d, shuffle 3 %d, shuffle -1 %d\n",
         blosc_compress(-1, 1, 4, sizeof src, src, dst, sizeof dst),
         blosc_compress(10, 1, 4, sizeof src, src, dst, sizeof dst),
         blosc_compress(5, 3, 4, sizeof src, src, dst, sizeof dst),
         blosc_compress(5, -1, 4, sizeof src, src, dst, sizeof dst));
  printf("A small dest %d %d %d\n", blosc_compress(5, 1, 4, sizeof src, src, dst, 15),
         blosc_compress(5, 1, 4, sizeof src, src, dst, 16), blosc_compress(5, 1, 4, sizeof src, src, dst, 100));
  printf("A ctx unknown codec %d, bad threads %d %d\n",
         blosc_compress_ctx(5, 1, 4, sizeof src, src, dst, sizeof dst, "nope", 0, 1),
         blosc_compress_ctx(5, 1, 4, sizeof src, src, dst, sizeof dst, "lz4", 256, 0),
         blosc_compress_ctx(5, 1, 4, sizeof src, src, dst, sizeof dst, "lz4", 256, 300));
  c = blosc_compress(5, 1, 4, sizeof src, src, dst, sizeof dst);
  uint8_t back[5000];
  printf("A decompress threads 0 %d, 300 %d, 2 %d\n", blosc_decompress_ctx(dst, back, sizeof back, 0),
         blosc_decompress_ctx(dst, back, sizeof back, 300), blosc_decompress_ctx(dst, back, sizeof back, 2));
  size_t nb;
  printf("A validate %d %d %d\n", blosc_cbuffer_validate(dst, (size_t)c, &nb),
         blosc_cbuffer_validate(dst, (size_t)c + 1, &nb), blosc_cbuffer_validate(dst, 15, &nb));
  blosc_set_splitmode(BLOSC_ALWAYS_SPLIT);
  c = blosc_compress(5, 1, 4, sizeof src, src, dst, sizeof dst);
  printf("A always split %d %016llx\n", c, (unsigned long long)fnv(dst, c > 0 ? (size_t)c : 0));
  blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  printf("A free_resources %d\n", blosc_free_resources());
  blosc_destroy();
  printf("A after destroy nthreads=%d compressor=%s\n", blosc_get_nthreads(), blosc_get_compressor());
  return 0;
}

/* The environment variables blosc_compress and blosc_decompress read: compress one buffer
 * with the settings the caller put in the environment. */
static int envcase(void) {
  static uint8_t src[300000], dst[300100], back[300000];
  fill(src, sizeof src, 4);
  blosc_init();
  int c = blosc_compress(3, 0, 2, sizeof src, src, dst, sizeof dst);
  int d = c > 0 ? blosc_decompress(dst, back, sizeof back) : -99;
  printf("E rc=%d h=%016llx d=%d ok=%d nthreads=%d compressor=%s blocksize=%d\n", c,
         (unsigned long long)fnv(dst, c > 0 ? (size_t)c : 0), d,
         d == (int)sizeof src && memcmp(src, back, sizeof src) == 0, blosc_get_nthreads(),
         blosc_get_compressor() ? blosc_get_compressor() : "NULL", blosc_get_blocksize());
  blosc_destroy();
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "gen") == 0) return gen(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "read") == 0) return readall(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "mutate") == 0) {
    size_t stride = argc >= 4 ? (size_t)strtoull(argv[3], NULL, 10) : 3;
    return mutate(argv[2], stride ? stride : 1);
  }
  if (argc >= 2 && strcmp(argv[1], "api") == 0) return api();
  if (argc >= 2 && strcmp(argv[1], "env") == 0) return envcase();
  if (argc >= 2 && strcmp(argv[1], "which") == 0) {
    /* Which file serves blosc_compress in this process. */
    Dl_info info;
    if (!dladdr((void *)blosc_compress, &info) || !info.dli_fname) return 1;
    printf("%s\n", info.dli_fname);
    return 0;
  }
  fprintf(stderr, "usage: diff gen|read|mutate FILE | api | env\n");
  return 2;
}
