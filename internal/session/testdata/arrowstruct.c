struct ref { struct ref *next; const char *url; int age; };
struct ref r2 = { 0, "/path", 1 };
struct ref r1 = { &r2, "http://x", 0 };
static int sink;
int use(struct ref *r) { sink += r->age; return sink; }
int main(void) { struct ref loc = r1; return use(&loc); }
