#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Forks a child that sleeps a minute (the debugger does not follow it),
   writes the child's pid to argv[1], and exits at once. */
int main(int argc, char **argv)
{
	pid_t p = fork();
	if (p == 0) {
		sleep(60);
		return 0;
	}
	FILE *f = fopen(argv[1], "w");
	if (f == NULL)
		return 1;
	fprintf(f, "%d\n", (int)p);
	fclose(f);
	return 0;
}
