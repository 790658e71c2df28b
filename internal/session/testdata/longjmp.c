/* next over a call that never returns: thrower ends with longjmp, so the
   return address of its call is the first byte of after, which main
   calls later from the same stack depth (the same stack pointer). */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf jb;
static int count;

static void thrower(int code)
{
	count++;
	longjmp(jb, code); /* longjmp */
}

static int after(int x)
{
	return x * 2;
}

int main(void)
{
	int r = setjmp(jb);
	if (r == 0)
		thrower(7);
	printf("r=%d\n", r);
	return after(r) - 14;
}
