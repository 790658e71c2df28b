/* The benchmark's cost-curve program (bench/cmd/rrbench, issue 14).
 *
 *   curve DEPTH THREADS CALLS
 *
 * starts THREADS-1 threads that block for good, then CALLS times recurses
 * DEPTH frames deep through chain() to bottom(): break at bottom() to time
 * a backtrace against depth, or a continue against the number of threads.
 * spare_000 .. spare_999 are never called: they carry the extra
 * breakpoints of the breakpoint-count curve.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

volatile int sink;

#define S(n) __attribute__((noinline, used)) void spare_##n(int x) { sink += x; }
#define S10(n) S(n##0) S(n##1) S(n##2) S(n##3) S(n##4) S(n##5) S(n##6) S(n##7) S(n##8) S(n##9)
#define S100(n) S10(n##0) S10(n##1) S10(n##2) S10(n##3) S10(n##4) S10(n##5) S10(n##6) S10(n##7) S10(n##8) S10(n##9)
S100(0) S100(1) S100(2) S100(3) S100(4) S100(5) S100(6) S100(7) S100(8) S100(9)

__attribute__((noinline)) int bottom(int depth)
{
	sink += depth;
	return depth;
}

__attribute__((noinline)) int chain(int depth)
{
	if (depth <= 1)
		return bottom(depth);
	return chain(depth - 1) + 1;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 10;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	int calls = argc > 3 ? atoi(argv[3]) : 1000;
	for (int i = 1; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, idle, NULL);
	}
	for (int i = 0; i < calls; i++)
		sink += chain(depth);
	_exit(0);
}
