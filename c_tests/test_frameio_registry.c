// c_tests: compare-output
// The I/O backend registry and backend misuse: blosc2_register_io_cb argument checks
// (NULL, reserved ids, same id under the same or another name), blosc2_get_io_cb before
// blosc2_init, for built-in, registered and unknown ids; super-chunks on unregistered
// backends; blosc2_remove_dir / blosc2_remove_urlpath / blosc2_rename_urlpath results.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

static int w_destroy(void* p) { (void)p; return 0; }

static const char* exists(const char* p) {
  struct stat st;
  if (stat(p, &st) != 0) return "missing";
  return S_ISDIR(st.st_mode) ? "dir" : "file";
}

int main(void) {
  printf("get_io_cb(0) before init: %s\n", blosc2_get_io_cb(0) == NULL ? "NULL" : "set");
  blosc2_init();
  blosc2_io_cb* c0 = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  blosc2_io_cb* c1 = blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM_MMAP);
  printf("get_io_cb(0)=%s alloc=%d\n", c0 ? c0->name : "NULL", c0 ? c0->is_allocation_necessary : -1);
  printf("get_io_cb(1)=%s alloc=%d\n", c1 ? c1->name : "NULL", c1 ? c1->is_allocation_necessary : -1);
  printf("get_io_cb(2)=%s get_io_cb(200)=%s\n", blosc2_get_io_cb(2) ? "set" : "NULL",
         blosc2_get_io_cb(200) ? "set" : "NULL");
  printf("register(NULL)=%d\n", blosc2_register_io_cb(NULL));
  blosc2_io_cb cb = {.id = 1, .name = "fir_one", .is_allocation_necessary = true, .open = blosc2_stdio_open,
                     .close = blosc2_stdio_close, .size = blosc2_stdio_size, .write = blosc2_stdio_write,
                     .read = blosc2_stdio_read, .truncate = blosc2_stdio_truncate, .destroy = w_destroy};
  printf("register(id 1)=%d\n", blosc2_register_io_cb(&cb));
  cb.id = BLOSC2_IO_REGISTERED - 1;
  printf("register(id %d)=%d\n", cb.id, blosc2_register_io_cb(&cb));
  cb.id = 221;
  printf("register(id 221)=%d\n", blosc2_register_io_cb(&cb));
  printf("register(id 221 again, same name)=%d\n", blosc2_register_io_cb(&cb));
  cb.name = "fir_other";
  printf("register(id 221, other name)=%d\n", blosc2_register_io_cb(&cb));
  blosc2_io_cb* got = blosc2_get_io_cb(221);
  printf("get_io_cb(221)=%s\n", got ? got->name : "NULL");
  cb.name = "fir_max";
  cb.id = 255;
  printf("register(id 255)=%d\n", blosc2_register_io_cb(&cb));

  blosc2_io unknown = {.id = 222, .params = NULL};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .urlpath = "fir.b2frame", .cparams = &cp, .io = &unknown};
  blosc2_remove_urlpath("fir.b2frame");
  blosc2_schunk* sc = blosc2_schunk_new(&st);
  printf("new on unregistered backend: %s\n", sc ? "schunk" : "NULL");
  if (sc) blosc2_schunk_free(sc);

  printf("remove_dir(missing)=%d\n", blosc2_remove_dir("fir_missing_dir"));
  printf("remove_urlpath(missing)=%d remove_urlpath(NULL)=%d\n", blosc2_remove_urlpath("fir_missing"),
         blosc2_remove_urlpath(NULL));
  FILE* f = fopen("fir_file", "wb");
  fclose(f);
  int rc = blosc2_remove_dir("fir_file");
  printf("remove_dir(file)=%d file=%s\n", rc, exists("fir_file"));
  rc = blosc2_rename_urlpath("fir_file", "fir_file2");
  printf("rename=%d old=%s new=%s\n", rc, exists("fir_file"), exists("fir_file2"));
  printf("rename(missing)=%d\n", blosc2_rename_urlpath("fir_file", "fir_file3"));
  rc = blosc2_remove_urlpath("fir_file2");
  printf("remove_urlpath(file)=%d file=%s\n", rc, exists("fir_file2"));
  blosc2_storage sst = {.contiguous = false, .urlpath = "fir_dir", .cparams = &cp};
  sc = blosc2_schunk_new(&sst);
  blosc2_schunk_free(sc);
  rc = blosc2_remove_dir("fir_dir");
  printf("remove_dir(sparse)=%d dir=%s\n", rc, exists("fir_dir"));
  blosc2_destroy();
  printf("get_io_cb(0) after destroy: %s\n", blosc2_get_io_cb(0) == NULL ? "NULL" : "set");
  return 0;
}
