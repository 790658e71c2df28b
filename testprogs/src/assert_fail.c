/*
 * assert_fail: an assert() fails.
 *
 * Bug:        average() is called with an empty range because main passes
 *             the count of the wrong array (`empty` instead of `readings`).
 * Root cause: assert_fail.c:29
 * Crash:      assert_fail.c:17 (assertion `n > 0' failed, SIGABRT)
 * Symptom:    killed by SIGABRT
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/assert_fail assert_fail.c
 */
#include <assert.h>
#include <stdio.h>

static double average(const int *v, int n)
{
	assert(n > 0); /* CRASH */
	long s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return (double)s / n;
}

int main(void)
{
	int readings[] = {12, 15, 11, 14};
	int nreadings = 4;
	int nempty = 0;
	double avg = average(readings, nempty); /* BUG: should pass nreadings */
	printf("average of %d readings: %.2f\n", nreadings, avg);
	return 0;
}
