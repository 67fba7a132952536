// SPDX-License-Identifier: GPL-2.0
/* kernel lockdown, security_locked_down(LOCKDOWN_PCI_ACCESS): 5.4 */
#include <linux/security.h>

int hf_probe(void)
{
	return security_locked_down(LOCKDOWN_PCI_ACCESS);
}
