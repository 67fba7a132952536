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
#include "hf_lib.h"

const char *HelloFPGA_Version(void)
{
	return HELLOFPGA_VERSION_STRING;
}

static struct hellofpga_dev *dev_alloc(void)
{
	struct hellofpga_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	pthread_rwlock_init(&dev->life, NULL);
	pthread_mutex_init(&dev->err_lock, NULL);
	pthread_mutex_init(&dev->pin_lock, NULL);
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			pthread_mutex_init(&dev->chan_lock[d][c], NULL);
	dev->lock_fd = -1;
	dev->timeout_ms = HF_DEFAULT_TIMEOUT_MS;
	snprintf(dev->info.lib_version, sizeof(dev->info.lib_version), "%s",
		 HELLOFPGA_VERSION_STRING);
	return dev;
}

static void dev_free(struct hellofpga_dev *dev)
{
	if (dev->lock_fd >= 0)
		close(dev->lock_fd);
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			pthread_mutex_destroy(&dev->chan_lock[d][c]);
	pthread_mutex_destroy(&dev->err_lock);
	pthread_mutex_destroy(&dev->pin_lock);
	free(dev->pins);
	pthread_rwlock_destroy(&dev->life);
	dev->magic = 0;
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
	dev->magic = HF_DEV_MAGIC;
	*phDev = dev;
	return 0;
}

int HelloFPGA_Open(const char *name, HELLOFPGA_HANDLE *phDev)
{
	return hf_api_ret(HF_API_OPEN, open_card(name, phDev));
}

/**
 * hf_check_handle() - is @h an open handle?
 * Return: 0, or -EBADF with the thread's error text set.
 */
int hf_check_handle(HELLOFPGA_HANDLE h, const char *fn)
{
	if (!h || h->magic != HF_DEV_MAGIC)
		return hf_set_error(NULL, -EBADF,
				    "%s: invalid handle (NULL or closed)", fn);
	return 0;
}

int HelloFPGA_Close(HELLOFPGA_HANDLE hDev)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_Close");

	if (ret)
		return ret;
	/* Wait for transfers in flight, then refuse new ones. */
	pthread_rwlock_wrlock(&hDev->life);
	hDev->magic = 0;
	pthread_rwlock_unlock(&hDev->life);
	/* Pins use the backend's mappings: release them first. */
	hf_gpudirect_close(hDev);
	hDev->ops->close(hDev);
	dev_free(hDev);
	return 0;
}

static int dma_mm(HELLOFPGA_HANDLE h, enum xdma_dir dir, int ch, void *buf,
		  uint64_t offset, size_t len, size_t *actual, const char *fn)
{
	const struct hf_gpu *gpu;
	int nch, ret;
	size_t done = 0;

	if (actual)
		*actual = 0;
	ret = hf_check_handle(h, fn);
	if (ret)
		return ret;
	nch = dir == XDMA_H2C ? h->info.num_h2c : h->info.num_c2h;
	if (ch < 0 || ch >= nch)
		return hf_set_error(h, -ECHRNG,
				    "%s: channel %d out of range: %s has %d %s channel%s (0..%d)",
				    fn, ch, h->info.name, nch, hf_dir_name(dir),
				    nch == 1 ? "" : "s", nch - 1);
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
	if (offset >= h->info.ddr_size || len > h->info.ddr_size - offset)
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

	pthread_rwlock_rdlock(&h->life);
	ret = hf_chan_lock(h, dir, ch);
	if (!ret) {
		ret = h->ops->xfer(h, dir, ch, buf, offset, len, &done);
		hf_chan_unlock(h, dir, ch);
	}
	pthread_rwlock_unlock(&h->life);

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

int HelloFPGA_DMA_MM_ReadC2H(HELLOFPGA_HANDLE hDev, int ch, void *buf,
			     uint64_t offset, size_t len, size_t *actual)
{
	return hf_api_ret(HF_API_DMA_MM_READ_C2H,
			  dma_mm(hDev, XDMA_C2H, ch, buf, offset, len, actual,
				 "HelloFPGA_DMA_MM_ReadC2H"));
}

int HelloFPGA_DMA_MM_WriteH2C(HELLOFPGA_HANDLE hDev, int ch, const void *buf,
			      uint64_t offset, size_t len, size_t *actual)
{
	/* The engine only reads @buf for H2C; the cast does not leak out. */
	return hf_api_ret(HF_API_DMA_MM_WRITE_H2C,
			  dma_mm(hDev, XDMA_H2C, ch, (void *)buf, offset, len,
				 actual, "HelloFPGA_DMA_MM_WriteH2C"));
}

int HelloFPGA_SetTimeout(HELLOFPGA_HANDLE hDev, int timeout_ms)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_SetTimeout");

	if (ret)
		return ret;
	if (timeout_ms < 1 || timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(hDev, -EINVAL,
				    "HelloFPGA_SetTimeout: %d ms is outside 1..%d ms",
				    timeout_ms, HF_MAX_TIMEOUT_MS);
	__atomic_store_n(&hDev->timeout_ms, timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

int HelloFPGA_GetInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_INFO *info)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_GetInfo");

	if (ret)
		return ret;
	if (!info)
		return hf_set_error(hDev, -EFAULT,
				    "HelloFPGA_GetInfo: info is NULL");
	*info = hDev->info;
	info->timeout_ms = __atomic_load_n(&hDev->timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

int HelloFPGA_GetPCIInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_PCI_INFO *pci)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_GetPCIInfo");

	if (ret)
		return ret;
	if (!pci)
		return hf_set_error(hDev, -EFAULT,
				    "HelloFPGA_GetPCIInfo: pci is NULL");
	*pci = hDev->pci;
	return 0;
}

int HelloFPGA_GetCounters(HELLOFPGA_HANDLE hDev, HELLOFPGA_COUNTERS *c)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_GetCounters");

	if (ret)
		return ret;
	if (!c)
		return hf_set_error(hDev, -EFAULT,
				    "HelloFPGA_GetCounters: counters pointer is NULL");
	memset(c, 0, sizeof(*c));
	c->transfers = HF_STAT_GET(hDev->stats.transfers);
	c->bytes_h2c = HF_STAT_GET(hDev->stats.bytes[XDMA_H2C]);
	c->bytes_c2h = HF_STAT_GET(hDev->stats.bytes[XDMA_C2H]);
	c->errors = HF_STAT_GET(hDev->stats.errors);
	c->timeouts = HF_STAT_GET(hDev->stats.timeouts);
	if (hDev->ops->counters)
		hDev->ops->counters(hDev, c);
	return 0;
}

int HelloFPGA_GetDMAFaults(HELLOFPGA_HANDLE hDev, HELLOFPGA_DMA_FAULTS *f)
{
	int ret = hf_check_handle(hDev, "HelloFPGA_GetDMAFaults");

	if (ret)
		return ret;
	if (!f)
		return hf_set_error(hDev, -EFAULT,
				    "HelloFPGA_GetDMAFaults: pointer is NULL");
	if (!hDev->ops->dma_faults)
		return hf_set_error(hDev, -EOPNOTSUPP,
				    "HelloFPGA_GetDMAFaults: the %s backend does not see the IOMMU's faults (the kernel log has them)",
				    hDev->ops->name);
	memset(f, 0, sizeof(*f));
	hDev->ops->dma_faults(hDev, f);
	return 0;
}

static int check_user_reg(HELLOFPGA_HANDLE h, uint32_t off, const char *fn)
{
	int ret = hf_check_handle(h, fn);

	if (ret)
		return ret;
	if (off & 3 || off >= h->pci.user_bar_size)
		return hf_set_error(h, -EINVAL,
				    "%s: offset 0x%x is %s (user BAR is 0x%llx bytes, 32-bit registers)",
				    fn, off, off & 3 ? "not 4-byte aligned" :
				    "outside the user BAR",
				    (unsigned long long)h->pci.user_bar_size);
	return 0;
}

static int user_read(HELLOFPGA_HANDLE hDev, uint32_t offset, uint32_t *val)
{
	int ret = check_user_reg(hDev, offset, "HelloFPGA_UserRead32");

	if (ret)
		return ret;
	if (!val)
		return hf_set_error(hDev, -EFAULT,
				    "HelloFPGA_UserRead32: val is NULL");
	pthread_rwlock_rdlock(&hDev->life);
	ret = hDev->ops->user_read32(hDev, offset, val);
	pthread_rwlock_unlock(&hDev->life);
	return ret;
}

static int user_write(HELLOFPGA_HANDLE hDev, uint32_t offset, uint32_t val)
{
	int ret = check_user_reg(hDev, offset, "HelloFPGA_UserWrite32");

	if (ret)
		return ret;
	pthread_rwlock_rdlock(&hDev->life);
	ret = hDev->ops->user_write32(hDev, offset, val);
	pthread_rwlock_unlock(&hDev->life);
	return ret;
}

int HelloFPGA_UserRead32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			 uint32_t *val)
{
	return hf_api_ret(HF_API_USER_READ32, user_read(hDev, offset, val));
}

int HelloFPGA_UserWrite32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			  uint32_t val)
{
	return hf_api_ret(HF_API_USER_WRITE32, user_write(hDev, offset, val));
}
