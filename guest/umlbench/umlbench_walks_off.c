// SPDX-License-Identifier: GPL-2.0
/* The walks compiled as a kernel with CONFIG_LIST_PREFETCH=n has them. */
#undef CONFIG_LIST_PREFETCH
#define UMLBENCH_WALKS umlbench_walks_off
#include "umlbench_walks.c"
