/*
 * libbuggy: shared library used by shlib_crash; it crashes inside.
 *
 * Bug:        config_get() returns NULL for a key it does not know, and
 *             config_get_int() passes that straight to parse_int().
 * Root cause: libbuggy.c:45
 * Crash:      libbuggy.c:29 (SIGSEGV in parse_int(), inside libbuggy.so)
 * Build (in testprogs/src):
 *             gcc -O0 -g -fPIC -shared -o ../build/libbuggy.so libbuggy.c
 */
#include <stddef.h>
#include <string.h>

#include "libbuggy.h"

struct entry {
	const char *key;
	const char *value;
};

static const struct entry config[] = {
	{"port", "8080"},
	{"workers", "4"},
};

static int parse_int(const char *s)
{
	int v = 0;
	for (; *s >= '0' && *s <= '9'; s++) /* CRASH */
		v = v * 10 + (*s - '0');
	return v;
}

const char *config_get(const char *key)
{
	for (size_t i = 0; i < sizeof config / sizeof config[0]; i++)
		if (strcmp(config[i].key, key) == 0)
			return config[i].value;
	return NULL;
}

int config_get_int(const char *key)
{
	const char *v = config_get(key);
	return parse_int(v); /* BUG: no NULL check for unknown keys */
}
