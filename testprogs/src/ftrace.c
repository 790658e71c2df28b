/*
 * ftrace: for rr_query kind calls by a fast tracepoint (gdbserver's
 * in-process agent, rr_live_start in_process_agent). tick() is called
 * 3,000 times; its first statement updates a global, whose first
 * instruction (mov ticks(%rip),%eax: 6 bytes, RIP-relative) takes the
 * 5-byte jump of a fast tracepoint. tock() starts with a 3-byte load of
 * its argument from the stack, too short for the jump alone: the next
 * instruction (3 bytes) moves into the jump pad with it. spin() starts
 * with its loop's 2-byte jump to the condition, and the loop comes back
 * 2 bytes in: nothing there can move, and the query falls back to a trap
 * tracepoint.
 * Built -no-pie: the agent's jump pads lie below 2 GiB, within a rel32
 * jump of a program linked there, never of a PIE (0x5555...).
 * Root cause: none (exits 0)
 * Symptom:    prints the totals and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -no-pie -o ../build/ftrace ftrace.c
 */
#include <stdio.h>

#define CALLS 3000

struct pt {
	int x, y;
};

int ticks;
long sum;
int spins;
struct pt pts[3] = {{1, 2}, {3, 4}, {5, 6}};

__attribute__((noinline)) long square(long v)
{
	return v * v;
}

__attribute__((noinline)) void tick(int i, long v, struct pt *p)
{
	ticks++;
	sum += v + p->x * p->y + i + square(i & 7);
}

__attribute__((noinline)) void tock(int i)
{
	int j = i;
	sum -= j + square(j & 3);
}

__attribute__((noinline)) void spin(int n)
{
	while (n-- > 0)
		spins += (int)square(n);
}

int main(void)
{
	for (int i = 0; i < CALLS; i++) {
		pts[i % 3].x += i;
		tick(i, (long)i * 7919L, &pts[i % 3]);
		if (i % 100 == 0)
			tock(i);
		if (i % 300 == 0)
			spin(2);
	}
	printf("ticks %d sum %ld\n", ticks, sum);
	return 0;
}
