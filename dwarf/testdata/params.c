/* A parameter dropped by interprocedural constant propagation: at -O2
   gcc makes use.constprop.0 and describes unused_k with
   DW_OP_GNU_parameter_ref to the caller's call-site value.
     gcc -g -O2 -o params params.c */
#include <stdio.h>

volatile int sinkv;

__attribute__((noinline)) void stop_pr(void)
{
	sinkv++;
}

struct big {
	int a, b, c, d;
};

static __attribute__((noinline)) int use(struct big *p, int unused_k, int k)
{
	stop_pr();
	return p->a + k;
}

int main(int argc, char **argv)
{
	struct big b = {argc, 2, 3, 4};
	int r = use(&b, 5, argc * 3);
	r += use(&b, 6, argc * 4);
	printf("%d %s\n", r, argv[0]);
	return 0;
}
