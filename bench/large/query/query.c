/* The query-throughput program (bench/cmd/rrbench, issue 14):
 * update(int i, long v) is called CALLS times (default 100,000); collect
 * its two arguments at each call, then break at done().
 */
#include <stdlib.h>

volatile long total;

__attribute__((noinline)) void update(int i, long v)
{
	total += v - i;
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
