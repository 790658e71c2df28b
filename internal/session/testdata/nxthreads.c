#include <pthread.h>
#include <stdio.h>

/* Three threads call work() in a loop; a breakpoint on work whose
   condition holds in one thread only is hit, condition false, by the
   other two all the time, also while that one thread steps. */
struct arg {
	int index;
	long total;
};

static int work(struct arg *a, int v)
{
	int r = v * 3 + a->index;
	a->total += r;
	return r;
}

static void *worker(void *p)
{
	struct arg *a = p;
	for (int i = 0; i < 200000; i++)
		work(a, i);
	return NULL;
}

int main(void)
{
	pthread_t th[3];
	struct arg args[3] = {{0, 0}, {1, 0}, {2, 0}};
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, &args[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("%ld %ld %ld\n", args[0].total, args[1].total, args[2].total);
	return 0;
}
