// Special chunks made with a user tuner whose hooks succeed: the tuner's init and
// next_blocksize run once per chunk (as the reference calls them) and the chunk is written
// and reads back. The reference crashes in this case (SIGFPE: its user-tuner path leaves
// the block size 0 and it divides by it), so this test runs on this library only.
#include <stdio.h>
#include <string.h>
#include "blosc2.h"

static int init_calls, nb_calls;
static int t_init(void *p, blosc2_context *c, blosc2_context *d) { (void)p; (void)c; (void)d; init_calls++; return 0; }
static int t_next_blocksize(blosc2_context *c) { (void)c; nb_calls++; return 0; }
static int t_next_cparams(blosc2_context *c) { (void)c; return 0; }
static int t_update(blosc2_context *c, double t) { (void)c; (void)t; return 0; }
static int t_free(blosc2_context *c) { (void)c; return 0; }

int main(void) {
  blosc2_init();
  blosc2_tuner t = {t_init, t_next_blocksize, t_next_cparams, t_update, t_free, 172, "oktuner"};
  int failures = 0;
  if (blosc2_register_tuner(&t) != 0) { printf("FAIL register\n"); return 1; }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.tuner_id = 172;
  static char chunk[64];
  static int back[10000];
  int v = 1234567;
  for (int kind = 0; kind < 3; kind++) {
    init_calls = nb_calls = 0;
    int n = kind == 0 ? blosc2_chunk_zeros(cp, 40000, chunk, sizeof chunk)
          : kind == 1 ? blosc2_chunk_uninit(cp, 40000, chunk, sizeof chunk)
                      : blosc2_chunk_repeatval(cp, 40000, chunk, sizeof chunk, &v);
    if (n <= 0 || init_calls != 1 || nb_calls != 1) {
      printf("FAIL kind %d: rc %d init %d next_blocksize %d\n", kind, n, init_calls, nb_calls);
      failures++;
      continue;
    }
    int d = blosc2_decompress(chunk, n, back, sizeof back);
    int good = d == 40000;
    for (int i = 0; good && kind != 1 && i < 10000; i++) good = back[i] == (kind == 0 ? 0 : v);
    if (!good) { printf("FAIL kind %d: decompress %d\n", kind, d); failures++; }
  }
  blosc2_destroy();
  printf("%s\n", failures ? "FAILED" : "OK");
  return failures != 0;
}
