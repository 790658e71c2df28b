/*
 * fork_exec: forks; the child execs crash_child, which segfaults.
 *
 * Bug:        the child is started without the "--name" argument that
 *             crash_child needs (see crash_child.c for where it crashes).
 * Root cause: fork_exec.c:40
 * Symptom:    prints "child killed by signal 11" and exits with status 1
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/fork_exec fork_exec.c
 *             (expects build/crash_child next to it)
 */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		n = 0;
	self[n] = '\0';
	snprintf(buf, len, "%s/crash_child", dirname(self));
}

int main(void)
{
	char path[PATH_MAX + 16];
	child_path(path, sizeof path);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		char *argv[] = {path, NULL}; /* BUG: forgot "--name", "world" */
		execv(path, argv);
		perror("execv");
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "child killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	printf("child exited with %d\n", WEXITSTATUS(status));
	return 0;
}
