/*
 * use_after_free: heap use-after-free.
 *
 * Bug:        close_account() frees the account, but main keeps using it.
 *             The freed chunk is handed out again for the audit message, so
 *             acct->owner now holds text bytes.
 * Root cause: use_after_free.c:62
 * Crash:      use_after_free.c:55 (SIGSEGV reading acct->owner->name)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/use_after_free use_after_free.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct owner {
	char name[16];
};

struct account {
	struct owner *owner;
	long balance;
	char id[16];
};

static struct owner the_owner = {"alice"};

static struct account *open_account(long balance)
{
	struct account *a = malloc(sizeof *a);
	a->owner = &the_owner;
	a->balance = balance;
	strcpy(a->id, "ACC-0001");
	return a;
}

static void close_account(struct account *a)
{
	printf("closing %s (%ld)\n", a->id, a->balance);
	free(a);
}

static char *audit_message(const char *what)
{
	char *msg = malloc(sizeof(struct account)); /* reuses the freed chunk */
	memset(msg, ' ', sizeof(struct account) - 1);
	msg[sizeof(struct account) - 1] = '\0';
	memcpy(msg, what, strlen(what));
	return msg;
}

static void print_owner(const struct account *a)
{
	char initial = a->owner->name[0]; /* CRASH */
	printf("owner: %s (%c)\n", a->owner->name, initial);
}

int main(void)
{
	struct account *acct = open_account(100);
	close_account(acct); /* BUG: acct is still used below */
	char *msg = audit_message("account closed..");
	fprintf(stderr, "audit: %s|\n", msg);
	print_owner(acct);
	free(msg);
	return 0;
}
