// SPDX-License-Identifier: GPL-2.0
/*
 * MODULE_IMPORT_NS(DMA_BUF), the namespace an identifier it stringifies:
 * 5.4 to 6.12 (DMA_BUF itself: 5.16).  From 6.13 it takes a string
 * ("DMA_BUF") and this fails.
 */
#include <linux/module.h>

#ifndef MODULE_IMPORT_NS
#error no symbol namespaces (before 5.4)
#endif
MODULE_IMPORT_NS(DMA_BUF);
