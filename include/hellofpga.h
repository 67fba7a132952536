/* SPDX-License-Identifier: MIT */
/*
 * hellofpga.h - libhellofpga, the user-space API of hellofpga: DMA between
 * host or GPU memory (GPUDirect RDMA) and the memory of a Xilinx XDMA FPGA
 * card.  The names and signatures are those of the HelloFPGA API
 * (libHelloFPGACore.so), so code written against it compiles unchanged.
 *
 * Conventions
 *  - Every int-returning call returns 0 (or a positive count) on success and
 *    a negative errno on failure; HelloFPGA_StrError() names the code and
 *    HelloFPGA_GetLastError() gives the detailed text of the last failure.
 *  - A handle may be used from several threads at once.  Transfers on
 *    different channels run in parallel; transfers on one channel are
 *    serialised, also between processes sharing a card.  A call waits for
 *    a busy channel until the handle's timeout (HelloFPGA_SetTimeout(), or
 *    the call's own) and then fails with -EBUSY, having moved nothing.
 *  - Closing a handle waits for its calls in flight; any later use of it
 *    is -EBADF, even after another Open.  A handle does not survive
 *    fork(): in the child it fails with -ECHILD (Close of it only forgets
 *    it); open the card again there.
 *  - "offset" and "fpgaAddr" are card (AXI) addresses, 0 .. card memory size.
 *
 * Opening a card: HelloFPGA_Open(name, &h)
 *   NULL or ""   the first hardware card (/dev/hellofpga0), or the card named
 *                by the environment variable HELLOFPGA_DEVICE when it is set
 *   "emu", "emu:N"   the emulated card N, in-process (N = 0 when omitted).
 *                Its card memory is shared by every process of the user that
 *                opens emu:N, as a real card's memory would be; each user
 *                has cards of their own (state in $HELLOFPGA_EMU_DIR, default
 *                /dev/shm/hellofpga-<uid>, a directory of the user's own).
 *                Options follow after commas, e.g. "emu:1,ddr=256M,h2c=2";
 *                numbers as README.md's "Numbers" (decimal, 0x hex; sizes
 *                with a K/M/G/T suffix; no leading zeros, spaces or signs):
 *                  h2c=1..4, c2h=1..4   channels per direction (default 4)
 *                  ddr=SIZE             card memory, 4K .. 1T (default 2G)
 *                  irq=msix|msi|legacy|poll   completion mode (default msix)
 *                  align=N              engine address alignment and length
 *                                       granularity, 1..128 (default 1)
 *                  private              card memory private to this handle
 *                  sync                 engines run in the calling thread
 *                  st                   AXI-Stream channels (the stream API)
 *                  rtl                  the reference design's user logic is
 *                                       its RTL, simulated by Verilator (the
 *                                       plugin libhf_refdesign_rtl.so;
 *                                       docs/refdesign.md)
 *                  link=genGxW          PCIe link model (off by default):
 *                                       generation 1..5, width 1..16, with
 *                                       mps=BYTES and desc_ns=NS (defaults
 *                                       256 and 1000); docs/benchmarks.md
 *                $HELLOFPGA_EMU_OPTS: options for every emulated card, after
 *                the name's own (so they win), e.g. "rtl"
 *   "/dev/hellofpgaN"   a hardware card through the kernel driver
 */
#ifndef HELLOFPGA_H
#define HELLOFPGA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "hellofpga_version.h"

/**
 * An open card.  A token, not a pointer to anything: a closed handle is
 * never valid again, even when a later Open makes a handle for the same
 * card, and a handle does not survive fork() (the child opens the card
 * again).
 */
typedef struct hellofpga_card *HELLOFPGA_HANDLE;

/**
 * HelloFPGA_Open() - open a card (see the file comment for names).
 * @name: card name, or NULL / "" for the default card
 * @phDev: receives the handle on success; untouched on failure
 *
 * Return: 0, or
 * -EFAULT (@phDev is NULL),
 * -EINVAL (a malformed name or option; or emu:N exists with another ddr=
 * size: the first opener sizes the card, in one step that racing openers
 * wait for; a name without ddr= gets the existing size),
 * -ENODEV (no such card; without a hardware card the last-error text says
 * how to use the emulated card),
 * -ENOENT, -ENOTDIR (emulated card: the state directory,
 * $HELLOFPGA_EMU_DIR, cannot be made: a directory above it does not exist,
 * or is a file; -ENOENT also for "rtl" when the co-simulation plugin is
 * not installed: the library was built without Verilator),
 * -ENOEXEC ("rtl": the plugin found cannot be loaded, or is not one of
 * this version),
 * -EACCES, -EPERM (permission denied: the card's nodes, or the emulated
 * card's files or their directory; -EPERM also when the state directory is
 * a symbolic link, another user's or writable by other users, or a state
 * file in it is a symbolic link or not a regular file of the user's),
 * -ENOSPC (emulated card: its memory, allocated in full when the card is
 * created, or the page of its channel locks in its lock file, does not fit
 * in the state directory's filesystem),
 * -EFBIG (emulated card: its memory exceeds the file size limit, ulimit -f),
 * -ENAMETOOLONG ($HELLOFPGA_EMU_DIR too long),
 * -EMFILE, -ENFILE (too many open files),
 * -EAGAIN (the emulated card's engine threads cannot be started),
 * -ENOMEM (out of memory, or the card memory cannot be mapped),
 * -EPROTO (the kernel driver speaks another ABI major version, or reports
 * a card it cannot have),
 * -EIO (any other failure of a system call on the card's nodes or files;
 * the last-error text names it).
 */
int HelloFPGA_Open(const char *name, HELLOFPGA_HANDLE *phDev);

/**
 * HelloFPGA_Close() - close a card.  At once, calls that start on @hDev
 * fail with -EBADF, and a HelloFPGA_UserIRQ_Wait() blocked on it returns
 * -EBADF; Close then waits for the calls in flight to return before it
 * frees anything (the descriptors of HelloFPGA_UserIRQ_GetFd() among
 * them).  In a fork() child, closing a handle opened
 * before the fork() only forgets it: the parent's card is left alone.
 * Return: 0, or -EBADF (NULL or closed handle, or another thread closes
 * it).
 */
int HelloFPGA_Close(HELLOFPGA_HANDLE hDev);

/**
 * HelloFPGA_DMA_MM_ReadC2H() - copy card memory to host memory (C2H).
 * @hDev: card
 * @ch: C2H channel, 0 .. num_c2h - 1
 * @buf: destination, any alignment
 * @offset: card address of the first byte
 * @len: bytes to copy; 0 is a no-op
 * @actual: if not NULL, receives the bytes copied: @len on success; after
 *	a failure every byte the card may have written, counted from the
 *	start (of @buf for C2H, of the card range for H2C), so bytes past it
 *	are untouched: the descriptors the engine completed (it finishes the
 *	one in progress when stopped), all of the transfer when its engine
 *	could not be stopped (a wedged channel), and through the kernel
 *	driver all of a failed read()/write() (up to 1 GiB), whose partial
 *	progress the driver does not report.  (A hardware engine that stops
 *	on an error may also have written part of the descriptor it stopped
 *	in; the emulated card never does.)
 *
 * Return: 0, or -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @buf; a page of @buf
 * that is not mapped, or not writable here (readable for WriteH2C()), as the
 * kernel driver's pinning finds, and the emulated card checks the same before
 * it moves a byte; or desktop GPU memory outside TransferMode), -ECHRNG (no
 * such channel), -ERANGE (range past the end of card memory), -EOVERFLOW
 * (@offset + @len wraps), -EBUSY (the channel stayed in use by another thread
 * or process for the whole timeout; nothing was moved), -ETIMEDOUT (engine
 * timed out; it was stopped and proven idle before the call returned), -EIO
 * (the engine reported an error; or the channel is wedged: its engine did not
 * stop after an earlier failure, and the channel refuses transfers until it
 * does, see docs/driver-stop.md; or the card recovers from a PCIe error; or
 * any other failure of a system call, named by the last-error text), -ENODEV
 * (card gone), -ENOMEM (no memory for the transfer's descriptors or mappings;
 * kernel driver: the pages of @buf exceed the caller's RLIMIT_MEMLOCK),
 * -EOPNOTSUPP (the card's channels are AXI-Stream: use HelloFPGA_Stream_*). In
 * TransferMode GPU_PINNED, with @buf inside the registered GPU buffer (see
 * HelloFPGA_SetTransferMode()), also -EINVAL (@buf straddles the registered
 * buffer's end, or the card needs aligned GPU Direct transfers), -ENXIO (the
 * registered GPU memory was freed) and -ENOENT (the buffer was replaced or
 * unregistered by a HelloFPGA_SetGPUBuffer() running at the same time).  After
 * a failure the contents of @buf are undefined.
 */
int HelloFPGA_DMA_MM_ReadC2H(HELLOFPGA_HANDLE hDev, int ch, void *buf,
			     uint64_t offset, size_t len, size_t *actual);

/**
 * HelloFPGA_DMA_MM_WriteH2C() - copy host memory to card memory (H2C).
 * Arguments as HelloFPGA_DMA_MM_ReadC2H(), with @ch an H2C channel and
 * @buf the source.  Nothing is written to the card when the arguments are
 * rejected.  On a card whose channels are AXI-Stream, the call sends @buf
 * as one packet to the channel's stream (TLAST on its last byte; @offset
 * must be 0: the stream has no card address), never cut into several.
 * The kernel driver sends packets from ABI 1.4 on (HELLOFPGA_FEAT_STREAM_H2C;
 * each at most 64 MiB - 4 KiB, HELLOFPGA_STREAM_H2C_MAX of its ABI); an
 * older driver refuses them: -EOPNOTSUPP.
 * Return: as HelloFPGA_DMA_MM_ReadC2H(); on an AXI-Stream card not
 * -EOPNOTSUPP (but with a kernel driver older than ABI 1.4) nor -ERANGE
 * but -EINVAL for an @offset other than 0, or for an unaligned @buf or
 * @len on a card that needs alignment (a packet has no bounce buffer), and
 * -EMSGSIZE (kernel driver: a packet longer than 64 MiB - 4 KiB, which it
 * does not cut; nothing was sent).
 */
int HelloFPGA_DMA_MM_WriteH2C(HELLOFPGA_HANDLE hDev, int ch, const void *buf,
			      uint64_t offset, size_t len, size_t *actual);

/**
 * HelloFPGA_StrError() - short description of an error code.
 * @err: a value returned by this library (negative errno), or 0; any int
 * Return: a static string: the errno's name and meaning for every errno of
 * Linux, e.g. "ECHRNG: channel number out of range"; "success" for 0; a
 * text saying it is not an error code for a positive value or one below
 * -4095, or that no errno has this value.  Never NULL; thread-safe.
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
 * HelloFPGA_SetTimeout() - per-transfer engine timeout of this handle, and
 * how long a transfer waits for a busy channel.
 * @timeout_ms: 1 .. 3600000 (default 5000; through the kernel driver the
 *	driver's timeout_ms parameter).  Through the kernel driver it bounds
 *	each run of a host-memory transfer (the driver pins and moves host
 *	memory 1024 pages at a time) and needs a driver of ABI 1.2 or later;
 *	older drivers use their timeout_ms parameter there.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EINVAL (@timeout_ms out of range).
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
 * @abi_version: ioctl ABI version of the kernel driver, major << 16 | minor
 *	(0 for the emulated card)
 * @features: the kernel driver's feature bits, HELLOFPGA_FEAT_* of
 *	<uapi/hellofpga.h> (0 for the emulated card)
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
	uint32_t abi_version;
	uint64_t features;
} HELLOFPGA_INFO;

/**
 * HelloFPGA_GetInfo() - what the card is and how it is used.
 * @info: receives it
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @info).
 */
int HelloFPGA_GetInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_INFO *info);

/**
 * typedef HELLOFPGA_PCI_INFO - where the card sits on PCI, and its user BAR;
 *	what HelloFPGA_GetPCIInfo() reports.
 * @valid: 1 when the PCI fields come from the kernel driver, 0 for the
 *	emulated card (they are 0 then)
 * @domain: PCI domain (segment), 32 bits (VMD domains lie above 0xffff)
 * @bus: bus number
 * @device: device (slot) number, 0..31
 * @function: function number, 0..7
 * @vendor_id: PCI vendor ID
 * @device_id: PCI device ID
 * @user_bar_size: size of the user BAR in bytes, 0 when the card has none
 *	(drivers of ABI 1.0 report at most 0xffffffff, and 16-bit domains)
 * @reserved: 0
 */
typedef struct {
	int valid;
	uint32_t domain;
	uint32_t bus;
	uint32_t device;
	uint32_t function;
	uint32_t vendor_id;
	uint32_t device_id;
	uint64_t user_bar_size;
	uint32_t reserved[8];
} HELLOFPGA_PCI_INFO;

/**
 * HelloFPGA_GetPCIInfo() - the card's PCI address and IDs and its user BAR
 * size.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @pci).
 */
int HelloFPGA_GetPCIInfo(HELLOFPGA_HANDLE hDev, HELLOFPGA_PCI_INFO *pci);

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

/**
 * HelloFPGA_GetCounters() - the handle's (and its emulated card's) counters.
 * @c: receives them
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @c).
 */
int HelloFPGA_GetCounters(HELLOFPGA_HANDLE hDev, HELLOFPGA_COUNTERS *c);

/**
 * typedef HELLOFPGA_DMA_FAULTS - DMA of the card that the IOMMU refused.
 * @faults: the card's DMA accesses to a bus address that is not mapped,
 *	or no longer, or without the permission for the access (each access
 *	counts once)
 * @last_fault_bus: bus address of the last of them
 * @dma_errors: the card's own count of its DMA accesses that failed
 *
 * A correct driver and library make none: a fault means the card was given
 * memory that was not (or no longer) its own, for example a buffer unmapped
 * while an engine still wrote to it.
 */
typedef struct {
	uint64_t faults;
	uint64_t last_fault_bus;
	uint64_t dma_errors;
} HELLOFPGA_DMA_FAULTS;

/**
 * HelloFPGA_GetDMAFaults() - DMA faults since the card was opened (an
 * emulated card: its in-process IOMMU's record).  New in library ABI 1.1
 * (symbol version HELLOFPGA_1.1); HELLOFPGA_COUNTERS is unchanged.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @f), -EOPNOTSUPP when
 * the backend does not see them (the kernel driver: the IOMMU reports its
 * faults in the kernel log).
 */
int HelloFPGA_GetDMAFaults(HELLOFPGA_HANDLE hDev, HELLOFPGA_DMA_FAULTS *f);

/**
 * typedef HELLOFPGA_LINK_MODEL - the PCIe link an emulated card models
 *	(its link=, mps= and desc_ns= options); what HelloFPGA_GetLinkModel()
 *	reports.
 * @enabled: 1 when the card models a link, else 0 and the rest 0 or ""
 *	(no link model, or a real card on a real link)
 * @gen: PCIe generation, 1..5
 * @lanes: link width, 1..16
 * @mps: max payload size in bytes
 * @desc_ns: the time the model adds per descriptor
 * @gbps: the link's payload rate in GB/s (10^9 bytes/s): the model gives a
 *	descriptor of N bytes desc_ns + N / gbps nanoseconds
 * @text: e.g. "PCIe Gen3 x8, MPS 256, 1000 ns/descriptor (7.31 GB/s)"
 */
typedef struct {
	int enabled;
	uint32_t gen;
	uint32_t lanes;
	uint32_t mps;
	uint64_t desc_ns;
	double gbps;
	char text[96];
} HELLOFPGA_LINK_MODEL;

/**
 * HelloFPGA_GetLinkModel() - the link model of the card.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @lm).
 */
int HelloFPGA_GetLinkModel(HELLOFPGA_HANDLE hDev, HELLOFPGA_LINK_MODEL *lm);

/* ------------------------------------------------------------------------
 * The user BAR and the reference design.  The user BAR (AXI-Lite) holds
 * the registers of the card's own design.  The hellofpga reference design's
 * are <hf_user_regs.h> (refdesign/ of the source tree); it identifies
 * itself with HF_USER_ID (offset 0x0) reading HF_USER_ID_VALUE, 0x48465047
 * ("HFPG").  The emulated card runs it.  The library writes no user
 * register of any design on its own, and reads only these:
 *  - HelloFPGA_Stream_Open() reads HF_USER_ID, once.  On the reference
 *    design the stream then reads its source's DROPPED and SENT counters
 *    (HELLOFPGA_FRAME.dropped, HELLOFPGA_STREAM_STATS.source_dropped and
 *    .source_sent), which stay 0 on another design.  A stream takes the
 *    frames of any design as they come.
 *  - Through the kernel driver, the card memory size (HELLOFPGA_INFO
 *    .ddr_size, the bound of card addresses) is HF_USER_DDR_SIZE_MB of a
 *    card that identifies as the reference design, else the driver's
 *    ddr_size parameter, or 2 GiB.
 * Whatever writes the reference design's registers (its stream sources,
 * HF_USER_IRQ_SET / HF_USER_IRQ_PULSE) should read HF_USER_ID first: the
 * hellofpga tool's commands that do (stream but stream --raw, events
 * --raise, the bench's stream and gpuwait sections) refuse another design
 * with EOPNOTSUPP and "the card's user BAR does not identify as the
 * hellofpga reference design" (docs/cli.md, "Which commands need the
 * reference design").
 * ------------------------------------------------------------------------ */

/**
 * HelloFPGA_UserRead32() - read a 32-bit register of the user (AXI-Lite)
 * BAR.
 * @offset: byte offset, 4-byte aligned, inside the BAR
 * @val: receives the value
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EINVAL (unaligned or outside the
 * BAR), -EFAULT (NULL @val), -ENODEV (card gone), -EIO (kernel driver: the
 * access failed; the last-error text says why).
 */
int HelloFPGA_UserRead32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			 uint32_t *val);

/**
 * HelloFPGA_UserWrite32() - write a 32-bit register of the user BAR.
 * @offset: byte offset, 4-byte aligned, inside the BAR
 * @val: the value
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EINVAL (unaligned or outside the
 * BAR), -ENODEV (card gone), -EIO (kernel driver: the access failed; the
 * last-error text says why).
 */
int HelloFPGA_UserWrite32(HELLOFPGA_HANDLE hDev, uint32_t offset,
			  uint32_t val);

/* ------------------------------------------------------------------------
 * User interrupts: the usr_irq_req[0..15] lines of the XDMA IP, raised by
 * the user logic of the card.  New in library ABI 1.2 (symbol version
 * HELLOFPGA_1.2).
 *
 *	HelloFPGA_UserIRQ_Wait(hDev, 3, 1000, &count);   wait up to 1 s
 *
 * Semantics (the same on the emulated card and through the kernel driver,
 * whose /dev/hellofpgaN_events_U nodes the kernel backend uses):
 *  - A handle arms user interrupt U at its first HelloFPGA_UserIRQ_Wait()
 *    or HelloFPGA_UserIRQ_GetFd() for U: that enables U in the card's IRQ
 *    block.  A request still held then is delivered at once; earlier ones
 *    are not seen on the emulated card.  (The kernel driver keeps U
 *    enabled once any process armed it, and counts for the next taker.)
 *  - The request is a level that the user logic holds.  A delivery masks
 *    U in the IRQ block until it is taken, so a held request neither
 *    storms nor is lost: taking the count (a Wait that returns 0) enables
 *    U again, and a request still held then is delivered again at once.
 *    Requests raised and dropped between a delivery and its take coalesce
 *    into it.  A request still held at a take is delivered again at each
 *    take, so whoever raised it must drop it once served (HF_USER_IRQ_CLEAR
 *    on the reference design); a waiter that takes faster than a request is
 *    held (a pulse that another process writes as two register writes)
 *    can see it more than once.
 *  - The count a Wait returns is the number of deliveries since the last
 *    take, at least 1.  With the masking above it is 1 on the emulated
 *    card, and mostly 1 on a real one (a second pulse that comes before
 *    the interrupt handler masked the first is a delivery of its own):
 *    count it as "one or more".
 *  - On the reference design (and the emulated card) software raises U by
 *    writing 1 << U to HF_USER_IRQ_SET (0x000c of the user BAR, see
 *    <hf_user_regs.h>) with HelloFPGA_UserWrite32() and drops it by
 *    writing it to HF_USER_IRQ_CLEAR (0x0010); "hellofpga events --raise U"
 *    does both.  An emulated card's registers are those of the process
 *    that opened it, so raise and wait in the same process there.
 *  - Through the kernel driver the count is the card's: every handle and
 *    process waiting on U of one card shares it, and the first to take it
 *    gets it (as reading the events node does).
 *  - An emulated card opened with irq=poll, and a card that the kernel
 *    driver runs without interrupt vectors, have no user interrupts:
 *    -EOPNOTSUPP.  (The driver's poll_mode=1 polls the engines and keeps
 *    the user interrupts.)
 *  - Close wakes a Wait blocked on the handle in another thread; it
 *    returns -EBADF.
 * ------------------------------------------------------------------------ */

#define HELLOFPGA_USER_IRQS 16

/**
 * HelloFPGA_UserIRQ_Wait() - wait for user interrupt @irq and take its count.
 * @hDev: card
 * @irq: user interrupt, 0 .. HELLOFPGA_USER_IRQS - 1
 * @timeout_ms: how long to wait: < 0 without end, 0 not at all (take a
 *	count that is there), else milliseconds
 * @count: receives the deliveries since the last take (at least 1) on
 *	success; untouched on failure
 *
 * The first call for @irq on @hDev arms it (see above).  Several threads
 * may wait for one @irq: one of them takes each count.
 *
 * Return: 0, -EBADF (NULL or closed handle; or another thread closed it
 * while this call waited), -ECHILD (the handle was opened before fork():
 * see HELLOFPGA_HANDLE), -EFAULT (NULL @count), -EINVAL (@irq out of range),
 * -ETIMEDOUT (no interrupt within @timeout_ms; at once for 0), -EINTR (a
 * signal handler ran while the call waited), -EOPNOTSUPP (the card has no
 * user interrupts: poll mode, or a driver without events nodes), -ENODEV
 * (card gone), -EMFILE, -ENFILE (too many open files, at arming), -EACCES,
 * -EPERM (kernel driver: the events node may not be opened), -EIO (any
 * other failure of a system call; the last-error text names it).
 */
int HelloFPGA_UserIRQ_Wait(HELLOFPGA_HANDLE hDev, int irq, int timeout_ms,
			   uint32_t *count);

/**
 * HelloFPGA_UserIRQ_GetFd() - a file descriptor to poll for user interrupt
 * @irq, for poll(), select() or epoll alongside other descriptors.
 * @hDev: card
 * @irq: user interrupt, 0 .. HELLOFPGA_USER_IRQS - 1
 * @fd: receives the descriptor; untouched on failure
 *
 * Arms @irq as the first Wait would.  The descriptor is readable (POLLIN)
 * while a delivery of @irq waits to be taken; take it with
 * HelloFPGA_UserIRQ_Wait(hDev, irq, 0, &count), which makes it unreadable
 * again.  Do not read() it (what a read returns differs between backends)
 * and do not close it: it belongs to @hDev, every call for @irq returns the
 * same one, and HelloFPGA_Close() closes it (remove it from an epoll set
 * first).  Through the kernel driver it also reports POLLHUP | POLLERR when
 * the card is gone.  It is opened O_CLOEXEC and is not for a fork() child.
 *
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @fd), -EINVAL (@irq
 * out of range), -EOPNOTSUPP, -ENODEV, -EMFILE, -ENFILE, -EACCES, -EPERM,
 * -EIO: as for HelloFPGA_UserIRQ_Wait().
 */
int HelloFPGA_UserIRQ_GetFd(HELLOFPGA_HANDLE hDev, int irq, int *fd);

/* ------------------------------------------------------------------------
 * GPU Direct: card <-> GPU memory with no bounce through host memory.
 *
 *	cudaMalloc(&gpuBuf, size);                              1. allocate
 *	HelloFPGA_GPUDirect_Pin(hDev, gpuBuf, size, &handle);   2. pin once
 *	HelloFPGA_GPUDirect_ReadC2H(hDev, ch, handle, fpgaAddr, size, timeout);
 *	HelloFPGA_GPUDirect_WriteH2C(hDev, ch, handle, fpgaAddr, size, timeout);
 *	HelloFPGA_GPUDirect_Unpin(hDev, handle);                 4. release
 *
 * GPU memory is cudaMalloc memory on a desktop GPU and cudaHostAlloc memory
 * on Tegra (Jetson); HelloFPGA_GetGPUStatus() says which.  Address and size
 * must be 4096-byte aligned.  Pin once and reuse the handle: a transfer on a
 * pinned handle allocates nothing.  Pins end with Unpin or Close.
 *
 * CUDA is loaded at run time (libcuda.so.1); nothing links against it.
 * Without CUDA the library offers an emulated GPU (HELLOFPGA_GPU=emu, or
 * emu-tegra for an integrated one), so every call also works in CI;
 * HELLOFPGA_GPU=cuda insists on a real GPU, =none disables GPU support.
 * ------------------------------------------------------------------------ */

/** A pinned GPU buffer; 0 is never a valid handle. */
typedef uint64_t HELLOFPGA_GPU_HANDLE;

#define HELLOFPGA_XFER_MODE_CPU 0
#define HELLOFPGA_XFER_MODE_GPU_PINNED 1

#define HELLOFPGA_PLATFORM_NONE 0
#define HELLOFPGA_PLATFORM_TEGRA 1
#define HELLOFPGA_PLATFORM_DESKTOP 2

#define HELLOFPGA_DIR_H2C 0	/* GPU -> card */
#define HELLOFPGA_DIR_C2H 1	/* card -> GPU */

/**
 * typedef HELLOFPGA_GPU_STATUS - what HelloFPGA_GetGPUStatus() reports.
 * @platform: HELLOFPGA_PLATFORM_NONE (0), _TEGRA (1, memory from
 *	cudaHostAlloc) or _DESKTOP (2, memory from cudaMalloc)
 * @supported: 1 when GPU Direct is usable
 * @emulated: 1 for the library's emulated GPU, 0 for a real one
 * @device: CUDA device ordinal in use
 * @name: GPU name ("NVIDIA H200", "emulated desktop GPU")
 * @pci_bus_id: "0000:19:00.0", "" when unknown
 * @reason: why GPU Direct is not usable, "" when it is
 * @cuda_driver_version: e.g. 13000 for CUDA 13.0, 0 without CUDA
 * @rdma_supported: the device's GPU_DIRECT_RDMA_SUPPORTED attribute, -1
 *	unknown
 * @dmabuf_supported: the device's DMA_BUF_SUPPORTED attribute, -1 unknown
 * @page_size: GPU page size pins are made of (65536 desktop, 4096 Tegra)
 */
typedef struct {
	int platform;
	int supported;
	int emulated;
	int device;
	char name[96];
	char pci_bus_id[32];
	char reason[192];
	int cuda_driver_version;
	int rdma_supported;
	int dmabuf_supported;
	uint32_t page_size;
} HELLOFPGA_GPU_STATUS;

/**
 * HelloFPGA_GetGPUStatus() - detect the GPU platform and GPU Direct support.
 * Return: 0 (also when there is no GPU: platform 0, supported 0, reason
 * says why), or -EFAULT for a NULL @status.
 */
int HelloFPGA_GetGPUStatus(HELLOFPGA_GPU_STATUS *status);

/**
 * HelloFPGA_GPUDirect_Pin() - pin GPU memory for DMA by the card.
 * @gpuBuf: start, 4096-byte aligned, GPU memory of one allocation
 * @size: bytes, a multiple of 4096
 * @handle: receives the handle
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EFAULT (NULL @gpuBuf or @handle),
 * -EINVAL (unaligned, not GPU memory, crosses allocations; a malformed
 * HELLOFPGA_PIN_LIMIT), -EOPNOTSUPP (no GPU Direct on this platform/backend),
 * -ENOMEM (no memory; HELLOFPGA_PIN_LIMIT reached; kernel driver: the card's
 * pin limit, or the caller's RLIMIT_MEMLOCK for host memory and descriptor
 * storage), -ENOSPC (kernel driver: the handle holds the most pins one open
 * file may, parameter max_pins), -ENODEV (card gone), -EIO (any other failure
 * of CUDA, the driver or a system call; the last-error text names it).
 */
int HelloFPGA_GPUDirect_Pin(HELLOFPGA_HANDLE hDev, void *gpuBuf, size_t size,
			    HELLOFPGA_GPU_HANDLE *handle);

/**
 * HelloFPGA_GPUDirect_ReadC2H() - card memory -> pinned GPU buffer.
 * Moves @size bytes from card address @fpgaAddr to the start of the buffer.
 * @timeout_ms: engine timeout, or <= 0 for the handle's default
 * Return: 0, or -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -ECHRNG (no such channel), -ENOENT
 * (unknown or unpinned handle), -ENXIO (the GPU memory was freed, also while
 * the transfer ran: it was cancelled), -EINVAL (@size larger than the buffer;
 * @timeout_ms above 3600000; an aligned card and an unaligned range: GPU
 * Direct has no bounce buffer), -ERANGE (range past the end of card memory),
 * -EOVERFLOW (@fpgaAddr + @size wraps), -EBUSY (the channel, or the pin,
 * stayed in use by another thread or process until the timeout; nothing was
 * moved), -ETIMEDOUT (engine timed out), -EIO (the engine reported an error,
 * the channel is wedged, or any other failure of the driver; see
 * HelloFPGA_DMA_MM_ReadC2H()), -ENODEV (card gone), -ENOMEM (kernel driver:
 * the descriptor storage of the transfer exceeds the pinner's RLIMIT_MEMLOCK),
 * -EOPNOTSUPP (an AXI-Stream card: use HelloFPGA_Stream_*; H2C writes send
 * packets, see HelloFPGA_GPUDirect_WriteH2C()).
 */
int HelloFPGA_GPUDirect_ReadC2H(HELLOFPGA_HANDLE hDev, int ch,
				HELLOFPGA_GPU_HANDLE handle, uint64_t fpgaAddr,
				size_t size, int timeout_ms);

/**
 * HelloFPGA_GPUDirect_WriteH2C() - pinned GPU buffer -> card memory.  On
 * an AXI-Stream card: the buffer's first @size bytes as one packet to the
 * H2C channel's stream (TLAST at its end), @fpgaAddr 0; through the kernel
 * driver as HelloFPGA_DMA_MM_WriteH2C() says (ABI 1.4 and later).
 * Return: as HelloFPGA_GPUDirect_ReadC2H(); on an AXI-Stream card not
 * -EOPNOTSUPP (but with a kernel driver older than ABI 1.4) nor -ERANGE
 * but -EINVAL for an @fpgaAddr other than 0, and -EMSGSIZE (kernel
 * driver: a packet longer than 64 MiB - 4 KiB; nothing was sent).
 */
int HelloFPGA_GPUDirect_WriteH2C(HELLOFPGA_HANDLE hDev, int ch,
				 HELLOFPGA_GPU_HANDLE handle,
				 uint64_t fpgaAddr, size_t size,
				 int timeout_ms);

/**
 * HelloFPGA_GPUDirect_Xfer() - move a sub-range of a pinned buffer, for
 * rings of buffers and frames inside one large buffer.
 * @bufOffset: offset inside the pinned buffer
 * @dir: HELLOFPGA_DIR_H2C (GPU -> card) or HELLOFPGA_DIR_C2H (card -> GPU)
 * @actual: if not NULL, receives the bytes moved; after a failure every
 *	byte the card may have written, as for HelloFPGA_DMA_MM_ReadC2H()
 * Return: as HelloFPGA_GPUDirect_ReadC2H(); -EINVAL also when the sub-range
 * leaves the buffer or @dir is neither direction.  On an AXI-Stream card,
 * H2C only, as HelloFPGA_GPUDirect_WriteH2C().
 */
int HelloFPGA_GPUDirect_Xfer(HELLOFPGA_HANDLE hDev, int ch,
			     HELLOFPGA_GPU_HANDLE handle, size_t bufOffset,
			     uint64_t fpgaAddr, size_t size, int dir,
			     int timeout_ms, size_t *actual);

/**
 * HelloFPGA_GPUDirect_Unpin() - release a pinned buffer; waits for its
 * transfers in flight.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -ENOENT (unknown or already unpinned),
 * -EBUSY (the ring of an open stream lies in it, HELLOFPGA_STREAM_CONFIG.gpu:
 * close the stream first; the kernel driver refuses it the same way).
 */
int HelloFPGA_GPUDirect_Unpin(HELLOFPGA_HANDLE hDev,
			      HELLOFPGA_GPU_HANDLE handle);

/**
 * HelloFPGA_SetGPUBuffer() - register (pin) the GPU buffer TransferMode uses;
 * replaces the previous one.  NULL / 0 unregisters it (and returns the
 * handle to CPU mode).  Same rules as HelloFPGA_GPUDirect_Pin().
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EINVAL, -EOPNOTSUPP, -ENOMEM,
 * -ENOSPC, -ENODEV, -EIO: what HelloFPGA_GPUDirect_Pin() returns them for.
 */
int HelloFPGA_SetGPUBuffer(HELLOFPGA_HANDLE hDev, void *gpuAddr, size_t size);

/**
 * HelloFPGA_SetTransferMode() - HELLOFPGA_XFER_MODE_CPU (default) or
 * HELLOFPGA_XFER_MODE_GPU_PINNED.  In GPU_PINNED mode a DMA_MM call whose
 * buffer lies inside the registered GPU buffer moves card <-> GPU directly;
 * any other buffer takes the CPU path as before.
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork(): see HELLOFPGA_HANDLE), -EINVAL (unknown mode, or GPU_PINNED
 * with no GPU buffer).
 */
int HelloFPGA_SetTransferMode(HELLOFPGA_HANDLE hDev, int mode);

#define HELLOFPGA_MEMCPY_HOST_TO_GPU 1
#define HELLOFPGA_MEMCPY_GPU_TO_HOST 2

/*
 * HelloFPGA_GPU_Alloc() / HelloFPGA_GPU_Free() / HelloFPGA_GPU_Memcpy():
 * GPU memory for programs that must run with or without CUDA (tests,
 * tools): device memory on a desktop GPU, pinned host memory on Tegra,
 * the emulated GPU's memory without CUDA.  They keep their error text per
 * thread (HelloFPGA_GetLastError(NULL)).
 */

/**
 * HelloFPGA_GPU_Alloc() - allocate GPU memory, aligned to the GPU page.
 * @ptr: receives the address (NULL on failure)
 * @size: bytes, not 0
 * Return: 0, -EFAULT (NULL @ptr), -EINVAL (@size 0, or CUDA refuses it),
 * -ENODEV (no GPU), -ENOMEM, -EOPNOTSUPP (CUDA: not supported), -EIO (any
 * other failure of CUDA).
 */
int HelloFPGA_GPU_Alloc(void **ptr, size_t size);

/**
 * HelloFPGA_GPU_Free() - free what HelloFPGA_GPU_Alloc() returned; pins of
 * it are revoked first.  NULL is a no-op.
 * Return: 0, -EINVAL (not an address HelloFPGA_GPU_Alloc() returned),
 * -ENODEV (no GPU), -EIO (a failure of CUDA).
 */
int HelloFPGA_GPU_Free(void *ptr);

/**
 * HelloFPGA_GPU_Memcpy() - copy between host memory and GPU memory.
 * @kind: HELLOFPGA_MEMCPY_HOST_TO_GPU or HELLOFPGA_MEMCPY_GPU_TO_HOST
 * Return: 0, -EFAULT (NULL @dst or @src), -EINVAL (unknown @kind, or the GPU
 * side is not inside one GPU allocation), -ENODEV (no GPU), -ENOMEM,
 * -EOPNOTSUPP (CUDA: not supported), -EIO (any other failure of CUDA).
 */
int HelloFPGA_GPU_Memcpy(void *dst, const void *src, size_t size, int kind);

/*
 * AXI-Stream (a card whose channels are AXI-Stream: the emulated card's
 * "st" option).  A C2H stream is a ring of equal buffers in host memory or
 * in a GPU Direct pin that the card's C2H channel fills for ever, in
 * descriptor credit mode: HelloFPGA_Stream_Wait() hands the next filled
 * buffer to the caller, who owns it until HelloFPGA_Stream_Release(); with
 * every buffer held the card has nowhere to write and its source stalls or
 * drops.  A frame (one AXI-Stream packet, ended by TLAST) shorter than a
 * buffer fills one buffer, HELLOFPGA_FRAME_EOP set; a longer one spans
 * consecutive buffers, HELLOFPGA_FRAME_EOP on the last.  The reference
 * design's source and frame format: docs/xdma-model.md "AXI-Stream".
 * H2C: HelloFPGA_DMA_MM_WriteH2C() and HelloFPGA_GPUDirect_WriteH2C() send
 * one packet per call (the reference design's sink checks each against the
 * same format and counts it in the user BAR).
 *
 * One stream per C2H channel of a handle.  Wait and Release may be called
 * from different threads (Waits of one stream run one at a time).
 * HelloFPGA_Close() of the handle stops its streams first (a Wait blocked
 * in another thread returns -EBADF) and frees their rings; the stream
 * objects stay until HelloFPGA_Stream_Close(), and every other call on
 * them returns -EBADF.  A HELLOFPGA_STREAM is a checked name, not the
 * address of an object: a stream already closed, or a value no Open
 * returned, is -EBADF in every call.  A stream does not survive fork():
 * in the child its calls return -ECHILD, as the handle's do.
 */
typedef struct hellofpga_stream *HELLOFPGA_STREAM;

#define HELLOFPGA_STREAM_MAX_BUFFERS	512
#define HELLOFPGA_STREAM_MIN_BUFFERS	2
/* HELLOFPGA_FRAME.flags: this buffer ends a frame (TLAST). */
#define HELLOFPGA_FRAME_EOP		0x1u

/**
 * typedef HELLOFPGA_STREAM_CONFIG - what HelloFPGA_Stream_Open() sets up.
 * @channel: the C2H channel
 * @buffers: ring buffers, HELLOFPGA_STREAM_MIN_BUFFERS..
 *	HELLOFPGA_STREAM_MAX_BUFFERS
 * @buffer_size: bytes per buffer, a multiple of 4096, at most 256 MiB - 4 KiB
 * @host: NULL: the library allocates the ring in host memory (the kernel
 *	driver: its own buffers, mapped read-only, at most 4 MiB each, or
 *	what the DMA layer maps in one piece); else the ring in the
 *	caller's memory, 4 KiB aligned, @buffers * @buffer_size bytes,
 *	readable and writable, kept until HelloFPGA_Stream_Close() (the
 *	kernel driver pins it: each buffer must be contiguous in bus
 *	addresses, which 4096-byte buffers always are; unmapped earlier, on
 *	the emulated card the card's next write into it faults and stops the
 *	stream: Wait returns -EIO)
 * @gpu: 0, or a GPU Direct pin (HelloFPGA_GPUDirect_Pin()) the ring is in
 *	(then @host is NULL); the pin must stay pinned while the stream is
 *	open (HelloFPGA_GPUDirect_Unpin() refuses it; should the GPU memory be
 *	freed anyway, the ring is stopped first, by the kernel driver or on
 *	the emulated card by the library, and Wait returns -EIO)
 * @gpu_offset: offset of the ring in the pin, a multiple of 4096
 * @flags: 0 (no flag is defined yet)
 * @reserved: 0
 */
typedef struct {
	int channel;
	uint32_t buffers;
	size_t buffer_size;
	void *host;
	HELLOFPGA_GPU_HANDLE gpu;
	uint64_t gpu_offset;
	uint32_t flags;
	uint32_t reserved[7];
} HELLOFPGA_STREAM_CONFIG;

/**
 * typedef HELLOFPGA_FRAME - one filled buffer, from HelloFPGA_Stream_Wait().
 * @index: buffer index, 0..buffers-1: pass it to HelloFPGA_Stream_Release()
 * @flags: HELLOFPGA_FRAME_EOP when this buffer ends a frame
 * @length: bytes in the buffer
 * @sequence: buffers completed on the stream before this one
 * @frame: frames (EOPs) completed on the stream before this one
 * @dropped: frames the card's source dropped since the previous Wait (the
 *	reference design: its DROPPED counter, read at each EOP buffer), 0
 *	where unknown
 * @timestamp_ns: CLOCK_MONOTONIC when the library saw the buffer
 * @host: the buffer in host memory, or NULL for a GPU ring
 * @gpu_offset: the buffer's offset in the pin (GPU ring), else 0
 * @reserved: 0
 */
typedef struct {
	uint32_t index;
	uint32_t flags;
	uint64_t length;
	uint64_t sequence;
	uint64_t frame;
	uint64_t dropped;
	uint64_t timestamp_ns;
	void *host;
	uint64_t gpu_offset;
	uint32_t reserved[8];
} HELLOFPGA_FRAME;

/**
 * typedef HELLOFPGA_STREAM_STATS - what HelloFPGA_Stream_GetStats() reports.
 * @buffers: buffers completed and handed out
 * @frames: of them, those that end a frame
 * @bytes: bytes in them
 * @ring_full: times the card had no free buffer (all held or not released)
 * @source_dropped: the reference design's source: frames it dropped since
 *	the stream opened (0 on other designs)
 * @source_sent: the same: frames it sent whole
 * @held: buffers the caller holds now
 * @reserved: 0
 */
typedef struct {
	uint64_t buffers;
	uint64_t frames;
	uint64_t bytes;
	uint64_t ring_full;
	uint64_t source_dropped;
	uint64_t source_sent;
	uint32_t held;
	uint32_t reserved[9];
} HELLOFPGA_STREAM_STATS;

/**
 * HelloFPGA_Stream_Open() - set up a C2H stream ring and start it.
 * @cfg: the configuration
 * @s: receives the stream
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (the handle was opened
 * before fork()), -EFAULT (NULL @cfg or @s, or a @host ring not all mapped
 * writable by this process), -EINVAL (a field out of range,
 * unaligned, reserved or flags not 0, both @host and @gpu; a GPU ring whose
 * buffers do not each fit one of the pin's contiguous pieces: the text says
 * the largest buffer size that works), -ECHRNG (no such C2H channel),
 * -EOPNOTSUPP (the card's channels are not AXI-Stream, or the kernel driver
 * predates streams: ABI 1.3), -EBUSY (a stream is open on the channel, by
 * this handle or, on the kernel driver, by any process), -ENOENT (@gpu is
 * no pin), -ENXIO (the GPU memory of @gpu was freed), -ERANGE (the ring
 * lies past the end of the pin), -ENOMEM (no memory; kernel driver: over
 * the card's pin limit or RLIMIT_MEMLOCK: a ring in driver memory counts
 * against the user's until it is closed, a @host ring's pages and a pinned
 * ring's descriptor storage against the process's), -EMFILE (65535 streams
 * open in the process), -ENODEV (card gone), -EIO (the engine is wedged, or
 * any other failure).
 */
int HelloFPGA_Stream_Open(HELLOFPGA_HANDLE hDev,
			  const HELLOFPGA_STREAM_CONFIG *cfg,
			  HELLOFPGA_STREAM *s);

/**
 * HelloFPGA_Stream_Wait() - the next filled buffer.
 * @timeout_ms: how long to wait: 0 only looks, < 0 the handle's timeout
 * @f: receives the buffer; it is the caller's until
 *	HelloFPGA_Stream_Release()
 * Return: 0, -ETIMEDOUT (no buffer yet: the stream goes on), -EBADF (NULL
 * stream, or its handle was closed, also while this waited), -ECHILD (after
 * fork()), -EFAULT (NULL @f), -EINVAL (@timeout_ms above 3600000), -EIO
 * (the engine stopped on an error, or the ring's GPU memory was freed; the
 * text says which: close the stream), -ENODEV (card gone).
 */
int HelloFPGA_Stream_Wait(HELLOFPGA_STREAM s, int timeout_ms,
			  HELLOFPGA_FRAME *f);

/**
 * HelloFPGA_Stream_Release() - give a buffer back to the card.  Buffers go
 * back in ring order: one released before older ones waits for them.
 * @index: a buffer HelloFPGA_Stream_Wait() gave and not yet released
 * Return: 0, -EBADF, -ECHILD, -EINVAL (@index not held, or its release
 * queued on a GPU stream: HelloFPGA_Stream_ReleaseOnGPU()), -EIO (any other
 * failure of the backend).
 */
int HelloFPGA_Stream_Release(HELLOFPGA_STREAM s, uint32_t index);

/**
 * HelloFPGA_Stream_GetStats() - the stream's counters.
 * Return: 0, -EBADF (also when HelloFPGA_Stream_Close() of the stream
 * came while this ran), -ECHILD, -EFAULT (NULL @st), -EIO (any other
 * failure of the backend).
 */
int HelloFPGA_Stream_GetStats(HELLOFPGA_STREAM s, HELLOFPGA_STREAM_STATS *st);

/**
 * HelloFPGA_Stream_Close() - stop the stream, prove its engine idle, free
 * the ring (what the library allocated) and the stream.  NULL is a no-op.
 * Calls on the stream running in other threads end first (-EBADF).  While
 * HelloFPGA_Close() of its handle runs in another thread (it may wait for
 * a transfer in flight before it stops the streams), this waits for that
 * stop.
 * Return: 0 (also after the handle was closed: the stream is only freed),
 * -EBADF (not an open stream: closed already, closed by another thread at
 * the same time, or a value no Open returned in this process), -ECHILD
 * (after fork(): nothing is freed), -EIO (the engine did not stop: the
 * channel is wedged and the ring stays allocated, a @host ring in use by
 * the card, until HelloFPGA_Close() of the handle; the stream is freed).
 */
int HelloFPGA_Stream_Close(HELLOFPGA_STREAM s);

/* ------------------------------------------------------------------------
 * GPU-side completion (new in library ABI 1.3, symbol version
 * HELLOFPGA_1.3): a GPU stream waits for the card's completion of a
 * stream buffer itself, so work launched after the wait starts when the
 * buffer lands, with no CPU thread woken in between.
 *
 *	HelloFPGA_Stream_WaitOnGPU(s, cu_stream, seq, 0, &w);
 *	consumer<<<..., cu_stream>>>(w.status_dev, ...);   starts when it landed
 *
 * How: each buffer of a C2H stream has a 32-byte writeback slot in host
 * memory (PG195 C2H stream writeback) that the library maps for the GPU
 * (cuMemHostRegister DEVICEMAP on a real GPU).  Its first 32-bit word, the
 * status, is 0 while the buffer is with the card and becomes
 * HELLOFPGA_STREAM_WB_MAGIC (| HELLOFPGA_STREAM_WB_EOP when it ends a
 * frame) when the card completes it; the next word is its length.  The
 * GPU waits with cuStreamWaitValue32(status, HELLOFPGA_STREAM_WB_MAGIC_MASK,
 * CU_STREAM_WAIT_VALUE_AND), with CU_STREAM_WAIT_VALUE_FLUSH for a ring in
 * GPU memory where the device can flush remote writes (so the card's data
 * is visible to the consumer, not only the slot).
 *
 * Rules:
 *  - Sequence numbers are HELLOFPGA_FRAME.sequence: buffers the stream
 *    completed before this one, 0 for the first.  Buffer q lands in buffer
 *    index q % buffers, or (q + k) % buffers when the ring first skipped k
 *    buffers holding the rest of a frame its channel's last stop cut
 *    (HELLOFPGA_GPU_WAIT.index and HELLOFPGA_FRAME.index say which).
 *  - A slot is cleared when its buffer goes back to the card (Release),
 *    never before, so a stale writeback never satisfies a wait for the
 *    buffer's next round.  Hence the window: with r buffers released so far
 *    (in ring order), a wait may be enqueued for sequences r ..
 *    r + buffers - 1.  An earlier sequence's buffer went back already, a
 *    later one's slot still shows an earlier round: both are -ERANGE.
 *    Releases a GPU stream has rung for (HelloFPGA_Stream_ReleaseOnGPU())
 *    count once the library sees them: at every call on the stream,
 *    HelloFPGA_Stream_WaitOnGPU() included unless a Wait of another
 *    thread holds the stream at that moment.
 *  - Do not release a buffer before the GPU work that waits on it has
 *    passed the wait (for example after the consumer kernel finished): the
 *    release clears the slot, and a wait not yet reached then waits for the
 *    buffer's next round; HelloFPGA_Stream_ReleaseOnGPU() queues the
 *    release in the GPU stream itself.  The CPU may take the buffer with
 *    HelloFPGA_Stream_Wait() before or after the GPU saw it; that does not
 *    change the slot.
 *  - When the stream stops (HelloFPGA_Stream_Close(), HelloFPGA_Close() of
 *    the handle, or an engine error seen by HelloFPGA_Stream_Wait()) every
 *    slot the card has not completed gets HELLOFPGA_STREAM_WB_MAGIC |
 *    HELLOFPGA_STREAM_WB_ERROR and length 0: a waiting GPU goes on, and the
 *    consumer must check the status word for HELLOFPGA_STREAM_WB_ERROR
 *    before it uses the buffer (the buffer's memory may be freed by then:
 *    a ring the library allocated is).  The slots of a stream that was
 *    waited on are never freed (a wait may still be queued in a GPU stream;
 *    at most 20 KiB per stream opened, with the doorbells of
 *    HelloFPGA_Stream_ReleaseOnGPU()), and keep the mark.
 *  - The emulated GPU (no CUDA) runs the same waits in a thread per stream
 *    (HelloFPGA_GPU_StreamCreate()); its host functions stand in for
 *    kernels.
 *  - Through the kernel driver (ABI 1.4, HELLOFPGA_FEAT_STREAM_WB_PIN) the
 *    slots are library memory the driver pins and the card writes
 *    (HELLOFPGA_STREAM_WB_PIN): the same rules hold.  A driver without it,
 *    or one whose DMA mappings bounce (swiotlb), keeps them in the kernel:
 *    the stream runs, the GPU calls are -EOPNOTSUPP.  The slots of a ring
 *    of more than 128 buffers (over 4 KiB) must be contiguous in bus
 *    addresses, which without an IOMMU they seldom are: then too.
 * ------------------------------------------------------------------------ */

#define HELLOFPGA_STREAM_WB_MAGIC	0x52b40000u	/* status: completed */
#define HELLOFPGA_STREAM_WB_MAGIC_MASK	0xffff0000u
#define HELLOFPGA_STREAM_WB_EOP		0x00000001u	/* ends a frame */
#define HELLOFPGA_STREAM_WB_ERROR	0x00008000u	/* the stream stopped: no data */

/* HelloFPGA_Stream_WaitOnGPU() flags: flush remote writes after the wait
 * also for a host ring (-EOPNOTSUPP where the device cannot) */
#define HELLOFPGA_GPU_WAIT_FLUSH	0x1u

/**
 * typedef HELLOFPGA_GPU_WAIT - where a HelloFPGA_Stream_WaitOnGPU() waits.
 * @index: the buffer the sequence lands in
 * @sequence: the sequence waited for
 * @status: the status word of its writeback slot (host address; the
 *	length is the word after it)
 * @status_dev: the same word's GPU address (a CUdeviceptr), for the
 *	consumer kernel to check HELLOFPGA_STREAM_WB_ERROR and read the length
 * @host: the buffer in host memory, NULL for a GPU ring
 * @gpu_offset: the buffer's offset in the pin (GPU ring), else 0
 * @reserved: 0
 */
typedef struct {
	uint32_t index;
	uint32_t reserved0;
	uint64_t sequence;
	const volatile uint32_t *status;
	uint64_t status_dev;
	void *host;
	uint64_t gpu_offset;
	uint32_t reserved[8];
} HELLOFPGA_GPU_WAIT;

/**
 * HelloFPGA_Stream_WaitOnGPU() - enqueue on a GPU stream a wait for the
 *	card's completion of buffer @sequence of @s.
 * @s: the stream
 * @gpu_stream: a CUstream of the library's CUDA context (the primary
 *	context of its device; NULL the legacy default stream), or on the
 *	emulated GPU a stream of HelloFPGA_GPU_StreamCreate()
 * @sequence: the buffer's sequence (see the rules above)
 * @flags: 0 or HELLOFPGA_GPU_WAIT_FLUSH
 * @w: if not NULL, receives where the wait is
 *
 * Returns when the wait is enqueued; it never waits for the card.
 *
 * Return: 0, -EBADF (NULL, closed or made-up stream, or its handle closed),
 * -ECHILD (after fork()), -EINVAL (unknown @flags; @gpu_stream not a
 * stream of the emulated GPU), -ERANGE (@sequence outside the window of the
 * rules above; the text gives the window), -EAGAIN (the ring skips the
 * rest of a frame its last stop cut: the buffer of @sequence is not known
 * until the first HelloFPGA_Stream_Wait() returns), -EOPNOTSUPP (the GPU or
 * its driver has no stream memory operations, cuStreamWaitValue32_v2 of
 * CUDA 11.7 or newer; or HELLOFPGA_GPU_WAIT_FLUSH where the device cannot
 * flush; or the kernel driver keeps the ring's writeback slots in the
 * kernel: a driver before ABI 1.4, without HELLOFPGA_FEAT_STREAM_WB_PIN,
 * or one that refused them in library memory (its DMA mappings bounce:
 * swiotlb; the text says which)), -ENODEV (no GPU), -ENOMEM, -EIO (any
 * other failure of CUDA; the text names it).
 */
int HelloFPGA_Stream_WaitOnGPU(HELLOFPGA_STREAM s, void *gpu_stream,
			       uint64_t sequence, uint32_t flags,
			       HELLOFPGA_GPU_WAIT *w);

/**
 * HelloFPGA_Stream_ReleaseOnGPU() - give a buffer back to the card when a
 *	GPU stream gets there (after the consumer kernel, say), instead of
 *	HelloFPGA_Stream_Release() after the CPU waited for the kernel.
 * @s: the stream
 * @gpu_stream: as for HelloFPGA_Stream_WaitOnGPU()
 * @index: a buffer HelloFPGA_Stream_Wait() gave and not yet released
 * @flags: 0
 *
 * The GPU writes a doorbell word in host memory (cuStreamWriteValue32);
 * the library releases the buffer at its next look: every call on @s
 * (Wait, Release, ReleaseOnGPU, GetStats), and a Wait blocked on @s looks
 * every 100 us while GPU releases are queued.  No thread of the library's
 * watches it.  (The card's credit register itself cannot be written by a
 * GPU: the emulated card's registers are not memory, and the kernel
 * driver does not map the DMA BAR to user space.)  Until then the buffer
 * stays held; HelloFPGA_Stream_Release() of it is -EINVAL.
 *
 * Return: 0, -EBADF, -ECHILD, -EINVAL (@index not held, or its GPU release
 * queued already; @flags not 0; @gpu_stream not a stream of the emulated
 * GPU), -EOPNOTSUPP (no stream memory operations; a kernel driver that
 * keeps the slots, as for HelloFPGA_Stream_WaitOnGPU()),
 * -ENODEV (no GPU), -ENOMEM, -EIO (any other failure of CUDA).
 */
int HelloFPGA_Stream_ReleaseOnGPU(HELLOFPGA_STREAM s, void *gpu_stream,
				  uint32_t index, uint32_t flags);

/*
 * GPU streams for programs that run with or without CUDA (tests, tools):
 * a CUstream (cuStreamCreate, CU_STREAM_NON_BLOCKING, in the library's
 * context) on a real GPU, else a stream of the emulated GPU: a checked
 * name, not a pointer; after fork() its calls return -ECHILD.  Errors
 * are kept per thread (HelloFPGA_GetLastError(NULL)).
 */

/**
 * HelloFPGA_GPU_StreamCreate() - a new GPU stream.
 * Return: 0, -EFAULT (NULL @stream), -ENODEV (no GPU), -ENOMEM (256
 * emulated streams exist, or out of memory), -EAGAIN (its thread cannot
 * start), -EOPNOTSUPP (the driver lacks cuStreamCreate), -EIO (CUDA).
 */
int HelloFPGA_GPU_StreamCreate(void **stream);

/**
 * HelloFPGA_GPU_StreamDestroy() - destroy a stream; returns at once, the
 * work in it still runs (as cuStreamDestroy).
 * Return: 0, -EINVAL (not a stream: destroyed, NULL, made up), -ECHILD,
 * -ENODEV, -EOPNOTSUPP, -EIO.
 */
int HelloFPGA_GPU_StreamDestroy(void *stream);

/**
 * HelloFPGA_GPU_StreamSynchronize() - wait for the work in a stream.
 * @timeout_ms: < 0 without end, else at most this long (up to 3600000)
 * Return: 0, -ETIMEDOUT (work still pending, for example a wait that no
 * completion satisfied), -EINVAL (not a stream, @timeout_ms too large),
 * -ECHILD, -ENODEV, -EOPNOTSUPP, -EIO (CUDA: an earlier error of the
 * stream's work).
 */
int HelloFPGA_GPU_StreamSynchronize(void *stream, int timeout_ms);

/**
 * HelloFPGA_GPU_LaunchHostFunc() - enqueue a host function (cuLaunchHostFunc):
 * it runs once the work before it in the stream has, the stream waiting for
 * it; on the emulated GPU the stand-in for a kernel.
 * Return: 0, -EFAULT (NULL @fn), -EINVAL (not a stream), -ECHILD, -ENODEV,
 * -ENOMEM, -EOPNOTSUPP (the driver lacks cuLaunchHostFunc), -EIO.
 */
int HelloFPGA_GPU_LaunchHostFunc(void *stream, void (*fn)(void *arg),
				 void *arg);

/* ------------------------------------------------------------------------
 * GPU-side completion of GPU Direct transfers (AXI memory-mapped; new in
 * library ABI 1.4, symbol version HELLOFPGA_1.4): a transfer submitted to
 * a channel's queue runs in the background, and a GPU stream may wait for
 * the card's completion of it, or hold its start until the stream gets to
 * a point, with no CPU thread between the two:
 *
 *	HelloFPGA_GPUDirect_Submit(h, 0, pin, 0, card, size, HELLOFPGA_DIR_C2H,
 *				   cu_stream, HELLOFPGA_SUBMIT_WAIT_ON_GPU, 0, &sub);
 *	consumer<<<..., cu_stream>>>(sub.status_dev, gpu_buf);  runs once it landed
 *
 * How: each submission has a 32-bit writeback word in host memory that
 * the library maps for the GPU (cuMemHostRegister DEVICEMAP on a real
 * GPU) and for the card, and the run's poll-mode writeback (PG195) goes
 * there: 0 while the transfer is queued or running, the number of
 * descriptors the card completed when it is done, with
 * HELLOFPGA_XFER_WB_ERROR set when the engine stopped on an error.  The
 * GPU waits with cuStreamWaitValue32(word, HELLOFPGA_XFER_WB_MASK,
 * CU_STREAM_WAIT_VALUE_AND), flushing remote writes for a C2H transfer
 * where the device can (so the card's data is visible to what follows).
 * A transfer that fails without a writeback (its timeout, a freed pin, a
 * cancel) gets HELLOFPGA_XFER_WB_ERROR from the library, so a waiting GPU
 * always goes on: the consumer must check the word.
 *
 * HELLOFPGA_SUBMIT_START_ON_GPU: the GPU stream writes a doorbell word when
 * it gets there (cuStreamWriteValue32) and the channel's queue starts the
 * transfer once it sees it.  A thread of the library's per channel watches
 * the doorbell (spinning 20 us, then looking every 20 us): the card's
 * registers cannot be written by a GPU (the emulated card's are function
 * calls; the kernel driver does not map the DMA BAR to user space, so that
 * no one who may use the card can aim its engines anywhere).
 *
 * Rules:
 *  - A channel's submissions run one at a time in the order of their
 *    Submit calls, between the channel's other transfers; a submission
 *    whose start is held by a GPU stream holds the ones after it.
 *  - Each channel has HELLOFPGA_SUBMIT_DEPTH words; a word is used again
 *    once its transfer has ended and the GPU has passed every wait on it
 *    (the GPU stream writes that it did, after the wait).  Submit waits up
 *    to its timeout for a free word (-EBUSY).
 *  - HelloFPGA_GPUDirect_Complete() waits on the CPU and returns the
 *    result; it need not be called.  A result is kept until its word is
 *    used again.
 *  - HelloFPGA_GPUDirect_Unpin() lets the transfer running on the pin end,
 *    then submissions of the pin not yet run fail with -ENOENT (their words
 *    marked).  HelloFPGA_Close() cancels the submissions not yet started
 *    (-ECANCELED, words marked) and waits for the one running.  The words
 *    of a channel a GPU stream waited on are never freed (8 KiB a
 *    channel).
 *  - The emulated GPU (no CUDA) runs the same waits and writes in its
 *    streams (HelloFPGA_GPU_StreamCreate()).  The kernel driver backend
 *    needs a driver with HELLOFPGA_FEAT_XFER_WB (ABI 1.4), else Submit is
 *    -EOPNOTSUPP; the words then lie in a host pin of the library's, and
 *    a driver whose DMA mappings bounce (swiotlb) refuses them at the
 *    run: the submission's result is -EOPNOTSUPP, its word marked.
 * ------------------------------------------------------------------------ */

#define HELLOFPGA_SUBMIT_DEPTH		256
#define HELLOFPGA_XFER_WB_COUNT		0x00ffffffu	/* descriptors done */
#define HELLOFPGA_XFER_WB_ERROR		0x80000000u	/* failed: no data */
#define HELLOFPGA_XFER_WB_MASK		(HELLOFPGA_XFER_WB_COUNT | \
					 HELLOFPGA_XFER_WB_ERROR)

/* HelloFPGA_GPUDirect_Submit() flags */
#define HELLOFPGA_SUBMIT_WAIT_ON_GPU	0x1u	/* @gpu_stream waits for it */
#define HELLOFPGA_SUBMIT_START_ON_GPU	0x2u	/* it starts when @gpu_stream gets here */

/**
 * typedef HELLOFPGA_SUBMISSION - what HelloFPGA_GPUDirect_Submit() queued.
 * @ticket: names it for HelloFPGA_GPUDirect_Complete() of the same
 *	handle (opaque; never 0)
 * @status: its writeback word (host address): 0 until it ends, then the
 *	descriptors done, HELLOFPGA_XFER_WB_ERROR set if it failed
 * @status_dev: the same word's GPU address (a CUdeviceptr), for the
 *	consumer kernel; 0 without a GPU flag
 * @reserved: 0
 */
typedef struct {
	uint64_t ticket;
	const volatile uint32_t *status;
	uint64_t status_dev;
	uint32_t reserved[8];
} HELLOFPGA_SUBMISSION;

/**
 * HelloFPGA_GPUDirect_Submit() - queue a transfer of a sub-range of a
 *	pinned buffer on a channel and return; optionally make a GPU stream
 *	wait for its completion, or hold its start until the stream gets here.
 * @hDev: the card
 * @ch: channel of direction @dir
 * @handle: a pinned buffer (HelloFPGA_GPUDirect_Pin())
 * @bufOffset: offset inside it
 * @fpgaAddr: card address
 * @size: bytes, not 0
 * @dir: HELLOFPGA_DIR_H2C or HELLOFPGA_DIR_C2H
 * @gpu_stream: with a flag: a CUstream of the library's CUDA context
 *	(NULL: the legacy default stream), or a stream of the emulated GPU;
 *	ignored without one
 * @flags: 0, HELLOFPGA_SUBMIT_WAIT_ON_GPU, HELLOFPGA_SUBMIT_START_ON_GPU,
 *	or both (the start enqueued before the wait)
 * @timeout_ms: the engine's timeout once it runs, and the longest wait for
 *	a free word; <= 0 the handle's timeout
 * @sub: if not NULL, receives the ticket and the word
 *
 * The arguments are checked as HelloFPGA_GPUDirect_Xfer() checks them,
 * and the GPU's operations enqueued, before this returns; what the run
 * itself finds (the engine's errors, a pin freed meanwhile) is its result.
 *
 * Return: 0, -EBADF (NULL or closed handle), -ECHILD (after fork()),
 * -ECHRNG (no such channel), -ENOENT (unknown or unpinned @handle),
 * -ENXIO (its GPU memory was freed), -EINVAL (@size 0 or the range leaves
 * the buffer; unknown @dir or @flags; @timeout_ms above 3600000; an aligned
 * card and an unaligned range; @gpu_stream not a stream of the emulated
 * GPU), -ERANGE (past the end of card memory), -EOVERFLOW (@fpgaAddr +
 * @size wraps), -EBUSY (no free word until the timeout: the channel's
 * queue is full, or GPU streams have not passed their waits), -EOPNOTSUPP
 * (an AXI-Stream card's C2H; the backend cannot send a writeback to the
 * library's word: a kernel driver without HELLOFPGA_FEAT_XFER_WB; with a
 * flag, a GPU without stream memory operations), -ENODEV (card gone; with
 * a flag, no GPU), -ENOMEM, -EAGAIN (the channel's queue thread cannot
 * start), -EIO (any other failure of CUDA or of the backend).
 */
int HelloFPGA_GPUDirect_Submit(HELLOFPGA_HANDLE hDev, int ch,
			       HELLOFPGA_GPU_HANDLE handle, size_t bufOffset,
			       uint64_t fpgaAddr, size_t size, int dir,
			       void *gpu_stream, uint32_t flags, int timeout_ms,
			       HELLOFPGA_SUBMISSION *sub);

/**
 * HelloFPGA_GPUDirect_Complete() - wait on the CPU for a submitted
 *	transfer and get its result.
 * @hDev: the card
 * @ticket: HELLOFPGA_SUBMISSION.ticket
 * @timeout_ms: < 0 without end, 0 only looks, else at most this long (up
 *	to 3600000)
 * @actual: if not NULL, receives the bytes moved (after a failure, every
 *	byte the card may have written)
 *
 * Return: 0 (it succeeded), the transfer's own error as
 * HelloFPGA_GPUDirect_Xfer() returns them (-ENOENT, -ENXIO, -EBUSY,
 * -ETIMEDOUT, -EIO, -ENODEV; -ECANCELED: the handle was closed before it
 * started; -EOPNOTSUPP: the kernel driver refused the word, its DMA
 * mappings bounce; the text names the ticket), or: -EBADF (NULL or closed handle,
 * also while waiting), -ECHILD (after fork()), -EINVAL (@ticket not one of
 * this handle's: made up, or given by another handle, open or closed;
 * @timeout_ms too large), -ERANGE (its result is gone: its
 * word was used again by a later submission), -EAGAIN (not done yet:
 * @timeout_ms 0, or the time ran out; the transfer goes on).
 */
int HelloFPGA_GPUDirect_Complete(HELLOFPGA_HANDLE hDev, uint64_t ticket,
				 int timeout_ms, size_t *actual);

/** HelloFPGA_Version() - the library version, "MAJOR.MINOR.PATCH". */
const char *HelloFPGA_Version(void);

#ifdef __cplusplus
}
#endif

#endif /* HELLOFPGA_H */
