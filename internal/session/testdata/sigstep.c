#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile int hits;
static void on_usr1(int sig)
{
    hits += sig;
}
/* the signal comes from this function's own instruction (no libc frame
   to step through, whose lines depend on libc's debug information) */
static void send_usr1(void)
{
    long pid = getpid();
    __asm__ volatile("syscall" : : "a"(62L), "D"(pid), "S"((long)SIGUSR1) : "rcx", "r11", "memory");
    hits++;
}
int main(void)
{
    signal(SIGUSR1, on_usr1);
    send_usr1();
    hits++;
    send_usr1();
    hits++;
    printf("%d\n", hits);
    return 0;
}
