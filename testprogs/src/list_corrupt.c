/*
 * list_corrupt: linked list corrupted by an earlier bad removal.
 *
 * Bug:        list_remove() assigns to its local `prev` instead of
 *             `prev->next`, so the list still points at the freed node. The
 *             chunk is reused for a log line and its `next` field becomes text.
 * Root cause: list_corrupt.c:40
 * Crash:      list_corrupt.c:61 (SIGSEGV evaluating n->next->name)
 * Symptom:    killed by SIGSEGV
 * Build (in testprogs/src):
 *             gcc -O0 -g -o ../build/list_corrupt list_corrupt.c
 *             gcc -O2 -g -o ../build/list_corrupt-O2 list_corrupt.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	char name[16];
	int id;
	struct node *next;
};

static struct node *push(struct node *head, int id, const char *name)
{
	struct node *n = calloc(1, sizeof *n);
	n->id = id;
	snprintf(n->name, sizeof n->name, "%s", name);
	n->next = head;
	return n;
}

static void list_remove(struct node **head, int id)
{
	struct node *prev = NULL;
	for (struct node *n = *head; n != NULL; prev = n, n = n->next) {
		if (n->id != id)
			continue;
		if (prev != NULL)
			prev = n->next; /* BUG: should be prev->next = n->next */
		else
			*head = n->next;
		free(n);
		return;
	}
}

static char *log_line(const char *text)
{
	char *line = malloc(sizeof(struct node)); /* reuses the freed node */
	memset(line, ' ', sizeof(struct node) - 1);
	line[sizeof(struct node) - 1] = '\0';
	memcpy(line, text, strlen(text));
	return line;
}

static int count_duplicates(const struct node *n)
{
	int dups = 0;
	for (; n->next != NULL; n = n->next)
		if (n->name[0] == n->next->name[0] && /* CRASH */
		    strcmp(n->name, n->next->name) == 0)
			dups++;
	return dups;
}

int main(void)
{
	struct node *head = NULL;
	head = push(head, 4, "dave");
	head = push(head, 3, "carol");
	head = push(head, 2, "bob");
	head = push(head, 1, "alice");
	list_remove(&head, 3);
	char *line = log_line("removed carol");
	fprintf(stderr, "log: %s|\n", line);
	printf("duplicates: %d\n", count_duplicates(head));
	free(line);
	return 0;
}
