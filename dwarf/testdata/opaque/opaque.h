/* An opaque type: other compile units see only this declaration. */
typedef struct Obj Obj;
Obj *obj_new(int id, const char *name);
int obj_id(const Obj *o);
