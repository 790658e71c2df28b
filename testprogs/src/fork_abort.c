/*
 * fork_abort: a forked child (no exec) aborts.
 *
 * Bug:        the parent hands the child a job with count 0; the child's
 *             sanity check calls abort().
 * Root cause: fork_abort.c:36
 * Crash:      fork_abort.c:26 (SIGABRT in the child, in run_job())
 * Symptom:    prints "child killed by signal 6" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/fork_abort fork_abort.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct job {
	const char *name;
	int count;
};

static int run_job(const struct job *j)
{
	if (j->count <= 0) {
		fprintf(stderr, "job %s: bad count %d\n", j->name, j->count);
		abort(); /* CRASH */
	}
	int done = 0;
	for (int i = 0; i < j->count; i++)
		done++;
	return done;
}

int main(void)
{
	struct job jobs[] = {{"compress", 3}, {"upload", 0}}; /* BUG: upload's count must be > 0 */
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0)
			_exit(run_job(&jobs[i]) == jobs[i].count ? 0 : 1);
		int status;
		waitpid(pid, &status, 0);
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "child killed by signal %d\n", WTERMSIG(status));
			return 1;
		}
	}
	printf("all jobs done\n");
	return 0;
}
