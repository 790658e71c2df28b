/*
 * signal_storm: a breakpoint's thread keeps receiving a signal.
 *
 * - a second thread sends SIGURG to the main thread without pause while
 *   main calls tick(i) for i = 0 .. ROUNDS-1, so a signal is pending at
 *   almost every moment, also while a debugger steps the main thread
 *   over a breakpoint on tick() (tests that each continue reports the
 *   next call of tick(), never the same one twice).
 * Root cause: none (exits 0)
 * Symptom:    prints "ticks 300" and exits with status 0
 * Build (in testprogs/src):
 *             gcc -O0 -g -pthread -o ../build/signal_storm signal_storm.c
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 300

static volatile sig_atomic_t urgs;
static volatile int done;
static pid_t main_tid;
static int ticks;

static void on_urg(int sig)
{
	(void)sig;
	urgs++;
}

__attribute__((noinline)) static void tick(int i)
{
	ticks += i >= 0;
}

static void *storm(void *arg)
{
	(void)arg;
	while (!done)
		syscall(SYS_tgkill, getpid(), main_tid, SIGURG);
	return NULL;
}

int main(void)
{
	pthread_t t;

	signal(SIGURG, on_urg);
	main_tid = (pid_t)syscall(SYS_gettid);
	pthread_create(&t, NULL, storm, NULL);
	for (int i = 0; i < ROUNDS; i++)
		tick(i);
	done = 1;
	pthread_join(t, NULL);
	printf("ticks %d\n", ticks);
	return 0;
}
