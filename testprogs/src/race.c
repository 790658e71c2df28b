/*
 * race: two threads race on a shared counter without a lock.
 *
 * Bug:        bump() does a read-modify-write of `counter` with no mutex;
 *             the sched_yield() between the read and the write makes the
 *             threads interleave there, so updates are lost.
 * Root cause: race.c:24
 * Symptom:    prints "lost updates" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -pthread -o ../build/race race.c
 *             gcc -O2 -g -pthread -o ../build/race-O2 race.c
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define ITERATIONS 5000

static volatile long counter;
static pthread_barrier_t start;

static void bump(void)
{
	long v = counter; /* BUG: unsynchronized read-modify-write of counter */
	sched_yield();
	counter = v + 1;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ITERATIONS; i++)
		bump();
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&t1, NULL, worker, NULL);
	pthread_create(&t2, NULL, worker, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (counter != 2 * ITERATIONS) {
		fprintf(stderr, "lost updates: counter = %ld, want %d\n", counter, 2 * ITERATIONS);
		return 1;
	}
	printf("counter = %ld\n", counter);
	return 0;
}
