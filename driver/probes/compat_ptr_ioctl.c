// SPDX-License-Identifier: GPL-2.0
/* compat_ptr_ioctl() (NULL without CONFIG_COMPAT): 5.5 */
#include <linux/fs.h>

long (*hf_probe)(struct file *, unsigned int, unsigned long) = compat_ptr_ioctl;
