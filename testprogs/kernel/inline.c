/*
 * inline.c: the -O2 variant of the QEMU test kernel (kernel-inline.elf),
 * whose helpers gcc inlines, for reverse stepping through inlined calls.
 */

#define COM1 0x3f8
#define INLINE static inline __attribute__((always_inline))

volatile int counter;
volatile int seen[8];

static inline void outb(unsigned short port, unsigned char v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline unsigned char inb(unsigned short port)
{
	unsigned char v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void serial_puts(const char *s)
{
	while (*s) {
		while ((inb(COM1 + 5) & 0x20) == 0)
			;
		outb(COM1, (unsigned char)*s++);
	}
}

INLINE int twice(int v)
{
	int t = v + v;
	seen[v & 7] = t;
	return t;
}

INLINE int scale(int v, int k)
{
	int r = twice(v);
	r = r * k;
	counter += r;
	return r;
}

INLINE void note(int v)
{
	seen[(v >> 1) & 7] += v;
	counter ^= v;
}

__attribute__((noinline)) int work(int n)
{
	int sum = 0;
	for (int i = 1; i <= n; i++) {
		sum += scale(i, 3);
		note(sum);
		sum -= twice(i); note(i);
	}
	return sum;
}

void kmain(void)
{
	int total = work(4);
	total += scale(total, 2);
	note(total);
	if (total != 0)
		serial_puts("kernel: done\n");
}
