// SPDX-License-Identifier: MIT
/*
 * gpudirect.c - GPU Direct: pin GPU memory once, then move data between it
 * and card memory with no bounce through host memory (HelloFPGA_GPUDirect_*,
 * HelloFPGA_SetGPUBuffer, HelloFPGA_SetTransferMode).
 *
 * Pins live in a per-handle table.  A GPU handle is
 *	generation << 32 | (slot + 1)
 * with the generation taken from a process-wide counter, so a handle that was
 * unpinned (its slot reused) or that belongs to another card is recognised
 * and refused with -ENOENT instead of reaching someone else's buffer.
 *
 * The generic part here validates, accounts pinned bytes, locks and keeps
 * statistics; the backend (struct hf_backend_ops gpu_*) maps the buffer for
 * the card and builds its descriptor chains once, at pin time, so that a
 * transfer allocates nothing.
 *
 * Locking, outermost first (the handle's reference, handle.c, keeps @dev):
 *   channel lock  ->  pin->lock (shared)
 * Unpin and the revocation callback (GPU memory freed while pinned) take
 * pin->lock exclusively, which waits for the transfers in flight.  The pin
 * table mutex (dev->pin_lock) is only ever taken for short table updates and
 * never held while taking pin->lock or calling into the GPU layer: the GPU
 * layer may hold its own lock while it runs a revocation callback (the
 * AB-BA deadlock gdrcopy warns of), so hf_gpu_unwatch() is called with no
 * lock of ours held.  A pin is reference counted: the table holds one
 * reference and every lookup one more, so an unpin racing a transfer never
 * frees memory the transfer still touches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_number.h"
#include "hf_stream.h"

#define HF_PIN_ALIGN	4096u

/* Generations of GPU handles, process-wide so that cards never share one. */
static uint32_t pin_generation;

static uint32_t next_generation(void)
{
	uint32_t g;

	do {
		g = __atomic_add_fetch(&pin_generation, 1, __ATOMIC_RELAXED);
	} while (!g);
	return g;
}

static int not_pinned(struct hellofpga_dev *dev, HELLOFPGA_GPU_HANDLE handle,
		      const char *fn)
{
	return hf_set_error(dev, -ENOENT,
			    "%s: handle 0x%llx is not pinned on this card (unpinned, or from another card)",
			    fn, (unsigned long long)handle);
}

/*
 * The GPU memory of @pin was freed while pinned: -ENXIO, with what to do
 * about it.  A buffer of HelloFPGA_SetGPUBuffer() has no handle of the
 * caller's (Unpin refuses its internal one): it is replaced or
 * unregistered through HelloFPGA_SetGPUBuffer() again.
 */
static int pin_freed(struct hellofpga_dev *dev, const struct hf_pin *pin,
		     const char *fn)
{
	if (pin->internal)
		return hf_set_error(dev, -ENXIO,
				    "%s: the GPU buffer %p registered with HelloFPGA_SetGPUBuffer() was freed while registered: register another one, or unregister it with HelloFPGA_SetGPUBuffer(hDev, NULL, 0)",
				    fn, pin->gpu);
	return hf_set_error(dev, -ENXIO,
			    "%s: the GPU memory %p of handle 0x%llx was freed while pinned; unpin the handle",
			    fn, pin->gpu, (unsigned long long)pin->handle);
}

/* The slot @handle names, pin_lock held; NULL when it names nothing. */
static struct hf_pin_slot *slot_of(struct hellofpga_dev *dev,
				   HELLOFPGA_GPU_HANDLE handle)
{
	uint32_t lo = (uint32_t)handle, gen = (uint32_t)(handle >> 32);
	struct hf_pin_slot *s;

	if (!lo || lo > dev->npins)
		return NULL;
	s = &dev->pins[lo - 1];
	if (!s->pin || s->gen != gen)
		return NULL;
	return s;
}

/**
 * hf_pin_get() - look a pin up and take a reference on it.
 * @dev: the card
 * @handle: the GPU handle
 *
 * Return: the pin (release with hf_pin_put()), or NULL when @handle is not
 * pinned on @dev.
 */
struct hf_pin *hf_pin_get(struct hellofpga_dev *dev,
			  HELLOFPGA_GPU_HANDLE handle)
{
	struct hf_pin_slot *s;
	struct hf_pin *pin = NULL;

	pthread_mutex_lock(&dev->pin_lock);
	s = slot_of(dev, handle);
	if (s) {
		pin = s->pin;
		pin->refs++;
	}
	pthread_mutex_unlock(&dev->pin_lock);
	return pin;
}

static void pin_free(struct hf_pin *pin)
{
	pthread_rwlock_destroy(&pin->lock);
	free(pin);
}

/** hf_pin_put() - drop a reference; the last one frees the pin. */
void hf_pin_put(struct hf_pin *pin)
{
	struct hellofpga_dev *dev = pin->dev;
	bool last;

	pthread_mutex_lock(&dev->pin_lock);
	last = !--pin->refs;
	pthread_mutex_unlock(&dev->pin_lock);
	if (last)
		pin_free(pin);
}

/**
 * hf_pin_get_ring() - hf_pin_get() for a stream whose ring lies in the pin:
 * until hf_pin_put_ring(), HelloFPGA_GPUDirect_Unpin() of it is -EBUSY,
 * as the kernel driver's UNPIN of a pin a stream uses is.
 * @dev: the card
 * @handle: the caller's GPU handle (not HelloFPGA_SetGPUBuffer()'s)
 * @out: receives the pin
 * @fn: the API function, for the error text
 *
 * A pin whose GPU memory was freed (revoked: its backend state is gone)
 * holds no ring.
 *
 * Return: 0, -ENOENT (@handle is not a pin of the caller's on @dev) or
 * -ENXIO (its GPU memory was freed), with the error text set.
 */
int hf_pin_get_ring(struct hellofpga_dev *dev, HELLOFPGA_GPU_HANDLE handle,
		    struct hf_pin **out, const char *fn)
{
	struct hf_pin_slot *s;
	struct hf_pin *pin = NULL;
	bool gone = false;

	pthread_mutex_lock(&dev->pin_lock);
	s = slot_of(dev, handle);
	if (s && !s->pin->internal) {
		gone = s->pin->revoking ||
		       __atomic_load_n(&s->pin->revoked, __ATOMIC_ACQUIRE) ||
		       __atomic_load_n(&s->pin->released, __ATOMIC_ACQUIRE);
		if (!gone) {
			pin = s->pin;
			pin->refs++;
			pin->rings++;
		}
	}
	pthread_mutex_unlock(&dev->pin_lock);
	*out = pin;
	if (gone)
		return hf_set_error(dev, -ENXIO,
				    "%s: handle 0x%llx: the GPU memory of the pin was freed",
				    fn, (unsigned long long)handle);
	if (!pin)
		return hf_set_error(dev, -ENOENT, "%s: no pin with handle 0x%llx",
				    fn, (unsigned long long)handle);
	return 0;
}

/**
 * hf_pin_ring_running() - a ring in @pin started (@on), or its engine was
 * proven idle (a stop or a halt): the pin's revocation waits for the
 * running ones before the memory goes.
 */
void hf_pin_ring_running(struct hf_pin *pin, bool on)
{
	pthread_mutex_lock(&pin->dev->pin_lock);
	if (on)
		pin->rings_running++;
	else
		pin->rings_running--;
	pthread_mutex_unlock(&pin->dev->pin_lock);
}

/* How long a revocation waits for the rings in the pin to stop. */
#define PIN_RING_STOP_WAIT_MS	(XDMA_STOP_MAX_DEFAULT_NS / 1000000 + 1000)

/*
 * Stop the rings that lie in @pin before its memory goes: the stream
 * layer halts those of open streams; rings being stopped by a close at
 * this moment (no longer on the card's list) are waited for.  A wedged
 * ring is waited for in vain: the memory then goes under it (the emulated
 * IOMMU keeps the engine out of it: faults, counted).
 */
static void pin_stop_rings(struct hf_pin *pin)
{
	struct hellofpga_dev *dev = pin->dev;
	unsigned int rings, running;

	pthread_mutex_lock(&dev->pin_lock);
	pin->revoking = true;
	rings = pin->rings;
	pthread_mutex_unlock(&dev->pin_lock);
	if (!rings)
		return;
	hf_stream_pin_revoke(dev, pin);
	for (int ms = 0; ms < PIN_RING_STOP_WAIT_MS; ms++) {
		pthread_mutex_lock(&dev->pin_lock);
		running = pin->rings_running;
		pthread_mutex_unlock(&dev->pin_lock);
		if (!running)
			return;
		hf_os_sleep_us(1000);
	}
	hf_os_log("%s: GPU memory %p of handle 0x%llx freed while %u stream ring%s in it did not stop",
		  dev->info.name, pin->gpu, (unsigned long long)pin->handle,
		  running, running == 1 ? "" : "s");
}

/** hf_pin_put_ring() - the stream's ring left the pin: drop its reference. */
void hf_pin_put_ring(struct hf_pin *pin)
{
	pthread_mutex_lock(&pin->dev->pin_lock);
	pin->rings--;
	pthread_mutex_unlock(&pin->dev->pin_lock);
	hf_pin_put(pin);
}

/* Release the backend state once; pin->lock held exclusively. */
static void pin_release_backend(struct hf_pin *pin)
{
	struct hellofpga_dev *dev = pin->dev;

	if (pin->released)
		return;
	dev->ops->gpu_unpin(dev, pin);
	/* atomic: a queued submission looks without the lock (submit.c) */
	__atomic_store_n(&pin->released, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&dev->pin_lock);
	dev->pinned_bytes -= pin->size;
	pthread_mutex_unlock(&dev->pin_lock);
}

/**
 * pin_revoke() - the GPU memory of a pin is being freed (hf_gpu_watch()
 * callback, from the thread that frees it).
 * @arg: the pin
 *
 * Stops the stream rings that lie in the pin (their Waits then return
 * -EIO) and waits for the pin's transfers in flight, then unmaps the
 * memory so the card can no longer reach it; the handle stays in the
 * table and its later transfers fail with -ENXIO until it is unpinned.
 */
static void pin_revoke(void *arg)
{
	struct hf_pin *pin = arg;

	/* before the lock: a stream's start holds its own lock and reads us */
	pin_stop_rings(pin);
	pthread_rwlock_wrlock(&pin->lock);
	if (!pin->released) {
		__atomic_store_n(&pin->revoked, true, __ATOMIC_RELEASE);
		pin_release_backend(pin);
		hf_os_log("%s: GPU memory %p of handle 0x%llx freed while pinned: DMA to it revoked",
			  pin->dev->info.name, pin->gpu,
			  (unsigned long long)pin->handle);
	}
	pthread_rwlock_unlock(&pin->lock);
}

/*
 * End a pin taken out of the table: no revocation callback can run after
 * hf_gpu_unwatch() returns, none of our locks is held while it waits, and
 * the exclusive lock waits for the transfers in flight.
 */
static void pin_teardown(struct hf_pin *pin)
{
	if (pin->watch > 0)
		hf_gpu_unwatch(pin->watch);
	pthread_rwlock_wrlock(&pin->lock);
	pin_release_backend(pin);
	pthread_rwlock_unlock(&pin->lock);
	hf_pin_put(pin);			/* the table's reference */
}

/*
 * HELLOFPGA_PIN_LIMIT: bytes, a size of the one number grammar (README.md,
 * "Numbers"); 0 when unlimited.
 */
static int pin_limit(struct hellofpga_dev *dev, uint64_t *limit,
		     const char *fn)
{
	const char *env = getenv("HELLOFPGA_PIN_LIMIT");
	uint64_t v;

	*limit = 0;
	if (!env || !*env)
		return 0;
	if (hf_parse_number(env, HF_NUM_SIZE, UINT64_MAX, &v))
		return hf_set_error(dev, -EINVAL,
				    "%s: HELLOFPGA_PIN_LIMIT='%.64s' is not a byte count (e.g. 1073741824, 0x40000000 or 1G; README.md, \"Numbers\")",
				    fn, env);
	*limit = v;
	return 0;
}

static int no_backend_support(struct hellofpga_dev *dev, const char *fn)
{
	return hf_set_error(dev, -EOPNOTSUPP,
			    "%s: the %s backend has no GPU Direct", fn,
			    dev->info.backend_name);
}

static int check_pin_args(struct hellofpga_dev *dev, void *gpu, size_t size,
			  const char *fn)
{
	if (!gpu)
		return hf_set_error(dev, -EFAULT,
				    "%s: the GPU buffer address is NULL", fn);
	if (!IS_ALIGNED((uintptr_t)gpu, (uintptr_t)HF_PIN_ALIGN))
		return hf_set_error(dev, -EINVAL,
				    "%s: GPU buffer address %p is not 4096-byte aligned (GPU Direct pins whole 4 KiB pages)",
				    fn, gpu);
	if (!size)
		return hf_set_error(dev, -EINVAL, "%s: size is 0", fn);
	if (!IS_ALIGNED(size, (size_t)HF_PIN_ALIGN))
		return hf_set_error(dev, -EINVAL,
				    "%s: size %zu is not a multiple of 4096 (GPU Direct pins whole 4 KiB pages)",
				    fn, size);
	if ((uintptr_t)gpu + size < (uintptr_t)gpu)
		return hf_set_error(dev, -EINVAL,
				    "%s: GPU buffer %p + size %zu wraps the address space",
				    fn, gpu, size);
	return 0;
}

/* Put @pin in the table; its handle in *@out.  0 or -ENOMEM. */
static int table_insert(struct hellofpga_dev *dev, struct hf_pin *pin,
			HELLOFPGA_GPU_HANDLE *out)
{
	struct hf_pin_slot *s = NULL;
	uint32_t i;

	pthread_mutex_lock(&dev->pin_lock);
	for (i = 0; i < dev->npins; i++) {
		if (!dev->pins[i].pin) {
			s = &dev->pins[i];
			break;
		}
	}
	if (!s) {
		uint32_t n = dev->npins ? 2 * dev->npins : 8;
		struct hf_pin_slot *p = NULL;

		if (n <= UINT32_MAX / 2)
			p = realloc(dev->pins, n * sizeof(*p));
		if (!p) {
			pthread_mutex_unlock(&dev->pin_lock);
			return -ENOMEM;
		}
		memset(p + dev->npins, 0, (n - dev->npins) * sizeof(*p));
		dev->pins = p;
		i = dev->npins;
		dev->npins = n;
		s = &p[i];
	}
	s->pin = pin;
	s->gen = next_generation();
	pin->refs = 1;
	pin->handle = (uint64_t)s->gen << 32 | (i + 1);
	*out = pin->handle;
	pthread_mutex_unlock(&dev->pin_lock);
	return 0;
}

/**
 * pin_buffer() - validate and pin [@gpu, @gpu + @size) on @dev.
 * @dev: an open card (a reference held)
 * @gpu: first byte
 * @size: bytes
 * @internal: for HelloFPGA_SetGPUBuffer()
 * @out: receives the handle
 * @fn: API function name for error texts
 *
 * Return: 0, or negative errno with the error text set.
 */
static int pin_buffer(struct hellofpga_dev *dev, void *gpu, size_t size,
		      bool internal, HELLOFPGA_GPU_HANDLE *out,
		      const char *fn)
{
	pthread_rwlockattr_t attr;
	const struct hf_gpu *g;
	struct hf_gpu_buf gb;
	struct hf_pin *pin;
	uint64_t limit;
	char why[256] = "";
	long watch;
	int ret;

	ret = check_pin_args(dev, gpu, size, fn);
	if (ret)
		return ret;
	if (!dev->ops->gpu_pin || !dev->ops->gpu_unpin || !dev->ops->gpu_xfer)
		return no_backend_support(dev, fn);
	g = hf_gpu_get();
	if (!g || g->kind == HF_GPU_NONE)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: no GPU for GPU Direct: %s", fn,
				    g && g->status.reason[0] ? g->status.reason :
				    "no GPU found");
	if (!g->status.supported)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: GPU Direct is not usable on %s: %s", fn,
				    g->status.name, g->status.reason);
	ret = hf_gpu_query(gpu, size, &gb, why, sizeof(why));
	if (ret)
		return hf_set_error(dev, ret < 0 ? ret : -EINVAL,
				    "%s: [%p, +0x%zx) cannot be pinned: %s", fn,
				    gpu, size, why[0] ? why : "not GPU memory");
	ret = hf_gpu_set_sync_memops(gpu);
	if (ret)
		return hf_set_error(dev, ret,
				    "%s: cannot set SYNC_MEMOPS on the allocation of %p: %s",
				    fn, gpu, hf_last_error(NULL));
	ret = pin_limit(dev, &limit, fn);
	if (ret)
		return ret;

	pin = calloc(1, sizeof(*pin));
	if (!pin)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	pin->dev = dev;
	pin->gpu = gpu;
	pin->size = size;
	pin->alloc_base = gb.alloc_base;
	pin->buffer_id = gb.buffer_id;
	pin->internal = internal;
	/*
	 * Writer-preferring: a revocation (or unpin) waiting for the lock
	 * holds back new transfers, else back-to-back transfers on several
	 * channels would keep it shared for ever.
	 */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&pin->lock, &attr);
	pthread_rwlockattr_destroy(&attr);

	pthread_mutex_lock(&dev->pin_lock);
	if (limit && (dev->pinned_bytes > limit ||
		      size > limit - dev->pinned_bytes)) {
		unsigned long long pinned = dev->pinned_bytes;

		pthread_mutex_unlock(&dev->pin_lock);
		ret = hf_set_error(dev, -ENOMEM,
				   "%s: pinning %zu bytes would exceed HELLOFPGA_PIN_LIMIT (%llu bytes; %llu already pinned on this card)",
				   fn, size, (unsigned long long)limit, pinned);
		pin_free(pin);
		return ret;
	}
	dev->pinned_bytes += size;
	pthread_mutex_unlock(&dev->pin_lock);

	ret = dev->ops->gpu_pin(dev, pin);
	if (ret) {
		pin->released = true;
		pthread_mutex_lock(&dev->pin_lock);
		dev->pinned_bytes -= size;
		pthread_mutex_unlock(&dev->pin_lock);
		pin_free(pin);
		return ret;
	}

	/*
	 * Freeing the memory must revoke the pin.  The emulated GPU calls
	 * back; real CUDA offers no callback in user space, so every
	 * transfer checks the allocation's buffer id instead.
	 */
	watch = hf_gpu_watch(gpu, pin_revoke, pin);
	if (watch > 0) {
		pin->watch = watch;
	} else if (g->kind == HF_GPU_EMU) {
		ret = hf_set_error(dev, watch < 0 ? (int)watch : -EINVAL,
				   "%s: cannot watch the emulated GPU allocation of %p for frees: %s",
				   fn, gpu, hf_last_error(NULL));
		goto undo;
	}

	ret = table_insert(dev, pin, out);
	if (ret) {
		ret = hf_set_error(dev, ret, "%s: out of memory (pin table)",
				   fn);
		goto undo;
	}
	return 0;
undo:
	if (pin->watch > 0)
		hf_gpu_unwatch(pin->watch);
	pthread_rwlock_wrlock(&pin->lock);
	pin_release_backend(pin);
	pthread_rwlock_unlock(&pin->lock);
	pin_free(pin);
	return ret;
}

/*
 * Take @handle out of the table and end it; -ENOENT when not pinned,
 * -EBUSY while a stream's ring lies in it.
 */
static int unpin_handle(struct hellofpga_dev *dev,
			HELLOFPGA_GPU_HANDLE handle, bool internal,
			const char *fn)
{
	struct hf_pin_slot *s;
	struct hf_pin *pin;

	pthread_mutex_lock(&dev->pin_lock);
	s = slot_of(dev, handle);
	if (!s || s->pin->internal != internal) {
		pthread_mutex_unlock(&dev->pin_lock);
		return not_pinned(dev, handle, fn);
	}
	if (s->pin->rings) {
		unsigned int n = s->pin->rings;

		pthread_mutex_unlock(&dev->pin_lock);
		return hf_set_error(dev, -EBUSY,
				    "%s: handle 0x%llx: the ring of %u open stream%s lies in it: close %s first (HelloFPGA_Stream_Close())",
				    fn, (unsigned long long)handle, n,
				    n == 1 ? "" : "s", n == 1 ? "it" : "them");
	}
	pin = s->pin;
	s->pin = NULL;
	pthread_mutex_unlock(&dev->pin_lock);
	pin_teardown(pin);
	return 0;
}

static int gpudirect_pin(HELLOFPGA_HANDLE hDev, void *gpuBuf, size_t size,
			 HELLOFPGA_GPU_HANDLE *handle)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Pin";
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, fn, &dev);

	if (ret)
		return ret;
	if (!handle)
		return hf_dev_put_ret(dev, hf_set_error(dev, -EFAULT,
							"%s: handle is NULL",
							fn));
	return hf_dev_put_ret(dev, pin_buffer(dev, gpuBuf, size, false,
					      handle, fn));
}

int HelloFPGA_GPUDirect_Pin(HELLOFPGA_HANDLE hDev, void *gpuBuf, size_t size,
			    HELLOFPGA_GPU_HANDLE *handle)
{
	return hf_api_ret(HF_API_GPUDIRECT_PIN,
			  gpudirect_pin(hDev, gpuBuf, size, handle));
}

int HelloFPGA_GPUDirect_Unpin(HELLOFPGA_HANDLE hDev,
			      HELLOFPGA_GPU_HANDLE handle)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Unpin";
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, fn, &dev);

	if (ret)
		return ret;
	return hf_dev_put_ret(dev, unpin_handle(dev, handle, false, fn));
}

/**
 * hf_gpudirect_check() - validate a GPU Direct transfer's arguments.
 * @dev: the card (a reference held)
 * @ch: channel of direction @dir
 * @handle: the pinned buffer
 * @off: offset inside it
 * @card: card address
 * @len: bytes
 * @dir: HELLOFPGA_DIR_H2C or HELLOFPGA_DIR_C2H
 * @timeout_ms: engine timeout, <= 0 for the handle's default
 * @xd: receives the direction
 * @pinp: receives a reference of the pin (hf_pin_put()) on success
 * @fn: API function name for error texts
 *
 * Return: 0 or negative errno with the text set (see
 * HelloFPGA_GPUDirect_Xfer()).
 */
int hf_gpudirect_check(struct hellofpga_dev *dev, int ch,
		       HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		       size_t len, int dir, int timeout_ms,
		       enum hf_xdma_dir *xd, struct hf_pin **pinp,
		       const char *fn)
{
	struct hf_pin *pin;
	uint32_t align;
	int nch, ret = 0;

	*pinp = NULL;
	if (dir != HELLOFPGA_DIR_H2C && dir != HELLOFPGA_DIR_C2H)
		return hf_set_error(dev, -EINVAL,
				    "%s: direction %d unknown: use HELLOFPGA_DIR_H2C (%d, GPU -> card) or HELLOFPGA_DIR_C2H (%d, card -> GPU)",
				    fn, dir, HELLOFPGA_DIR_H2C, HELLOFPGA_DIR_C2H);
	*xd = dir == HELLOFPGA_DIR_H2C ? XDMA_H2C : XDMA_C2H;
	ret = hf_stream_card_check(dev, *xd, card, fn);
	if (ret)
		return ret;
	nch = *xd == XDMA_H2C ? dev->info.num_h2c : dev->info.num_c2h;
	if (ch < 0 || ch >= nch)
		return hf_set_error(dev, -ECHRNG,
				    "%s: channel %d out of range: %s has %d %s channel%s (0..%d)",
				    fn, ch, dev->info.name, nch,
				    hf_dir_name(*xd), nch == 1 ? "" : "s",
				    nch - 1);
	if (timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(dev, -EINVAL,
				    "%s: timeout %d ms is above %d ms (<= 0 uses the handle's timeout)",
				    fn, timeout_ms, HF_MAX_TIMEOUT_MS);

	pin = hf_pin_get(dev, handle);
	if (!pin)
		return not_pinned(dev, handle, fn);
	if (!len)
		goto out;	/* a no-op, whatever the range */
	if (off > pin->size || len > pin->size - off) {
		ret = hf_set_error(dev, -EINVAL,
				   "%s: range [0x%zx, 0x%zx) of handle 0x%llx leaves the pinned buffer (0x%zx bytes)",
				   fn, off, off + len < off ? SIZE_MAX : off + len,
				   (unsigned long long)handle, pin->size);
		goto err;
	}
	if (card + len < card) {
		ret = hf_set_error(dev, -EOVERFLOW,
				   "%s: card address 0x%llx + length 0x%zx overflows 64 bits",
				   fn, (unsigned long long)card, len);
		goto err;
	}
	if (!dev->stream &&
	    (card >= dev->info.ddr_size || len > dev->info.ddr_size - card)) {
		ret = hf_set_error(dev, -ERANGE,
				   "%s: card address range [0x%llx, 0x%llx) lies past the end of card memory (0x%llx bytes)",
				   fn, (unsigned long long)card,
				   (unsigned long long)(card + len),
				   (unsigned long long)dev->info.ddr_size);
		goto err;
	}
	align = max(dev->info.addr_align, dev->info.len_granularity);
	if (align > 1 && (!IS_ALIGNED((uint64_t)off, (uint64_t)align) ||
			  !IS_ALIGNED(card, (uint64_t)align) ||
			  !IS_ALIGNED((uint64_t)len, (uint64_t)align))) {
		ret = hf_set_error(dev, -EINVAL,
				   "%s: the engines of %s need %u-byte aligned addresses and lengths; GPU Direct has no bounce buffer: buffer offset 0x%zx, card address 0x%llx and length 0x%zx must be multiples of %u",
				   fn, dev->info.name, align, off,
				   (unsigned long long)card, len, align);
		goto err;
	}
out:
	*pinp = pin;
	return 0;
err:
	hf_pin_put(pin);
	return ret;
}

/**
 * hf_gpudirect_pin_live() - is @pin still the caller's GPU memory, pinned?
 * A look without the pin's lock (the run looks again under it).
 * Return: 0, -ENXIO (its memory was freed), -ENOENT (unpinned), text set.
 */
int hf_gpudirect_pin_live(struct hellofpga_dev *dev, struct hf_pin *pin,
			  HELLOFPGA_GPU_HANDLE handle, const char *fn)
{
	if (__atomic_load_n(&pin->revoked, __ATOMIC_ACQUIRE) ||
	    (pin->watch <= 0 && hf_gpu_check(pin->gpu, pin->buffer_id)))
		return pin_freed(dev, pin, fn);
	if (__atomic_load_n(&pin->released, __ATOMIC_ACQUIRE))
		return not_pinned(dev, handle, fn);
	return 0;
}

/**
 * hf_gpudirect_run() - run a checked GPU Direct transfer.
 * @dev: the card (a reference held, or its submission queue's worker)
 * @pin: the pin, from hf_gpudirect_check()
 * @handle: its handle, for error texts
 * @xd: direction
 * @ch: channel
 * @off: offset inside the pin
 * @card: card address
 * @len: bytes, not 0
 * @timeout_ms: engine timeout, <= 0 for the handle's default
 * @wb: NULL, or where the card's writeback of the run goes (submit.c)
 * @actual: receives the bytes moved
 * @fn: API function name for error texts
 *
 * Takes the channel lock and the pin's lock (shared), finds the pin still
 * the caller's memory, runs and counts.
 *
 * Return: 0 or negative errno with the text set.
 */
int hf_gpudirect_run(struct hellofpga_dev *dev, struct hf_pin *pin,
		     HELLOFPGA_GPU_HANDLE handle, enum hf_xdma_dir xd, int ch,
		     size_t off, uint64_t card, size_t len, int timeout_ms,
		     const struct hf_xfer_wb *wb, size_t *actual,
		     const char *fn)
{
	struct timespec dl;
	size_t done = 0;
	bool ran = false;
	int ret;

	*actual = 0;
	if (pin->watch <= 0) {
		/* No free callback (real CUDA): is it still the allocation? */
		ret = hf_gpu_check(pin->gpu, pin->buffer_id);
		if (ret)
			return pin_freed(dev, pin, fn);
	}
	if (timeout_ms <= 0)
		timeout_ms = __atomic_load_n(&dev->timeout_ms,
					     __ATOMIC_RELAXED);

	hf_deadline_in(&dl, timeout_ms);
	ret = hf_chan_lock(dev, xd, ch, &dl);
	if (ret)
		return ret;
	ret = hf_rwlock_lock_until(&pin->lock, false, &dl);
	if (ret) {
		hf_chan_unlock(dev, xd, ch);
		return hf_set_error(dev, ret,
				    "%s: handle 0x%llx stayed locked by an unpin or a revocation until the timeout; nothing was moved",
				    fn, (unsigned long long)handle);
	}
	if (pin->revoked) {
		ret = pin_freed(dev, pin, fn);
	} else if (pin->released) {
		ret = not_pinned(dev, handle, fn);
	} else {
		ret = dev->ops->gpu_xfer(dev, pin, xd, ch, off, card, len,
					 timeout_ms, &dl, wb, &done);
		ran = true;
	}
	pthread_rwlock_unlock(&pin->lock);
	hf_chan_unlock(dev, xd, ch);

	if (ran) {
		HF_STAT_ADD(dev->stats.bytes[xd], done);
		if (ret < 0) {
			HF_STAT_ADD(dev->stats.errors, 1);
			if (ret == -ETIMEDOUT)
				HF_STAT_ADD(dev->stats.timeouts, 1);
		} else {
			HF_STAT_ADD(dev->stats.transfers, 1);
		}
	}
	*actual = done;
	return ret < 0 ? ret : 0;
}

/**
 * hf_gpudirect_xfer() - move a sub-range of a pinned buffer.
 * @dev: the card (a reference held)
 * @ch: channel of direction @dir
 * @handle: the pinned buffer
 * @off: offset inside it
 * @card: card address
 * @len: bytes; 0 is a no-op
 * @dir: HELLOFPGA_DIR_H2C or HELLOFPGA_DIR_C2H
 * @timeout_ms: engine timeout, <= 0 for the handle's default
 * @actual: receives the bytes moved, may be NULL
 * @fn: API function name for error texts
 *
 * Return: 0 or negative errno (see HelloFPGA_GPUDirect_Xfer()).
 */
int hf_gpudirect_xfer(struct hellofpga_dev *dev, int ch,
		      HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		      size_t len, int dir, int timeout_ms, size_t *actual,
		      const char *fn)
{
	enum hf_xdma_dir xd;
	struct hf_pin *pin;
	size_t done = 0;
	int ret;

	if (actual)
		*actual = 0;
	ret = hf_gpudirect_check(dev, ch, handle, off, card, len, dir,
				 timeout_ms, &xd, &pin, fn);
	if (ret)
		return ret;
	if (len)
		ret = hf_gpudirect_run(dev, pin, handle, xd, ch, off, card, len,
				       timeout_ms, NULL, &done, fn);
	hf_pin_put(pin);
	if (actual)
		*actual = done;
	return ret;
}

static int gpudirect_xfer(HELLOFPGA_HANDLE hDev, int ch,
			  HELLOFPGA_GPU_HANDLE handle, size_t off,
			  uint64_t card, size_t len, int dir, int timeout_ms,
			  size_t *actual, const char *fn)
{
	struct hellofpga_dev *dev;
	int ret;

	if (actual)
		*actual = 0;
	ret = hf_dev_get(hDev, fn, &dev);
	if (ret)
		return ret;
	return hf_dev_put_ret(dev, hf_gpudirect_xfer(dev, ch, handle, off,
						     card, len, dir,
						     timeout_ms, actual, fn));
}

int HelloFPGA_GPUDirect_Xfer(HELLOFPGA_HANDLE hDev, int ch,
			     HELLOFPGA_GPU_HANDLE handle, size_t bufOffset,
			     uint64_t fpgaAddr, size_t size, int dir,
			     int timeout_ms, size_t *actual)
{
	return hf_api_ret(HF_API_GPUDIRECT_XFER,
			  gpudirect_xfer(hDev, ch, handle, bufOffset,
					 fpgaAddr, size, dir, timeout_ms,
					 actual, "HelloFPGA_GPUDirect_Xfer"));
}

int HelloFPGA_GPUDirect_ReadC2H(HELLOFPGA_HANDLE hDev, int ch,
				HELLOFPGA_GPU_HANDLE handle, uint64_t fpgaAddr,
				size_t size, int timeout_ms)
{
	return hf_api_ret(HF_API_GPUDIRECT_READ_C2H,
			  gpudirect_xfer(hDev, ch, handle, 0, fpgaAddr, size,
					 HELLOFPGA_DIR_C2H, timeout_ms, NULL,
					 "HelloFPGA_GPUDirect_ReadC2H"));
}

int HelloFPGA_GPUDirect_WriteH2C(HELLOFPGA_HANDLE hDev, int ch,
				 HELLOFPGA_GPU_HANDLE handle,
				 uint64_t fpgaAddr, size_t size,
				 int timeout_ms)
{
	return hf_api_ret(HF_API_GPUDIRECT_WRITE_H2C,
			  gpudirect_xfer(hDev, ch, handle, 0, fpgaAddr, size,
					 HELLOFPGA_DIR_H2C, timeout_ms, NULL,
					 "HelloFPGA_GPUDirect_WriteH2C"));
}

/**
 * hf_gpudirect_dma_mm() - TransferMode GPU_PINNED dispatch of a DMA_MM call
 * (arguments already validated by the CPU path's checks).
 *
 * Return: 1 when @buf lies wholly outside the registered GPU buffer (the
 * caller takes the CPU path), else the result of the direct transfer: 0 or
 * negative errno, -EINVAL when @buf straddles the registered buffer.
 */
int hf_gpudirect_dma_mm(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			int ch, void *buf, uint64_t card, size_t len,
			size_t *actual, const char *fn)
{
	uintptr_t b = (uintptr_t)buf, base;
	HELLOFPGA_GPU_HANDLE handle;
	size_t size;
	int mode, ret;

	pthread_mutex_lock(&dev->pin_lock);
	mode = dev->xfer_mode;
	base = dev->gbuf;
	size = dev->gbuf_size;
	handle = dev->gbuf_handle;
	pthread_mutex_unlock(&dev->pin_lock);

	if (mode != HELLOFPGA_XFER_MODE_GPU_PINNED || !size ||
	    b + len <= base || b >= base + size)
		return 1;
	if (b < base || b + len > base + size)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffer straddles the registered GPU buffer: [%p, +0x%zx) is partly inside [%p, +0x%zx); it must lie wholly inside it (GPU Direct) or wholly outside (CPU path)",
				    fn, buf, len, (void *)base, size);
	ret = hf_gpudirect_xfer(dev, ch, handle, b - base, card, len,
				dir == XDMA_H2C ? HELLOFPGA_DIR_H2C :
				HELLOFPGA_DIR_C2H, 0, actual, fn);
	/* the internal handle is none of the caller's business */
	if (ret == -ENOENT)
		ret = hf_set_error(dev, -ENOENT,
				   "%s: the GPU buffer [%p, +0x%zx) registered with HelloFPGA_SetGPUBuffer() was replaced or unregistered while this call ran; nothing was moved",
				   fn, (void *)base, size);
	return ret;
}

static int set_gpu_buffer(struct hellofpga_dev *dev, void *gpuAddr,
			  size_t size)
{
	static const char fn[] = "HelloFPGA_SetGPUBuffer";
	HELLOFPGA_GPU_HANDLE nh = 0, old;
	int ret;

	if (gpuAddr) {
		ret = pin_buffer(dev, gpuAddr, size, true, &nh, fn);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&dev->pin_lock);
	old = dev->gbuf_handle;
	dev->gbuf_handle = nh;
	dev->gbuf = (uintptr_t)gpuAddr;
	dev->gbuf_size = gpuAddr ? size : 0;
	if (!gpuAddr)
		__atomic_store_n(&dev->xfer_mode, HELLOFPGA_XFER_MODE_CPU,
				 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->pin_lock);
	/* A transfer racing this finds the old handle gone: -ENOENT. */
	if (old)
		unpin_handle(dev, old, true, fn);
	return 0;
}

int HelloFPGA_SetGPUBuffer(HELLOFPGA_HANDLE hDev, void *gpuAddr, size_t size)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_SetGPUBuffer", &dev);

	if (!ret)
		ret = hf_dev_put_ret(dev, set_gpu_buffer(dev, gpuAddr, size));
	return hf_api_ret(HF_API_SET_GPU_BUFFER, ret);
}

static int set_transfer_mode(struct hellofpga_dev *dev, int mode)
{
	static const char fn[] = "HelloFPGA_SetTransferMode";

	if (mode != HELLOFPGA_XFER_MODE_CPU &&
	    mode != HELLOFPGA_XFER_MODE_GPU_PINNED)
		return hf_set_error(dev, -EINVAL,
				    "%s: mode %d unknown: use HELLOFPGA_XFER_MODE_CPU (%d) or HELLOFPGA_XFER_MODE_GPU_PINNED (%d)",
				    fn, mode, HELLOFPGA_XFER_MODE_CPU,
				    HELLOFPGA_XFER_MODE_GPU_PINNED);
	pthread_mutex_lock(&dev->pin_lock);
	if (mode == HELLOFPGA_XFER_MODE_GPU_PINNED && !dev->gbuf_size) {
		pthread_mutex_unlock(&dev->pin_lock);
		return hf_set_error(dev, -EINVAL,
				    "%s: GPU_PINNED needs a GPU buffer: register one with HelloFPGA_SetGPUBuffer() first",
				    fn);
	}
	__atomic_store_n(&dev->xfer_mode, mode, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->pin_lock);
	return 0;
}

int HelloFPGA_SetTransferMode(HELLOFPGA_HANDLE hDev, int mode)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_SetTransferMode", &dev);

	return ret ? ret : hf_dev_put_ret(dev, set_transfer_mode(dev, mode));
}

/**
 * hf_gpudirect_close() - unpin everything still pinned on @dev (from
 * HelloFPGA_Close(), after the last transfer and before the backend
 * closes).
 */
void hf_gpudirect_close(struct hellofpga_dev *dev)
{
	for (;;) {
		struct hf_pin *pin = NULL;

		pthread_mutex_lock(&dev->pin_lock);
		dev->xfer_mode = HELLOFPGA_XFER_MODE_CPU;
		dev->gbuf = 0;
		dev->gbuf_size = 0;
		dev->gbuf_handle = 0;
		for (uint32_t i = 0; i < dev->npins && !pin; i++) {
			pin = dev->pins[i].pin;
			dev->pins[i].pin = NULL;
		}
		pthread_mutex_unlock(&dev->pin_lock);
		if (!pin)
			break;
		pin_teardown(pin);
	}
}
