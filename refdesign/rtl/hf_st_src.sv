// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_st_src.sv - the AXI-Stream frame source of one C2H channel: the
// registers HF_USER_ST_SRC(ch) of refdesign/hf_user_regs.h with the
// semantics of hf_refdesign.c's struct st_src, frames of
// refdesign/hf_stream_pattern.h, one beat per clock.
//
// The C source generates a frame (sequence number, length) when it is due
// and holds it until the C2H engine took all of it.  So does this one, in
// the clock the C would ("commit": SEQ, made and the drop schedule move on,
// STATUS HOLDING rises); the frame's first beat is then in the output
// register in the next clock, tvalid high to the TLAST handshake.  Its
// beats come from a pipeline that runs ahead of the commit: it predicts
// that the next frames are seq, seq + 1, ... with the lengths the current
// registers give, computes their lengths (records: hf_stream_rec_len(),
// two mixers and a multiply-high) and their beats (DATA_W/32 pattern words,
// two multiplies each) and parks the beats in a small FIFO.  A drop, CLEAR
// or a write to a length register breaks the prediction: the pipeline
// restarts from the current registers once the held frame has left it, and
// a frame generated meanwhile waits (held, STATUS HOLDING) some 30 clocks
// for its first beat.  So back-to-back frames (stall mode, or the next
// frame due when the last beat leaves) follow each other with no idle
// clock, one beat per clock for any length, while the frame state stays
// the C behaviour's.  (Drop mode with an interval shorter than that
// restart: a frame generated after a drop waits for its beats and the
// frames due meanwhile are dropped, where the C would have sent it at once.)
//
// Pipeline (clocks): predictor  seq -> mix -> mix -> multiply-high -> len
// (~19) into a frame queue (FQ_DEPTH, credits); issuer: a frame's beats,
// one per clock while the beat FIFO has credit; beat pipeline: x = idx *
// HF_K_IDX ^ key(seq) -> mix (HF_MIX_LAT) -> header words -> FIFO
// (ODEPTH); output register (tdata/tkeep/tlast/tvalid).
//
// Also here: hf_mix_pipe (the pipelined hf_stream_mix() of N words) and
// hf_delay (a delay line), which hf_st_sink.sv uses too, and hf_fifo.
module hf_st_src #(
    parameter int DATA_W = 256
) (
    input  logic                clk,
    input  logic                rst_n,
    input  logic [63:0]         time_ns,
    // register port (hf_axil_regs): a read or a write of the register at
    // byte offset 4 * reg_addr of the block, answered in the next clock
    input  logic                reg_rd,
    input  logic                reg_wr,
    input  logic [5:0]          reg_addr,
    input  logic [31:0]         reg_wdata,
    output logic [31:0]         reg_rdata,
    output logic                reg_err,
    // AXI-Stream master
    output logic [DATA_W-1:0]   tdata,
    output logic [DATA_W/8-1:0] tkeep,
    output logic                tlast,
    output logic                tvalid,
    input  logic                tready,
    output logic                busy,     // holds a frame (tvalid high or about to be)
    output logic [15:0]         irq,      // a clock's pulse per frame end with CTRL.IRQ
    output logic [63:0]         next_ns   // RTL-SPEC.md "Sources"
);
`include "hf_pattern.svh"

    localparam int B = DATA_W / 8;        // bytes per beat
    localparam int LB = $clog2(B);
    localparam int W = DATA_W / 32;       // pattern words per beat
    localparam int ODEPTH = 16;           // beat FIFO (credits)
    localparam int OAW = $clog2(ODEPTH);
    localparam int FQ_DEPTH = 32;         // frame queue (credits)
    localparam int FQAW = $clog2(FQ_DEPTH);

    // registers (hf_user_regs.h)
    localparam logic [5:0] R_CTRL = 6'h00 >> 2, R_FRAME_SIZE = 6'h04 >> 2,
        R_REC_MIN = 6'h08 >> 2, R_REC_MAX = 6'h0c >> 2,
        R_INTERVAL = 6'h10 >> 2, R_COUNT = 6'h14 >> 2, R_SEQ_LO = 6'h18 >> 2,
        R_SEQ_HI = 6'h1c >> 2, R_SENT = 6'h20 >> 2, R_DROPPED = 6'h24 >> 2,
        R_BYTES_LO = 6'h28 >> 2, R_BYTES_HI = 6'h2c >> 2,
        R_STATUS = 6'h30 >> 2;
    localparam logic [31:0] CTRL_MASK = 32'h00000f0f;
    localparam int CTRL_ENABLE = 0, CTRL_RECORDS = 1, CTRL_DROP = 2,
        CTRL_IRQ = 3, CTRL_CLEAR = 31;

    logic [31:0] ctrl, interval, count;
    logic [27:0] frame_size, rec_min, rec_max;
    logic [63:0] seq, due, made, h_due, nd, t_end, bytes;
    logic [31:0] sent, dropped, seq_hi_l, bytes_hi_l;
    logic        held, catchup, nd_fresh;
    // drop catch-up: 2^dk frames per clock once the source is two or more
    // behind (time jumped: co-simulation), the stride growing, then
    // shrinking once it overshot (dk_down): O(log n) clocks for n frames
    logic [4:0]  dk;
    logic        dk_down;
    logic        spec_ok, cur_in_fifo;
    logic        pend;       // generated, its first beat not out yet

    wire enabled = ctrl[CTRL_ENABLE];
    wire records = ctrl[CTRL_RECORDS];
    wire drops = ctrl[CTRL_DROP] && interval != 32'h0;
    wire left_nz = enabled && (count == 32'h0 || made < {32'h0, count});

    // ---- register port decode ----
    wire [5:0] ra = reg_addr;
    wire wr_ctrl = reg_wr && ra == R_CTRL;
    wire len_ok = reg_wdata >= HF_STREAM_MIN && reg_wdata <= HF_STREAM_MAX;
    wire wr_fs = reg_wr && ra == R_FRAME_SIZE && len_ok;
    wire wr_min = reg_wr && ra == R_REC_MIN && len_ok;
    wire wr_max = reg_wr && ra == R_REC_MAX && len_ok;
    wire wr_iv = reg_wr && ra == R_INTERVAL;
    wire wr_cnt = reg_wr && ra == R_COUNT;
    wire do_clear = wr_ctrl && reg_wdata[CTRL_CLEAR];
    wire do_start = wr_ctrl && !enabled && reg_wdata[CTRL_ENABLE];
    // a write that changes the lengths of the frames the pipeline predicts
    wire wr_lens = wr_fs || wr_min || wr_max ||
                   (wr_ctrl && reg_wdata[CTRL_RECORDS] != records);

    // ---- beat FIFO, output register, commit ----
    localparam int OW = DATA_W + LB + 1 + 2;   // {last, first, nb, data}
    logic [OW-1:0]   head;       // the beat FIFO's
    logic            head_v;
    logic [OAW:0]    o_cnt;      // beats in the beat pipeline and the FIFO
    logic            ov, olast;
    logic [LB:0]     onb;
    logic [DATA_W-1:0] odata;
    logic [B-1:0]    okeep;

    wire head_last = head[OW-1];
    wire head_first = head[OW-2];
    wire hs = ov && tready;
    wire end_now = hs && olast;
    wire out_free = !ov || hs;
    // Time compares that decide a frame's start are registered (a clock
    // late; time never goes back, so one true a clock ago is true now) and
    // taken only while what they compared did not change since: the
    // commit drives the output register's enables.
    // due <= time_ns:
    logic due_le_r, due_fresh;
    wire due_le = due_le_r && due_fresh;
    // the next frame is due when this one ends (stall mode): max(h_due +
    // interval, t) <= t, i.e. nd = h_due + interval <= t (nd a clock late
    // itself: nd_fresh)
    logic nd_le_r;
    wire nd_le = interval == 32'h0 || (nd_le_r && nd_fresh);
    wire [63:0] nd_c = h_due + {32'h0, interval};
    wire gen_ok = left_nz && !catchup &&
                  (held ? end_now && !drops && nd_le : due_le);
    // the frame is generated (C's src_gen) on time, its first beat goes
    // out as soon as it is at the FIFO's head (at once but after a restart)
    wire commit = spec_ok && gen_ok;
    wire pop_first = (pend || commit) && out_free && head_v && head_first;
    wire pop_cont = out_free && head_v && !head_first;
    wire pop = pop_first || pop_cont;
    wire [63:0] t_drop = catchup ? t_end : time_ns;
    wire drop = (held || catchup) && drops && left_nz && due < t_drop;
    // 2^dk frames at once: the frame after them is due before t_drop too,
    // and as many are left after them (C: src_drop() drops all at once)
    wire [63:0] dk_n = 64'd1 << dk;
    wire [63:0] dk_iv = {32'h0, interval} << dk;
    wire stride = drop && due + dk_iv < t_drop &&
                  (count == 32'h0 || made + dk_n < {32'h0, count});
    wire [63:0] drop_n = stride ? dk_n : 64'd1;    // frames this clock
    // the prediction broke: restart the pipeline once no beat of a
    // committed frame is left in it
    wire flush = !spec_ok && !cur_in_fifo;

    // seq as it is after this clock (the pipeline restarts from it)
    logic [63:0] seq_next;
    always_comb begin
        seq_next = seq;
        if (commit)
            seq_next = seq + 64'd1;
        if (drop)
            seq_next = seq + drop_n;
        if (do_clear)
            seq_next = 64'h0;
    end

    // ---- the frame state of hf_refdesign.c ----
    always_ff @(posedge clk) begin
        irq <= 16'h0;
        nd <= nd_c;
        nd_fresh <= !(commit || wr_iv);
        nd_le_r <= nd_fresh && nd <= time_ns;
        due_le_r <= due <= time_ns;
        due_fresh <= !(drop || (commit && drops) || (end_now && !drops) ||
                       do_clear || do_start);
        if (commit)
            made <= made + 64'd1;
        if (drop) begin
            made <= made + drop_n;
            dropped <= dropped + drop_n[31:0];
            due <= due + (stride ? dk_iv : {32'h0, interval});
        end
        // the stride: up while it fits, then down to 1 (a binary search
        // of what is left), then up again if still behind
        if (!drop) begin
            dk <= 5'd0;
            dk_down <= 1'b0;
        end else if (!dk_down) begin
            if (stride && dk != 5'd31)
                dk <= dk + 5'd1;
            if (!stride) begin
                dk_down <= 1'b1;
                if (dk != 5'd0)
                    dk <= dk - 5'd1;
            end
        end else if (dk != 5'd0) begin
            dk <= dk - 5'd1;
        end else begin
            dk_down <= 1'b0;
        end
        if (commit) begin
            held <= 1'b1;
            h_due <= held ? time_ns : due;
            if (drops)
                due <= due + {32'h0, interval};   // fixed schedule
        end else if (end_now) begin
            held <= 1'b0;
        end
        if (end_now) begin
            sent <= sent + 32'd1;
            if (ctrl[CTRL_IRQ])
                irq[ctrl[11:8]] <= 1'b1;
            if (drops) begin
                catchup <= 1'b1;    // drop what came due before the end
                t_end <= time_ns;
            end else begin
                due <= nd_c > time_ns ? nd_c : time_ns;  // max(h_due + interval, t)
            end
        end else if (catchup && !drop) begin
            catchup <= 1'b0;
        end
        if (hs)
            bytes <= bytes + {{(63 - LB){1'b0}}, onb};
        seq <= seq_next;
        // (a length write in the clock of a restart: once more)
        spec_ok <= flush ? !wr_lens : spec_ok && !drop && !do_clear && !wr_lens;
        // the held frame has beats in the pipeline or the FIFO
        cur_in_fifo <= (cur_in_fifo || commit) && !(pop && head_last);
        pend <= (pend || commit) && !pop_first;

        // register writes come after the clock's events (C order)
        if (wr_ctrl) begin
            ctrl <= reg_wdata & CTRL_MASK;
            if (do_clear) begin
                made <= 64'h0;
                sent <= 32'h0;
                dropped <= 32'h0;
                bytes <= 64'h0;
                due <= time_ns;
            end
            if (do_start) begin
                made <= 64'h0;
                due <= time_ns;
            end
        end
        if (wr_fs)
            frame_size <= reg_wdata[27:0];
        if (wr_min)
            rec_min <= reg_wdata[27:0];
        if (wr_max)
            rec_max <= reg_wdata[27:0];
        if (wr_iv)
            interval <= reg_wdata;
        if (wr_cnt)
            count <= reg_wdata;

        if (!rst_n) begin
            ctrl <= 32'h0;
            frame_size <= 28'd4096;
            rec_min <= 28'd64;
            rec_max <= 28'd4096;
            interval <= 32'h0;
            count <= 32'h0;
            seq <= 64'h0;
            due <= 64'h0;
            made <= 64'h0;
            h_due <= 64'h0;
            t_end <= 64'h0;
            sent <= 32'h0;
            dropped <= 32'h0;
            bytes <= 64'h0;
            held <= 1'b0;
            catchup <= 1'b0;
            dk <= 5'd0;
            dk_down <= 1'b0;
            due_fresh <= 1'b0;
            spec_ok <= 1'b1;
            cur_in_fifo <= 1'b0;
            pend <= 1'b0;
            irq <= 16'h0;
        end
    end

    // ---- register reads ----
    always_ff @(posedge clk) begin
        reg_rdata <= 32'h0;
        reg_err <= 1'b0;
        if (reg_rd) begin
            case (ra)
            R_CTRL:       reg_rdata <= ctrl;
            R_FRAME_SIZE: reg_rdata <= {4'h0, frame_size};
            R_REC_MIN:    reg_rdata <= {4'h0, rec_min};
            R_REC_MAX:    reg_rdata <= {4'h0, rec_max};
            R_INTERVAL:   reg_rdata <= interval;
            R_COUNT:      reg_rdata <= count;
            R_SEQ_LO: begin
                reg_rdata <= seq[31:0];
                seq_hi_l <= seq[63:32];
            end
            R_SEQ_HI:     reg_rdata <= seq_hi_l;
            R_SENT:       reg_rdata <= sent;
            R_DROPPED:    reg_rdata <= dropped;
            R_BYTES_LO: begin
                reg_rdata <= bytes[31:0];
                bytes_hi_l <= bytes[63:32];
            end
            R_BYTES_HI:   reg_rdata <= bytes_hi_l;
            R_STATUS:     reg_rdata <= {29'h0,
                              enabled && count != 32'h0 && !left_nz &&
                                  !(held || catchup),
                              held || catchup, left_nz};
            default:      reg_err <= 1'b1;
            endcase
        end
        if (reg_wr && !(wr_ctrl || wr_fs || wr_min || wr_max || wr_iv || wr_cnt))
            reg_err <= 1'b1;    // RO, reserved, or a length out of range
        if (!rst_n) begin
            seq_hi_l <= 32'h0;
            bytes_hi_l <= 32'h0;
        end
    end

    // ---- predictor: (seq, len, key) of the frames to come ----
    logic [63:0]     pseq;       // next sequence number to predict
    logic [FQAW:0]   fq_cnt;     // frames in the predictor and the queue
    logic            pa_v;
    logic [63:0]     pa_seq;
    wire p_enter = fq_cnt < FQ_DEPTH[FQAW:0] && !flush;
    always_ff @(posedge clk) begin
        pa_v <= p_enter;
        pa_seq <= pseq;
        if (p_enter)
            pseq <= pseq + 64'd1;
        if (flush)
            pseq <= seq_next;
        if (!rst_n) begin
            pa_v <= 1'b0;
            pseq <= 64'h0;
        end
    end

    // key(seq) = seq_lo * K_SEQ_LO ^ seq_hi * K_SEQ_HI: 3 clocks
    logic [31:0] k_lo, k_hi, k_lo2, k_hi2, pkey;
    always_ff @(posedge clk) begin
        k_lo <= pa_seq[31:0] * HF_K_SEQ_LO;
        k_hi <= pa_seq[63:32] * HF_K_SEQ_HI;
        k_lo2 <= k_lo;
        k_hi2 <= k_hi;
        pkey <= k_lo2 ^ k_hi2;
    end

    // record length: mix(seq_lo ^ mix(seq_hi ^ K_REC)), scaled by a
    // multiply-high into [min, max]
    localparam int PL = 2 * HF_MIX_LAT + 4;   // stage A to the queue write
    logic [31:0] mh, h, slo7;
    hf_mix_pipe #(.N(1)) u_mix_hi (.clk, .x(pa_seq[63:32] ^ HF_K_REC), .y(mh));
    hf_delay #(.WIDTH(32), .N(HF_MIX_LAT)) u_slo (.clk, .clr(1'b0),
        .d(pa_seq[31:0]), .q(slo7));
    hf_mix_pipe #(.N(1)) u_mix_lo (.clk, .x(slo7 ^ mh), .y(h));

    // The length settings the predictor computes with, taken when it
    // restarts: a write changes the frames to come (the restart it causes
    // takes it), never one generated already (C: the length latches when
    // the frame is generated)
    logic        p_records;
    logic [27:0] p_fs, p_min;
    logic [28:0] rng;            // rec_max - rec_min + 1
    logic        rng_one;        // rec_max <= rec_min
    always_ff @(posedge clk) begin
        if (flush) begin
            p_records <= records;
            p_fs <= frame_size;
            p_min <= rec_min;
            rng <= {1'b0, rec_max} - {1'b0, rec_min} + 29'd1;
            rng_one <= rec_max <= rec_min;
        end
        if (!rst_n) begin        // the reset values of the registers
            p_records <= 1'b0;
            p_fs <= 28'd4096;
            p_min <= 28'd64;
            rng <= 29'd4096 - 29'd64 + 29'd1;
            rng_one <= 1'b0;
        end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    logic [60:0] prod;          // h * rng; its low half is dropped
    /* verilator lint_on UNUSEDSIGNAL */
    logic [27:0] prod2;         // its upper half (below 2^28)
    logic [27:0] plen;
    logic [31:0] key_d;
    logic [27:0] q_len, q_nbm1;
    logic [LB:0] q_lastnb;
    logic [31:0] q_key;
    logic        q_v, p_v;
    always_ff @(posedge clk) begin
        prod <= {29'h0, h} * {32'h0, rng};
        prod2 <= prod[59:32];
        if (!p_records)
            plen <= p_fs;
        else if (rng_one)
            plen <= p_min;
        else
            plen <= p_min + prod2;
        q_len <= plen;
        q_nbm1 <= (plen - 28'd1) >> LB;
        q_lastnb <= plen[LB-1:0] == '0 ? B[LB:0] : {1'b0, plen[LB-1:0]};
        q_key <= key_d;
    end
    hf_delay #(.WIDTH(32), .N(PL - 4)) u_key (.clk, .clr(1'b0), .d(pkey),
        .q(key_d));
    hf_delay #(.WIDTH(1), .N(PL - 1)) u_pv (.clk, .clr(flush || !rst_n),
        .d(pa_v), .q(p_v));
    always_ff @(posedge clk)
        q_v <= p_v && !flush && rst_n;

    // frame queue
    localparam int QW = 32 + 28 + 28 + LB + 1;
    logic [QW-1:0]  fq_head;
    logic           fq_v;
    hf_fifo #(.WIDTH(QW), .DEPTH(FQ_DEPTH)) u_fq (.clk, .clr(flush || !rst_n),
        .take(p_enter), .push(q_v), .din({q_key, q_len, q_nbm1, q_lastnb}),
        .pop(start), .head(fq_head), .head_v(fq_v), .used(fq_cnt));

    // ---- issuer: the beats of the queue's frames ----
    logic            cur_v;
    logic [27:0]     cur_rem;    // beats still to issue after this one
    logic [31:0]     cur_acc, cur_key;
    logic            cur_k1;     // the next beat is beat 1
    logic [27:0]     cur_len;
    logic [LB:0]     cur_lastnb;
    logic [63:0]     cur_seq, iseq;
    logic            i_v, i_first, i_last, i_hb1;
    logic [LB:0]     i_nb;
    logic [63:0]     i_seq;
    logic [27:0]     i_len;
    logic [31:0]     i_key, i_acc;

    wire can_issue = o_cnt < ODEPTH[OAW:0] && !flush;
    wire start = can_issue && !cur_v && fq_v;
    wire mid = can_issue && cur_v;
    wire [31:0]   h_key = fq_head[QW-1 -: 32];
    wire [27:0]   h_len = fq_head[QW-33 -: 28];
    wire [27:0]   h_nbm1 = fq_head[QW-61 -: 28];
    wire [LB:0]   h_lastnb = fq_head[LB:0];
    localparam logic [31:0] BEAT_STEP = W * HF_K_IDX;

    always_ff @(posedge clk) begin
        i_v <= start || mid;
        if (start) begin
            i_first <= 1'b1;
            i_hb1 <= 1'b0;
            i_last <= h_nbm1 == 28'd0;
            i_nb <= h_nbm1 == 28'd0 ? h_lastnb : B[LB:0];
            i_seq <= iseq;
            i_len <= h_len;
            i_key <= h_key;
            i_acc <= 32'h0;
            iseq <= iseq + 64'd1;
            cur_v <= h_nbm1 != 28'd0;
            cur_rem <= h_nbm1;
            cur_acc <= BEAT_STEP;
            cur_k1 <= 1'b1;
            cur_len <= h_len;
            cur_key <= h_key;
            cur_lastnb <= h_lastnb;
            cur_seq <= iseq;
        end else if (mid) begin
            i_first <= 1'b0;
            i_hb1 <= cur_k1;
            i_last <= cur_rem == 28'd1;
            i_nb <= cur_rem == 28'd1 ? cur_lastnb : B[LB:0];
            i_seq <= cur_seq;
            i_len <= cur_len;
            i_key <= cur_key;
            i_acc <= cur_acc;
            cur_v <= cur_rem != 28'd1;
            cur_rem <= cur_rem - 28'd1;
            cur_acc <= cur_acc + BEAT_STEP;
            cur_k1 <= 1'b0;
        end
        if (flush) begin
            cur_v <= 1'b0;
            i_v <= 1'b0;
            iseq <= seq_next;
        end
        if (!rst_n) begin
            cur_v <= 1'b0;
            i_v <= 1'b0;
            iseq <= 64'h0;
        end
    end

    // ---- beat pipeline: pattern words, header, into the FIFO ----
    logic [DATA_W-1:0] x, y;
    always_comb
        for (int j = 0; j < W; j++)
            x[j*32 +: 32] = (i_acc + hf_idx_step(j[4:0])) ^ i_key;
    hf_mix_pipe #(.N(W)) u_mix (.clk, .x, .y);

    localparam int CW = 1 + 1 + 1 + LB + 1 + 64 + 28;  // carried with the words
    logic [CW-1:0] c_out;
    logic          b_v;
    hf_delay #(.WIDTH(CW), .N(HF_MIX_LAT)) u_carry (.clk, .clr(1'b0),
        .d({i_first, i_last, i_hb1, i_nb, i_seq, i_len}), .q(c_out));
    hf_delay #(.WIDTH(1), .N(HF_MIX_LAT)) u_bv (.clk,
        .clr(flush || !rst_n), .d(i_v), .q(b_v));
    wire          b_first = c_out[CW-1];
    wire          b_last = c_out[CW-2];
    wire          b_hb1 = c_out[CW-3];
    wire [LB:0]   b_nb = c_out[CW-4 -: LB + 1];
    wire [63:0]   b_seq = c_out[91:28];
    wire [27:0]   b_len = c_out[27:0];
    wire [127:0]  hdr = {HF_STREAM_MAGIC, 4'h0, b_len, b_seq};

    // the header words (0..3) replace the pattern words of the first beat
    // (and of the second where a beat has two words)
    logic [DATA_W-1:0] bdata;
    always_comb begin
        bdata = y;
        for (int j = 0; j < W; j++) begin
            if (b_first && j < 4)
                bdata[j*32 +: 32] = hdr[(j % 4)*32 +: 32];
            if (b_hb1 && W + j < 4)
                bdata[j*32 +: 32] = hdr[((W + j) % 4)*32 +: 32];
        end
    end

    hf_fifo #(.WIDTH(OW), .DEPTH(ODEPTH)) u_ofifo (.clk, .clr(flush || !rst_n),
        .take(start || mid), .push(b_v && !flush),
        .din({b_last, b_first, b_nb, bdata}), .pop, .head, .head_v,
        .used(o_cnt));

    // output register
    always_ff @(posedge clk) begin
        if (pop) begin
            odata <= head[DATA_W-1:0];
            onb <= head[DATA_W +: LB + 1];
            olast <= head_last;
            for (int i = 0; i < B; i++)
                okeep[i] <= i < 32'(head[DATA_W +: LB + 1]);
        end
        if (pop)
            ov <= 1'b1;
        else if (hs)
            ov <= 1'b0;
        if (!rst_n)
            ov <= 1'b0;
    end

    assign tdata = odata;
    assign tlast = olast;
    assign tvalid = ov;
    assign tkeep = okeep;
    assign busy = held;

    // when the source acts next on its own (the co-simulation clocks
    // while this is <= time_ns)
    always_comb begin
        if (catchup || pend)
            next_ns = 64'h0;
        else if (held)
            next_ns = drops && left_nz ? due + 64'd1 : '1;
        else
            next_ns = left_nz ? due : '1;
    end
endmodule

// hf_mix_pipe - hf_stream_mix() of N words, HF_MIX_LAT clocks: y is the mix
// of what x was HF_MIX_LAT clocks before.  Each multiply has two register
// stages (a DSP's M and P registers).
/* verilator lint_off DECLFILENAME */
module hf_mix_pipe #(
    parameter int N = 1
) (
    input  logic            clk,
    input  logic [N*32-1:0] x,
    output logic [N*32-1:0] y
);
`include "hf_pattern.svh"
    logic [N*32-1:0] a, m1, m1d, b, m2, m2d;
    always_ff @(posedge clk)
        for (int j = 0; j < N; j++) begin
            a[j*32 +: 32] <= hf_xs16(x[j*32 +: 32]);
            m1[j*32 +: 32] <= a[j*32 +: 32] * HF_MIX_M1;
            m1d[j*32 +: 32] <= m1[j*32 +: 32];
            b[j*32 +: 32] <= hf_xs15(m1d[j*32 +: 32]);
            m2[j*32 +: 32] <= b[j*32 +: 32] * HF_MIX_M2;
            m2d[j*32 +: 32] <= m2[j*32 +: 32];
            y[j*32 +: 32] <= hf_xs16(m2d[j*32 +: 32]);
        end
endmodule

// hf_fifo - a first-word-fall-through FIFO in LUT RAM (DEPTH entries) fed
// by a pipeline that runs on credits: take counts an entry on its way in
// (it must not be taken while used is DEPTH), push stores it, pop removes
// the head; used is taken minus popped.  clr empties FIFO and pipeline.
module hf_fifo #(
    parameter int WIDTH = 1,
    parameter int DEPTH = 16
) (
    input  logic                     clk,
    input  logic                     clr,
    input  logic                     take,
    input  logic                     push,
    input  logic [WIDTH-1:0]         din,
    input  logic                     pop,
    output logic [WIDTH-1:0]         head,
    output logic                     head_v,
    output logic [$clog2(DEPTH):0]   used
);
    localparam int AW = $clog2(DEPTH);
    logic [WIDTH-1:0] mem [0:DEPTH-1];
    logic [AW-1:0]    wp, rp;
    logic [AW:0]      n;
    assign head = mem[rp];
    assign head_v = n != '0;
    always_ff @(posedge clk) begin
        if (push)
            mem[wp] <= din;
        if (push)
            wp <= wp + 1'b1;
        if (pop)
            rp <= rp + 1'b1;
        n <= n + {{AW{1'b0}}, push} - {{AW{1'b0}}, pop};
        used <= used + {{AW{1'b0}}, take} - {{AW{1'b0}}, pop};
        if (clr) begin
            wp <= '0;
            rp <= '0;
            n <= '0;
            used <= '0;
        end
    end
endmodule

// hf_delay - d delayed by N clocks; clr empties it (valid bits).
module hf_delay #(
    parameter int WIDTH = 1,
    parameter int N = 1
) (
    input  logic             clk,
    input  logic             clr,
    input  logic [WIDTH-1:0] d,
    output logic [WIDTH-1:0] q
);
    logic [N*WIDTH-1:0] r;
    generate
        if (N == 1) begin : g_one
            always_ff @(posedge clk)
                r <= clr ? '0 : d;
        end else begin : g_shift
            always_ff @(posedge clk)
                r <= clr ? '0 : {r[(N-1)*WIDTH-1:0], d};
        end
    endgenerate
    assign q = r[N*WIDTH-1 -: WIDTH];
endmodule
/* verilator lint_on DECLFILENAME */
