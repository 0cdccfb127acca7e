
/** Library-internal: fills the registry of global codecs at start-up (not exported). */
void register_codecs(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_BLOSC2_CODECS_REGISTRY_H */
