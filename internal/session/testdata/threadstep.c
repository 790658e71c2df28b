/* A next on a line without a call, with another thread the line waits
   for or that hits a breakpoint meanwhile: GDB runs the other threads
   while it steps (scheduler-locking off). */
#include <pthread.h>
#include <unistd.h>

volatile int done, go, stop, counter;
volatile long spin;

void hit(int i) { counter += i; }

void *sleeper(void *a)
{
	usleep(100000);
	done = 1;
	return 0;
}

void *worker(void *a)
{
	while (!go)
		;
	usleep(50000);
	for (int i = 0; i < 3; i++)
		hit(i);
	stop = 1;
	return 0;
}

int main(void)
{
	pthread_t t, u;
	pthread_create(&t, 0, sleeper, 0);
	while (!done) // LINE:spin
		;
	pthread_join(t, 0); // LINE:joined
	pthread_create(&u, 0, worker, 0);
	go = 1; // LINE:go
	while (!stop) spin++; // LINE:busy
	spin = 0;
	pthread_join(u, 0);
	return counter == 3 ? 0 : 1;
}
