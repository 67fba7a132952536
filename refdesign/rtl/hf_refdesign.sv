// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_refdesign.sv - the hellofpga reference design's user logic as RTL: what
// sits behind the XDMA IP (PG195) on the card.  The user BAR
// (refdesign/hf_user_regs.h) behind the IP's AXI4-Lite master, the 16 user
// interrupt lines, and on an AXI-Stream card (ST) a frame source per C2H
// channel and a checking sink per H2C channel (refdesign/hf_stream_pattern.h)
// with a loopback FIFO per channel pair.  Behaviour: refdesign/hf_refdesign.c.
//
// One clock (the IP's axi_aclk), one synchronous active-low reset
// (axi_aresetn).  time_ns is a free-running time in ns (hf_timer.sv on a
// board); the design only compares with it.
module hf_refdesign #(
    parameter int DATA_W  = 256,   // AXI-Stream data width: 64, 128, 256 or 512
    parameter int NUM_C2H = 4,     // stream sources, 1..4
    parameter int NUM_H2C = 4,     // stream sinks, 1..4
    parameter bit ST      = 1'b1   // 0: memory-mapped card, no stream blocks (offsets reserved)
) (
    input  logic                      clk,
    input  logic                      rst_n,
    input  logic [63:0]               time_ns,
    input  logic [31:0]               ddr_size_mb,      // card memory, HF_USER_DDR_SIZE_MB
    // AXI4-Lite slave: the IP's M_AXI_LITE (BAR0 of the card, 64 KiB)
    input  logic [15:0]               s_axil_awaddr,
    input  logic                      s_axil_awvalid,
    output logic                      s_axil_awready,
    input  logic [31:0]               s_axil_wdata,
    input  logic [3:0]                s_axil_wstrb,
    input  logic                      s_axil_wvalid,
    output logic                      s_axil_wready,
    output logic [1:0]                s_axil_bresp,
    output logic                      s_axil_bvalid,
    input  logic                      s_axil_bready,
    input  logic [15:0]               s_axil_araddr,
    input  logic                      s_axil_arvalid,
    output logic                      s_axil_arready,
    output logic [31:0]               s_axil_rdata,
    output logic [1:0]                s_axil_rresp,
    output logic                      s_axil_rvalid,
    input  logic                      s_axil_rready,
    // C2H: to the IP's S_AXIS_C2H_n; channel n in bits [n*DATA_W +: DATA_W] etc.
    output logic [NUM_C2H*DATA_W-1:0]   c2h_tdata,
    output logic [NUM_C2H*DATA_W/8-1:0] c2h_tkeep,
    output logic [NUM_C2H-1:0]          c2h_tlast,
    output logic [NUM_C2H-1:0]          c2h_tvalid,
    input  logic [NUM_C2H-1:0]          c2h_tready,
    // H2C: from the IP's M_AXIS_H2C_n
    input  logic [NUM_H2C*DATA_W-1:0]   h2c_tdata,
    input  logic [NUM_H2C*DATA_W/8-1:0] h2c_tkeep,
    input  logic [NUM_H2C-1:0]          h2c_tlast,
    input  logic [NUM_H2C-1:0]          h2c_tvalid,
    output logic [NUM_H2C-1:0]          h2c_tready,
    // user interrupts (PG195 usr_irq_req / usr_irq_ack)
    output logic [15:0]               usr_irq_req,
    input  logic [15:0]               usr_irq_ack,
    // observation: what a board leaves unconnected; the co-simulation bridge uses them
    output logic [NUM_C2H*64-1:0]     c2h_next_ns,  // see "Sources"
    output logic                      reg_err       // one-clock pulse: see "AXI-Lite"
);

    localparam int B = DATA_W / 8;
    localparam int NLOOP = NUM_C2H < NUM_H2C ? NUM_C2H : NUM_H2C;
    localparam int NMAX = NUM_C2H > NUM_H2C ? NUM_C2H : NUM_H2C;

    // ---- user BAR ----
    /* verilator lint_off UNUSEDSIGNAL */
    logic [5:0]             blk_addr;     // unused with ST = 0
    logic [31:0]            blk_wdata;
    logic [3:0]             loopback;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [NUM_C2H-1:0]     src_rd, src_wr, src_err;
    logic [NUM_C2H*32-1:0]  src_rdata;
    logic [NUM_H2C-1:0]     snk_rd, snk_wr, snk_err;
    logic [NUM_H2C*32-1:0]  snk_rdata;
    logic [15:0]            irq_set, irq_clear, irq_pulse, src_irq;

    hf_axil_regs #(.NUM_C2H(NUM_C2H), .NUM_H2C(NUM_H2C), .ST(ST)) u_regs (
        .clk, .rst_n, .ddr_size_mb,
        .s_axil_awaddr, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .blk_addr, .blk_wdata,
        .src_rd, .src_wr, .src_rdata, .src_err,
        .snk_rd, .snk_wr, .snk_rdata, .snk_err,
        .irq_set, .irq_clear, .irq_pulse, .irq_lines(usr_irq_req),
        .loopback, .reg_err
    );

    hf_usr_irq u_irq (
        .clk, .rst_n,
        .set_level(irq_set),
        .set_pulse(irq_pulse | src_irq),
        .clear(irq_clear),
        .usr_irq_ack,
        .usr_irq_req
    );

    generate
    if (ST) begin : g_st
        // the sources' streams before the loopback's switch
        logic [NUM_C2H*DATA_W-1:0] s_tdata;
        logic [NUM_C2H*B-1:0]      s_tkeep;
        logic [NUM_C2H-1:0]        s_tlast, s_tvalid, s_tready;
        /* verilator lint_off UNUSEDSIGNAL */
        logic [NUM_C2H-1:0]        s_busy;     // for a loopback only
        /* verilator lint_on UNUSEDSIGNAL */
        logic [NUM_C2H*16-1:0]     s_irq;
        logic [NUM_H2C-1:0]        k_tvalid;   // to the sinks
        /* verilator lint_off UNUSEDSIGNAL */
        logic                      rdy;        // out of reset (sinks without loopback)
        /* verilator lint_on UNUSEDSIGNAL */

        always_ff @(posedge clk)
            rdy <= rst_n;

        for (genvar c = 0; c < NUM_C2H; c++) begin : g_src
            hf_st_src #(.DATA_W(DATA_W)) u_src (
                .clk, .rst_n, .time_ns,
                .reg_rd(src_rd[c]), .reg_wr(src_wr[c]),
                .reg_addr(blk_addr), .reg_wdata(blk_wdata),
                .reg_rdata(src_rdata[c*32 +: 32]), .reg_err(src_err[c]),
                .tdata(s_tdata[c*DATA_W +: DATA_W]), .tkeep(s_tkeep[c*B +: B]),
                .tlast(s_tlast[c]), .tvalid(s_tvalid[c]), .tready(s_tready[c]),
                .busy(s_busy[c]), .irq(s_irq[c*16 +: 16]),
                .next_ns(c2h_next_ns[c*64 +: 64])
            );
        end

        for (genvar h = 0; h < NUM_H2C; h++) begin : g_snk
            hf_st_sink #(.DATA_W(DATA_W)) u_snk (
                .clk, .rst_n,
                .reg_rd(snk_rd[h]), .reg_wr(snk_wr[h]),
                .reg_addr(blk_addr), .reg_wdata(blk_wdata),
                .reg_rdata(snk_rdata[h*32 +: 32]), .reg_err(snk_err[h]),
                .tdata(h2c_tdata[h*DATA_W +: DATA_W]),
                .tkeep(h2c_tkeep[h*B +: B]),
                .tlast(h2c_tlast[h]), .tvalid(k_tvalid[h])
            );
        end

        for (genvar n = 0; n < NMAX; n++) begin : g_ch
            if (n < NLOOP) begin : g_loop
                hf_st_loop #(.DATA_W(DATA_W)) u_loop (
                    .clk, .rst_n, .loop_en(loopback[n]),
                    .h2c_tdata(h2c_tdata[n*DATA_W +: DATA_W]),
                    .h2c_tkeep(h2c_tkeep[n*B +: B]),
                    .h2c_tlast(h2c_tlast[n]), .h2c_tvalid(h2c_tvalid[n]),
                    .h2c_tready(h2c_tready[n]), .snk_tvalid(k_tvalid[n]),
                    .src_tdata(s_tdata[n*DATA_W +: DATA_W]),
                    .src_tkeep(s_tkeep[n*B +: B]),
                    .src_tlast(s_tlast[n]), .src_tvalid(s_tvalid[n]),
                    .src_tready(s_tready[n]), .src_busy(s_busy[n]),
                    .c2h_tdata(c2h_tdata[n*DATA_W +: DATA_W]),
                    .c2h_tkeep(c2h_tkeep[n*B +: B]),
                    .c2h_tlast(c2h_tlast[n]), .c2h_tvalid(c2h_tvalid[n]),
                    .c2h_tready(c2h_tready[n])
                );
            end else begin : g_direct
                if (n < NUM_C2H) begin : g_c2h
                    assign c2h_tdata[n*DATA_W +: DATA_W] = s_tdata[n*DATA_W +: DATA_W];
                    assign c2h_tkeep[n*B +: B] = s_tkeep[n*B +: B];
                    assign c2h_tlast[n] = s_tlast[n];
                    assign c2h_tvalid[n] = s_tvalid[n];
                    assign s_tready[n] = c2h_tready[n];
                end
                if (n < NUM_H2C) begin : g_h2c
                    assign h2c_tready[n] = rdy;
                    assign k_tvalid[n] = rdy && h2c_tvalid[n];
                end
            end
        end

        always_comb begin
            src_irq = 16'h0;
            for (int c = 0; c < NUM_C2H; c++)
                src_irq = src_irq | s_irq[c*16 +: 16];
        end
    end else begin : g_mm
        // a memory-mapped card: no stream blocks, their offsets reserved
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused = &{1'b0, time_ns, c2h_tready, h2c_tdata, h2c_tkeep,
                        h2c_tlast, h2c_tvalid, src_rd, src_wr, snk_rd, snk_wr};
        /* verilator lint_on UNUSEDSIGNAL */
        assign src_rdata = '0;
        assign src_err = '0;
        assign snk_rdata = '0;
        assign snk_err = '0;
        assign src_irq = 16'h0;
        assign c2h_tdata = '0;
        assign c2h_tkeep = '0;
        assign c2h_tlast = '0;
        assign c2h_tvalid = '0;
        assign h2c_tready = '0;
        assign c2h_next_ns = '1;
    end
    endgenerate
endmodule
