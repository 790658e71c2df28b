/*
 * null_deref: NULL pointer dereference three calls deep.
 *
 * Bug:        nusers is 2 but the table has 3 users, so lookup("carol")
 *             finds nothing and passes NULL on to use().
 * Root cause: null_deref.c:26
 * Crash:      null_deref.c:30 (SIGSEGV in use(); main -> process -> lookup -> use)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/null_deref null_deref.c
 *             gcc -O2 -g -o ../build/null_deref-O2 null_deref.c
 */
#include <stdio.h>
#include <string.h>

struct user {
	const char *name;
	int age;
};

static const struct user users[] = {
	{"alice", 31},
	{"bob", 42},
	{"carol", 27},
};
static const size_t nusers = 2; /* BUG: should be 3; "carol" is never found */

static int use(const struct user *u)
{
	return u->age * 2; /* CRASH */
}

static int lookup(const char *name)
{
	const struct user *u = NULL;
	for (size_t i = 0; i < nusers; i++)
		if (strcmp(users[i].name, name) == 0)
			u = &users[i];
	return use(u);
}

static int process(const char **names, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += lookup(names[i]);
	return total;
}

int main(void)
{
	const char *names[] = {"alice", "bob", "carol"};
	int total = process(names, 3);
	printf("total = %d\n", total);
	return 0;
}
