/* gcc -O2 (with tail_clone_main.c): work's cheap test stays in work, and
 * gcc's ipa-split moves the rest to work.part.0, which work reaches by a
 * tail jump. The backtrace from leaf has work.part.0 (named work) and the
 * tail-call frame of work itself, as GDB's: main's call site names work
 * by a declaration, whose symbol is work's and not the clone's, which
 * has the same DWARF name. Reduced from zstd's
 * ZSTD_decompressBlock_internal. TestTailCallClone. */
#include <stdio.h>
__attribute__((noinline)) int leaf(const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i] * (i + 1);
    return s;
}
int work(const int *p, int n) {
    if (n > 100000) return -1;      /* cheap test stays in work; gcc -O2 moves the rest to work.part.0 */
    int t = 0;
    for (int k = 0; k < n; k++) t += p[k] ^ k;
    if (t == 12345) printf("odd %d\n", t);
    for (int k = 0; k < n; k += 2) t -= p[k] >> 1;
    printf("t %d\n", t);
    return leaf(p, n) + t;
}
int work_twice(const int *p, int n) { return work(p, n) + work(p, n - 1); }
