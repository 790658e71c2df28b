/*
 * uninit: read of an uninitialized local.
 *
 * Bug:        total() never initializes `sum`, so it starts from whatever
 *             the previous call (scratch()) left in that stack slot.
 * Root cause: uninit.c:23
 * Symptom:    prints "wrong total" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/uninit uninit.c
 */
#include <stdio.h>

static int scratch(int seed)
{
	volatile int junk[8];
	for (int i = 0; i < 8; i++)
		junk[i] = seed * 1000 + i;
	return junk[seed % 8];
}

static int total(const int *v, int n)
{
	int sum; /* BUG: should be int sum = 0; */
	for (int i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

int main(void)
{
	int values[] = {1, 2, 3, 4};
	scratch(7);
	int t = total(values, 4);
	if (t != 10) {
		fprintf(stderr, "wrong total: %d (want 10)\n", t);
		return 1;
	}
	printf("total: %d\n", t);
	return 0;
}
