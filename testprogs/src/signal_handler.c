/*
 * signal_handler: a SIGUSR1 handler crashes.
 *
 * Bug:        main installs the SIGUSR1 handler before it sets up `logger`;
 *             the signal arrives first and the handler writes through the
 *             NULL logger. The backtrace runs through the signal frame:
 *             log_event <- on_usr1 <- <signal handler called> <- raise <- main.
 * Root cause: signal_handler.c:42
 * Crash:      signal_handler.c:28 (SIGSEGV in log_event(), called from the handler)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/signal_handler signal_handler.c
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct log {
	int events;
	int last_signal;
};

static struct log the_log;
static struct log *volatile logger;

static void log_event(int sig)
{
	logger->events++; /* CRASH */
	logger->last_signal = sig;
}

static void on_usr1(int sig)
{
	log_event(sig);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL); /* BUG: handler installed before logger is set */
	raise(SIGUSR1);
	logger = &the_log;
	raise(SIGUSR1);
	printf("events: %d\n", the_log.events);
	return 0;
}
