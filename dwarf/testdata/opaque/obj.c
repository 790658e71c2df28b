#include "opaque.h"
#include <string.h>

struct Obj {
	int id;
	char name[12];
	struct Obj *next;
};

static Obj pool[2];

Obj *obj_new(int id, const char *name) {
	Obj *o = &pool[id & 1];
	o->id = id;
	strncpy(o->name, name, sizeof o->name - 1);
	return o;
}

int obj_id(const Obj *o) { return o->id; }
