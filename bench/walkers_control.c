// SPDX-License-Identifier: GPL-2.0
/*
 * The A/A control: the no-prefetch walkers once more, from the same
 * definition and flags as walkers.c's, linked after it, so the same code
 * runs from other addresses: both start a page, take this build's pad and
 * define these walkers first (walker_gen.h), so the copy's loops fall on
 * lines, fetch blocks and page offsets as the original's do, whole pages
 * away. Timed against
 * the original in every repetition, the copy must read 1.000; where it
 * does not, the method (order, memory state, drift), not the code, moved
 * the figure, and the run says so.
 */
#include "walker_gen.h"

WALKERS_PLACE();

DEFINE_VARIANT(control, PREFETCH_NONE)

const list_walker_fn control_list_walkers[NR_SHAPES][NR_BODIES] = LIST_TABLE(control);
const lookup_walker_fn control_lookup_walkers[NR_SHAPES][NR_DEPENDENCES] = LOOKUP_TABLE(control);
