
/** Library-internal: fills the registry of global filters at start-up (not exported). */
void register_filters(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* BLOSC_BLOSC2_FILTERS_REGISTRY_H */
