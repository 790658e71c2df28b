/*
 * A small driver for the sqlite3 amalgamation: the large C binary of the
 * benchmarks ("cold start to first stop") and of the DWARF load benchmark.
 * It opens an in-memory database, runs a few statements, and calls
 * bench_stop() once the query has produced its rows: break there.
 *
 * Build (in bench/large, see Makefile): gcc -O2 -g -c sqlite3-binding.c from
 * github.com/mattn/go-sqlite3, then gcc -O2 -g sqlite/main.c sqlite3-binding.o
 * -lm -lpthread -ldl -o build/sqlite3
 */
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3-binding.h"

struct result {
	int rows;
	long long total;
	char last[64];
};

__attribute__((noinline)) void bench_stop(const struct result *r)
{
	__asm__ volatile("" : : "r"(r) : "memory");
}

static int on_row(void *arg, int ncol, char **vals, char **names)
{
	struct result *r = arg;
	(void)names;
	r->rows++;
	if (ncol >= 2 && vals[0] != NULL && vals[1] != NULL) {
		r->total += atoll(vals[0]);
		snprintf(r->last, sizeof r->last, "%s", vals[1]);
	}
	return 0;
}

static int exec(sqlite3 *db, const char *sql, struct result *r)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, r != NULL ? on_row : NULL, r, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s: %s\n", sql, err);
		sqlite3_free(err);
		return 1;
	}
	return 0;
}

int main(void)
{
	sqlite3 *db;
	struct result r = {0};
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		fprintf(stderr, "sqlite: open failed\n");
		return 1;
	}
	int bad = exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);", NULL);
	bad |= exec(db,
		    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) "
		    "INSERT INTO t(id, name, score) SELECT x, 'name-' || x, x * 0.5 FROM c;",
		    NULL);
	bad |= exec(db, "CREATE INDEX t_name ON t(name);", NULL);
	bad |= exec(db, "SELECT id, name FROM t WHERE score > 250 ORDER BY name DESC LIMIT 10;", &r);
	bench_stop(&r);
	printf("sqlite %s: %d rows, total %lld, last %s\n", sqlite3_libversion(), r.rows, r.total, r.last);
	sqlite3_close(db);
	return bad;
}
