// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_refdesign_bd.v - the reference design (refdesign/rtl/hf_refdesign.sv)
// as a module a Vivado block design can reference: Verilog-2001 (a module
// reference cannot have a SystemVerilog top), the XDMA IP's ports one
// interface each (M_AXI_LITE, S_AXIS_C2H_n, M_AXIS_H2C_n, usr_irq_req/ack),
// named and tagged so that IP integrator connects them as interfaces, and
// the board's time base: hf_timer counts axi_aclk in ns (CLK_PERIOD_NS per
// clock), so the sources' INTERVAL_NS is measured in cycles of axi_aclk.
//
// Four channels of ports whatever NUM_C2H / NUM_H2C say: those past them are
// tied off (tvalid and tready low).  With ST = 0 (an AXI memory-mapped card)
// no stream port is used.  docs/refdesign.md describes the design and the
// IP configuration this expects; refdesign/board/build.tcl instantiates it.
`default_nettype none

module hf_refdesign_bd #(
    parameter DATA_W        = 256,  // AXI-Stream data width: 64, 128, 256, 512
    parameter NUM_C2H       = 4,    // stream sources, 1..4
    parameter NUM_H2C       = 4,    // stream sinks, 1..4
    parameter ST            = 1,    // 0: memory-mapped card
    parameter CLK_PERIOD_NS = 4,    // axi_aclk period (250 MHz: 4)
    parameter DDR_SIZE_MB   = 0     // card memory, read as HF_USER_DDR_SIZE_MB
) (
    (* X_INTERFACE_INFO = "xilinx.com:signal:clock:1.0 clk CLK" *)
    (* X_INTERFACE_PARAMETER = "ASSOCIATED_BUSIF s_axil:m_axis_c2h_0:m_axis_c2h_1:m_axis_c2h_2:m_axis_c2h_3:s_axis_h2c_0:s_axis_h2c_1:s_axis_h2c_2:s_axis_h2c_3, ASSOCIATED_RESET rst_n" *)
    input  wire                clk,         // the IP's axi_aclk
    (* X_INTERFACE_INFO = "xilinx.com:signal:reset:1.0 rst_n RST" *)
    (* X_INTERFACE_PARAMETER = "POLARITY ACTIVE_LOW" *)
    input  wire                rst_n,       // the IP's axi_aresetn

    // AXI4-Lite slave: the IP's M_AXI_LITE (BAR0, 64 KiB; address bits
    // [15:0] decode, the IP's translation puts the BAR at 0)
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil AWADDR" *)
    (* X_INTERFACE_PARAMETER = "PROTOCOL AXI4LITE, DATA_WIDTH 32" *)
    input  wire [31:0]         s_axil_awaddr,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil AWVALID" *)
    input  wire                s_axil_awvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil AWREADY" *)
    output wire                s_axil_awready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil WDATA" *)
    input  wire [31:0]         s_axil_wdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil WSTRB" *)
    input  wire [3:0]          s_axil_wstrb,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil WVALID" *)
    input  wire                s_axil_wvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil WREADY" *)
    output wire                s_axil_wready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil BRESP" *)
    output wire [1:0]          s_axil_bresp,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil BVALID" *)
    output wire                s_axil_bvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil BREADY" *)
    input  wire                s_axil_bready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil ARADDR" *)
    input  wire [31:0]         s_axil_araddr,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil ARVALID" *)
    input  wire                s_axil_arvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil ARREADY" *)
    output wire                s_axil_arready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil RDATA" *)
    output wire [31:0]         s_axil_rdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil RRESP" *)
    output wire [1:0]          s_axil_rresp,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil RVALID" *)
    output wire                s_axil_rvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:aximm:1.0 s_axil RREADY" *)
    input  wire                s_axil_rready,

    // C2H channel n: to the IP's S_AXIS_C2H_n
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_0 TDATA" *)
    output wire [DATA_W-1:0]   m_axis_c2h_0_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_0 TKEEP" *)
    output wire [DATA_W/8-1:0] m_axis_c2h_0_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_0 TLAST" *)
    output wire                m_axis_c2h_0_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_0 TVALID" *)
    output wire                m_axis_c2h_0_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_0 TREADY" *)
    input  wire                m_axis_c2h_0_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_1 TDATA" *)
    output wire [DATA_W-1:0]   m_axis_c2h_1_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_1 TKEEP" *)
    output wire [DATA_W/8-1:0] m_axis_c2h_1_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_1 TLAST" *)
    output wire                m_axis_c2h_1_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_1 TVALID" *)
    output wire                m_axis_c2h_1_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_1 TREADY" *)
    input  wire                m_axis_c2h_1_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_2 TDATA" *)
    output wire [DATA_W-1:0]   m_axis_c2h_2_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_2 TKEEP" *)
    output wire [DATA_W/8-1:0] m_axis_c2h_2_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_2 TLAST" *)
    output wire                m_axis_c2h_2_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_2 TVALID" *)
    output wire                m_axis_c2h_2_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_2 TREADY" *)
    input  wire                m_axis_c2h_2_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_3 TDATA" *)
    output wire [DATA_W-1:0]   m_axis_c2h_3_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_3 TKEEP" *)
    output wire [DATA_W/8-1:0] m_axis_c2h_3_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_3 TLAST" *)
    output wire                m_axis_c2h_3_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_3 TVALID" *)
    output wire                m_axis_c2h_3_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 m_axis_c2h_3 TREADY" *)
    input  wire                m_axis_c2h_3_tready,

    // H2C channel n: from the IP's M_AXIS_H2C_n
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_0 TDATA" *)
    input  wire [DATA_W-1:0]   s_axis_h2c_0_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_0 TKEEP" *)
    input  wire [DATA_W/8-1:0] s_axis_h2c_0_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_0 TLAST" *)
    input  wire                s_axis_h2c_0_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_0 TVALID" *)
    input  wire                s_axis_h2c_0_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_0 TREADY" *)
    output wire                s_axis_h2c_0_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_1 TDATA" *)
    input  wire [DATA_W-1:0]   s_axis_h2c_1_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_1 TKEEP" *)
    input  wire [DATA_W/8-1:0] s_axis_h2c_1_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_1 TLAST" *)
    input  wire                s_axis_h2c_1_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_1 TVALID" *)
    input  wire                s_axis_h2c_1_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_1 TREADY" *)
    output wire                s_axis_h2c_1_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_2 TDATA" *)
    input  wire [DATA_W-1:0]   s_axis_h2c_2_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_2 TKEEP" *)
    input  wire [DATA_W/8-1:0] s_axis_h2c_2_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_2 TLAST" *)
    input  wire                s_axis_h2c_2_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_2 TVALID" *)
    input  wire                s_axis_h2c_2_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_2 TREADY" *)
    output wire                s_axis_h2c_2_tready,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_3 TDATA" *)
    input  wire [DATA_W-1:0]   s_axis_h2c_3_tdata,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_3 TKEEP" *)
    input  wire [DATA_W/8-1:0] s_axis_h2c_3_tkeep,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_3 TLAST" *)
    input  wire                s_axis_h2c_3_tlast,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_3 TVALID" *)
    input  wire                s_axis_h2c_3_tvalid,
    (* X_INTERFACE_INFO = "xilinx.com:interface:axis:1.0 s_axis_h2c_3 TREADY" *)
    output wire                s_axis_h2c_3_tready,

    // user interrupts: the IP's usr_irq_req / usr_irq_ack (16 lines)
    output wire [15:0]         usr_irq_req,
    input  wire [15:0]         usr_irq_ack,

    // board LEDs: [0] the IP's user_lnk_up, [1] a heartbeat of time_ns
    // (about 0.5 s on, 0.5 s off), [2] any usr_irq_req line up, [3] a
    // register access the design refused (reg_err) since reset
    input  wire                link_up,
    output wire [3:0]          led
);

    localparam KW = DATA_W / 8;

    wire [63:0] time_ns;
    wire [31:0] ddr_size_mb = DDR_SIZE_MB;

    hf_timer #(
        .CLK_PERIOD_NS(CLK_PERIOD_NS)
    ) u_timer (
        .clk     (clk),
        .rst_n   (rst_n),
        .time_ns (time_ns)
    );

    // the four channels of ports as buses, channel n in slice n
    wire [4*DATA_W-1:0] c2h_tdata;
    wire [4*KW-1:0]     c2h_tkeep;
    wire [3:0]          c2h_tlast, c2h_tvalid, c2h_tready;
    wire [4*DATA_W-1:0] h2c_tdata;
    wire [4*KW-1:0]     h2c_tkeep;
    wire [3:0]          h2c_tlast, h2c_tvalid, h2c_tready;

    assign c2h_tready = {m_axis_c2h_3_tready, m_axis_c2h_2_tready,
                         m_axis_c2h_1_tready, m_axis_c2h_0_tready};
    assign h2c_tdata  = {s_axis_h2c_3_tdata, s_axis_h2c_2_tdata,
                         s_axis_h2c_1_tdata, s_axis_h2c_0_tdata};
    assign h2c_tkeep  = {s_axis_h2c_3_tkeep, s_axis_h2c_2_tkeep,
                         s_axis_h2c_1_tkeep, s_axis_h2c_0_tkeep};
    assign h2c_tlast  = {s_axis_h2c_3_tlast, s_axis_h2c_2_tlast,
                         s_axis_h2c_1_tlast, s_axis_h2c_0_tlast};
    assign h2c_tvalid = {s_axis_h2c_3_tvalid, s_axis_h2c_2_tvalid,
                         s_axis_h2c_1_tvalid, s_axis_h2c_0_tvalid};

    // What the design drives; the bits of channels it has not stay 0.
    wire [NUM_C2H*64-1:0] c2h_next_ns;
    wire                  reg_err;

    hf_refdesign #(
        .DATA_W  (DATA_W),
        .NUM_C2H (NUM_C2H),
        .NUM_H2C (NUM_H2C),
        .ST      (ST != 0)
    ) u_design (
        .clk            (clk),
        .rst_n          (rst_n),
        .time_ns        (time_ns),
        .ddr_size_mb    (ddr_size_mb),
        .s_axil_awaddr  (s_axil_awaddr[15:0]),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr[15:0]),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .c2h_tdata      (c2h_tdata[NUM_C2H*DATA_W-1:0]),
        .c2h_tkeep      (c2h_tkeep[NUM_C2H*KW-1:0]),
        .c2h_tlast      (c2h_tlast[NUM_C2H-1:0]),
        .c2h_tvalid     (c2h_tvalid[NUM_C2H-1:0]),
        .c2h_tready     (c2h_tready[NUM_C2H-1:0]),
        .h2c_tdata      (h2c_tdata[NUM_H2C*DATA_W-1:0]),
        .h2c_tkeep      (h2c_tkeep[NUM_H2C*KW-1:0]),
        .h2c_tlast      (h2c_tlast[NUM_H2C-1:0]),
        .h2c_tvalid     (h2c_tvalid[NUM_H2C-1:0]),
        .h2c_tready     (h2c_tready[NUM_H2C-1:0]),
        .usr_irq_req    (usr_irq_req),
        .usr_irq_ack    (usr_irq_ack),
        .c2h_next_ns    (c2h_next_ns),
        .reg_err        (reg_err)
    );

    // channels past NUM_C2H / NUM_H2C: nothing sent, nothing taken
    generate
        if (NUM_C2H < 4) begin : g_c2h_off
            assign c2h_tdata[4*DATA_W-1:NUM_C2H*DATA_W] = {(4-NUM_C2H)*DATA_W{1'b0}};
            assign c2h_tkeep[4*KW-1:NUM_C2H*KW]         = {(4-NUM_C2H)*KW{1'b0}};
            assign c2h_tlast[3:NUM_C2H]                 = {(4-NUM_C2H){1'b0}};
            assign c2h_tvalid[3:NUM_C2H]                = {(4-NUM_C2H){1'b0}};
        end
        if (NUM_H2C < 4) begin : g_h2c_off
            assign h2c_tready[3:NUM_H2C]                = {(4-NUM_H2C){1'b0}};
        end
    endgenerate

    assign m_axis_c2h_0_tdata  = c2h_tdata[0*DATA_W +: DATA_W];
    assign m_axis_c2h_1_tdata  = c2h_tdata[1*DATA_W +: DATA_W];
    assign m_axis_c2h_2_tdata  = c2h_tdata[2*DATA_W +: DATA_W];
    assign m_axis_c2h_3_tdata  = c2h_tdata[3*DATA_W +: DATA_W];
    assign m_axis_c2h_0_tkeep  = c2h_tkeep[0*KW +: KW];
    assign m_axis_c2h_1_tkeep  = c2h_tkeep[1*KW +: KW];
    assign m_axis_c2h_2_tkeep  = c2h_tkeep[2*KW +: KW];
    assign m_axis_c2h_3_tkeep  = c2h_tkeep[3*KW +: KW];
    assign {m_axis_c2h_3_tlast, m_axis_c2h_2_tlast,
            m_axis_c2h_1_tlast, m_axis_c2h_0_tlast}   = c2h_tlast;
    assign {m_axis_c2h_3_tvalid, m_axis_c2h_2_tvalid,
            m_axis_c2h_1_tvalid, m_axis_c2h_0_tvalid} = c2h_tvalid;
    assign {s_axis_h2c_3_tready, s_axis_h2c_2_tready,
            s_axis_h2c_1_tready, s_axis_h2c_0_tready} = h2c_tready;

    // LEDs
    reg reg_err_seen;

    always @(posedge clk) begin
        if (!rst_n)
            reg_err_seen <= 1'b0;
        else if (reg_err)
            reg_err_seen <= 1'b1;
    end

    assign led = {reg_err_seen, |usr_irq_req, time_ns[29], link_up};

    // On a board nobody asks when a source acts next (the co-simulation
    // does); the address bits above the 64 KiB BAR are not decoded; the
    // ports of channels past NUM_C2H / NUM_H2C go nowhere.
    wire unused = &{1'b0, c2h_next_ns, s_axil_awaddr[31:16],
                    s_axil_araddr[31:16], time_ns[63:30], time_ns[28:0],
                    c2h_tready, h2c_tdata, h2c_tkeep, h2c_tlast, h2c_tvalid};

endmodule

`default_nettype wire
