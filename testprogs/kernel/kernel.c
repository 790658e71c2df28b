/*
 * kernel.c: a tiny freestanding i386 multiboot kernel, the reverse-execution
 * fixture for QEMU record/replay tests (rsp/qemu_test.go, internal/qemu).
 *
 * Loops 5 times calling add() then bump(), which writes `counter` (1, 3, 6,
 * 10, 15) and copies it into `other`; then sets slot = 7 and corrupt() (the
 * planted write, after kmain) overwrites it with 0xdead; prints "kernel: done
 * sum=15" on COM1 and returns to boot.S (`cli; hlt`). Lines up to 74 fixed.
 *
 * Build (see Makefile; no multilib needed, nothing from libc is used):
 *   gcc -m32 -g -O0 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
 *       -nostdlib -no-pie -Wl,-m,elf_i386 -Wl,--build-id=none -T link.ld \
 *       -o kernel.elf boot.S kernel.c
 */

#define COM1 0x3f8

volatile int counter;
volatile int other;

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

static void serial_putc(char c)
{
	while ((inb(COM1 + 5) & 0x20) == 0)
		;
	outb(COM1, (unsigned char)c);
}

static void serial_puts(const char *s)
{
	while (*s)
		serial_putc(*s++);
}

static void serial_putu(unsigned v)
{
	char buf[12];
	int i = 0;
	do {
		buf[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (i > 0)
		serial_putc(buf[--i]);
}

int add(int a, int b)
{
	return a + b;
}

void bump(int v)
{
	counter = counter + v;
	other = counter;
}

void kmain(void)
{
	int sum = 0;
	for (int i = 1; i <= 5; i++) {
		sum = add(sum, i);
		bump(i);
	}
	extern volatile int slot;
	void corrupt(int v);
	slot = 7;
	corrupt(0xdead);
	sum += slot - 0xdead;
	serial_puts("kernel: done sum=");
	serial_putu((unsigned)sum);
	serial_puts("\n");
}

volatile int slot;

void corrupt(int v)
{
	slot = v; /* PLANTED-WRITE */
}
