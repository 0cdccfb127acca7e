
/** Library-internal: fills the registry of global tuners at start-up (not exported). */
void register_tuners(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_BLOSC2_TUNERS_REGISTRY_H */
