
/*
 * Default parameter sets, to copy and adjust before use:
 *   blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
 * They match what blosc2_get_blosc2_*_defaults() return.
 */

/** BloscLZ at level 5 without dictionary, 8-byte items, one thread, automatic block size,
    forward-compatible splitting, byte shuffle in the last filter slot, no prefilter, no
    tuner, no instrumentation. */
static const blosc2_cparams BLOSC2_CPARAMS_DEFAULTS = {
  BLOSC_BLOSCLZ, 0, 5, 0, 8, 1, 0, BLOSC_FORWARD_COMPAT_SPLIT, NULL,
  {0, 0, 0, 0, 0, BLOSC_SHUFFLE}, {0, 0, 0, 0, 0, 0},
  NULL, NULL, NULL, 0, false, NULL, {NULL, NULL, NULL, NULL, NULL, NULL}
};

/** One thread, no super-chunk, no postfilter, 8-byte items. */
static const blosc2_dparams BLOSC2_DPARAMS_DEFAULTS = {1, NULL, NULL, NULL, 8};

/** In-memory sparse storage with default parameters and I/O. */
static const blosc2_storage BLOSC2_STORAGE_DEFAULTS = {false, NULL, NULL, NULL, NULL};

/** The default filesystem I/O backend. */
static const blosc2_io BLOSC2_IO_DEFAULTS = {BLOSC2_IO_FILESYSTEM, "filesystem", NULL};

/* Wrapper of blosc2_error_string() used by BLOSC_ERROR(). */
static char *print_error(int rc) BLOSC_ATTRIBUTE_UNUSED;
static char *print_error(int rc) {
  /* the reference signature returns a non-const pointer; callers must not write to it */
  return (char *)(uintptr_t)blosc2_error_string(rc);
}

/**
 * Looks up the fixed-length metalayer `name` of `schunk`.
 * Returns its index, BLOSC2_ERROR_NOT_FOUND if there is none, or BLOSC2_ERROR_INVALID_PARAM
 * if `schunk` is NULL or `name` is longer than BLOSC2_METALAYER_NAME_MAXLEN.
 */
static inline int blosc2_meta_exists(blosc2_schunk *schunk, const char *name) {
  int n;
  if (strlen(name) > BLOSC2_METALAYER_NAME_MAXLEN) {
    BLOSC_TRACE_ERROR("Metalayer names are limited to %d characters.",
                      BLOSC2_METALAYER_NAME_MAXLEN);
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  if (schunk == NULL) {
    BLOSC_TRACE_ERROR("%s", "The super-chunk is NULL.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  for (n = 0; n < schunk->nmetalayers; n++) {
    if (strcmp(schunk->metalayers[n]->name, name) == 0) {
      return n;
    }
  }
  return BLOSC2_ERROR_NOT_FOUND;
}

/**
 * Copies the content of the fixed-length metalayer `name` of `schunk` into a new buffer.
 * On success `*content` is a malloc()ed copy (NULL for empty content) that the caller must
 * free(), `*content_len` its length, and the metalayer's index is returned. Errors:
 * BLOSC2_ERROR_INVALID_PARAM (NULL argument), the error of blosc2_meta_exists() (no such
 * metalayer), BLOSC2_ERROR_DATA (inconsistent metalayer) or BLOSC2_ERROR_MEMORY_ALLOC.
 */
static inline int blosc2_meta_get(blosc2_schunk *schunk, const char *name, uint8_t **content,
                                  int32_t *content_len) {
  int n;
  int32_t len;
  const blosc2_metalayer *meta;
  if (schunk == NULL || name == NULL || content == NULL || content_len == NULL) {
    BLOSC_TRACE_ERROR("%s", "blosc2_meta_get: NULL argument.");
    return BLOSC2_ERROR_INVALID_PARAM;
  }
  n = blosc2_meta_exists(schunk, name);
  if (n < 0) {
    BLOSC_TRACE_WARNING("No metalayer called \"%s\".", name);
    return n;
  }
  meta = schunk->metalayers[n];
  len = meta->content_len;
  if (len < 0) {
    BLOSC_TRACE_ERROR("Metalayer \"%s\": negative content length %d.", name, len);
    return BLOSC2_ERROR_DATA;
  }
  *content_len = len;
  if (len == 0) {
    *content = NULL;
    return n;
  }
  *content = (uint8_t *)malloc((size_t)len);
  if (*content == NULL) {
    BLOSC_TRACE_ERROR("%s", "Out of memory copying a metalayer.");
    *content_len = 0;
    return BLOSC2_ERROR_MEMORY_ALLOC;
  }
  if (meta->content == NULL) {
    free(*content);
    *content = NULL;
    *content_len = 0;
    BLOSC_TRACE_ERROR("Metalayer \"%s\": NULL content.", name);
    return BLOSC2_ERROR_DATA;
  }
  memcpy(*content, meta->content, (size_t)len);
  return n;
}

/**
 * Stores the `size`-byte value at `pa` into `dest` in big-endian byte order (the order used
 * by the msgpack-encoded metalayers), i.e. reversed on little-endian hosts and copied as is
 * on big-endian ones. Supported sizes are 1, 2, 4 and 8; other sizes are reported on stderr
 * and leave `dest` unspecified on little-endian hosts.
 */
static inline void swap_store(void *dest, const void *pa, int size) {
  const uint8_t *src = (const uint8_t *)pa;
  uint8_t *out = (uint8_t *)dest;
  uint8_t tmp[8];
  const int one = 1;
  int i;
  if (*(const char *)&one != 1) {
    memmove(dest, pa, (size_t)size);
    return;
  }
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    fprintf(stderr, "Unhandled nitems: %d\n", size);
    return;
  }
  for (i = 0; i < size; i++) {
    tmp[i] = src[size - 1 - i];
  }
  for (i = 0; i < size; i++) {
    out[i] = tmp[i];
  }
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_BLOSC2_H */
