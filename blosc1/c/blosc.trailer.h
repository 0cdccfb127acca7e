
#ifdef __cplusplus
}
#endif

#endif /* BLOSC_H */
