#include <stdio.h>
volatile int g_in = 3;
__attribute__((noinline)) int parse(const char *s, int n)
{
  int sum = 0;
  for (int i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      goto fail;
    sum = sum * 10 + (s[i] - '0');
  }
  if (sum > 1000)
    goto big;
  return sum;
big:
  return 1000;
fail:
  return -1;
}
int main(void) { printf("%d\n", parse("123", g_in)); return 0; }
