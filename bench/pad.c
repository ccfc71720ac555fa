// SPDX-License-Identifier: GPL-2.0
/*
 * PAD_BYTES of code linked ahead of walkers.o: every walker of this
 * build starts PAD_BYTES later, so its loops sit elsewhere relative to
 * cache lines, fetch blocks and pages. Runs of builds with different
 * pads tell a property of the CPU from one placement's luck.
 */
#ifndef PAD_BYTES
#define PAD_BYTES 0
#endif

#define STRINGIFY(x) #x
#define EMIT_PAD(n)							\
	__asm__(".pushsection .text\n"					\
		".globl listbench_code_pad\n"				\
		"listbench_code_pad:\n"					\
		".skip " STRINGIFY(n) ", 0xcc\n"			\
		".popsection")

#if PAD_BYTES > 0
EMIT_PAD(PAD_BYTES);
#endif
