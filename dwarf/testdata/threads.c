/* Threads for the unwinder test: a breakpoint in a thread function must
   unwind through start_thread to clone3 and stop there.
     gcc -g -O0 -pthread -o threads threads.c */
#include <pthread.h>
#include <stdio.h>

volatile int thread_total;

__attribute__((noinline)) void in_thread(int id)
{
	thread_total += id; /* LINE:in_thread */
}

static void *worker(void *arg)
{
	in_thread((int)(long)arg);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, (void *)7L);
	pthread_join(t, NULL);
	printf("%d\n", thread_total);
	return 0;
}
