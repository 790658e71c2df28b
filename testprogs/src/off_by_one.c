/*
 * off_by_one: off-by-one write into an adjacent struct field.
 *
 * Bug:        fill() loops with `<=`, writing samples[4] one past the end of
 *             the array, which lands on the next field, `checksum`.
 * Root cause: off_by_one.c:31
 * Symptom:    prints "checksum mismatch" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/off_by_one off_by_one.c
 */
#include <stdio.h>

#define NSAMPLES 4

struct block {
	int samples[NSAMPLES];
	int checksum;
	int flags;
};

static int sum(const struct block *b)
{
	int s = 0;
	for (int i = 0; i < NSAMPLES; i++)
		s += b->samples[i];
	return s;
}

static void fill(struct block *b, int base)
{
	for (int i = 0; i <= NSAMPLES; i++) /* BUG: should be i < NSAMPLES */
		b->samples[i] = base + i;
}

int main(void)
{
	struct block b = {.flags = 1};
	b.checksum = 10 + 11 + 12 + 13;
	fill(&b, 10);
	if (sum(&b) != b.checksum) {
		fprintf(stderr, "checksum mismatch: sum %d, checksum %d\n", sum(&b), b.checksum);
		return 1;
	}
	printf("ok\n");
	return 0;
}
