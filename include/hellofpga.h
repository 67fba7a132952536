/* SPDX-License-Identifier: MIT */
/*
 * hellofpga.h - libhellofpga, the user-space API of hellofpga: DMA between
 * host memory (and, later, GPU memory) and the memory of a Xilinx XDMA FPGA
 * card.  The names and signatures are those of the HelloFPGA API
 * (libHelloFPGACore.so), so code written against it compiles unchanged.
 *
 * Conventions
 *  - Every int-returning call returns 0 (or a positive count) on success and
 *    a negative errno on failure; HelloFPGA_StrError() names the code and
 *    HelloFPGA_GetLastError() gives the detailed text of the last failure.
 *  - A handle may be used from several threads at once.  Transfers on
 *    different channels run in parallel; transfers on one channel are
 *    serialised, also between processes sharing a card.
 *  - "offset" and "fpgaAddr" are card (AXI) addresses, 0 .. card memory size.
 *
 * Opening a card: HelloFPGA_Open(name, &h)
 *   NULL or ""   the first hardware card (/dev/hellofpga0), or the card named
 *                by the environment variable HELLOFPGA_DEVICE when it is set
 *   "emu", "emu:N"   the emulated card N, in-process (N = 0 when omitted).
 *                Its card memory is shared by every process that opens emu:N
 *                on this machine, as a real card's memory would be.
 *                Options follow after commas, e.g. "emu:1,ddr=256M,h2c=2":
 *                  h2c=1..4, c2h=1..4   channels per direction (default 4)
 *                  ddr=SIZE             card memory, K/M/G suffix (default 2G)
 *                  irq=msix|msi|legacy|poll   completion mode (default msix)
 *                  align=N              engine address alignment and length
 *                                       granularity, 1..128 (default 1)
 *                  private              card memory private to this handle
 *                  sync                 engines run in the calling thread
 *   "/dev/hellofpgaN"   a hardware card through the kernel driver
 */
#ifndef HELLOFPGA_H
#define HELLOFPGA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HELLOFPGA_VERSION_MAJOR 0
#define HELLOFPGA_VERSION_MINOR 1
#define HELLOFPGA_VERSION_PATCH 0

/** An open card. */
typedef struct hellofpga_dev *HELLOFPGA_HANDLE;

/**
 * HelloFPGA_Open() - open a card (see the file comment for names).
 * @name: card name, or NULL / "" for the default card
 * @phDev: receives the handle on success; untouched on failure
 *
 * Return: 0, or -ENODEV when no card is found (the last-error text says how
 * to use the emulated card), -EINVAL for a malformed name, -ENOMEM.
 */
int HelloFPGA_Open(const char *name, HELLOFPGA_HANDLE *phDev);

/**
 * HelloFPGA_Close() - close a card; waits for transfers in flight.
 * Return: 0, or -EBADF for a NULL handle.
 */
int HelloFPGA_Close(HELLOFPGA_HANDLE hDev);

/**
 * HelloFPGA_DMA_MM_ReadC2H() - copy card memory to host memory (C2H).
 * @hDev: card
 * @ch: C2H channel, 0 .. num_c2h - 1
 * @buf: destination, any alignment
 * @offset: card address of the first byte
 * @len: bytes to copy; 0 is a no-op
 * @actual: if not NULL, receives the bytes copied (also on failure)
 *
 * Return: 0, or -EBADF (NULL handle), -EFAULT (NULL @buf), -ECHRNG (no such
 * channel), -ERANGE (range past the end of card memory), -EOVERFLOW
 * (@offset + @len wraps), -ETIMEDOUT (engine timed out and was stopped),
 * -EIO (the engine reported an error), -ENODEV (card gone).
 */
int HelloFPGA_DMA_MM_ReadC2H(HELLOFPGA_HANDLE hDev, int ch, void *buf,
			     uint64_t offset, size_t len, size_t *actual);

/**
 * HelloFPGA_DMA_MM_WriteH2C() - copy host memory to card memory (H2C).
 * Arguments and return values as HelloFPGA_DMA_MM_ReadC2H(), with @ch an
 * H2C channel and @buf the source.  Nothing is written to the card when the
 * arguments are rejected.
 */
int HelloFPGA_DMA_MM_WriteH2C(HELLOFPGA_HANDLE hDev, int ch, const void *buf,
			      uint64_t offset, size_t len, size_t *actual);

/**
 * HelloFPGA_StrError() - short description of an error code.
 * @err: a value returned by this library (negative errno), or 0
 * Return: a static string, e.g. "ECHRNG: channel number out of range".
 */
const char *HelloFPGA_StrError(int err);

/**
 * HelloFPGA_GetLastError() - detailed text of the last failure.
 * @hDev: the handle the failing call used, or NULL for the calling thread's
 *	last failure without a handle (HelloFPGA_Open() and NULL handles)
 * Return: a string valid until the next call on @hDev from this thread;
 * "" when nothing failed.
 */
const char *HelloFPGA_GetLastError(HELLOFPGA_HANDLE hDev);

/**
 * HelloFPGA_SetTimeout() - per-transfer engine timeout of this handle.
 * @timeout_ms: 1 .. 3600000 (default 5000)
 * Return: 0 or -EINVAL.
 */
int HelloFPGA_SetTimeout(HELLOFPGA_HANDLE hDev, int timeout_ms);

#define HELLOFPGA_BACKEND_EMULATED 1
#define HELLOFPGA_BACKEND_KERNEL 2

#define HELLOFPGA_IRQ_POLL 0
#define HELLOFPGA_IRQ_LEGACY 1
#define HELLOFPGA_IRQ_MSI 2
#define HELLOFPGA_IRQ_MSIX 3

/**
 * typedef HELLOFPGA_INFO - what HelloFPGA_GetInfo() reports.
 * @name: the card name as opened ("emu:0", "/dev/hellofpga0")
 * @backend: HELLOFPGA_BACKEND_*
 * @backend_name: "emulated (in-process model)", "kernel driver"
 * @num_h2c: H2C channels
 * @num_c2h: C2H channels
 * @ddr_size: card memory in bytes
 * @ip_version: XDMA IP version byte from the identifier registers
 * @addr_align: engine address alignment in bytes (ALIGNMENTS register)
 * @len_granularity: engine length granularity in bytes
 * @irq_mode: HELLOFPGA_IRQ_* completion mode in use
 * @timeout_ms: per-transfer timeout
 * @lib_version: library version string
 * @driver_version: kernel driver version string ("" for the emulated card)
 */
typedef struct {
	char name[64];
	int backend;
	char backend_name[48];
	int num_h2c;
	int num_c2h;
	uint64_t ddr_size;
	uint32_t ip_version;
	uint32_t addr_align;
	uint32_t len_granularity;
	int irq_mode;
	int timeout_ms;
	char lib_version[16];
	char driver_version[32];
} HELLOFPGA_INFO;

int HelloFPGA_GetInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_INFO *info);

/**
 * typedef HELLOFPGA_COUNTERS - activity of a handle (and of its emulated card).
 * @transfers: completed DMA_MM calls
 * @bytes_h2c: bytes moved host -> card
 * @bytes_c2h: bytes moved card -> host
 * @errors: failed transfers (engine errors and timeouts)
 * @timeouts: transfers that timed out
 * @model_valid: 1 when the fields below come from an emulated card
 * @mmio_reads: register reads the card saw
 * @mmio_writes: register writes the card saw
 * @desc_fetched: descriptors the engines fetched
 * @irqs: interrupts the card raised
 * @wb_writes: poll-mode writebacks the card made
 */
typedef struct {
	uint64_t transfers;
	uint64_t bytes_h2c;
	uint64_t bytes_c2h;
	uint64_t errors;
	uint64_t timeouts;
	int model_valid;
	uint64_t mmio_reads;
	uint64_t mmio_writes;
	uint64_t desc_fetched;
	uint64_t irqs;
	uint64_t wb_writes;
} HELLOFPGA_COUNTERS;

int HelloFPGA_GetCounters(HELLOFPGA_HANDLE hDev, HELLOFPGA_COUNTERS *c);

/**
 * HelloFPGA_UserRead32() / HelloFPGA_UserWrite32() - access a 32-bit
 * register of the user (AXI-Lite) BAR.
 * @offset: byte offset, 4-byte aligned, inside the BAR
 * Return: 0, -EINVAL (unaligned or outside the BAR), -EFAULT (NULL @val).
 */
int HelloFPGA_UserRead32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			 uint32_t *val);
int HelloFPGA_UserWrite32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			  uint32_t val);

/** HelloFPGA_Version() - the library version, "MAJOR.MINOR.PATCH". */
const char *HelloFPGA_Version(void);

#ifdef __cplusplus
}
#endif

#endif /* HELLOFPGA_H */
