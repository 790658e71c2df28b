/* Crashes for the unwinder test: a call through a null function pointer
   (pc 0: the return address is on top of the stack) and a null pointer
   store (a fault in a frame with CFI).
     gcc -g -O0 -o crash crash.c ; ./crash call | ./crash store */
#include <string.h>

void (*volatile fp)(int);
volatile int *volatile ip;

__attribute__((noinline)) void do_call(int v)
{
	fp(v); /* LINE:do_call */
}

__attribute__((noinline)) void do_store(int v)
{
	*ip = v; /* LINE:do_store */
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "call") == 0)
		do_call(argc);
	else
		do_store(argc);
	return 0;
}
