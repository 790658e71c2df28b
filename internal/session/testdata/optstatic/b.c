int counter;
static int limit = 50;
__attribute__((noinline)) int b_bump(int v) { counter += v; limit++; return counter + limit - 51 + 100 - 4 ; }
