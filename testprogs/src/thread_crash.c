/*
 * thread_crash: one of four worker threads dereferences a NULL pointer
 * while the other three wait on a condition variable.
 *
 * Bug:        job 2 has no peer (jobs[2].peer = NULL, thread_crash.c:57),
 *             and compute() reads j->peer->acc for it.
 * Root cause: thread_crash.c:57
 * Crash:      thread_crash.c:28 (SIGSEGV in compute(), in worker 2's
 *             thread; the main thread and workers 0, 1 and 3 are blocked)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -pthread -o ../build/thread_crash thread_crash.c
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

struct job {
	int id;
	long acc;
	struct job *peer;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting;

static long compute(struct job *j) { return j->acc + j->peer->acc; /* CRASH */ }

static void *worker(void *arg)
{
	struct job *j = arg;
	pthread_mutex_lock(&mu);
	if (j->id != 2) {
		waiting++;
		pthread_cond_wait(&cv, &mu); /* never signalled */
		pthread_mutex_unlock(&mu);
		return NULL;
	}
	while (waiting < 3) { /* crash once the others are asleep */
		pthread_mutex_unlock(&mu);
		sched_yield();
		pthread_mutex_lock(&mu);
	}
	pthread_mutex_unlock(&mu);
	j->acc = compute(j);
	return NULL;
}

int main(void)
{
	pthread_t th[4];
	struct job jobs[4];
	for (int i = 0; i < 4; i++) {
		jobs[i].id = i;
		jobs[i].acc = i;
		jobs[i].peer = i == 2 ? NULL : &jobs[(i + 1) % 4]; /* BUG */
	}
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, &jobs[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("done\n");
	return 0;
}
