// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xdma-sim - QEMU host of the hellofpga XDMA card model (model/xdma_model.c).
 *
 * A PCI Express endpoint (or a conventional PCI device on a conventional
 * bus) with Xilinx's IDs that hosts the SAME host-independent model source
 * as the in-process emulator (model/inproc/):
 *
 *   BAR0  user BAR, 64 KiB  -> xdma_model_user_read32/write32
 *         (+ the test-only fault window at 0xf000 with fault-regs=on);
 *         user-bar-size=SIZE (a power of two above 64 KiB): a 64-bit
 *         prefetchable BAR0 of SIZE, of which the first 64 KiB are the
 *         model's and the rest reads 0 and ignores writes
 *   BAR1  DMA/config BAR, 64 KiB -> xdma_model_dma_read32/write32, with
 *         QEMU's MSI-X table at 0x8000 and PBA at 0x8fe0 (32 vectors);
 *         BAR2 when BAR0 is 64-bit (BAR0/1 are then one BAR)
 * Accesses narrower than 32 bits reach the register that holds them: a
 * read returns its byte lanes, a write writes it with the value in those
 * lanes and zeros in the others (no byte enables).
 *   MSI   32 vectors, 64-bit; INTx pin A
 *
 * Host ops given to the model:
 *   dma_read/dma_write -> pci_dma_read/pci_dma_write (bus-master DMA, so
 *       through a vIOMMU when there is one); -EIO on any MEMTX error
 *   msi(vector)  -> msix_notify() when MSI-X is enabled, else msi_notify()
 *       (vector modulo the vectors the guest allocated)
 *   intx(level)  -> pci_set_irq()
 *   kick(engine) -> qemu_bh_schedule() of a per-engine bottom half that runs
 *       xdma_model_engine_work() in the main loop (BQL held), asynchronously
 *       to the vCPU that wrote the Run bit
 *   now_ns()     -> QEMU_CLOCK_VIRTUAL
 *   schedule(engine, when) -> timer_mod() of a per-engine QEMU_CLOCK_VIRTUAL
 *       timer whose callback runs xdma_model_engine_work() in the main loop:
 *       the model's link model and timed faults never sleep in QEMU
 * The interrupt mode the guest enabled in config space is passed to the
 * model (xdma_model_set_irq_mode()) after every config write.
 *
 * User logic: the reference design's behaviour in C (refdesign/), or with
 * rtl=on its RTL in a Verilator simulation, the plugin
 * libhf_refdesign_rtl.so that hf_rtl_load() finds ($HF_RTL_PLUGIN names it
 * for QEMU): docs/refdesign.md, "Co-simulation".
 *
 * Link model: link=genGxW, mps=, desc_ns= (the in-process card's options,
 * parsed by the same model/xdma_link.c) pace the engines on the virtual
 * clock; the PCIe capability's Link Capabilities / Status report that
 * generation and width (Gen3 x8 without a link model).
 *
 * Everything runs under the BQL (MMIO, bottom halves, chardev), so the
 * model's own lock is never contended here; it is kept for the in-process
 * host, which has real engine threads.
 *
 * Fault injection (model/qemu/README.md):
 *   chardev=ID   line protocol on a character device:
 *                "fault desc_read|stall|lost_irq|dead|none|<number>" -> "ok"
 *                "fault hang <ms>" -> "ok" (the engines hang, then recover)
 *                "faults" -> current fault bits, "counters" -> one JSON line,
 *                "link" -> the link model, "reset-counters" -> "ok",
 *                anything else -> "error ..."
 *   fault-regs=on  a register window at BAR0 + 0xf000 for the guest itself
 *   QOM properties "faults" and "hang-ms" (qom-set/qom-get over QMP)
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_aer.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "chardev/char-fe.h"
#include "qom/object.h"

#include "xdma_model.h"
#include "xdma_regs.h"		/* offsets and counts only: no field macros */
#include "hf_refdesign.h"	/* the user logic it attaches */
#include "hf_rtl_load.h"	/* ... or that logic's RTL (rtl=on) */
#include "hf_user_regs.h"

#define TYPE_XDMA_SIM		"xdma-sim"

/* the MSI-X table and PBA lie inside the DMA/config BAR */
QEMU_BUILD_BUG_ON(XDMA_MSIX_PBA_OFFSET + XDMA_MSIX_VECTORS / 8 > XDMA_BAR_SIZE);
QEMU_BUILD_BUG_ON(XDMA_MSIX_TABLE_OFFSET + 16 * XDMA_MSIX_VECTORS >
		  XDMA_MSIX_PBA_OFFSET);

#define XS_CAP_MSI		0x50
#define XS_CAP_MSIX		0x70
#define XS_CAP_PCIE		0x80
#define XS_CAP_AER		0x100	/* extended capability: AER */

/* Test-only fault window in BAR0 (fault-regs=on); README.md documents it. */
#define XS_FW_BASE		0xf000
#define XS_FW_SIZE		0x100
#define XS_FW_FAULTS		0x00	/* RW: enum xdma_model_fault bits */
#define XS_FW_MAGIC		0x04	/* RO: XS_FW_MAGIC_VALUE */
#define XS_FW_CTRL		0x08	/* W: bit 0 = reset the counters */
#define XS_FW_NCOUNTERS		0x0c	/* RO: number of 64-bit counters */
#define XS_FW_COUNTERS		0x10	/* RO: counters, lo/hi pairs */
#define XS_FW_HANG_US		0xf0	/* RW: duration of a hang started here */
#define XS_FW_HANG_LEFT_US	0xf4	/* RO: what is left of the hang */
#define XS_FW_STRAY_IRQ		0xf8	/* W: a stray message of engine N */
#define XS_FW_HANG_ENGINES	0xfc	/* RW: engines a hang holds (0: all) */
#define XS_FW_MAGIC_VALUE	0x46415554u	/* "FAUT" */

/* What the PCIe capability reports without a link model (the IP's IDs). */
#define XS_DEFAULT_GEN		3
#define XS_DEFAULT_LANES	8

/* Counter order in the fault window and in the "counters" JSON line. */
#define XS_COUNTERS(X)			\
	X(mmio_reads)			\
	X(mmio_writes)			\
	X(desc_fetched)			\
	X(irqs)				\
	X(wb_writes)			\
	X(bytes_h2c)			\
	X(bytes_c2h)			\
	X(errors)			\
	X(guest_errors)			\
	X(dma_errors)			\
	X(dma_blocked)
#define XS_COUNT_ONE(n)		+ 1
#define XS_NCOUNTERS		(0 XS_COUNTERS(XS_COUNT_ONE))

#define XS_LINE_MAX		256

OBJECT_DECLARE_TYPE(XdmaSimState, XdmaSimClass, XDMA_SIM)

struct XdmaSimClass {
	PCIDeviceClass parent_class;
	DeviceRealize parent_dc_realize;
};

typedef struct XdmaSimEngine {
	struct XdmaSimState *s;
	uint32_t index;
	QEMUBH *bh;
	QEMUTimer *timer;
} XdmaSimEngine;

struct XdmaSimState {
	PCIDevice parent_obj;

	MemoryRegion user_bar;
	MemoryRegion dma_bar;
	struct xdma_model *model;
	XdmaSimEngine eng[XDMA_MAX_ENGINES];
	uint32_t num_engines;
	int irq_mode;		/* enum xdma_model_irq_mode, -1: unknown */
	uint64_t latched[XS_NCOUNTERS];

	/* control channel */
	CharBackend chr;
	char line[XS_LINE_MAX];
	size_t line_len;
	bool line_overflow;

	/* the link model the properties describe; fault window hang length */
	struct xdma_link link_model;
	uint32_t fw_hang_us;

	/* properties */
	uint16_t vendor_id;
	uint16_t device_id;
	uint64_t ddr_size;
	uint32_t num_h2c;
	uint32_t num_c2h;
	uint32_t addr_align;
	uint32_t len_gran;
	bool fault_regs;
	bool st;		/* AXI-Stream channels */
	bool rtl;		/* the user logic is the reference design's RTL */
	struct hf_rtl_plugin rtl_plugin;
	uint64_t user_bar_size;
	int dma_bar_nr;		/* 1, or 2 after a 64-bit user BAR */
	char *link;
	uint32_t mps;		/* UINT32_MAX: not given */
	uint64_t desc_ns;	/* UINT64_MAX: not given */
};

/* ---- host ops ---- */

static bool xs_bus_master(PCIDevice *pdev);

/* Bus mastering off: the function issues no request (-EBUSY to the model). */
static int xs_dma_read(void *host, uint64_t bus, void *dst, size_t len)
{
	XdmaSimState *s = host;

	if (!xs_bus_master(PCI_DEVICE(s))) {
		return -EBUSY;
	}
	return pci_dma_read(PCI_DEVICE(s), bus, dst, len) == MEMTX_OK ? 0 : -EIO;
}

static int xs_dma_write(void *host, uint64_t bus, const void *src, size_t len)
{
	XdmaSimState *s = host;

	if (!xs_bus_master(PCI_DEVICE(s))) {
		return -EBUSY;
	}
	return pci_dma_write(PCI_DEVICE(s), bus, src, len) == MEMTX_OK ?
	       0 : -EIO;
}

static void xs_msi(void *host, uint32_t vector)
{
	XdmaSimState *s = host;
	PCIDevice *pdev = PCI_DEVICE(s);

	if (msix_enabled(pdev)) {
		msix_notify(pdev, vector % XDMA_MSIX_VECTORS);
	} else if (msi_enabled(pdev)) {
		msi_notify(pdev, vector % msi_nr_vectors_allocated(pdev));
	}
}

static void xs_intx(void *host, bool level)
{
	pci_set_irq(PCI_DEVICE(host), level);
}

static void xs_kick(void *host, uint32_t engine)
{
	XdmaSimState *s = host;

	if (engine < s->num_engines && s->eng[engine].bh) {
		qemu_bh_schedule(s->eng[engine].bh);
	}
}

static uint64_t xs_now_ns(void *host)
{
	return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void xs_schedule(void *host, uint32_t engine, uint64_t when_ns)
{
	XdmaSimState *s = host;

	if (engine < s->num_engines && s->eng[engine].timer) {
		timer_mod(s->eng[engine].timer, when_ns);
	}
}

/*
 * bottom half (kick) and timer (schedule) of an engine; a run that kept the
 * main loop (and so the guest's CPUs, which wait for the BQL) a second or
 * more says so: a slow user logic (rtl=on), which the guest's watchdog may
 * call a soft lockup
 */
static void xs_engine_run(void *opaque)
{
	XdmaSimEngine *e = opaque;
	XdmaSimState *s = e->s;
	int64_t t0 = get_clock();

	if (!s->model) {
		return;
	}
	xdma_model_engine_work(s->model, e->index);
	t0 = get_clock() - t0;
	if (t0 >= NANOSECONDS_PER_SECOND) {
		warn_report("xdma-sim: %s%u ran %.1f s in one go at %.3f s of virtual time (the guest waited)",
			    e->index < s->num_h2c ? "H2C" : "C2H",
			    e->index < s->num_h2c ? e->index :
			    e->index - s->num_h2c, t0 / 1e9,
			    qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) / 1e9);
	}
}

static const struct xdma_model_host_ops xs_host_ops = {
	.dma_read = xs_dma_read,
	.dma_write = xs_dma_write,
	.msi = xs_msi,
	.intx = xs_intx,
	.kick = xs_kick,
	.now_ns = xs_now_ns,
	.schedule = xs_schedule,
};

/* Bottom halves and timers of the engines go (exit, failed realize). */
static void xs_engines_free(XdmaSimState *s)
{
	uint32_t i;

	for (i = 0; i < s->num_engines; i++) {
		if (s->eng[i].bh) {
			qemu_bh_delete(s->eng[i].bh);
			s->eng[i].bh = NULL;
		}
		timer_free(s->eng[i].timer);
		s->eng[i].timer = NULL;
	}
}

/* Tell the model what the guest enabled in config space. */
static void xs_update_irq_mode(XdmaSimState *s)
{
	PCIDevice *pdev = PCI_DEVICE(s);
	enum xdma_model_irq_mode mode;

	if (msix_enabled(pdev)) {
		mode = XDMA_MODEL_IRQ_MSIX;
	} else if (msi_enabled(pdev)) {
		mode = XDMA_MODEL_IRQ_MSI;
	} else if (!(pci_get_word(pdev->config + PCI_COMMAND) &
		     PCI_COMMAND_INTX_DISABLE)) {
		mode = XDMA_MODEL_IRQ_LEGACY;
	} else {
		mode = XDMA_MODEL_IRQ_NONE;
	}
	if ((int)mode != s->irq_mode) {
		s->irq_mode = mode;
		xdma_model_set_irq_mode(s->model, mode);
	}
}

static bool xs_bus_master(PCIDevice *pdev)
{
	return pci_get_word(pdev->config + PCI_COMMAND) & PCI_COMMAND_MASTER;
}

static void xs_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
			    int len)
{
	bool bm = xs_bus_master(pdev);

	pci_default_write_config(pdev, addr, val, len);
	xs_update_irq_mode(XDMA_SIM(pdev));
	/* a fetch held back while bus mastering was off goes out now */
	if (!bm && xs_bus_master(pdev)) {
		xdma_model_bus_master(XDMA_SIM(pdev)->model, true);
	}
}

/* ---- counters and faults (fault window, chardev, QOM) ---- */

static void xs_counters(XdmaSimState *s, uint64_t out[XS_NCOUNTERS])
{
	struct xdma_model_counters c;
	size_t i = 0;

	xdma_model_get_counters(s->model, &c);
#define XS_COPY(n)	out[i++] = c.n;
	XS_COUNTERS(XS_COPY)
#undef XS_COPY
}

static const char *const xs_fault_names[] = {
	"desc_read", "stall", "lost_irq", "dead", "hang",
};

/*
 * Set fault bits @val (XDMA_FAULTS_ALL); the hang bit starts a hang of
 * @hang_ns unless one is in force (and keeps it).  False when the hang bit
 * came without a hang in force or a valid duration: nothing changed.
 */
static bool xs_set_fault_bits(XdmaSimState *s, uint32_t val,
			      uint64_t hang_ns)
{
	if ((val & XDMA_FAULT_HANG) &&
	    !(xdma_model_get_faults(s->model) & XDMA_FAULT_HANG) &&
	    (!hang_ns || xdma_model_inject_hang(s->model, hang_ns))) {
		return false;
	}
	xdma_model_inject(s->model, val);
	return true;
}

/* "desc_read|stall", "none", "0x6": fault bits, or -1. */
static int64_t xs_parse_faults(const char *arg)
{
	g_auto(GStrv) tok = g_strsplit_set(arg, "|, \t", -1);
	uint64_t bits = 0, v;
	size_t i, j;

	for (i = 0; tok[i]; i++) {
		if (!tok[i][0]) {
			continue;
		}
		if (!strcmp(tok[i], "none") || !strcmp(tok[i], "clear")) {
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(xs_fault_names); j++) {
			if (!strcmp(tok[i], xs_fault_names[j])) {
				bits |= 1u << j;
				break;
			}
		}
		if (j < ARRAY_SIZE(xs_fault_names)) {
			continue;
		}
		if (qemu_strtou64(tok[i], NULL, 0, &v) || v > XDMA_FAULTS_ALL) {
			return -1;
		}
		bits |= v;
	}
	return bits;
}

static void xs_reply(XdmaSimState *s, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static void xs_reply(XdmaSimState *s, const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	qemu_chr_fe_write_all(&s->chr, (const uint8_t *)msg, strlen(msg));
}

/* "fault hang <ms>": every engine hangs for that long, other faults kept. */
static void xs_command_hang(XdmaSimState *s, const char *arg)
{
	uint64_t ms;

	if (qemu_strtou64(arg, NULL, 10, &ms) || !ms ||
	    ms > XDMA_MODEL_MAX_HANG_NS / 1000000 ||
	    xdma_model_inject_hang(s->model, ms * 1000000)) {
		xs_reply(s, "error fault hang: expected a duration of 1..%llu ms\n",
			 (unsigned long long)(XDMA_MODEL_MAX_HANG_NS / 1000000));
		return;
	}
	xs_reply(s, "ok\n");
}

static void xs_command(XdmaSimState *s, char *line)
{
	char *cmd = g_strstrip(line), *arg;
	char desc[128];
	int64_t bits;

	if (!*cmd || *cmd == '#') {
		return;
	}
	arg = strpbrk(cmd, " \t");
	if (arg) {
		*arg++ = '\0';
		arg = g_strstrip(arg);
	} else {
		arg = cmd + strlen(cmd);
	}
	if (!strcmp(cmd, "fault") && !strncmp(arg, "hang ", 5)) {
		xs_command_hang(s, g_strstrip(arg + 5));
	} else if (!strcmp(cmd, "fault")) {
		bits = *arg ? xs_parse_faults(arg) : -1;
		if (bits < 0) {
			xs_reply(s, "error fault: expected desc_read|stall|lost_irq|dead|none or a number <= 0x1f, or hang <ms>\n");
			return;
		}
		if (!xs_set_fault_bits(s, bits, 0)) {
			xs_reply(s, "error fault: a hang needs a duration: fault hang <ms>\n");
			return;
		}
		xs_reply(s, "ok\n");
	} else if (!strcmp(cmd, "link")) {
		xdma_link_describe(&s->link_model, desc, sizeof(desc));
		xs_reply(s, "ok %s\n", desc);
	} else if (!strcmp(cmd, "faults")) {
		xs_reply(s, "ok 0x%x\n", xdma_model_get_faults(s->model));
	} else if (!strcmp(cmd, "counters")) {
		uint64_t c[XS_NCOUNTERS];
		GString *j = g_string_new("{");
		size_t i = 0;

		xs_counters(s, c);
#define XS_JSON(n)	g_string_append_printf(j, "%s\"" #n "\":%" PRIu64, \
						       i ? "," : "", c[i]); i++;
		XS_COUNTERS(XS_JSON)
#undef XS_JSON
		g_string_append_printf(j, ",\"faults\":%u,\"hang_left_us\":%" PRIu64
				       ",\"irq_mode\":%d}\n",
				       xdma_model_get_faults(s->model),
				       xdma_model_hang_left_ns(s->model) / 1000,
				       s->irq_mode);
		qemu_chr_fe_write_all(&s->chr, (const uint8_t *)j->str, j->len);
		g_string_free(j, true);
	} else if (!strcmp(cmd, "reset-counters")) {
		xdma_model_reset_counters(s->model);
		xs_reply(s, "ok\n");
	} else if (!strcmp(cmd, "help")) {
		xs_reply(s, "ok commands: fault desc_read|stall|lost_irq|dead|none|N, fault hang MS, faults, counters, link, reset-counters\n");
	} else {
		xs_reply(s, "error unknown command '%s'\n", cmd);
	}
}

static void xs_chr_event(void *opaque, QEMUChrEvent event)
{
	XdmaSimState *s = opaque;

	/* a new client starts with a new line */
	if (event == CHR_EVENT_OPENED || event == CHR_EVENT_CLOSED) {
		s->line_len = 0;
		s->line_overflow = false;
	}
}

static int xs_chr_can_receive(void *opaque)
{
	return XS_LINE_MAX;
}

static void xs_chr_receive(void *opaque, const uint8_t *buf, int size)
{
	XdmaSimState *s = opaque;
	int i;

	for (i = 0; i < size; i++) {
		char ch = buf[i];

		if (ch == '\n') {
			if (s->line_overflow) {
				xs_reply(s, "error line too long\n");
			} else {
				s->line[s->line_len] = '\0';
				xs_command(s, s->line);
			}
			s->line_len = 0;
			s->line_overflow = false;
		} else if (s->line_len + 1 < sizeof(s->line)) {
			s->line[s->line_len++] = ch;
		} else {
			s->line_overflow = true;
		}
	}
}

static void xs_get_faults(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	XdmaSimState *s = XDMA_SIM(obj);
	uint32_t val = s->model ? xdma_model_get_faults(s->model) : 0;

	visit_type_uint32(v, name, &val, errp);
}

static void xs_set_faults(Object *obj, Visitor *v, const char *name,
			  void *opaque, Error **errp)
{
	XdmaSimState *s = XDMA_SIM(obj);
	uint32_t val;

	if (!visit_type_uint32(v, name, &val, errp)) {
		return;
	}
	if (val > XDMA_FAULTS_ALL) {
		error_setg(errp, "faults: only bits 0..4 exist");
		return;
	}
	if (!s->model) {
		error_setg(errp, "faults: device not realized");
		return;
	}
	if (!xs_set_fault_bits(s, val, 0)) {
		error_setg(errp, "faults: bit 4 (hang) keeps a hang in force; start one with hang-ms");
	}
}

static void xs_get_hang_ms(Object *obj, Visitor *v, const char *name,
			   void *opaque, Error **errp)
{
	XdmaSimState *s = XDMA_SIM(obj);
	uint64_t ns = s->model ? xdma_model_hang_left_ns(s->model) : 0;
	uint32_t val = DIV_ROUND_UP(ns, 1000000);

	visit_type_uint32(v, name, &val, errp);
}

static void xs_set_hang_ms(Object *obj, Visitor *v, const char *name,
			   void *opaque, Error **errp)
{
	XdmaSimState *s = XDMA_SIM(obj);
	uint32_t val;

	if (!visit_type_uint32(v, name, &val, errp)) {
		return;
	}
	if (!s->model) {
		error_setg(errp, "hang-ms: device not realized");
		return;
	}
	if (xdma_model_inject_hang(s->model, val * 1000000ull)) {
		error_setg(errp, "hang-ms: at most %llu",
			   (unsigned long long)(XDMA_MODEL_MAX_HANG_NS / 1000000));
	}
}

/* ---- BARs ---- */

static uint64_t xs_fw_read(XdmaSimState *s, uint32_t off)
{
	uint32_t i;

	switch (off) {
	case XS_FW_FAULTS:
		return xdma_model_get_faults(s->model);
	case XS_FW_MAGIC:
		return XS_FW_MAGIC_VALUE;
	case XS_FW_CTRL:
		return 0;
	case XS_FW_NCOUNTERS:
		return XS_NCOUNTERS;
	case XS_FW_HANG_US:
		return s->fw_hang_us;
	case XS_FW_HANG_LEFT_US:
		return DIV_ROUND_UP(xdma_model_hang_left_ns(s->model), 1000);
	case XS_FW_HANG_ENGINES:
		return xdma_model_get_hang_engines(s->model);
	}
	if (off >= XS_FW_COUNTERS && off < XS_FW_COUNTERS + 8 * XS_NCOUNTERS) {
		i = (off - XS_FW_COUNTERS) / 8;
		if (!(off & 4)) {
			/* the low half latches the counter for the high half */
			uint64_t c[XS_NCOUNTERS];

			xs_counters(s, c);
			s->latched[i] = c[i];
			return (uint32_t)c[i];
		}
		return s->latched[i] >> 32;
	}
	return 0;
}

static void xs_fw_write(XdmaSimState *s, uint32_t off, uint32_t val)
{
	switch (off) {
	case XS_FW_FAULTS:
		if (!xs_set_fault_bits(s, val & XDMA_FAULTS_ALL,
				       s->fw_hang_us * 1000ull)) {
			qemu_log_mask(LOG_GUEST_ERROR,
				      "xdma-sim: fault window: hang bit with hang time %u us\n",
				      s->fw_hang_us);
		}
		break;
	case XS_FW_HANG_US:
		s->fw_hang_us = val;
		break;
	case XS_FW_HANG_ENGINES:
		xdma_model_set_hang_engines(s->model, val);
		break;
	case XS_FW_CTRL:
		if (val & 1) {
			xdma_model_reset_counters(s->model);
		}
		break;
	case XS_FW_STRAY_IRQ:
		if (xdma_model_stray_irq(s->model, val)) {
			qemu_log_mask(LOG_GUEST_ERROR,
				      "xdma-sim: fault window: no stray message for engine %u\n",
				      val);
		}
		break;
	default:
		qemu_log_mask(LOG_GUEST_ERROR,
			      "xdma-sim: fault window: write to 0x%x\n", off);
	}
}

static bool xs_in_fw(XdmaSimState *s, hwaddr addr)
{
	return s->fault_regs && addr >= XS_FW_BASE &&
	       addr < XS_FW_BASE + XS_FW_SIZE;
}

/*
 * Accesses narrower than 32 bits (impl.min_access_size 1, so the device
 * sees their size): the byte lanes of @addr in its 32-bit register.
 */
static unsigned xs_lane_shift(hwaddr addr)
{
	return 8 * (addr & 3);
}

static uint64_t xs_lanes(uint32_t reg, hwaddr addr, unsigned size)
{
	return (reg >> xs_lane_shift(addr)) & MAKE_64BIT_MASK(0, size * 8);
}

static uint64_t xs_user_read(void *opaque, hwaddr addr, unsigned size)
{
	XdmaSimState *s = opaque;

	if (xs_in_fw(s, addr)) {
		return xs_lanes(xs_fw_read(s, (addr - XS_FW_BASE) & ~3), addr,
				size);
	}
	if (addr >= HF_USER_BAR_SIZE) {
		return 0;	/* user-bar-size beyond the model's 64 KiB */
	}
	return xs_lanes(xdma_model_user_read32(s->model, addr & ~3), addr, size);
}

static void xs_user_write(void *opaque, hwaddr addr, uint64_t val,
			  unsigned size)
{
	XdmaSimState *s = opaque;

	if (xs_in_fw(s, addr)) {
		xs_fw_write(s, addr - XS_FW_BASE, val);
		return;
	}
	if (addr >= HF_USER_BAR_SIZE) {
		return;
	}
	xdma_model_user_write32(s->model, addr & ~3, val << xs_lane_shift(addr));
}

static uint64_t xs_dma_bar_read(void *opaque, hwaddr addr, unsigned size)
{
	XdmaSimState *s = opaque;

	return xs_lanes(xdma_model_dma_read32(s->model, addr & ~3), addr, size);
}

static void xs_dma_bar_write(void *opaque, hwaddr addr, uint64_t val,
			     unsigned size)
{
	XdmaSimState *s = opaque;

	xdma_model_dma_write32(s->model, addr & ~3, val << xs_lane_shift(addr));
}

/*
 * The IP's AXI-Lite slaves are 32 bits wide: wider accesses are split into
 * 32-bit ones by the memory core, narrower ones reach the register that
 * holds them (xs_lanes(); a byte read of a read-to-clear register clears
 * it, as on the IP).
 */
static const MemoryRegionOps xs_user_ops = {
	.read = xs_user_read,
	.write = xs_user_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 4 },
};

static const MemoryRegionOps xs_dma_bar_ops = {
	.read = xs_dma_bar_read,
	.write = xs_dma_bar_write,
	.endianness = DEVICE_LITTLE_ENDIAN,
	.valid = { .min_access_size = 1, .max_access_size = 8 },
	.impl = { .min_access_size = 1, .max_access_size = 4 },
};

/* ---- life cycle ---- */

/* One "key=value" option of the link model into @l: 0 or -EINVAL. */
static int xs_link_opt(struct xdma_link *l, const char *fmt, ...)
	G_GNUC_PRINTF(2, 3);

static int xs_link_opt(struct xdma_link *l, const char *fmt, ...)
{
	g_autofree char *opt = NULL;
	va_list ap;

	va_start(ap, fmt);
	opt = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return xdma_link_parse(opt, l) ? -EINVAL : 0;
}

/*
 * link=, mps=, desc_ns= into s->link_model, with the in-process card's
 * parser (model/xdma_link.c): the same names, ranges and defaults.
 */
static bool xs_parse_link(XdmaSimState *s, Error **errp)
{
	struct xdma_link *l = &s->link_model;

	memset(l, 0, sizeof(*l));
	if (s->link && xs_link_opt(l, "link=%s", s->link)) {
		error_setg(errp, "xdma-sim: link=%s: expected genGxW (G 1..5, W 1, 2, 4, 8 or 16) or none",
			   s->link);
		return false;
	}
	if (s->mps != UINT32_MAX && xs_link_opt(l, "mps=%u", s->mps)) {
		error_setg(errp, "xdma-sim: mps=%u: expected 128, 256, 512, 1024, 2048 or 4096",
			   s->mps);
		return false;
	}
	if (s->desc_ns != UINT64_MAX &&
	    xs_link_opt(l, "desc_ns=%" PRIu64, s->desc_ns)) {
		error_setg(errp, "xdma-sim: desc_ns=%" PRIu64 ": at most %llu",
			   s->desc_ns, XDMA_LINK_MAX_DESC_NS);
		return false;
	}
	if (xdma_link_finish(l)) {
		error_setg(errp, "xdma-sim: mps and desc_ns describe the link model and need link=genGxW too");
		return false;
	}
	return true;
}

/*
 * The PCIe capability's link registers report the link model's generation
 * and width (Link Capabilities, Link Status, Link Capabilities 2, Link
 * Control 2 target speed), or Gen3 x8; Device Capabilities its MPS.  A
 * driver reads the negotiated speed and width from Link Status.
 */
static void xs_pcie_link(XdmaSimState *s)
{
	PCIDevice *pdev = PCI_DEVICE(s);
	uint8_t *exp = pdev->config + pdev->exp.exp_cap;
	const struct xdma_link *l = &s->link_model;
	uint32_t gen = l->gen ? l->gen : XS_DEFAULT_GEN;
	uint32_t lanes = l->gen ? l->lanes : XS_DEFAULT_LANES;
	uint32_t mps = l->gen ? l->mps : 256, sls = 0, g;

	pci_long_test_and_clear_mask(exp + PCI_EXP_LNKCAP,
				     PCI_EXP_LNKCAP_SLS | PCI_EXP_LNKCAP_MLW);
	pci_long_test_and_set_mask(exp + PCI_EXP_LNKCAP,
				   QEMU_PCI_EXP_LNKCAP_MLS(gen) |
				   QEMU_PCI_EXP_LNKCAP_MLW(lanes));
	pci_word_test_and_clear_mask(exp + PCI_EXP_LNKSTA,
				     PCI_EXP_LNKSTA_CLS | PCI_EXP_LNKSTA_NLW);
	pci_word_test_and_set_mask(exp + PCI_EXP_LNKSTA,
				   QEMU_PCI_EXP_LNKSTA_CLS(gen) |
				   QEMU_PCI_EXP_LNKSTA_NLW(lanes));
	/* Supported Link Speeds Vector: bit g for each generation g */
	for (g = 1; g <= gen; g++) {
		sls |= 1u << g;
	}
	pci_set_long(exp + PCI_EXP_LNKCAP2, sls);
	pci_word_test_and_clear_mask(exp + PCI_EXP_LNKCTL2,
				     PCI_EXP_LNKCTL2_TLS);
	pci_word_test_and_set_mask(exp + PCI_EXP_LNKCTL2, gen);
	pci_long_test_and_clear_mask(exp + PCI_EXP_DEVCAP,
				     PCI_EXP_DEVCAP_PAYLOAD);
	pci_long_test_and_set_mask(exp + PCI_EXP_DEVCAP, ctz32(mps) - 7);
}

/*
 * The config space's IDs and interrupt pin, and the two BARs: the user BAR
 * (BAR0, 64-bit prefetchable when larger than the reference design's) and
 * the DMA/config BAR after it.
 */
static void xs_config_bars(XdmaSimState *s)
{
	PCIDevice *pdev = PCI_DEVICE(s);

	pci_set_word(pdev->config + PCI_VENDOR_ID, s->vendor_id);
	pci_set_word(pdev->config + PCI_DEVICE_ID, s->device_id);
	pci_set_word(pdev->config + PCI_SUBSYSTEM_VENDOR_ID, s->vendor_id);
	pci_set_word(pdev->config + PCI_SUBSYSTEM_ID, 0x0007);
	pci_config_set_interrupt_pin(pdev->config, 1);

	memory_region_init_io(&s->user_bar, OBJECT(s), &xs_user_ops, s,
			      "xdma-sim-user", s->user_bar_size);
	memory_region_init_io(&s->dma_bar, OBJECT(s), &xs_dma_bar_ops, s,
			      "xdma-sim-dma", XDMA_BAR_SIZE);
	if (s->user_bar_size > HF_USER_BAR_SIZE) {
		pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
				 PCI_BASE_ADDRESS_MEM_TYPE_64 |
				 PCI_BASE_ADDRESS_MEM_PREFETCH, &s->user_bar);
		s->dma_bar_nr = 2;
	} else {
		pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY,
				 &s->user_bar);
		s->dma_bar_nr = 1;
	}
	pci_register_bar(pdev, s->dma_bar_nr, PCI_BASE_ADDRESS_SPACE_MEMORY,
			 &s->dma_bar);
}

static void xs_realize(PCIDevice *pdev, Error **errp)
{
	XdmaSimState *s = XDMA_SIM(pdev);
	struct xdma_model_config cfg = {
		.num_h2c = s->num_h2c,
		.num_c2h = s->num_c2h,
		.ddr_size = s->ddr_size,
		.addr_align = s->addr_align,
		.len_gran = s->len_gran,
		.st = s->st,
	};
	Error *err = NULL;
	uint32_t i;
	int r;

	if (s->num_h2c < 1 || s->num_h2c > XDMA_MAX_CHANNELS ||
	    s->num_c2h < 1 || s->num_c2h > XDMA_MAX_CHANNELS) {
		error_setg(errp, "xdma-sim: h2c and c2h must be 1..4");
		return;
	}
	if (s->user_bar_size < HF_USER_BAR_SIZE ||
	    !is_power_of_2(s->user_bar_size)) {
		error_setg(errp, "xdma-sim: user-bar-size must be a power of two, "
			   "64 KiB or more");
		return;
	}
	if (!xs_parse_link(s, errp)) {
		return;
	}
	cfg.link = s->link_model;
	cfg.user = &hf_refdesign_user;
	if (s->rtl) {
		char msg[PATH_MAX + 160];

		r = hf_rtl_load(&s->rtl_plugin, msg, sizeof(msg));
		if (r) {
			error_setg(errp, "xdma-sim: rtl=on: %s", msg);
			return;
		}
		cfg.user = s->rtl_plugin.ops;
	}
	r = xdma_model_create(&cfg, &xs_host_ops, s, &s->model);
	if (r) {
		hf_rtl_unload(&s->rtl_plugin);
		error_setg_errno(errp, -r,
				 "xdma-sim: model rejects ddr-size/align/len-gran");
		return;
	}
	s->num_engines = xdma_model_num_engines(s->model);
	for (i = 0; i < s->num_engines; i++) {
		s->eng[i].s = s;
		s->eng[i].index = i;
		s->eng[i].bh = qemu_bh_new(xs_engine_run, &s->eng[i]);
		s->eng[i].timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
					       xs_engine_run, &s->eng[i]);
	}

	xs_config_bars(s);

	if (pci_is_express(pdev)) {
		r = pcie_endpoint_cap_init(pdev, XS_CAP_PCIE);
		if (r < 0) {
			error_setg(errp, "xdma-sim: PCIe capability: %d", r);
			goto fail;
		}
		xs_pcie_link(s);
		/* Device Control: the OS may enable error reporting */
		pcie_cap_deverr_init(pdev);
		/* errors can be injected (HMP pcie_aer_inject_error) */
		r = pcie_aer_init(pdev, PCI_ERR_VER, XS_CAP_AER, PCI_ERR_SIZEOF,
				  errp);
		if (r < 0) {
			goto fail;
		}
	}
	r = msi_init(pdev, XS_CAP_MSI, XDMA_MSI_VECTORS, true, false, &err);
	if (r == -ENOTSUP) {
		/* the machine's interrupt controller has no MSI: MSI-X/INTx */
		error_free(err);
		err = NULL;
	} else if (r) {
		error_propagate(errp, err);
		goto fail;
	}
	r = msix_init(pdev, XDMA_MSIX_VECTORS, &s->dma_bar, s->dma_bar_nr,
		      XDMA_MSIX_TABLE_OFFSET, &s->dma_bar, s->dma_bar_nr,
		      XDMA_MSIX_PBA_OFFSET,
		      XS_CAP_MSIX, errp);
	if (r) {
		goto fail;
	}
	for (i = 0; i < XDMA_MSIX_VECTORS; i++) {
		msix_vector_use(pdev, i);
	}

	if (qemu_chr_fe_backend_connected(&s->chr)) {
		qemu_chr_fe_set_handlers(&s->chr, xs_chr_can_receive,
					 xs_chr_receive, xs_chr_event, NULL, s,
					 NULL, true);
	}
	s->irq_mode = -1;
	xs_update_irq_mode(s);
	return;

fail:
	msi_uninit(pdev);
	if (pci_is_express(pdev)) {
		pcie_aer_exit(pdev);
		pcie_cap_exit(pdev);
	}
	xs_engines_free(s);
	xdma_model_destroy(s->model);
	s->model = NULL;
	hf_rtl_unload(&s->rtl_plugin);
}

static void xs_exit(PCIDevice *pdev)
{
	XdmaSimState *s = XDMA_SIM(pdev);

	qemu_chr_fe_deinit(&s->chr, false);
	xs_engines_free(s);
	/* lower INTx before the model goes */
	pci_set_irq(pdev, 0);
	msix_unuse_all_vectors(pdev);
	msix_uninit(pdev, &s->dma_bar, &s->dma_bar);
	msi_uninit(pdev);
	if (pci_is_express(pdev)) {
		pcie_aer_exit(pdev);
		pcie_cap_exit(pdev);
	}
	xdma_model_destroy(s->model);
	s->model = NULL;
	hf_rtl_unload(&s->rtl_plugin);
}

static void xs_reset(DeviceState *dev)
{
	XdmaSimState *s = XDMA_SIM(dev);
	uint32_t i;

	if (!s->model) {
		return;
	}
	/* the PCI core has reset config space, MSI and MSI-X already */
	xdma_model_reset(s->model);
	/* the engines are idle: their pending wake-ups have nothing to do */
	for (i = 0; i < s->num_engines; i++) {
		timer_del(s->eng[i].timer);
	}
	/*
	 * Whether this runs before or after the PCI core resets config space,
	 * after a reset MSI and MSI-X are off and INTx is enabled.
	 */
	s->irq_mode = XDMA_MODEL_IRQ_LEGACY;
	xdma_model_set_irq_mode(s->model, XDMA_MODEL_IRQ_LEGACY);
}

/* A hybrid device: a PCIe endpoint only when plugged into a PCIe bus. */
static void xs_dc_realize(DeviceState *dev, Error **errp)
{
	XdmaSimClass *xc = XDMA_SIM_GET_CLASS(dev);
	PCIDevice *pdev = PCI_DEVICE(dev);

	if (pci_bus_is_express(pci_get_bus(pdev))) {
		pdev->cap_present |= QEMU_PCI_CAP_EXPRESS;
	}
	xc->parent_dc_realize(dev, errp);
}

static void xs_instance_init(Object *obj)
{
	object_property_add(obj, "faults", "uint32", xs_get_faults,
			    xs_set_faults, NULL, NULL);
	object_property_set_description(obj, "faults",
		"injected faults: 1 desc_read, 2 stall, 4 lost_irq, 8 dead, 16 hang (kept, not started)");
	object_property_add(obj, "hang-ms", "uint32", xs_get_hang_ms,
			    xs_set_hang_ms, NULL, NULL);
	object_property_set_description(obj, "hang-ms",
		"set: every engine hangs this long, then recovers (0 ends a hang); get: ms left");
}

/* The model's state lives outside QEMU: no migration, no snapshots. */
static const VMStateDescription xs_vmstate = {
	.name = TYPE_XDMA_SIM,
	.unmigratable = 1,
};

static Property xs_props[] = {
	DEFINE_PROP_UINT16("vendor-id", XdmaSimState, vendor_id, 0x10ee),
	DEFINE_PROP_UINT16("device-id", XdmaSimState, device_id, 0x9038),
	DEFINE_PROP_SIZE("ddr-size", XdmaSimState, ddr_size,
			 XDMA_MODEL_DEFAULT_DDR_SIZE),
	DEFINE_PROP_UINT32("h2c", XdmaSimState, num_h2c, 4),
	DEFINE_PROP_UINT32("c2h", XdmaSimState, num_c2h, 4),
	DEFINE_PROP_UINT32("align", XdmaSimState, addr_align, 1),
	DEFINE_PROP_UINT32("len-gran", XdmaSimState, len_gran, 1),
	DEFINE_PROP_BOOL("fault-regs", XdmaSimState, fault_regs, false),
	DEFINE_PROP_BOOL("st", XdmaSimState, st, false),
	DEFINE_PROP_BOOL("rtl", XdmaSimState, rtl, false),
	DEFINE_PROP_SIZE("user-bar-size", XdmaSimState, user_bar_size,
			 HF_USER_BAR_SIZE),
	DEFINE_PROP_STRING("link", XdmaSimState, link),
	DEFINE_PROP_UINT32("mps", XdmaSimState, mps, UINT32_MAX),
	DEFINE_PROP_UINT64("desc_ns", XdmaSimState, desc_ns, UINT64_MAX),
	DEFINE_PROP_CHR("chardev", XdmaSimState, chr),
	DEFINE_PROP_END_OF_LIST(),
};

static void xs_class_init(ObjectClass *klass, void *data)
{
	DeviceClass *dc = DEVICE_CLASS(klass);
	PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
	XdmaSimClass *xc = XDMA_SIM_CLASS(klass);

	k->realize = xs_realize;
	k->exit = xs_exit;
	k->config_write = xs_write_config;
	k->vendor_id = 0x10ee;		/* overridden by vendor-id */
	k->device_id = 0x9038;		/* overridden by device-id */
	k->subsystem_vendor_id = 0x10ee;
	k->subsystem_id = 0x0007;
	k->class_id = PCI_CLASS_MEMORY_OTHER;	/* 0x0580, the IP's default */
	k->revision = 0;
	dc->reset = xs_reset;
	dc->vmsd = &xs_vmstate;
	dc->desc = "Xilinx XDMA (PG195) card, hellofpga model";
	device_class_set_parent_realize(dc, xs_dc_realize,
					&xc->parent_dc_realize);
	device_class_set_props(dc, xs_props);
	set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo xs_info = {
	.name = TYPE_XDMA_SIM,
	.parent = TYPE_PCI_DEVICE,
	.instance_size = sizeof(XdmaSimState),
	.instance_init = xs_instance_init,
	.class_size = sizeof(XdmaSimClass),
	.class_init = xs_class_init,
	.interfaces = (InterfaceInfo[]) {
		{ INTERFACE_PCIE_DEVICE },
		{ INTERFACE_CONVENTIONAL_PCI_DEVICE },
		{ },
	},
};

static void xs_register_types(void)
{
	type_register_static(&xs_info);
}

type_init(xs_register_types)
