// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_st_sink.sv - the checking AXI-Stream sink of one H2C channel: the
// registers HF_USER_ST_SINK(ch) of refdesign/hf_user_regs.h with the
// semantics of hf_refdesign.c's struct st_sink, each frame checked as
// hf_stream_check_feed()/hf_stream_check_end() of
// refdesign/hf_stream_pattern.h do.  It takes a beat every clock (tready is
// high out of reset, driven by hf_refdesign); a beat carries the low bytes
// its tkeep marks (contiguous), of any number, so a frame's bytes need not
// be aligned to the beats.
//
// Pipeline: the front (one clock) follows the frame's position (got: bytes
// so far, PARTIAL), gathers the header (sequence number, length, magic)
// and passes each beat on with its position; the key of the sequence
// number (two multiplies), the DATA_W/32 + 1 pattern words that cover the
// beat's bytes (one more word than a beat holds: a beat may start inside a
// word) through the mixer, a byte shift by got % 4, the compare of every
// byte at or past the header, and at the back the frame's verdict and the
// counters: they lag the beats by BACK_LAT clocks.  A CLEAR resets the front
// at once and travels down the pipeline to clear the counters after the
// beats before it.
//
// Uses hf_mix_pipe and hf_delay (hf_st_src.sv).
module hf_st_sink #(
    parameter int DATA_W = 256
) (
    input  logic                clk,
    input  logic                rst_n,
    // register port (hf_axil_regs), as hf_st_src's
    input  logic                reg_rd,
    input  logic                reg_wr,
    input  logic [5:0]          reg_addr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [31:0]         reg_wdata,    // only CTRL.CLEAR is written
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [31:0]         reg_rdata,
    output logic                reg_err,
    // AXI-Stream slave (tready is high)
    input  logic [DATA_W-1:0]   tdata,
    input  logic [DATA_W/8-1:0] tkeep,
    input  logic                tlast,
    input  logic                tvalid
);
`include "hf_pattern.svh"

    localparam int B = DATA_W / 8;
    localparam int LB = $clog2(B);
    localparam int W = DATA_W / 32;
    localparam int EW = DATA_W + 32;      // the W + 1 expected words

    localparam logic [5:0] R_CTRL = 6'h00 >> 2, R_FRAMES_OK = 6'h04 >> 2,
        R_FRAMES_BAD = 6'h08 >> 2, R_BYTES_LO = 6'h0c >> 2,
        R_BYTES_HI = 6'h10 >> 2, R_LAST_SEQ_LO = 6'h14 >> 2,
        R_LAST_SEQ_HI = 6'h18 >> 2, R_PARTIAL = 6'h1c >> 2;

    wire clear_wr = reg_wr && reg_addr == R_CTRL && reg_wdata[31];

    // ---- stage 0: the beat as it came from the IP, its byte count ----
    // the bytes tkeep marks (contiguous from lane 0)
    function automatic logic [LB:0] n_of(input logic [B-1:0] f_keep);
        n_of = '0;
        for (int i = 0; i < B; i++)
            n_of = n_of + {{LB{1'b0}}, f_keep[i]};
    endfunction

    logic              clear, s0_v, s0_last;
    logic [DATA_W-1:0] s0_data;
    logic [LB:0]       n;         // bytes of this beat
    always_ff @(posedge clk) begin
        clear <= clear_wr;
        s0_v <= tvalid;
        s0_last <= tlast;
        s0_data <= tdata;
        n <= n_of(tkeep);
        if (!rst_n) begin
            clear <= 1'b0;
            s0_v <= 1'b0;
        end
    end

    // ---- front: position and header ----
    logic [31:0]  got;            // bytes of the frame in progress
    logic [31:0]  acc;            // (got / 4) * HF_K_IDX
    logic [127:0] hdr;

    wire [31:0] got_end = got + {{(31 - LB){1'b0}}, n};
    // words the position moves by: (got % 4 + n) / 4 (at most W)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [LB:0] adv = {{(LB - 1){1'b0}}, got[1:0]} + n;  // [1:0] unused
    /* verilator lint_on UNUSEDSIGNAL */
    logic [4:0] adv_w;
    always_comb begin
        adv_w = '0;
        adv_w[LB-2:0] = adv[LB:2];
    end

    // header bytes got .. got + n - 1 below 16 come from lanes 0 .. n - 1:
    // the beat's low 16 bytes shifted up by got
    localparam int HB = B < HF_STREAM_HDR ? B : HF_STREAM_HDR;
    logic [127:0] lanes, hdr_n;
    always_comb begin
        lanes = '0;
        lanes[HB*8-1:0] = s0_data[HB*8-1:0];
        lanes = lanes << {got[3:0], 3'b000};
        hdr_n = hdr;
        for (int k = 0; k < HF_STREAM_HDR; k++)
            if (got < 32'd16 && k[4:0] >= got[4:0] && got_end > 32'(k))
                hdr_n[k*8 +: 8] = lanes[k*8 +: 8];
    end

    // stage 1
    logic              s1_v, s1_last, s1_clr, s1_hdone, s1_magic_ok;
    logic [DATA_W-1:0] s1_data;
    logic [LB:0]       s1_n;
    logic [31:0]       s1_got, s1_gend, s1_acc, s1_len;
    logic [63:0]       s1_seq;

    always_ff @(posedge clk) begin
        s1_v <= s0_v;
        s1_last <= s0_last;
        s1_clr <= clear;
        s1_data <= s0_data;
        s1_n <= n;
        s1_got <= got;
        s1_gend <= got_end;
        s1_acc <= acc;
        s1_seq <= hdr_n[63:0];
        s1_len <= hdr_n[95:64];
        s1_magic_ok <= hdr_n[127:96] == HF_STREAM_MAGIC;
        s1_hdone <= got_end >= 32'd16;
        if (s0_v) begin
            hdr <= hdr_n;
            got <= s0_last ? 32'h0 : got_end;
            acc <= s0_last ? 32'h0 :
                   acc + hf_idx_step(adv_w);
        end
        if (clear) begin       // after this clock's beat
            got <= 32'h0;
            acc <= 32'h0;
        end
        if (!rst_n) begin
            s1_v <= 1'b0;
            s1_clr <= 1'b0;
            got <= 32'h0;
            acc <= 32'h0;
        end
    end

    // stage 2: header and length verdicts, the bytes to compare, key
    // multiplies
    logic              s2_v, s2_last, s2_clr, s2_bad, s2_len_ok;
    logic [DATA_W-1:0] s2_data;
    logic [B-1:0]      s2_mask;
    logic [LB:0]       s2_n;
    logic [1:0]        s2_sh;
    logic [31:0]       s2_acc, s2_klo, s2_khi;
    logic [63:0]       s2_seq;
    always_ff @(posedge clk) begin
        s2_v <= s1_v;
        s2_last <= s1_last;
        s2_clr <= s1_clr;
        s2_data <= s1_data;
        s2_n <= s1_n;
        s2_sh <= s1_got[1:0];
        s2_acc <= s1_acc;
        s2_seq <= s1_seq;
        // bad header (magic, len < 16).  Bytes beyond the header's len
        // (the C check's other reason) need no compare: such a frame
        // cannot end with got == len
        s2_bad <= s1_hdone && (!s1_magic_ok || s1_len < 32'd16);
        s2_len_ok <= s1_hdone && s1_gend == s1_len;
        for (int i = 0; i < B; i++)
            s2_mask[i] <= i < 32'(s1_n) && s1_got + i >= 32'd16;
        s2_klo <= s1_seq[31:0] * HF_K_SEQ_LO;
        s2_khi <= s1_seq[63:32] * HF_K_SEQ_HI;
        if (!rst_n) begin
            s2_v <= 1'b0;
            s2_clr <= 1'b0;
        end
    end

    // stage 3: key; the words' mixer inputs come from it
    localparam int CW = 1 + 1 + 1 + B + (LB + 1) + 2 + 64;
    logic [CW-1:0]     s3_c;
    logic [DATA_W-1:0] s3_data;
    logic [31:0]       s3_acc, s3_klo, s3_khi;
    logic              s3_v, s3_clr;
    always_ff @(posedge clk) begin
        s3_v <= s2_v;
        s3_clr <= s2_clr;
        s3_c <= {s2_last, s2_bad, s2_len_ok, s2_mask, s2_n, s2_sh,
                 s2_seq};
        s3_data <= s2_data;
        s3_acc <= s2_acc;
        s3_klo <= s2_klo;
        s3_khi <= s2_khi;
        if (!rst_n) begin
            s3_v <= 1'b0;
            s3_clr <= 1'b0;
        end
    end

    logic [EW-1:0] x, y;
    always_comb
        for (int j = 0; j <= W; j++)
            x[j*32 +: 32] = (s3_acc + hf_idx_step(j[4:0])) ^ s3_klo ^ s3_khi;
    hf_mix_pipe #(.N(W + 1)) u_mix (.clk, .x, .y);

    // stage 3 + HF_MIX_LAT: compare
    logic [CW-1:0]     c_c;
    logic [DATA_W-1:0] c_data;
    logic [1:0]        c_vc;
    hf_delay #(.WIDTH(CW), .N(HF_MIX_LAT)) u_c (.clk, .clr(1'b0), .d(s3_c),
        .q(c_c));
    hf_delay #(.WIDTH(DATA_W), .N(HF_MIX_LAT)) u_data (.clk, .clr(1'b0),
        .d(s3_data), .q(c_data));
    hf_delay #(.WIDTH(2), .N(HF_MIX_LAT)) u_vc (.clk, .clr(!rst_n),
        .d({s3_v, s3_clr}), .q(c_vc));

    wire [B-1:0]  c_mask = c_c[64 + 2 + LB + 1 +: B];
    wire [1:0]    c_sh = c_c[65:64];
    wire [EW-1:0] expect_w = y >> {c_sh, 3'b000};
    logic [B-1:0] mism;
    always_comb
        for (int i = 0; i < B; i++)
            mism[i] = c_mask[i] && expect_w[i*8 +: 8] != c_data[i*8 +: 8];

    logic [CW-1:0] d_c;
    logic [B-1:0]  d_mism;
    logic [1:0]    d_vc;
    always_ff @(posedge clk) begin
        d_c <= c_c;
        d_mism <= mism;
        d_vc <= c_vc;
        if (!rst_n)
            d_vc <= 2'b00;
    end

    // ---- back: the frame's verdict, counters ----
    wire         e_last = d_c[CW-1];
    wire         e_bad = d_c[CW-2] || d_mism != '0;
    wire         e_len_ok = d_c[CW-3];
    wire [LB:0]  e_n = d_c[64 + 2 +: LB + 1];
    wire [63:0]  e_seq = d_c[63:0];
    logic        frame_bad;
    logic [31:0] ok, bad, bytes_hi_l, seq_hi_l;
    logic [63:0] bytes, last_seq;
    always_ff @(posedge clk) begin
        if (d_vc[1]) begin
            bytes <= bytes + {{(63 - LB){1'b0}}, e_n};
            frame_bad <= frame_bad || e_bad;
            if (e_last) begin
                frame_bad <= 1'b0;
                if (!frame_bad && !e_bad && e_len_ok) begin
                    ok <= ok + 32'd1;
                    last_seq <= e_seq;
                end else begin
                    bad <= bad + 32'd1;
                end
            end
        end
        if (d_vc[0] || !rst_n) begin
            frame_bad <= 1'b0;
            ok <= 32'h0;
            bad <= 32'h0;
            bytes <= 64'h0;
            last_seq <= 64'h0;
        end
    end

    // ---- registers ----
    always_ff @(posedge clk) begin
        reg_rdata <= 32'h0;
        reg_err <= 1'b0;
        if (reg_rd) begin
            case (reg_addr)
            R_CTRL:        reg_rdata <= 32'h0;
            R_FRAMES_OK:   reg_rdata <= ok;
            R_FRAMES_BAD:  reg_rdata <= bad;
            R_BYTES_LO: begin
                reg_rdata <= bytes[31:0];
                bytes_hi_l <= bytes[63:32];
            end
            R_BYTES_HI:    reg_rdata <= bytes_hi_l;
            R_LAST_SEQ_LO: begin
                reg_rdata <= last_seq[31:0];
                seq_hi_l <= last_seq[63:32];
            end
            R_LAST_SEQ_HI: reg_rdata <= seq_hi_l;
            R_PARTIAL:     reg_rdata <= got;
            default:       reg_err <= 1'b1;
            endcase
        end
        if (reg_wr && reg_addr != R_CTRL)
            reg_err <= 1'b1;
        if (!rst_n) begin
            bytes_hi_l <= 32'h0;
            seq_hi_l <= 32'h0;
        end
    end
endmodule
