/* main.c is built with -g; nodbg.c without, so its globals and functions are only ELF symbols. */
#include <stdio.h>
extern int bump(int);
/* declared here, defined in nodbg.c: GDB finds them by their ELF symbols
 * (LOC_UNRESOLVED), typed by these declarations, as it finds stdout */
extern long nodebug_declared;
extern int (*nodebug_fp)(int);
int twice(int n)
{
	/* an assembler's label: an untyped, unsized code symbol inside a
	 * function with debug information */
	__asm__ volatile(".globl mid_twice\nmid_twice:\n\tnop");
	return 2 * n;
}
int main(void)
{
	fflush(stdout);
	return bump(twice(1) - 1) + (int)nodebug_declared - 77 + (nodebug_fp ? 0 : 1) == 43 ? 0 : 1;
}
