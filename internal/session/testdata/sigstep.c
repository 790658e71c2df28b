#include <signal.h>
#include <stdio.h>
static volatile int hits;
static void on_usr1(int sig)
{
    hits += sig;
}
int main(void)
{
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    hits++;
    raise(SIGUSR1);
    hits++;
    printf("%d\n", hits);
    return 0;
}
