// SPDX-License-Identifier: MIT
/*
 * api.c - the HelloFPGA_* entry points: argument validation, handle
 * lifetime, channel locking and statistics, then dispatch to the backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"
#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_stream.h"
#include "hf_submit.h"

const char *HelloFPGA_Version(void)
{
	return HELLOFPGA_VERSION_STRING;
}

static struct hellofpga_dev *dev_alloc(void)
{
	struct hellofpga_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	pthread_mutex_init(&dev->err_lock, NULL);
	pthread_mutex_init(&dev->pin_lock, NULL);
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			pthread_mutex_init(&dev->chan_lock[d][c], NULL);
	dev->lock_fd = -1;
	dev->wake_fd = -1;
	pthread_mutex_init(&dev->uirq_lock, NULL);
	pthread_mutex_init(&dev->stream_lock, NULL);
	pthread_mutex_init(&dev->submit_lock, NULL);
	for (int i = 0; i < XDMA_USER_IRQS; i++)
		dev->uirq_fd[i] = -1;
	dev->timeout_ms = HF_DEFAULT_TIMEOUT_MS;
	snprintf(dev->info.lib_version, sizeof(dev->info.lib_version), "%s",
		 HELLOFPGA_VERSION_STRING);
	return dev;
}

static void dev_free(struct hellofpga_dev *dev)
{
	hf_shared_locks_unmap(dev->shlocks);
	if (dev->lock_fd >= 0)
		close(dev->lock_fd);
	if (dev->wake_fd >= 0)
		close(dev->wake_fd);
	pthread_mutex_destroy(&dev->uirq_lock);
	pthread_mutex_destroy(&dev->stream_lock);
	pthread_mutex_destroy(&dev->submit_lock);
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			pthread_mutex_destroy(&dev->chan_lock[d][c]);
	pthread_mutex_destroy(&dev->err_lock);
	pthread_mutex_destroy(&dev->pin_lock);
	free(dev->pins);
	free(dev);
}

static bool is_emu_name(const char *name)
{
	return !strncmp(name, "emu", 3) &&
	       (name[3] == '\0' || name[3] == ':' || name[3] == ',');
}

static int open_card(const char *name, HELLOFPGA_HANDLE *phDev)
{
	struct hellofpga_dev *dev;
	const char *env;
	int ret;

	hf_clear_error(NULL);
	if (!phDev)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_Open: phDev is NULL");
	if (!name || !*name) {
		env = getenv("HELLOFPGA_DEVICE");
		if (env && *env)
			name = env;
	}
	dev = dev_alloc();
	if (!dev)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_Open: out of memory");
	if (!name || !*name || !strncmp(name, "/dev/", 5)) {
		ret = hf_kernel_open(dev, name && *name ? name : NULL);
	} else if (is_emu_name(name)) {
		ret = hf_emu_open(dev, name);
	} else {
		ret = hf_set_error(dev, -EINVAL,
				   "unknown card name '%s': use NULL or \"\" for the first card, \"emu\" or \"emu:N\" for an emulated card, or \"/dev/hellofpgaN\"",
				   name);
	}
	if (ret < 0) {
		hf_set_error(NULL, ret, "%s", dev->last_error);
		dev_free(dev);
		return ret;
	}
	dev->info.timeout_ms = dev->timeout_ms;
	ret = hf_dev_register(dev, phDev);
	if (ret) {
		hf_set_error(NULL, ret,
			     "HelloFPGA_Open: out of memory (handle table)");
		hf_gpudirect_close(dev);
		dev->ops->close(dev);
		dev_free(dev);
	}
	return ret;
}

int HelloFPGA_Open(const char *name, HELLOFPGA_HANDLE *phDev)
{
	return hf_api_ret(HF_API_OPEN, open_card(name, phDev));
}

/* Close began (the table lock held): the streams' and queues' waits end. */
static void close_wake(struct hellofpga_dev *dev)
{
	hf_stream_wake_all(dev);
	hf_submit_wake_all(dev);
}

static int close_card(HELLOFPGA_HANDLE hDev)
{
	struct hellofpga_dev *dev;

	/* Refuses new calls at once, then waits for those in flight. */
	if (hf_dev_unregister(hDev, &dev, close_wake))
		return hf_set_error(NULL, -EBADF,
				    "HelloFPGA_Close: invalid handle %p (NULL, closed, or being closed)",
				    (void *)hDev);
	if (!dev)
		return 0;	/* inherited over fork(): only forgotten */
	/* Streams and queued transfers use pins: end them, then the pins. */
	hf_stream_close_all(dev);
	hf_submit_close(dev);
	/* Pins use the backend's mappings: release them first. */
	hf_gpudirect_close(dev);
	dev->ops->close(dev);
	dev_free(dev);
	return 0;
}

int HelloFPGA_Close(HELLOFPGA_HANDLE hDev)
{
	return close_card(hDev);
}

static int dma_mm(struct hellofpga_dev *h, enum hf_xdma_dir dir, int ch,
		  void *buf, uint64_t offset, size_t len, size_t *actual,
		  const char *fn)
{
	const struct hf_gpu *gpu;
	struct timespec dl;
	int nch, ret;
	size_t done = 0;

	nch = dir == XDMA_H2C ? h->info.num_h2c : h->info.num_c2h;
	if (ch < 0 || ch >= nch)
		return hf_set_error(h, -ECHRNG,
				    "%s: channel %d out of range: %s has %d %s channel%s (0..%d)",
				    fn, ch, h->info.name, nch, hf_dir_name(dir),
				    nch == 1 ? "" : "s", nch - 1);
	ret = hf_stream_card_check(h, dir, offset, fn);
	if (ret)
		return ret;
	if (len == 0)
		return 0;
	if (!buf)
		return hf_set_error(h, -EFAULT, "%s: buf is NULL (len %zu)",
				    fn, len);
	if (offset + len < offset)
		return hf_set_error(h, -EOVERFLOW,
				    "%s: card address 0x%llx + length 0x%zx overflows 64 bits",
				    fn, (unsigned long long)offset, len);
	if ((uintptr_t)buf + len < (uintptr_t)buf)
		return hf_set_error(h, -EFAULT,
				    "%s: buffer %p + length %zu wraps the address space",
				    fn, buf, len);
	if (!h->stream &&
	    (offset >= h->info.ddr_size || len > h->info.ddr_size - offset))
		return hf_set_error(h, -ERANGE,
				    "%s: card address range [0x%llx, 0x%llx) lies past the end of card memory (0x%llx bytes)",
				    fn, (unsigned long long)offset,
				    (unsigned long long)(offset + len),
				    (unsigned long long)h->info.ddr_size);

	/* TransferMode GPU_PINNED: a buffer inside the registered GPU buffer. */
	if (__atomic_load_n(&h->xfer_mode, __ATOMIC_RELAXED) ==
	    HELLOFPGA_XFER_MODE_GPU_PINNED) {
		ret = hf_gpudirect_dma_mm(h, dir, ch, buf, offset, len, actual,
					  fn);
		if (ret <= 0)
			return ret;
	}
	/*
	 * The emulated engine reaches @buf with the CPU: a desktop GPU's
	 * device memory would fault there (the emulated GPU's is refused
	 * alike).  Only asked once the GPU was detected (hf_gpu_peek() loads
	 * nothing and costs a load): probing for libcuda.so.1 on every
	 * transfer would cost more than a small transfer itself.
	 */
	gpu = hf_gpu_peek();
	if (gpu && hf_gpu_is_device_ptr(buf))
		return hf_set_error(h, -EFAULT,
				    "%s: buf %p is GPU device memory: use GPU Direct (HelloFPGA_GPUDirect_*) or TransferMode (HelloFPGA_SetGPUBuffer + HelloFPGA_SetTransferMode)",
				    fn, buf);

	hf_deadline_in(&dl, __atomic_load_n(&h->timeout_ms, __ATOMIC_RELAXED));
	ret = hf_chan_lock(h, dir, ch, &dl);
	if (!ret) {
		ret = h->ops->xfer(h, dir, ch, buf, offset, len, &dl, &done);
		hf_chan_unlock(h, dir, ch);
	}

	HF_STAT_ADD(h->stats.bytes[dir], done);
	if (ret < 0) {
		HF_STAT_ADD(h->stats.errors, 1);
		if (ret == -ETIMEDOUT)
			HF_STAT_ADD(h->stats.timeouts, 1);
	} else {
		HF_STAT_ADD(h->stats.transfers, 1);
	}
	if (actual)
		*actual = done;
	return ret < 0 ? ret : 0;
}

static int dma_mm_call(HELLOFPGA_HANDLE hDev, enum hf_xdma_dir dir, int ch,
		       void *buf, uint64_t offset, size_t len, size_t *actual,
		       const char *fn)
{
	struct hellofpga_dev *dev;
	int ret;

	if (actual)
		*actual = 0;
	ret = hf_dev_get(hDev, fn, &dev);
	if (ret)
		return ret;
	return hf_dev_put_ret(dev, dma_mm(dev, dir, ch, buf, offset, len,
					  actual, fn));
}

int HelloFPGA_DMA_MM_ReadC2H(HELLOFPGA_HANDLE hDev, int ch, void *buf,
			     uint64_t offset, size_t len, size_t *actual)
{
	return hf_api_ret(HF_API_DMA_MM_READ_C2H,
			  dma_mm_call(hDev, XDMA_C2H, ch, buf, offset, len,
				      actual, "HelloFPGA_DMA_MM_ReadC2H"));
}

int HelloFPGA_DMA_MM_WriteH2C(HELLOFPGA_HANDLE hDev, int ch, const void *buf,
			      uint64_t offset, size_t len, size_t *actual)
{
	/* The engine only reads @buf for H2C; the cast does not leak out. */
	return hf_api_ret(HF_API_DMA_MM_WRITE_H2C,
			  dma_mm_call(hDev, XDMA_H2C, ch, (void *)buf, offset,
				      len, actual,
				      "HelloFPGA_DMA_MM_WriteH2C"));
}

static int set_timeout(struct hellofpga_dev *dev, int timeout_ms)
{
	if (timeout_ms < 1 || timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(dev, -EINVAL,
				    "HelloFPGA_SetTimeout: %d ms is outside 1..%d ms",
				    timeout_ms, HF_MAX_TIMEOUT_MS);
	__atomic_store_n(&dev->timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

int HelloFPGA_SetTimeout(HELLOFPGA_HANDLE hDev, int timeout_ms)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_SetTimeout", &dev);

	return ret ? ret : hf_dev_put_ret(dev, set_timeout(dev, timeout_ms));
}

static int get_info(struct hellofpga_dev *dev, HELLOFPGA_INFO *info)
{
	if (!info)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_GetInfo: info is NULL");
	*info = dev->info;
	info->timeout_ms = __atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

int HelloFPGA_GetInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_INFO *info)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_GetInfo", &dev);

	return ret ? ret : hf_dev_put_ret(dev, get_info(dev, info));
}

static int get_pci_info(struct hellofpga_dev *dev, HELLOFPGA_PCI_INFO *pci)
{
	if (!pci)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_GetPCIInfo: pci is NULL");
	*pci = dev->pci;
	return 0;
}

int HelloFPGA_GetPCIInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_PCI_INFO *pci)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_GetPCIInfo", &dev);

	return ret ? ret : hf_dev_put_ret(dev, get_pci_info(dev, pci));
}

static int get_counters(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c)
{
	if (!c)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_GetCounters: counters pointer is NULL");
	memset(c, 0, sizeof(*c));
	c->transfers = HF_STAT_GET(dev->stats.transfers);
	c->bytes_h2c = HF_STAT_GET(dev->stats.bytes[XDMA_H2C]);
	c->bytes_c2h = HF_STAT_GET(dev->stats.bytes[XDMA_C2H]);
	c->errors = HF_STAT_GET(dev->stats.errors);
	c->timeouts = HF_STAT_GET(dev->stats.timeouts);
	if (dev->ops->counters)
		dev->ops->counters(dev, c);
	return 0;
}

int HelloFPGA_GetCounters(HELLOFPGA_HANDLE hDev, HELLOFPGA_COUNTERS *c)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_GetCounters", &dev);

	return ret ? ret : hf_dev_put_ret(dev, get_counters(dev, c));
}

static int get_dma_faults(struct hellofpga_dev *dev, HELLOFPGA_DMA_FAULTS *f)
{
	if (!f)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_GetDMAFaults: pointer is NULL");
	if (!dev->ops->dma_faults)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "HelloFPGA_GetDMAFaults: the %s backend does not see the IOMMU's faults (the kernel log has them)",
				    dev->ops->name);
	memset(f, 0, sizeof(*f));
	dev->ops->dma_faults(dev, f);
	return 0;
}

int HelloFPGA_GetDMAFaults(HELLOFPGA_HANDLE hDev, HELLOFPGA_DMA_FAULTS *f)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_GetDMAFaults", &dev);

	return ret ? ret : hf_dev_put_ret(dev, get_dma_faults(dev, f));
}

static int get_link_model(struct hellofpga_dev *dev, HELLOFPGA_LINK_MODEL *lm)
{
	if (!lm)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_GetLinkModel: pointer is NULL");
	memset(lm, 0, sizeof(*lm));
	if (dev->ops->link_model)
		dev->ops->link_model(dev, lm);
	return 0;
}

int HelloFPGA_GetLinkModel(HELLOFPGA_HANDLE hDev, HELLOFPGA_LINK_MODEL *lm)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_GetLinkModel", &dev);

	return ret ? ret : hf_dev_put_ret(dev, get_link_model(dev, lm));
}

static int check_user_reg(struct hellofpga_dev *h, uint32_t off,
			  const char *fn)
{
	if (off & 3 || off >= h->pci.user_bar_size)
		return hf_set_error(h, -EINVAL,
				    "%s: offset 0x%x is %s (user BAR is 0x%llx bytes, 32-bit registers)",
				    fn, off, off & 3 ? "not 4-byte aligned" :
				    "outside the user BAR",
				    (unsigned long long)h->pci.user_bar_size);
	return 0;
}

static int user_read(struct hellofpga_dev *dev, uint32_t offset,
		     uint32_t *val)
{
	int ret = check_user_reg(dev, offset, "HelloFPGA_UserRead32");

	if (ret)
		return ret;
	if (!val)
		return hf_set_error(dev, -EFAULT,
				    "HelloFPGA_UserRead32: val is NULL");
	return dev->ops->user_read32(dev, offset, val);
}

static int user_write(struct hellofpga_dev *dev, uint32_t offset,
		      uint32_t val)
{
	int ret = check_user_reg(dev, offset, "HelloFPGA_UserWrite32");

	return ret ? ret : dev->ops->user_write32(dev, offset, val);
}

int HelloFPGA_UserRead32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			 uint32_t *val)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_UserRead32", &dev);

	if (!ret)
		ret = hf_dev_put_ret(dev, user_read(dev, offset, val));
	return hf_api_ret(HF_API_USER_READ32, ret);
}

int HelloFPGA_UserWrite32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			  uint32_t val)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_UserWrite32", &dev);

	if (!ret)
		ret = hf_dev_put_ret(dev, user_write(dev, offset, val));
	return hf_api_ret(HF_API_USER_WRITE32, ret);
}

const char *HelloFPGA_GetLastError(HELLOFPGA_HANDLE hDev)
{
	struct hellofpga_dev *dev;
	const char *text;

	if (hf_dev_ref(hDev, &dev))
		return hf_last_error(NULL);
	text = hf_last_error(dev);
	hf_dev_put(dev);
	return text;
}
