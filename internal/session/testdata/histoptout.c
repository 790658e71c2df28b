#include <stdio.h>

/* gcc -O2: a and b are dead at the printf (b has only an entry value the
   caller's site cannot give back). */
__attribute__((noinline)) static int work(int a, int b)
{
	int c = a * 3;
	printf("%d\n", c); // LINE:use
	return c + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return work(argc + 4, argc) > 100;
}
