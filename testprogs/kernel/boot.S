/*
 * boot.S: multiboot (v1) entry point of the rrmcp test kernel.
 *
 * QEMU's -kernel loader finds the header below, loads the ELF at 1 MiB and
 * jumps to _start in 32-bit protected mode with paging off. We set up a
 * stack, call kmain, and halt for good with interrupts disabled.
 */
	.set MB_MAGIC, 0x1BADB002
	.set MB_FLAGS, 0x0
	.set MB_CHECKSUM, -(MB_MAGIC + MB_FLAGS)

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long MB_CHECKSUM

	.section .bss
	.align 16
stack_bottom:
	.skip 16384
stack_top:

	.section .text
	.global _start
	.type _start, @function
_start:
	mov $stack_top, %esp
	call kmain
	cli
1:	hlt
	jmp 1b
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
