
/**
 * Decodes the "b2nd" metalayer `smeta` (`smeta_len` bytes, msgpack encoded) into `*ndim`
 * and the first `*ndim` entries of `shape`, `chunkshape` and `blockshape` (the header-only
 * twin of b2nd_deserialize_meta()). When both `dtype` and `dtype_format` are non-NULL the
 * dtype is decoded too: `*dtype` becomes a malloc()ed NUL-terminated string the caller must
 * free(), or NULL if the metalayer has no dtype. Returns the number of bytes consumed, or
 * BLOSC2_ERROR_NULL_POINTER, BLOSC2_ERROR_MEMORY_ALLOC or BLOSC2_ERROR_FAILURE (malformed or
 * truncated metalayer).
 */
static inline int b2nd_deserialize_meta_inline(const uint8_t *smeta, int32_t smeta_len,
                                               int8_t *ndim, int64_t *shape,
                                               int32_t *chunkshape, int32_t *blockshape,
                                               char **dtype, int8_t *dtype_format) {
  const uint8_t *p = smeta;
  int8_t nd;
  int i;
  int32_t dtype_len;

  BLOSC_ERROR_NULL(smeta, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(ndim, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(shape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(chunkshape, BLOSC2_ERROR_NULL_POINTER);
  BLOSC_ERROR_NULL(blockshape, BLOSC2_ERROR_NULL_POINTER);
  if (dtype != NULL) {
    *dtype = NULL;
  }
  if (dtype_format != NULL) {
    *dtype_format = 0;
  }
  if (smeta_len <= 0) {
    BLOSC_TRACE_ERROR("%s", "b2nd metalayer is empty");
    return BLOSC2_ERROR_FAILURE;
  }

/* Fails unless `n` more bytes are left after `p`. */
#define B2ND_META_NEED_(n)                                                          \
  do {                                                                              \
    size_t used_ = (size_t)(p - smeta);                                             \
    if (used_ > (size_t)smeta_len || (size_t)smeta_len - used_ < (size_t)(n)) {     \
      BLOSC_TRACE_ERROR("%s", "b2nd metalayer is truncated");                       \
      return BLOSC2_ERROR_FAILURE;                                                  \
    }                                                                               \
  } while (0)

  /* msgpack array marker, then the metalayer version */
  B2ND_META_NEED_(1);
  p++;
  B2ND_META_NEED_(1);
  p++;
  /* number of dimensions */
  B2ND_META_NEED_(1);
  nd = (int8_t)p[0];
  *ndim = nd;
  if (nd < 0 || nd > B2ND_MAX_DIM) {
    BLOSC_TRACE_ERROR("b2nd metalayer: ndim %d out of range", nd);
    return BLOSC2_ERROR_FAILURE;
  }
  p++;

  /* shape: array marker, then one (int64 marker, big-endian int64) per dimension */
  for (i = 0; i < nd; i++) {
    shape[i] = 1;
  }
  B2ND_META_NEED_(1);
  p++;
  for (i = 0; i < nd; i++) {
    B2ND_META_NEED_(1 + sizeof(int64_t));
    p++;
    swap_store(shape + i, p, sizeof(int64_t));
    p += sizeof(int64_t);
  }

  /* chunkshape: array marker, then one (int32 marker, big-endian int32) per dimension */
  for (i = 0; i < nd; i++) {
    chunkshape[i] = 1;
  }
  B2ND_META_NEED_(1);
  p++;
  for (i = 0; i < nd; i++) {
    B2ND_META_NEED_(1 + sizeof(int32_t));
    p++;
    swap_store(chunkshape + i, p, sizeof(int32_t));
    p += sizeof(int32_t);
  }

  /* blockshape: same encoding as chunkshape */
  for (i = 0; i < nd; i++) {
    blockshape[i] = 1;
  }
  B2ND_META_NEED_(1);
  p++;
  for (i = 0; i < nd; i++) {
    B2ND_META_NEED_(1 + sizeof(int32_t));
    p++;
    swap_store(blockshape + i, p, sizeof(int32_t));
    p += sizeof(int32_t);
  }

  if (dtype == NULL || dtype_format == NULL) {
    return (int32_t)(p - smeta);
  }

  /* optional dtype: format byte, str32 marker (0xdb), big-endian int32 length, bytes */
  if (p - smeta < smeta_len) {
    B2ND_META_NEED_(1 + 1 + sizeof(int32_t));
    *dtype_format = (int8_t)*p;
    p++;
    if (*p != 0xdb) {
      BLOSC_TRACE_ERROR("%s", "b2nd metalayer: dtype is not a msgpack str32");
      return BLOSC2_ERROR_FAILURE;
    }
    p++;
    swap_store(&dtype_len, p, sizeof(int32_t));
    p += sizeof(int32_t);
    if (dtype_len < 0) {
      BLOSC_TRACE_ERROR("%s", "b2nd metalayer: negative dtype length");
      return BLOSC2_ERROR_FAILURE;
    }
    B2ND_META_NEED_(dtype_len);
    *dtype = (char *)malloc((size_t)dtype_len + 1);
    BLOSC_ERROR_NULL(*dtype, BLOSC2_ERROR_MEMORY_ALLOC);
    memcpy(*dtype, p, (size_t)dtype_len);
    (*dtype)[dtype_len] = '\0';
    p += dtype_len;
  } else {
    *dtype = NULL;
    *dtype_format = 0;
  }
#undef B2ND_META_NEED_

  return (int32_t)(p - smeta);
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_B2ND_H */
