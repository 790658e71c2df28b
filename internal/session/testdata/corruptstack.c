/* Stacks an unwinder cannot read past, for TestBacktraceStoppedMatchesGDB:
   argv[1] picks the stack and frame pointers crash() sets before ud2
   stops it (SIGILL). */
#include <stdlib.h>
__attribute__((noinline)) void crash(unsigned long sp, unsigned long bp) {
    __asm__ volatile("mov %0, %%rsp\n\tmov %1, %%rbp\n\tud2" :: "r"(sp), "r"(bp));
}
__attribute__((noinline)) void mid(unsigned long sp, unsigned long bp) { crash(sp, bp); __asm__ volatile(""); }
int main(int argc, char **argv) {
    unsigned long v[][2] = {
        {0xfffffffffffffff8UL, 0xfffffffffffffff0UL},
        {0, 0},
        {0x7ffffffff000UL, 0x7ffffffff000UL},
        {0xffffffffffffffffUL, 0xffffffffffffffffUL},
        {0xfffffffffffff000UL, 0xfffffffffffffff8UL},
        {0x7fffffffeff8UL, 0x7fffffffeff8UL},
    };
    int i = argc > 1 ? atoi(argv[1]) : 0;
    mid(v[i][0], v[i][1]);
    return 0;
}
