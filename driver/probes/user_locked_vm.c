// SPDX-License-Identifier: GPL-2.0
/* struct user_struct.locked_vm (per-user locked memory): CONFIG_NET */
#include <linux/sched/user.h>

long hf_probe(struct user_struct *u)
{
	return atomic_long_read(&u->locked_vm);
}
