/* The query-throughput program (bench/cmd/rrbench, issue 14):
 * update(int i, long v) is called CALLS times (default 100,000); collect
 * its two arguments at each call, then break at done().
 *
 * Built with -DFAST (and -no-pie: the in-process agent's jump pads lie
 * below 2 GiB) for the fast-tracepoint row: update then calls another
 * function, so it keeps no locals in the red zone below the stack
 * pointer, which the jump pad pushes over. Its first instruction (a
 * 4-byte load of v from the stack) is shorter than the pad's 5-byte
 * jump, as at most -O0 statements: the next one moves into the pad with
 * it (GDB refuses a fast tracepoint there). total ends the same in both
 * builds.
 */
#include <stdlib.h>

volatile long total;

#ifdef FAST
__attribute__((noinline)) long twice(long v)
{
	return 2 * v;
}
#endif

__attribute__((noinline)) void update(int i, long v)
{
#ifdef FAST
	total += twice(v) - v - i;
#else
	total += v - i;
#endif
}

__attribute__((noinline)) void done(void)
{
	total++;
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 100000;
	for (int i = 0; i < calls; i++)
		update(i, (long)i * 7 + 3);
	done();
	return 0;
}
