/*
 * deadlock: two threads take two mutexes in opposite order.
 *
 * Bug:        transfer_ab() locks a then b; transfer_ba() locks b then a.
 *             The barrier makes both threads hold their first lock before
 *             either asks for its second, so the program always hangs.
 * Root cause: deadlock.c:36
 * Symptom:    hangs forever (both threads blocked in pthread_mutex_lock)
 * Build (in testprogs/src):
 *             gcc -O0 -g -pthread -o ../build/deadlock deadlock.c
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_locked;
static long balance_a = 100, balance_b = 100;

static void *transfer_ab(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&both_locked);
	pthread_mutex_lock(&b);
	balance_a -= 10;
	balance_b += 10;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return NULL;
}

static void *transfer_ba(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&b); /* BUG: opposite lock order to transfer_ab */
	pthread_barrier_wait(&both_locked);
	pthread_mutex_lock(&a);
	balance_b -= 5;
	balance_a += 5;
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_barrier_init(&both_locked, NULL, 2);
	pthread_create(&t1, NULL, transfer_ab, NULL);
	pthread_create(&t2, NULL, transfer_ba, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("a = %ld, b = %ld\n", balance_a, balance_b);
	return 0;
}
