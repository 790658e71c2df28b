/* An assembler function with CFI, for TestFinishFromAssembler: GNU as
 * gives it a DW_TAG_unspecified_type return type, which GDB reads as void. */
	.text
	.globl	myasm
	.type	myasm, @function
myasm:
	.cfi_startproc
	movl	$5, %eax
	addl	%edi, %eax
	ret
	.cfi_endproc
	.size	myasm, .-myasm
	.section .note.GNU-stack,"",@progbits
