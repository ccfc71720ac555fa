// SPDX-License-Identifier: GPL-2.0
/* The walks compiled as a kernel with CONFIG_LIST_PREFETCH=y has them. */
#undef CONFIG_LIST_PREFETCH
#define CONFIG_LIST_PREFETCH 1
#define UMLBENCH_WALKS umlbench_walks_on
#include "umlbench_walks.c"
