#include <stddef.h>
int crash_here(int *p, int v);
int main(void)
{
    int a[4];
    crash_here(a, 1);
    return crash_here(NULL, 2);
}
