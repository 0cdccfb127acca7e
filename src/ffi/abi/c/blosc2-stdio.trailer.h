
/** Filesystem I/O parameters with every option at its default (no locking). */
static const blosc2_stdio_params BLOSC2_STDIO_PARAMS_DEFAULTS = {false};

/**
 * Memory-mapped I/O parameters for a read-only mapping: mode "r", a 1 GiB first mapping for
 * the writable modes, not heap allocated, and the internal state reset (NULL pointers, zero
 * sizes, file descriptor and flags -1).
 */
static const blosc2_stdio_mmap BLOSC2_STDIO_MMAP_DEFAULTS = {
  "r", (size_t)1 << 30, false, NULL, NULL, 0, 0, false, NULL, -1, -1, -1
};

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_BLOSC2_BLOSC2_STDIO_H */
