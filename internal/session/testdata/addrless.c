#include <stdio.h>
#define my_min(A, B) ({ __typeof__(A) __a = (A); __typeof__(B) __b = (B); __a < __b ? __a : __b; })
__attribute__((noinline)) int pick(unsigned e0, unsigned e1, unsigned e2, unsigned e3)
{
    int order;
    if (e0 <= my_min(my_min(e1, e2), e3))
        order = 0;
    else if (e1 <= my_min(e2, e3))
        order = 1;
    else if (e2 <= e3)
        order = 2;
    else
        order = 3;
    return order;
}
int main(void)
{
    printf("%d\n", pick(9, 8, 7, 6) + pick(1, 2, 3, 4));
    return 0;
}
