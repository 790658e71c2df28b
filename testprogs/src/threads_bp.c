/*
 * threads_bp: eight threads run through one function at the same moment.
 *
 * - NTHREADS threads meet at a barrier, then each calls tick() ROUNDS
 *   times (round 0 to ROUNDS-1: each call has its own (id, round)), so
 *   a breakpoint on tick() is hit by several threads at once
 *   (tests of stops nobody asked for when a breakpoint is removed while
 *   other threads' hits are still pending).
 * Root cause: none (exits 0)
 * Symptom:    prints "ticks 400" and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -pthread -o ../build/threads_bp threads_bp.c
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8
#define ROUNDS 50

static pthread_barrier_t start;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ticks;

static void tick(int id, int round)
{
	pthread_mutex_lock(&lock);
	ticks += id >= 0 && round >= 0;
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++)
		tick(id, i);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("ticks %d\n", ticks);
	return 0;
}
