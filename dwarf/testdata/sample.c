/* Test program for the dwarf package's line, function, unwinder and
   variable tests. Built by the tests at -O0 and -O2:
     gcc -g -O0 -o sample-O0 sample.c
     gcc -g -O2 -o sample-O2 sample.c
   Lines the tests refer to carry a LINE: marker comment. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int counter = 3;
static int file_static = 11;
__thread int tls_var = 7;
volatile int sink_total;

struct point {
	int x, y;
};

__attribute__((noinline)) void sink(int v)
{
	sink_total += v; /* LINE:sink */
}

__attribute__((noinline)) void stop_here(void)
{
	sink_total++; /* LINE:stop_here */
}

static inline void helper(int v)
{
	sink(v * 2); /* LINE:helper_call */
}

__attribute__((noinline)) int leaf(int depth, int *out)
{
	int local = depth * 3;
	{
		int inner = local + 1;
		*out = inner;
		stop_here(); /* LINE:leaf_call */
	}
	return local;
}

__attribute__((noinline)) int recurse(int n, int *out)
{
	static int calls;
	calls++;
	if (n == 0)
		return leaf(calls, out); /* LINE:recurse_leaf */
	return recurse(n - 1, out) + 1; /* LINE:recurse_self */
}

__attribute__((noinline)) void stop_in_handler(int sig)
{
	sink_total += sig; /* LINE:in_handler */
}

static void handler(int sig)
{
	stop_in_handler(sig); /* LINE:handler_call */
}

int main(int argc, char **argv)
{
	struct point p = {argc, 2};
	int out = 0;
	if (__builtin_expect(argc == 99, 0)) {
		puts(argv[0]);
		abort();
	}
	for (int i = 0; i < 2; i++) {
		int shadow = i + p.y;
		helper(shadow); /* LINE:main_helper */
	}
	int r = recurse(2, &out); /* LINE:main_recurse */
	signal(SIGUSR1, handler);
	raise(SIGUSR1); /* LINE:main_raise */
	tls_var += r + counter + file_static;
	printf("%d %d %d\n", r, out, tls_var);
	return 0;
}
