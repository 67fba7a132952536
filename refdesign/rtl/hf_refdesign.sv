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

    // Skeleton: the blocks follow.
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused = &{1'b0, clk, rst_n, time_ns, ddr_size_mb, s_axil_awaddr,
                    s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid,
                    s_axil_bready, s_axil_araddr, s_axil_arvalid, s_axil_rready,
                    c2h_tready, h2c_tdata, h2c_tkeep, h2c_tlast, h2c_tvalid,
                    usr_irq_ack};
    /* verilator lint_on UNUSEDSIGNAL */
    assign s_axil_awready = 1'b0;
    assign s_axil_wready  = 1'b0;
    assign s_axil_bresp   = 2'b00;
    assign s_axil_bvalid  = 1'b0;
    assign s_axil_arready = 1'b0;
    assign s_axil_rdata   = 32'h0;
    assign s_axil_rresp   = 2'b00;
    assign s_axil_rvalid  = 1'b0;
    assign c2h_tdata      = '0;
    assign c2h_tkeep      = '0;
    assign c2h_tlast      = '0;
    assign c2h_tvalid     = '0;
    assign h2c_tready     = '0;
    assign usr_irq_req    = '0;
    assign c2h_next_ns    = ST ? '1 : '1;
    assign reg_err        = 1'b0;

endmodule
