// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xdma_card.c - the card side of the engine core (XDMA IP, PG195): probing
 * which H2C and C2H channels a card has and of which interface (AXI
 * memory-mapped or AXI-Stream), their interrupt vectors, and decoding an
 * engine's status register into text.
 */
#include "xdma_priv.h"

/* ------------------------------------------------------------------------ */
/* Card probe                                                               */
/* ------------------------------------------------------------------------ */

/**
 * hf_xdma_id_is_channel() - whether an identifier is a channel of one kind.
 * @id: identifier register value
 * @target: expected target (XDMA_TARGET_H2C or XDMA_TARGET_C2H)
 * @stream: the kind: AXI-Stream (true) or AXI memory-mapped (false)
 *
 * Return: true for an XDMA channel of @target with that interface.
 */
static bool hf_xdma_id_is_channel(u32 id, u32 target, bool stream)
{
	return FIELD_GET(XDMA_ID_SUBSYSTEM, id) == XDMA_ID_SUBSYSTEM_VALUE &&
	       FIELD_GET(XDMA_ID_TARGET, id) == target &&
	       !!(id & XDMA_ID_STREAM) == stream;
}

/**
 * hf_xdma_probe_dir() - count the channels of one direction.
 * @bar: the DMA/config BAR
 * @target: XDMA_TARGET_H2C or XDMA_TARGET_C2H
 * @stream: count channels of this kind (AXI-Stream or memory-mapped)
 * @num: channels found (contiguous from channel 0)
 * @first_id: identifier of channel 0
 *
 * Return: 0, or -ENODEV when a read returns all ones.
 */
static int hf_xdma_probe_dir(const struct hf_mmio *bar, u32 target,
			     bool stream, u32 *num, u32 *first_id)
{
	u32 ch, id;

	*num = 0;
	*first_id = 0;
	for (ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
		id = hf_ioread32(bar, XDMA_BLOCK_BASE(target, ch) + XDMA_ID);
		if (id == XDMA_ID_DEAD)
			return -ENODEV;
		if (!ch)
			*first_id = id;
		if (!hf_xdma_id_is_channel(id, target, stream))
			break;
		*num = ch + 1;
	}
	return 0;
}

/**
 * hf_xdma_dev_probe() - identify the XDMA IP behind a BAR and count its channels.
 * @xdev: filled in
 * @bar: the mapped DMA/config BAR
 *
 * Reads the identifier of H2C and C2H channels 0 to 3.  A channel is present
 * when its identifier has subsystem 0x1fc and the right target.  The card's
 * kind, AXI memory-mapped or AXI-Stream (@xdev->stream), is that of H2C
 * channel 0, or of C2H channel 0 when H2C channel 0 is no XDMA channel;
 * present channels are those of that kind, contiguous from channel 0 in
 * each direction (a channel of the other kind ends the count).
 *
 * Return: 0, or -ENODEV when the card does not respond (reads all ones) or
 * has no DMA channel.
 */
int hf_xdma_dev_probe(struct hf_xdma_dev *xdev, const struct hf_mmio *bar)
{
	u32 h2c_id, c2h_id;
	bool stream;
	int ret;

	memset(xdev, 0, sizeof(*xdev));
	xdev->bar = bar;
	h2c_id = hf_ioread32(bar, XDMA_H2C_BASE(0) + XDMA_ID);
	c2h_id = hf_ioread32(bar, XDMA_C2H_BASE(0) + XDMA_ID);
	stream = hf_xdma_id_is_channel(h2c_id, XDMA_TARGET_H2C, true) ||
		 (!hf_xdma_id_is_channel(h2c_id, XDMA_TARGET_H2C, false) &&
		  hf_xdma_id_is_channel(c2h_id, XDMA_TARGET_C2H, true));
	ret = -ENODEV;
	if (h2c_id != XDMA_ID_DEAD && c2h_id != XDMA_ID_DEAD)
		ret = hf_xdma_probe_dir(bar, XDMA_TARGET_H2C, stream,
					&xdev->num_h2c, &h2c_id);
	if (!ret)
		ret = hf_xdma_probe_dir(bar, XDMA_TARGET_C2H, stream,
					&xdev->num_c2h, &c2h_id);
	if (ret) {
		hf_os_log("xdma: card not responding (reads all ones): removed or link down");
		return ret;
	}
	if (!xdev->num_h2c && !xdev->num_c2h) {
		hf_os_log("xdma: no DMA channel (H2C0 id 0x%08x, C2H0 id 0x%08x)",
			  h2c_id, c2h_id);
		return -ENODEV;
	}
	xdev->stream = stream;
	xdev->version = FIELD_GET(XDMA_ID_VERSION,
				  xdev->num_h2c ? h2c_id : c2h_id);
	return 0;
}

/**
 * hf_xdma_dev_set_vectors() - program the IRQ block's vector numbers.
 * @xdev: the card, probed
 * @chan_first: vector of engine 0 (engine order: H2C channels, then C2H)
 * @user_first: vector of user interrupt 0
 * @shared: every engine gets @chan_first and every user interrupt
 *	@user_first (one MSI vector, or INTx where 0 means INTA); otherwise
 *	engine n gets @chan_first + n and user interrupt n @user_first + n
 *	(MSI-X, or multi-vector MSI)
 */
void hf_xdma_dev_set_vectors(struct hf_xdma_dev *xdev, u32 chan_first,
			     u32 user_first, bool shared)
{
	u32 n = xdev->num_h2c + xdev->num_c2h;
	u32 reg = 0, i, vec;

	xdev->irq_shared = shared;

	for (i = 0; i < XDMA_MAX_ENGINES; i++) {
		vec = i < n ? (shared ? chan_first : chan_first + i) : 0;
		reg |= (vec & XDMA_IRQ_VEC_MASK) << XDMA_IRQ_VEC_SHIFT(i);
		if (i % 4 == 3) {
			hf_iowrite32(reg, xdev->bar,
				     XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(i));
			reg = 0;
		}
	}
	for (i = 0; i < XDMA_USER_IRQS; i++) {
		vec = shared ? user_first : user_first + i;
		reg |= (vec & XDMA_IRQ_VEC_MASK) << XDMA_IRQ_VEC_SHIFT(i);
		if (i % 4 == 3) {
			hf_iowrite32(reg, xdev->bar,
				     XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(i));
			reg = 0;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Status decoding                                                          */
/* ------------------------------------------------------------------------ */

/**
 * struct hf_xdma_buf - a text buffer filled piece by piece.
 * @buf: the buffer, always NUL terminated when @len > 0
 * @len: its size
 * @pos: characters written so far (may exceed @len on truncation)
 */
struct hf_xdma_buf {
	char *buf;
	size_t len;
	size_t pos;
};

/**
 * hf_xdma_buf_add() - append a string to a buffer, separating items by ", ".
 * @b: the buffer
 * @s: the text
 */
static void hf_xdma_buf_add(struct hf_xdma_buf *b, const char *s)
{
	int n;

	if (b->pos >= b->len)
		return;
	n = snprintf(b->buf + b->pos, b->len - b->pos, "%s%s",
		     b->pos ? ", " : "", s);
	if (n > 0)
		b->pos += n;
}

/**
 * hf_xdma_buf_add_field() - append an error field with its sub-bits by name.
 * @b: the buffer
 * @what: name of the field ("read error")
 * @val: value of the field (5 bits)
 * @names: name of each sub-bit, NULL for one the field does not define
 */
static void hf_xdma_buf_add_field(struct hf_xdma_buf *b, const char *what, u32 val,
				  const char * const names[5])
{
	char tmp[160];
	size_t pos;
	u32 bit;
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s (", what);
	pos = n > 0 ? n : 0;
	for (bit = 0; bit < 5 && pos < sizeof(tmp); bit++) {
		const char *sep = bit && (val & (BIT(bit) - 1)) ? ", " : "";

		if (!(val & BIT(bit)))
			continue;
		if (names[bit])
			n = snprintf(tmp + pos, sizeof(tmp) - pos, "%s%s",
				     sep, names[bit]);
		else
			n = snprintf(tmp + pos, sizeof(tmp) - pos,
				     "%sundefined bit %u", sep, bit);
		if (n > 0)
			pos += n;
	}
	if (pos < sizeof(tmp))
		snprintf(tmp + pos, sizeof(tmp) - pos, ")");
	hf_xdma_buf_add(b, tmp);
}

/* The status bits that are one event each, by name, in the order told. */
static const struct {
	u32 bit;
	const char *name;
} hf_xdma_status_bits[] = {
	{ XDMA_STAT_BUSY, "busy" },
	{ XDMA_STAT_DESC_STOPPED, "descriptor stopped" },
	{ XDMA_STAT_DESC_COMPLETED, "descriptor completed" },
	{ XDMA_STAT_ALIGN_MISMATCH, "alignment mismatch" },
	{ XDMA_STAT_MAGIC_STOPPED, "bad descriptor magic" },
	{ XDMA_STAT_INVALID_LENGTH, "invalid length" },
	{ XDMA_STAT_IDLE_STOPPED, "idle stopped" },
};

static const char * const hf_xdma_h2c_read_err[5] = {
	"unsupported request reading host memory",
	"completer abort reading host memory",
	"parity error reading host memory",
	"poisoned data reading host memory",
	"unexpected completion reading host memory",
};

static const char * const hf_xdma_c2h_read_err[5] = {
	"decode error at card address",
	"slave error at card address",
};

static const char * const hf_xdma_h2c_write_err[5] = {
	"decode error at card address",
	"slave error at card address",
};

static const char * const hf_xdma_no_field[5];

static const char * const hf_xdma_desc_err[5] = {
	"unsupported request",
	"completer abort",
	"parity error",
	"poisoned header",
	"unexpected completion",
};

/**
 * hf_xdma_decode_status() - explain a channel status register value.
 * @dir: direction of the channel (the error sub-fields differ)
 * @status: value of the status register
 * @buf: receives the text, one item per bit or field set, separated by
 *	", " ("none" when no bit is set)
 * @len: size of @buf
 *
 * Return: 0 when no error bit is set, -ENODEV for an all-ones value (card
 * gone), -EIO otherwise.
 */
int hf_xdma_decode_status(enum hf_xdma_dir dir, u32 status, char *buf, size_t len)
{
	struct hf_xdma_buf b = { .buf = buf, .len = len, .pos = 0 };
	bool h2c = dir == XDMA_H2C;
	char tmp[32];
	size_t i;
	u32 bit;

	if (len)
		buf[0] = '\0';
	if (status == XDMA_ID_DEAD) {
		hf_xdma_buf_add(&b, "card not responding (reads all ones)");
		return -ENODEV;
	}
	for (i = 0; i < ARRAY_SIZE(hf_xdma_status_bits); i++)
		if (status & hf_xdma_status_bits[i].bit)
			hf_xdma_buf_add(&b, hf_xdma_status_bits[i].name);
	if (status & XDMA_STAT_READ_ERROR)
		hf_xdma_buf_add_field(&b, "read error",
				      FIELD_GET(XDMA_STAT_READ_ERROR, status),
				      h2c ? hf_xdma_h2c_read_err : hf_xdma_c2h_read_err);
	if (status & XDMA_STAT_WRITE_ERROR)
		hf_xdma_buf_add_field(&b, "write error",
				      FIELD_GET(XDMA_STAT_WRITE_ERROR, status),
				      h2c ? hf_xdma_h2c_write_err : hf_xdma_no_field);
	if (status & XDMA_STAT_DESC_ERROR)
		hf_xdma_buf_add_field(&b, "descriptor error",
				      FIELD_GET(XDMA_STAT_DESC_ERROR, status),
				      hf_xdma_desc_err);
	for (bit = 0; bit < 32; bit++) {
		if (!(status & BIT(bit) & ~(XDMA_STAT_BUSY |
					     XDMA_IRQ_MASK_BITS |
					     XDMA_STAT_IDLE_STOPPED)))
			continue;
		snprintf(tmp, sizeof(tmp), "reserved bit %u", bit);
		hf_xdma_buf_add(&b, tmp);
	}
	if (!b.pos)
		hf_xdma_buf_add(&b, "none");
	return status & XDMA_STAT_ERR_MASK ? -EIO : 0;
}
