#include <stdio.h>
#include <string.h>
volatile int g_n = 5;
int g_arr[8] = {0, 3};
__attribute__((noinline)) int work(int len, int *p)
{
  int n = len * 7 + *p;
  int vla[n];
  for (int i = 0; i < n; i++) vla[i] = i * len;
  printf("%d\n", vla[n - 1]);
  int m = *p + 1;
  unsigned char masks[m];
  memset(masks, len, m);
  int s = masks[0] + masks[m - 1];
  printf("%d\n", s);
  int after = *p * 2;
  return after + s;
}
int main(void) { int k = g_n; return work(k, &g_arr[1]) == 0; }
