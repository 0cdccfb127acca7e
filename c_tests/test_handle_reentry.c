// A super-chunk called back into while this library holds it (this library's behaviour: the
// reference takes no lock at all):
// - from an I/O backend's write callback, on the thread that holds it: the inner call returns
//   BLOSC2_ERROR_LOCK at once instead of waiting for itself, and the outer change completes;
// - from another thread meanwhile: that call waits for the holder and then succeeds (it is
//   never refused as if it held the super-chunk itself).
// A deadlock would hang: an alarm turns it into a failure.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

#define IO_ID 222

static blosc2_schunk* g_sc;
static int g_armed;
static int g_inner = 1;       /* return code of the call made from the callback */
static int g_thread_rc = -999;  /* return code of the other thread's call */
static pthread_t g_thread;
static int g_thread_started;

static void* other_thread(void* arg) {
  (void)arg;
  int32_t out[1000];
  g_thread_rc = blosc2_schunk_decompress_chunk(g_sc, 0, out, sizeof out);
  return NULL;
}

static void* r_open(const char* u, const char* mode, void* params) { return blosc2_stdio_open(u, mode, params); }
static int r_close(void* s) { return blosc2_stdio_close(s); }
static int64_t r_size(void* s) { return blosc2_stdio_size(s); }
static int64_t r_write(const void* p, int64_t sz, int64_t n, int64_t pos, void* s) {
  if (g_armed) {
    g_armed = 0;
    uint8_t* chunk;
    bool needs_free;
    g_inner = blosc2_schunk_get_chunk(g_sc, 0, &chunk, &needs_free);
    if (g_inner >= 0 && needs_free) free(chunk);
    // Another thread asks for the same super-chunk while this one holds it.
    if (pthread_create(&g_thread, NULL, other_thread, NULL) == 0) g_thread_started = 1;
    usleep(50 * 1000);
  }
  return blosc2_stdio_write(p, sz, n, pos, s);
}
static int64_t r_read(void** p, int64_t sz, int64_t n, int64_t pos, void* s) { return blosc2_stdio_read(p, sz, n, pos, s); }
static int r_trunc(void* s, int64_t n) { return blosc2_stdio_truncate(s, n); }
static int r_destroy(void* p) { (void)p; return 0; }

int main(void) {
  alarm(20);
  blosc2_init();
  blosc2_io_cb cb = {.id = IO_ID, .name = "reentry", .is_allocation_necessary = true,
                     .open = r_open, .close = r_close, .size = r_size, .write = r_write,
                     .read = r_read, .truncate = r_trunc, .destroy = r_destroy};
  if (blosc2_register_io_cb(&cb) < 0) { printf("register failed\n"); return 1; }
  blosc2_io io = {.id = IO_ID, .name = "reentry", .params = NULL};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = "reentry.b2frame", .cparams = &cp, .io = &io};
  blosc2_remove_urlpath(st.urlpath);
  g_sc = blosc2_schunk_new(&st);
  if (g_sc == NULL) { printf("new failed\n"); return 1; }
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  if (blosc2_schunk_append_buffer(g_sc, data, sizeof data) != 1) { printf("append failed\n"); return 1; }
  g_armed = 1;
  int64_t n = blosc2_schunk_append_buffer(g_sc, data, sizeof data);
  int fail = 0;
  if (n != 2) { printf("FAIL: outer append returned %lld\n", (long long)n); fail = 1; }
  if (g_inner != BLOSC2_ERROR_LOCK) { printf("FAIL: call from the callback returned %d, want %d\n", g_inner, BLOSC2_ERROR_LOCK); fail = 1; }
  if (!g_thread_started) { printf("FAIL: no thread\n"); fail = 1; }
  else {
    pthread_join(g_thread, NULL);
    if (g_thread_rc != (int)sizeof data) { printf("FAIL: other thread's call returned %d\n", g_thread_rc); fail = 1; }
  }
  // The super-chunk is whole afterwards, and usable again from this thread.
  int32_t out[1000];
  if (blosc2_schunk_decompress_chunk(g_sc, 1, out, sizeof out) != (int)sizeof out || memcmp(out, data, sizeof out)) {
    printf("FAIL: chunk 1 after the reentry\n");
    fail = 1;
  }
  blosc2_schunk_free(g_sc);
  blosc2_remove_urlpath(st.urlpath);
  blosc2_destroy();
  printf("%s\n", fail ? "FAILED" : "OK");
  return fail;
}
