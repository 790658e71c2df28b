/*
 * bad_arg: one call among many gets a wrong argument.
 *
 * Bug:        main() passes price() the index id % 7, except for order 13,
 *             where it passes -1: the 14th call of price() (idx == -1,
 *             qty == 2) gets a wrong argument and returns -1000.
 * Root cause: bad_arg.c:32
 * Symptom:    prints "wrong total 330 (want 1470)" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/bad_arg bad_arg.c
 */
#include <stdio.h>

static const int prices[7] = {10, 20, 30, 40, 50, 60, 70};

__attribute__((noinline)) int price(int idx, int qty)
{
	if (idx < 0 || idx >= 7)
		return -1000;
	return prices[idx] * qty;
}

int main(void)
{
	int total = 0;
	int idx = 0;
	for (int id = 0; id < 20; id++) {
		int qty = 1 + id % 3;
		if (id != 13)
			idx = id % 7;
		else
			idx = -1; /* BUG: the stale/invalid index reaches price() */
		total += price(idx, qty);
	}
	if (total != 1470) {
		printf("wrong total %d (want 1470)\n", total);
		return 1;
	}
	printf("total %d\n", total);
	return 0;
}
