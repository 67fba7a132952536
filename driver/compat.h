/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between Linux 4.15 (Ubuntu 18.04) and
 * current kernels, in one place.  Every other file of hellofpga.ko uses the
 * hf_* wrappers below instead of the API that moved.
 *
 * Each choice is made by a feature probe, never by the kernel's version:
 * HF_HAVE_<NAME> comes from hf_features.h, which driver/probes/probe.sh
 * generates at build time by compiling driver/probes/<name>.c against the
 * headers built against (driver/probes/probes.mk).  The fallback branches
 * say how older kernels do it, from the kernel history noted at each one.
 *
 * CI (scripts/kernel-ci.sh) compiles the driver against Debian's 5.10
 * (bullseye), 6.1 (bookworm), 6.12 (bookworm-backports) and 7.2 (sid)
 * headers, amd64 and arm64; branches needed only before 5.10 are not
 * compiled there.
 */
#ifndef HF_COMPAT_H
#define HF_COMPAT_H

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/security.h>
#include <linux/user_namespace.h>

#include "hf_features.h"

/* Linux 5.4: the pseudo keyword for a case that continues into the next */
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

/* EPOLLIN and friends as __poll_t inside the kernel: 4.16 */
#ifndef EPOLLIN
#define EPOLLIN		POLLIN
#define EPOLLRDNORM	POLLRDNORM
#define EPOLLERR	POLLERR
#define EPOLLHUP	POLLHUP
#endif

/* PCI_IRQ_LEGACY renamed PCI_IRQ_INTX: 6.8 (the old name left in 6.10) */
#ifdef PCI_IRQ_INTX
#define HF_PCI_IRQ_INTX		PCI_IRQ_INTX
#else
#define HF_PCI_IRQ_INTX		PCI_IRQ_LEGACY
#endif

/* class_create() lost its owner argument: 6.4 */
#ifdef HF_HAVE_CLASS_CREATE_NAME
#define hf_class_create(name)	class_create(name)
#else
#define hf_class_create(name)	class_create(THIS_MODULE, name)
#endif

/* vm_flags became read-only behind vm_flags_set(): 6.3 */
static inline void hf_vm_flags_set(struct vm_area_struct *vma,
				   unsigned long flags)
{
#ifdef HF_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void hf_vm_flags_clear(struct vm_area_struct *vma,
				     unsigned long flags)
{
#ifdef HF_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* vm_fault_t: 4.17 */
#ifndef HF_HAVE_VM_FAULT_T
#define vm_fault_t	int
#endif

/*
 * Raw register access: CAP_SYS_RAWIO in the initial user namespace, asked
 * without an audit record, as it is a question at open and not a refusal of
 * the open (ns_capable_noaudit(): 4.10); and kernel lockdown, which denies it
 * like the PCI sysfs resource files (LOCKDOWN_PCI_ACCESS, security_locked_down():
 * 5.4; no lockdown before).
 */
static inline bool hf_rawio_capable(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_RAWIO);
}

static inline bool hf_locked_down(void)
{
#ifdef HF_HAVE_SECURITY_LOCKED_DOWN
	return security_locked_down(LOCKDOWN_PCI_ACCESS) != 0;
#else
	return false;
#endif
}

/*
 * vmf_insert_pfn(): 4.17 (returning vm_fault_t); before, vm_insert_pfn()
 * returned an errno, mapped here as 4.17's wrapper did.
 */
static inline vm_fault_t hf_vmf_insert_pfn(struct vm_area_struct *vma,
					   unsigned long addr,
					   unsigned long pfn)
{
#ifdef HF_HAVE_VMF_INSERT_PFN
	return vmf_insert_pfn(vma, addr, pfn);
#else
	int err = vm_insert_pfn(vma, addr, pfn);

	if (err == -ENOMEM)
		return VM_FAULT_OOM;
	if (err < 0 && err != -EBUSY)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_NOPAGE;
#endif
}

/* compat_ptr_ioctl(): 5.5 */
#ifdef HF_HAVE_COMPAT_PTR_IOCTL
#define hf_compat_ptr_ioctl	compat_ptr_ioctl
#elif defined(CONFIG_COMPAT)
static inline long hf_compat_ptr_ioctl(struct file *file, unsigned int cmd,
				       unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}
#else
#define hf_compat_ptr_ioctl	NULL
#endif

/* dma_max_mapping_size(): 5.1 (swiotlb limits a mapping to 256 KiB) */
static inline size_t hf_dma_max_mapping_size(struct device *dev)
{
#ifdef HF_HAVE_DMA_MAX_MAPPING_SIZE
	return dma_max_mapping_size(dev);
#else
	return SIZE_MAX;
#endif
}

/*
 * pin_user_pages_fast()/unpin_user_pages(): 5.6 (FOLL_PIN accounting);
 * unpin_user_pages_dirty_lock(): 5.8.  Before 5.6: get_user_pages_fast(),
 * whose third argument became gup_flags in 5.2 (before: int write), and
 * which honours FOLL_LONGTERM from 5.2 only.
 */
static inline int hf_pin_user_pages_fast(unsigned long start, int nr_pages,
					 unsigned int gup_flags,
					 struct page **pages)
{
#if defined(HF_HAVE_PIN_USER_PAGES)
	return pin_user_pages_fast(start, nr_pages, gup_flags, pages);
#elif defined(HF_HAVE_GUP_FAST_FLAGS)
	return get_user_pages_fast(start, nr_pages, gup_flags, pages);
#else
	return get_user_pages_fast(start, nr_pages,
				   !!(gup_flags & FOLL_WRITE), pages);
#endif
}

static inline void hf_unpin_user_pages(struct page **pages,
				       unsigned long npages, bool dirty)
{
#ifdef HF_HAVE_UNPIN_USER_PAGES_DIRTY_LOCK
	unpin_user_pages_dirty_lock(pages, npages, dirty);
#else
	unsigned long i;

	for (i = 0; i < npages; i++) {
		if (dirty)
			set_page_dirty_lock(pages[i]);
#ifdef HF_HAVE_PIN_USER_PAGES
		unpin_user_page(pages[i]);
#else
		put_page(pages[i]);
#endif
	}
#endif
}

/* totalram_pages became a function: 5.0 */
static inline u64 hf_totalram_bytes(void)
{
#ifdef HF_HAVE_TOTALRAM_PAGES_FN
	return (u64)totalram_pages() << PAGE_SHIFT;
#else
	return (u64)totalram_pages << PAGE_SHIFT;
#endif
}

#ifndef FOLL_LONGTERM
#define FOLL_LONGTERM	0
#endif

/*
 * An sg table from pages with a segment limit:
 *   5.15+       sg_alloc_table_from_pages_segment()
 *   5.10..5.14  __sg_alloc_table_from_pages() with prv/left_pages, returning
 *               the last entry
 *   4.14..5.9   __sg_alloc_table_from_pages() returning int
 */
static inline int hf_sg_alloc_table_from_pages(struct sg_table *sgt,
					       struct page **pages,
					       unsigned int n_pages,
					       unsigned int offset,
					       unsigned long size,
					       unsigned int max_segment)
{
#if defined(HF_HAVE_SG_ALLOC_TABLE_FROM_PAGES_SEGMENT)
	return sg_alloc_table_from_pages_segment(sgt, pages, n_pages, offset,
						 size, max_segment,
						 GFP_KERNEL);
#elif defined(HF_HAVE_SG_ALLOC_TABLE_FROM_PAGES_PRV)
	return PTR_ERR_OR_ZERO(__sg_alloc_table_from_pages(sgt, pages, n_pages,
							   offset, size,
							   max_segment, NULL,
							   0, GFP_KERNEL));
#else
	return __sg_alloc_table_from_pages(sgt, pages, n_pages, offset, size,
					   max_segment, GFP_KERNEL);
#endif
}

/* dma_map_sgtable(): 5.8 */
static inline int hf_dma_map_sgtable(struct device *dev, struct sg_table *sgt,
				     enum dma_data_direction dir)
{
#ifdef HF_HAVE_DMA_MAP_SGTABLE
	return dma_map_sgtable(dev, sgt, dir, 0);
#else
	int n = dma_map_sg(dev, sgt->sgl, sgt->orig_nents, dir);

	if (!n)
		return -ENOMEM;
	sgt->nents = n;
	return 0;
#endif
}

static inline void hf_dma_unmap_sgtable(struct device *dev,
					struct sg_table *sgt,
					enum dma_data_direction dir,
					unsigned long attrs)
{
#ifdef HF_HAVE_DMA_MAP_SGTABLE
	dma_unmap_sgtable(dev, sgt, dir, attrs);
#else
	dma_unmap_sg_attrs(dev, sgt->sgl, sgt->orig_nents, dir, attrs);
#endif
}

/* dma_sync_sgtable_for_device/cpu(): 5.8; dma_need_sync(): 5.8 */
static inline void hf_dma_sync_sgtable(struct device *dev,
				       struct sg_table *sgt,
				       enum dma_data_direction dir,
				       bool for_device)
{
	if (for_device)
		dma_sync_sg_for_device(dev, sgt->sgl, sgt->orig_nents, dir);
	else
		dma_sync_sg_for_cpu(dev, sgt->sgl, sgt->orig_nents, dir);
}

static inline bool hf_dma_need_sync(struct device *dev, dma_addr_t addr)
{
#ifdef HF_HAVE_DMA_NEED_SYNC
	return dma_need_sync(dev, addr);
#else
	return true;
#endif
}

/*
 * The DMA side of a mapped table is walked with for_each_sg() over
 * sgt->nents (what for_each_sgtable_dma_sg() of 5.8 expands to).
 */

/*
 * pcim_iomap_region(): 6.11; pcim_iomap_regions() with pcim_iomap_table()
 * before (deprecated in 6.12 and later removed).  Either way the mapping and
 * the region request are released by devres after remove().
 */
static inline void __iomem *hf_pcim_iomap_bar(struct pci_dev *pdev, int bar,
					      const char *name)
{
#ifdef HF_HAVE_PCIM_IOMAP_REGION
	return pcim_iomap_region(pdev, bar, name);
#else
	int ret = pcim_iomap_regions(pdev, BIT(bar), name);

	if (ret)
		return IOMEM_ERR_PTR(ret);
	return pcim_iomap_table(pdev)[bar];
#endif
}

/*
 * AER reporting in the Device Control register: drivers enabled it with
 * pci_enable_pcie_error_reporting() until the PCI core did it for every
 * device when AER is native (6.5, and the function was removed).
 */
#ifndef HF_HAVE_PCI_ENABLE_PCIE_ERROR_REPORTING
static inline void hf_aer_reporting(struct pci_dev *pdev, bool on)
{
}
#else
#include <linux/aer.h>
static inline void hf_aer_reporting(struct pci_dev *pdev, bool on)
{
	if (on)
		pci_enable_pcie_error_reporting(pdev);
	else
		pci_disable_pcie_error_reporting(pdev);
}
#endif

/*
 * account_locked_vm(): 5.3 (mm/util.c).  Before it, the same by hand under
 * mmap_sem: charge @pages to @mm's locked_vm against RLIMIT_MEMLOCK unless
 * the caller has CAP_IPC_LOCK.
 */
#ifdef HF_HAVE_ACCOUNT_LOCKED_VM
#define hf_account_locked_vm	account_locked_vm
#else
static inline int hf_account_locked_vm(struct mm_struct *mm,
				       unsigned long pages, bool inc)
{
	unsigned long locked, limit;
	int ret = 0;

	if (!pages || !mm)
		return 0;
	down_write(&mm->mmap_sem);
	if (inc) {
		locked = mm->locked_vm + pages;
		limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		if (locked > limit && !capable(CAP_IPC_LOCK))
			ret = -ENOMEM;
		else
			mm->locked_vm = locked;
	} else {
		mm->locked_vm -= min(pages, mm->locked_vm);
	}
	up_write(&mm->mmap_sem);
	return ret;
}
#endif

/*
 * Locked memory charged to a user rather than to a process, as io_uring
 * charges its buffers: struct user_struct.locked_vm (CONFIG_NET, every
 * distribution kernel) against the caller's RLIMIT_MEMLOCK, given back by
 * an atomic subtraction from any context (the close of a mapping runs
 * under mmap_lock, which account_locked_vm() takes).  For memory that may
 * outlive the process that asked for it.  Without the field nothing is
 * charged (the card's pin_limit_mb and the memory cgroup still count).
 */
#ifdef HF_HAVE_USER_LOCKED_VM
static inline int hf_user_locked_charge(struct user_struct *user,
					unsigned long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT, cur;

	do {
		cur = atomic_long_read(&user->locked_vm);
		if (pages > limit || cur > limit - pages)
			return -ENOMEM;
	} while (atomic_long_cmpxchg(&user->locked_vm, cur, cur + pages) !=
		 cur);
	return 0;
}

static inline void hf_user_locked_uncharge(struct user_struct *user,
					   unsigned long pages)
{
	atomic_long_sub(pages, &user->locked_vm);
}
#else
static inline int hf_user_locked_charge(struct user_struct *user,
					unsigned long pages)
{
	return 0;
}

static inline void hf_user_locked_uncharge(struct user_struct *user,
					   unsigned long pages)
{
}
#endif

/*
 * dma-buf importer API:
 *   5.7   dma_buf_dynamic_attach(), dma_buf_pin()/unpin(), move_notify; the
 *         map/unmap of a dynamic attachment needs the reservation lock
 *   5.8   dma_buf_attach_ops.allow_peer2peer
 *   5.16  the DMA_BUF symbol namespace, MODULE_IMPORT_NS(DMA_BUF)
 *         (HF_HAVE_MODULE_IMPORT_NS_IDENT; hf_main.c)
 *   6.13  MODULE_IMPORT_NS("DMA_BUF"), a string
 *   7.x   move_notify renamed invalidate_mappings (HF_DMABUF_MOVE_NOTIFY
 *         names the member), same contract
 * Older kernels get a static attachment without peer-to-peer, which maps
 * host-memory dma-bufs only.
 */
#if defined(HF_HAVE_DMA_BUF_INVALIDATE_MAPPINGS)
#define HF_DMABUF_DYNAMIC	1
#define HF_DMABUF_MOVE_NOTIFY	invalidate_mappings
#elif defined(HF_HAVE_DMA_BUF_DYNAMIC_ATTACH)
#define HF_DMABUF_DYNAMIC	1
#define HF_DMABUF_MOVE_NOTIFY	move_notify
#else
#define HF_DMABUF_DYNAMIC	0
#endif
#ifdef HF_HAVE_DMA_BUF_ALLOW_PEER2PEER
#define HF_DMABUF_P2P		1
#else
#define HF_DMABUF_P2P		0
#endif

#endif /* HF_COMPAT_H */
