static int helper(int a) { return a * 2; }
static int counter = 7;
int b_call(int v) { return helper(v) + counter; }
int (*b_fn(void))(int) { return helper; }
