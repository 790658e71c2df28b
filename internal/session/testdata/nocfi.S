/* Functions without call frame information (no .cfi directives), for
   GDB's prologue analyzer: leafasm keeps no frame, framedasm sets one up
   with push %rbp; mov %rsp,%rbp (push %ebp; mov %esp,%ebp). */
	.text
	.globl	leafasm
	.type	leafasm, @function
leafasm:
#ifdef __x86_64__
	movl	$5, %eax
	addl	%edi, %eax
#else
	movl	4(%esp), %eax
	addl	$5, %eax
#endif
	ret
	.size	leafasm, .-leafasm

	.globl	framedasm
	.type	framedasm, @function
framedasm:
#ifdef __x86_64__
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$16, %rsp
	movl	%edi, -4(%rbp)
	addl	$1, %edi
	call	leafasm
	addl	-4(%rbp), %eax
	leave
#else
	pushl	%ebp
	movl	%esp, %ebp
	subl	$24, %esp
	movl	8(%ebp), %eax
	addl	$1, %eax
	movl	%eax, (%esp)
	call	leafasm
	addl	8(%ebp), %eax
	leave
#endif
	ret
	.size	framedasm, .-framedasm
	.section .note.GNU-stack,"",@progbits
