/* Test target for the relay: a 4-deep call chain that stops in stop_here()
   with a local in each frame. Built by the test with
   gcc -g -O0 -no-pie -fno-omit-frame-pointer -o chain chain.c
   Its exit status is the sum of the locals, so a write GDB managed to make
   would show in it. */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) void stop_here(int v) { sink = v; }

__attribute__((noinline)) int leaf(int n) {
	int local = n * 10 + 2;
	stop_here(local);
	return local;
}

__attribute__((noinline)) int chain(int n) {
	if (n == 0)
		return leaf(4);
	return chain(n - 1) + 1;
}

int main(void) {
	int r = chain(3);
	printf("r=%d\n", r);
	return r;
}
