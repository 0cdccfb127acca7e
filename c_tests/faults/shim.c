/* LD_PRELOAD fault injector for c_tests/test_faults.c: counts the file I/O calls the
   program makes on paths containing "faultzone" (opens, renames) and on descriptors above 2
   (writes, pwrites, truncates, syncs) while armed, and makes the Nth one fail, as a full or
   failing disk would.
     faultinject_arm(n, mode): fail call n (1-based); mode 0 ENOSPC, 1 EIO, 2 EINTR (the
       call fails once, the next try goes through), 3 a short write (half the bytes, then
       ENOSPC on the next write).
     faultinject_disarm(): stop counting; returns how many calls were counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int armed, mode, failed, short_pending;
static long target, count;

void faultinject_arm(long n, int m) { armed = 1; target = n; mode = m; count = 0; failed = 0; short_pending = 0; }
long faultinject_disarm(void) { armed = 0; return count; }
int faultinject_failed(void) { return failed; }

/* Whether this call is the one to fail (and fail it: errno set); -1 fail, 0 go on,
   1 go on but write short. */
static int hit(int is_write) {
  if (!armed) return 0;
  if (short_pending && is_write) { short_pending = 0; errno = ENOSPC; failed = 1; return -1; }
  if (++count != target) return 0;
  failed = 1;
  switch (mode) {
    case 0: errno = ENOSPC; return -1;
    case 1: errno = EIO; return -1;
    case 2: errno = EINTR; return -1;
    default:
      if (is_write) { short_pending = 1; return 1; }
      errno = EIO; return -1;
  }
}

/* The next definition of `name` (libc's), looked up once. */
#define REAL(name) static __typeof__(&name) real_##name; if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n) {
  REAL(write);
  if (fd > 2) { int h = hit(1); if (h < 0) return -1; if (h > 0 && n > 1) n /= 2; }
  return real_write(fd, buf, n);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
  REAL(pwrite64);
  if (fd > 2) { int h = hit(1); if (h < 0) return -1; if (h > 0 && n > 1) n /= 2; }
  return real_pwrite64(fd, buf, n, off);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  REAL(pwrite);
  if (fd > 2) { int h = hit(1); if (h < 0) return -1; if (h > 0 && n > 1) n /= 2; }
  return real_pwrite(fd, buf, n, off);
}
int ftruncate64(int fd, off_t len) {
  REAL(ftruncate64);
  if (fd > 2 && hit(0) < 0) return -1;
  return real_ftruncate64(fd, len);
}
int ftruncate(int fd, off_t len) {
  REAL(ftruncate);
  if (fd > 2 && hit(0) < 0) return -1;
  return real_ftruncate(fd, len);
}
int fsync(int fd) {
  REAL(fsync);
  if (fd > 2 && hit(0) < 0) return -1;
  return real_fsync(fd);
}
int fdatasync(int fd) {
  REAL(fdatasync);
  if (fd > 2 && hit(0) < 0) return -1;
  return real_fdatasync(fd);
}
static int zone(const char *p) { return p && strstr(p, "faultzone"); }
int open64(const char *p, int flags, ...) {
  REAL(open64);
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); m = va_arg(ap, mode_t); va_end(ap); }
  if (zone(p) && hit(0) < 0) return -1;
  return real_open64(p, flags, m);
}
int open(const char *p, int flags, ...) {
  REAL(open);
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); m = va_arg(ap, mode_t); va_end(ap); }
  if (zone(p) && hit(0) < 0) return -1;
  return real_open(p, flags, m);
}
int openat64(int dfd, const char *p, int flags, ...) {
  REAL(openat64);
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); m = va_arg(ap, mode_t); va_end(ap); }
  if (zone(p) && hit(0) < 0) return -1;
  return real_openat64(dfd, p, flags, m);
}
int openat(int dfd, const char *p, int flags, ...) {
  REAL(openat);
  mode_t m = 0;
  if (flags & (O_CREAT | O_TMPFILE)) { va_list ap; va_start(ap, flags); m = va_arg(ap, mode_t); va_end(ap); }
  if (zone(p) && hit(0) < 0) return -1;
  return real_openat(dfd, p, flags, m);
}
int rename(const char *a, const char *b) {
  REAL(rename);
  if ((zone(a) || zone(b)) && hit(0) < 0) return -1;
  return real_rename(a, b);
}
