#include "opaque.h"

Obj *current; /* declared type only: struct Obj is defined in obj.c */

int main(void) {
	current = obj_new(7, "seven");
	return obj_id(current) == 7 ? 0 : 1;
}
