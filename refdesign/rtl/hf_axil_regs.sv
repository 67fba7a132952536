// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_axil_regs.sv - the user BAR of the reference design
// (refdesign/hf_user_regs.h) behind the XDMA IP's AXI4-Lite master: an
// AXI4-Lite slave (32-bit data, 16-bit byte address, bits [1:0] ignored),
// the global registers, the 4 KiB RAM (hf_ram) and the decode of the
// stream blocks' offsets onto their register ports (hf_st_src, hf_st_sink).
//
// One transaction at a time: AW and W are taken in any order (together or
// apart), then the write is done and answered; a read is taken when no
// write is pending.  Responses are always OKAY; what hf_refdesign.c reports
// with ref_error() (a reserved offset, a write to a RO register, a length
// out of range, and here a write without all four strobes to a register
// other than SCRATCH and RAM, which is ignored) pulses reg_err for a clock
// with the response.  A read's side effects (the LO registers latching HI)
// happen once per AR handshake.  No handshake for the 1024 clocks after
// reset while the RAM is cleared.
//
// A write takes 3 clocks from the last of AW / W to BVALID, a read 3 from
// AR to RVALID: clock 1 the access (the blocks' strobes), clock 2 the
// blocks' answers, then the response.
module hf_axil_regs #(
    parameter int NUM_C2H = 4,
    parameter int NUM_H2C = 4,
    parameter bit ST      = 1'b1
) (
    input  logic                 clk,
    input  logic                 rst_n,
    input  logic [31:0]          ddr_size_mb,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [15:0]          s_axil_awaddr,  // [1:0] ignored
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic                 s_axil_awvalid,
    output logic                 s_axil_awready,
    input  logic [31:0]          s_axil_wdata,
    input  logic [3:0]           s_axil_wstrb,
    input  logic                 s_axil_wvalid,
    output logic                 s_axil_wready,
    output logic [1:0]           s_axil_bresp,
    output logic                 s_axil_bvalid,
    input  logic                 s_axil_bready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [15:0]          s_axil_araddr,  // [1:0] ignored
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic                 s_axil_arvalid,
    output logic                 s_axil_arready,
    output logic [31:0]          s_axil_rdata,
    output logic [1:0]           s_axil_rresp,
    output logic                 s_axil_rvalid,
    input  logic                 s_axil_rready,
    // the stream blocks' register ports (answers in the next clock)
    output logic [5:0]           blk_addr,
    output logic [31:0]          blk_wdata,
    output logic [NUM_C2H-1:0]   src_rd,
    output logic [NUM_C2H-1:0]   src_wr,
    input  logic [NUM_C2H*32-1:0] src_rdata,
    input  logic [NUM_C2H-1:0]   src_err,
    output logic [NUM_H2C-1:0]   snk_rd,
    output logic [NUM_H2C-1:0]   snk_wr,
    input  logic [NUM_H2C*32-1:0] snk_rdata,
    input  logic [NUM_H2C-1:0]   snk_err,
    // user interrupts: a clock's pulse per write; the lines
    output logic [15:0]          irq_set,
    output logic [15:0]          irq_clear,
    output logic [15:0]          irq_pulse,
    input  logic [15:0]          irq_lines,
    output logic [3:0]           loopback,    // HF_USER_LOOPBACK
    output logic                 reg_err
);
    localparam logic [31:0] ID_VALUE = 32'h48465047;   // "HFPG"
    localparam logic [31:0] VERSION = 32'h00010002;    // 1.2: LOOPBACK
    localparam int NLOOP = NUM_C2H < NUM_H2C ? NUM_C2H : NUM_H2C;
    // word offsets (hf_user_regs.h) of the registers below 0x1000
    localparam logic [13:0] A_ID = 14'h0000 >> 2, A_VERSION = 14'h0004 >> 2,
        A_SCRATCH = 14'h0008 >> 2, A_IRQ_SET = 14'h000c >> 2,
        A_IRQ_CLEAR = 14'h0010 >> 2, A_IRQ_REQ = 14'h0014 >> 2,
        A_DDR_SIZE = 14'h0018 >> 2, A_IRQ_PULSE = 14'h001c >> 2,
        A_LOOPBACK = 14'h0020 >> 2;

    localparam logic [2:0] S_IDLE = 3'd0, S_WR = 3'd1, S_WR2 = 3'd2,
        S_BRESP = 3'd3, S_RD = 3'd4, S_RD2 = 3'd5, S_RRESP = 3'd6;
    logic [2:0]  state;

    logic        aw_have, w_have, ram_busy;
    logic [13:0] awa, ara;           // word addresses
    logic [31:0] wdata, scratch, ram_rdata;
    logic [3:0]  wstrb;

    // ---- decode ----
    wire [13:0] a = state == S_WR ? awa : ara;
    wire is_ram = a[13:10] == 4'h1;
    wire is_src = ST && a[13:8] == 6'h08 && {30'h0, a[7:6]} < NUM_C2H;
    wire is_snk = ST && a[13:8] == 6'h0c && {30'h0, a[7:6]} < NUM_H2C;
    wire [1:0] ch = a[7:6];
    wire full = wstrb == 4'hf;
    wire do_wr = state == S_WR;
    wire do_rd = state == S_RD;

    assign blk_addr = a[5:0];
    assign blk_wdata = wdata;
    always_comb begin
        for (int i = 0; i < NUM_C2H; i++) begin
            src_rd[i] = do_rd && is_src && ch == i[1:0];
            src_wr[i] = do_wr && is_src && full && ch == i[1:0];
        end
        for (int i = 0; i < NUM_H2C; i++) begin
            snk_rd[i] = do_rd && is_snk && ch == i[1:0];
            snk_wr[i] = do_wr && is_snk && full && ch == i[1:0];
        end
    end

    hf_ram u_ram (
        .clk, .rst_n,
        .en(do_rd && is_ram),
        .we(do_wr && is_ram ? wstrb : 4'h0),
        .addr(a[9:0]),
        .wdata,
        .rdata(ram_rdata),
        .busy(ram_busy)
    );

    // ---- AXI4-Lite handshakes ----
    wire idle = state == S_IDLE && !ram_busy;
    assign s_axil_awready = idle && !aw_have;
    assign s_axil_wready = idle && !w_have;
    assign s_axil_arready = idle && !aw_have && !w_have &&
                            !s_axil_awvalid && !s_axil_wvalid;
    assign s_axil_bresp = 2'b00;
    assign s_axil_rresp = 2'b00;

    // ---- the access ----
    logic        l_err;              // of the global registers and RAM
    logic [31:0] l_rdata;
    logic        l_ram;
    logic [NLOOP-1:0] loop_r;

    always_ff @(posedge clk) begin
        irq_set <= 16'h0;
        irq_clear <= 16'h0;
        irq_pulse <= 16'h0;
        reg_err <= 1'b0;

        case (state)
        S_IDLE: begin
            if (s_axil_awready && s_axil_awvalid) begin
                aw_have <= 1'b1;
                awa <= s_axil_awaddr[15:2];
            end
            if (s_axil_wready && s_axil_wvalid) begin
                w_have <= 1'b1;
                wdata <= s_axil_wdata;
                wstrb <= s_axil_wstrb;
            end
            if (aw_have && w_have)
                state <= S_WR;
            if (s_axil_arready && s_axil_arvalid) begin
                ara <= s_axil_araddr[15:2];
                state <= S_RD;
            end
        end
        S_WR: begin
            l_err <= 1'b0;
            if (!is_ram && !is_src && !is_snk) begin
                if (a == A_SCRATCH) begin
                    for (int b = 0; b < 4; b++)
                        if (wstrb[b])
                            scratch[b*8 +: 8] <= wdata[b*8 +: 8];
                end else if (!full) begin
                    l_err <= 1'b1;
                end else if (a == A_IRQ_SET) begin
                    irq_set <= wdata[15:0];
                end else if (a == A_IRQ_CLEAR) begin
                    irq_clear <= wdata[15:0];
                end else if (a == A_IRQ_PULSE) begin
                    irq_pulse <= wdata[15:0];
                end else if (ST && a == A_LOOPBACK) begin
                    loop_r <= wdata[NLOOP-1:0];
                end else begin
                    l_err <= 1'b1;     // RO or reserved
                end
            end else if (!is_ram && !full) begin
                l_err <= 1'b1;
            end
            state <= S_WR2;
        end
        S_WR2: begin
            reg_err <= l_err || src_err != '0 || snk_err != '0;
            s_axil_bvalid <= 1'b1;
            aw_have <= 1'b0;
            w_have <= 1'b0;
            state <= S_BRESP;
        end
        S_BRESP:
            if (s_axil_bready) begin
                s_axil_bvalid <= 1'b0;
                state <= S_IDLE;
            end
        S_RD: begin
            l_err <= 1'b0;
            l_ram <= is_ram;
            l_rdata <= 32'h0;
            if (!is_ram && !is_src && !is_snk) begin
                case (a)
                A_ID:        l_rdata <= ID_VALUE;
                A_VERSION:   l_rdata <= VERSION;
                A_SCRATCH:   l_rdata <= scratch;
                A_IRQ_SET, A_IRQ_CLEAR, A_IRQ_REQ, A_IRQ_PULSE:
                             l_rdata <= {16'h0, irq_lines};
                A_DDR_SIZE:  l_rdata <= ddr_size_mb;
                A_LOOPBACK:  if (ST)
                                 l_rdata <= {{(32 - NLOOP){1'b0}}, loop_r};
                             else
                                 l_err <= 1'b1;
                default:     l_err <= 1'b1;
                endcase
            end
            state <= S_RD2;
        end
        S_RD2: begin
            s_axil_rdata <= (l_ram ? ram_rdata : l_rdata) | blk_rdata;
            reg_err <= l_err || src_err != '0 || snk_err != '0;
            s_axil_rvalid <= 1'b1;
            state <= S_RRESP;
        end
        S_RRESP:
            if (s_axil_rready) begin
                s_axil_rvalid <= 1'b0;
                state <= S_IDLE;
            end
        default:
            state <= S_IDLE;
        endcase

        if (!rst_n) begin
            state <= S_IDLE;
            aw_have <= 1'b0;
            w_have <= 1'b0;
            s_axil_bvalid <= 1'b0;
            s_axil_rvalid <= 1'b0;
            s_axil_rdata <= 32'h0;
            scratch <= 32'h0;
            loop_r <= '0;
            irq_set <= 16'h0;
            irq_clear <= 16'h0;
            irq_pulse <= 16'h0;
            reg_err <= 1'b0;
        end
    end

    always_comb begin
        loopback = 4'h0;
        loopback[NLOOP-1:0] = loop_r;
    end

    // the OR of the blocks' answers (a block answers 0 unless read)
    logic [31:0] blk_rdata;
    always_comb begin
        blk_rdata = 32'h0;
        for (int i = 0; i < NUM_C2H; i++)
            blk_rdata = blk_rdata | src_rdata[i*32 +: 32];
        for (int i = 0; i < NUM_H2C; i++)
            blk_rdata = blk_rdata | snk_rdata[i*32 +: 32];
    end
endmodule
