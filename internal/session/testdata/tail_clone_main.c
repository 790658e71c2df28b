/* main of tail_clone.c (TestTailCallClone). */
#include <stdio.h>
int work(const int *p, int n);
int work_twice(const int *p, int n);
int main(int argc, char **argv) {
    int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int r = work(a, argc + 7);
    r += work_twice(a, argc + 6);
    printf("%d\n", r);
    return 0;
}
