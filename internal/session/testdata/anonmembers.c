struct grid {
    int id;
    struct { const char *name; int v[2]; } items[2];
    union { int i; float f; } u[3];
    struct { int a; } *ptr;
    struct { int b; } one;
};
struct grid g = { 7 };
typedef struct { short s; } anon_t;
anon_t arr[2];
int main(void) { return g.id + arr[0].s - 7; }
