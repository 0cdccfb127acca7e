/* zlib-ng's deflate_quick (zlib level 1, which Blosc's clevel 1 selects) built twice, for
 * plain x86-64 and for CPUs with BMI1 and BMI2, the build picked on the first call.
 * scripts/cc-x86_64 compiles this file in place of zlib-ng's deflate_quick.c, whose path
 * it passes as ZNG_SOURCE (and that of insert_string.c beside it as
 * INSERT_STRING_SOURCE); the object file keeps that file's name.
 *
 * Why: the bit writer deflate_quick inlines (trees_emit.h) shifts by variable counts.
 * Plain x86-64 has only `shl reg, cl` for that (three micro-ops on Intel cores, plus the
 * moves into cl); BMI2's shlx/shrx take one. Built for x86-64-v3, zlib level 1 compressed
 * 1.09-1.23x faster; nothing else in zlib-ng, LZ4 or zstd gained from it (README, "Codec
 * builds"). The reference builds for plain x86-64 as well. */

/* zlib-ng's insert_string.c first, under other names: deflate_quick then calls a
 * quick_insert_string of this file, which the compiler inlines. zlib-ng's own sits in
 * another object file behind a call, 13% of the time of level 1; inlined, level 1
 * compresses 1.25-1.47x faster (with the BMI2 build below). The names change everywhere
 * in this file, the fields of deflate_state that share them included; the layout does
 * not. (The same for deflate_medium, levels 3-6, gained nothing.) */
#define update_hash dq_update_hash
#define insert_string dq_insert_string
#define quick_insert_string dq_quick_insert_string
#include INSERT_STRING_SOURCE

#define deflate_quick deflate_quick_plain
#include ZNG_SOURCE
#undef deflate_quick

/* The headers were read above, outside these options: their inline functions take the
 * options of the function they are inlined into. */
#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
#define deflate_quick deflate_quick_bmi2
#include ZNG_SOURCE
#undef deflate_quick
#pragma GCC pop_options

#include <cpuid.h>

/* 0: not looked up yet; 1: plain; 2: BMI1 and BMI2. */
static int deflate_quick_build;

static int deflate_quick_detect(void) {
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 3)) && (b & (1u << 8)))
        return 2;
    return 1;
}

Z_INTERNAL block_state deflate_quick(deflate_state *s, int flush) {
    int build = __atomic_load_n(&deflate_quick_build, __ATOMIC_RELAXED);
    if (build == 0) {
        build = deflate_quick_detect();
        __atomic_store_n(&deflate_quick_build, build, __ATOMIC_RELAXED);
    }
    return build == 2 ? deflate_quick_bmi2(s, flush) : deflate_quick_plain(s, flush);
}
