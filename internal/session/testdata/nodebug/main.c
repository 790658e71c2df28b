/* main.c is built with -g; nodbg.c without, so its globals and functions are only ELF symbols. */
extern int bump(int);
int twice(int n)
{
	/* an assembler's label: an untyped, unsized code symbol inside a
	 * function with debug information */
	__asm__ volatile(".globl mid_twice\nmid_twice:\n\tnop");
	return 2 * n;
}
int main(void) { return bump(twice(1) - 1) == 43 ? 0 : 1; }
