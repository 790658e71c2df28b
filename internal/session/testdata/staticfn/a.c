/* Each unit has its own static helper and counter (b.c too). */
static int helper(int x) { return x + 1; }
static int counter = 100;
int (*get_a(void))(int) { counter++; return helper; }
