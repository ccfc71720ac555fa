// SPDX-License-Identifier: GPL-2.0
/* The walks compiled as a kernel with CONFIG_LIST_PREFETCH=n has them. */
#undef CONFIG_LIST_PREFETCH
/* The same code in every lab kernel: no run-time flag (lab/um/0003). */
#undef CONFIG_UML_LIST_PREFETCH_SWITCH
#define UMLBENCH_WALKS umlbench_walks_off
#include "umlbench_walks.c"
