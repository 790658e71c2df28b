void sink(long x);
#define FORWARD_IF_ERROR(e) do { long const err_code = (e); if (err_code < 0) return err_code; } while (0)
__attribute__((noinline)) long reset(long a, long b) {
    long s = a;
    for (int i = 0; i < 3; i++) { sink(s); s = s * 7 + i; }
    sink(s);                       /* line 6: b is dead here, its location is DW_OP_entry_value(rsi) */
    return s;
}
long begin(long n) {
    long k = n * 3 + 1;            /* kept in rbx across the call */
    FORWARD_IF_ERROR(reset(n, k));
    return k;
}
long twice(long n) { return begin(n) + begin(n + 1); }   /* begin is inlined here, and also kept out of line */
/* gcc -O2 (with callsite_origin_main.c): begin is inlined into twice and
 * kept out of line; the call sites of the out-of-line begin are in the
 * abstract DIE it shares with the inlined copies, return address and all.
 * At the third stop on line 6 (reset called from the out-of-line begin) a
 * and b are the caller's call-site values, 5 and 16, as GDB reads them;
 * rrmcp looked in the concrete DIE only and had <optimized out>. Reduced
 * from zstd's ZSTD_resetCCtx_internal. TestCallSiteInAbstractOrigin. */
