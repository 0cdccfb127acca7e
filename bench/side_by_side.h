/* Loading a second copy of an API next to the one a benchmark is linked with, so that two
 * libraries exporting the same names are measured in one process (bench pair, bench1 pair).
 * Include after defining _GNU_SOURCE (RTLD_DEEPBIND, dladdr). */
#ifndef BENCH_SIDE_BY_SIDE_H
#define BENCH_SIDE_BY_SIDE_H
#include <dlfcn.h>
#include <stdio.h>

/* Open `path` and fill `slots[i]` with its symbol `names[i]` (i < n). RTLD_LOCAL keeps the
 * library's symbols to itself and RTLD_DEEPBIND binds its own calls to itself, not to the
 * copy the program is linked with. Prints on stderr which file `names[probe]` came from
 * (dladdr), so a run shows what it measured. Returns 0, or 1 with a message. */
static int open_side(const char *path, const char *label, const char *const *names, void **const *slots, int n,
                     int probe) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  for (int i = 0; i < n; i++) {
    *slots[i] = dlsym(h, names[i]);
    if (!*slots[i]) {
      fprintf(stderr, "%s: no %s\n", path, names[i]);
      return 1;
    }
  }
  Dl_info info;
  if (dladdr(*slots[probe], &info) && info.dli_fname) fprintf(stderr, "%s: %s\n", label, info.dli_fname);
  return 0;
}
#endif
