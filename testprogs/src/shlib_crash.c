/*
 * shlib_crash: main calls into libbuggy.so, which crashes.
 *
 * Bug:        main asks for the key "timeout", which the library does not
 *             have; libbuggy's config_get_int() does not handle that
 *             (see libbuggy.c).
 * Root cause: libbuggy.c:45
 * Crash:      libbuggy.c:29 (SIGSEGV in parse_int() inside libbuggy.so)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -fPIC -shared -o ../build/libbuggy.so libbuggy.c
 *             gcc -O0 -g -o ../build/shlib_crash shlib_crash.c -L../build -lbuggy -Wl,-rpath,'$ORIGIN'
 */
#include <stdio.h>

#include "libbuggy.h"

int main(void)
{
	int port = config_get_int("port");
	int workers = config_get_int("workers");
	int timeout = config_get_int("timeout");
	printf("port %d, workers %d, timeout %d\n", port, workers, timeout);
	return 0;
}
