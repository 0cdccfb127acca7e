/* LD_PRELOAD allocation-failure injector for c_tests/faults/test_alloc.c: makes the Nth
   allocation that libblosc2 hands to C fail (malloc, calloc or realloc returning NULL with
   ENOMEM), as an exhausted heap would. Those allocations are the ones made from inside the
   library's `c_malloc`/`c_realloc` (src/ffi/cmem.rs); their address ranges, relative to the
   library's load address, come from FAULT_ALLOC_SITES="offset:size,offset:size" (hex, from
   `nm -S`). Every other allocation (the library's Rust allocations, the program's) goes
   through untouched: a failed Rust allocation aborts by design, and these are the ones the
   API reports as BLOSC2_ERROR_MEMORY_ALLOC.
     allocfault_arm(n): fail the nth such allocation (1-based; 0 counts without failing).
     allocfault_disarm(): stop; returns how many were counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int armed;
static long target, count;
static uintptr_t lo[4], hi[4];
static int nsites;

/* Resolve the site ranges once (outside any allocation: called from arm). */
static void resolve(void) {
  if (nsites) return;
  void *sym = dlsym(RTLD_DEFAULT, "blosc2_init");
  Dl_info info;
  const char *spec = getenv("FAULT_ALLOC_SITES");
  if (!sym || !dladdr(sym, &info) || !spec) {
    fprintf(stderr, "alloc_shim: no library or no FAULT_ALLOC_SITES\n");
    exit(2);
  }
  uintptr_t base = (uintptr_t)info.dli_fbase;
  const char *p = spec;
  while (*p && nsites < 4) {
    char *end;
    unsigned long off = strtoul(p, &end, 16);
    if (*end != ':') break;
    unsigned long size = strtoul(end + 1, &end, 16);
    lo[nsites] = base + off;
    hi[nsites] = base + off + size;
    nsites++;
    p = *end == ',' ? end + 1 : end;
  }
  if (!nsites) {
    fprintf(stderr, "alloc_shim: bad FAULT_ALLOC_SITES '%s'\n", spec);
    exit(2);
  }
}

void allocfault_arm(long n) { resolve(); target = n; count = 0; armed = 1; }
long allocfault_disarm(void) { armed = 0; return count; }

static int fail_here(void *ra) {
  if (!armed) return 0;
  uintptr_t a = (uintptr_t)ra;
  for (int i = 0; i < nsites; i++)
    if (a >= lo[i] && a < hi[i]) return ++count == target;
  return 0;
}

void *malloc(size_t n) {
  if (fail_here(__builtin_return_address(0))) { errno = ENOMEM; return NULL; }
  return __libc_malloc(n);
}
void *calloc(size_t k, size_t n) {
  if (fail_here(__builtin_return_address(0))) { errno = ENOMEM; return NULL; }
  return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n) {
  if (fail_here(__builtin_return_address(0))) { errno = ENOMEM; return NULL; }
  return __libc_realloc(p, n);
}
