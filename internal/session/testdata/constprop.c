typedef void (*visit_fn)(int *p, int depth, void *ud);
static long g_sum;
int g_limit = 3;

__attribute__((noinline)) static void add_one(int *p, int depth, void *ud)
{
  *(long *)ud += *p + depth;
}

__attribute__((noinline)) static int walk(int *p, int depth, visit_fn fn, void *ud)
{
  int n = 1;
  fn(p, depth, ud);
  if (depth < g_limit)
    n += walk(p + 1, depth + 1, fn, ud);
  return n;
}

int main(void)
{
  int a[4] = {1, 2, 3, 4};
  int n = walk(a, 0, add_one, &g_sum); // LINE:use
  return n + (int)g_sum == 0;
}
