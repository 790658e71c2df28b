#include <stdio.h>
int main(void)
{
    enum { W = 24, H = 16 };
    enum color { RED = 1, GREEN = 2 } c = GREEN;
    int area = W * H;
    {
        enum { INNER = 7 };
        area += INNER;
        printf("%d %d\n", area, c); // LINE:use
    }
    return 0;
}
