int arr[4] = {10, 20, 30, 40};
struct box { int n; double v[3]; } g_box = {3, {0.5, 1.5, 2.5}};
static int sink;
int use(int *p, struct box *b) { sink += p[1] + b->n; return sink; }
int main(void) { struct box loc = g_box; return use(arr, &loc); }
