// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_st_loop.sv - the loopback of one channel pair (HF_USER_LOOPBACK bit n,
// as PG195's AXI-ST example design): with loop_en, H2C channel n's packets
// go into a FIFO (LOOP_DEPTH beats, block RAM) whose output is C2H channel
// n's stream, beats unchanged; h2c_tready is the FIFO's room.  Meanwhile
// the sink sees nothing and the source no tready.  Routes switch between
// packets only: the H2C side at the start of its next packet; the C2H side
// changes owner when the owner is between packets (the source holds no
// frame; the FIFO is empty, its last beat out a TLAST), so a tvalid the IP
// has seen is never withdrawn.  Without loop_en everything passes between
// the IP and the sink / source.
module hf_st_loop #(
    parameter int DATA_W     = 256,
    parameter int LOOP_DEPTH = 512
) (
    input  logic                clk,
    input  logic                rst_n,
    input  logic                loop_en,
    // H2C from the IP; to the sink: the same data, snk_tvalid
    input  logic                h2c_tlast,
    input  logic [DATA_W-1:0]   h2c_tdata,
    input  logic [DATA_W/8-1:0] h2c_tkeep,
    input  logic                h2c_tvalid,
    output logic                h2c_tready,
    output logic                snk_tvalid,
    // from the source
    input  logic [DATA_W-1:0]   src_tdata,
    input  logic [DATA_W/8-1:0] src_tkeep,
    input  logic                src_tlast,
    input  logic                src_tvalid,
    output logic                src_tready,
    input  logic                src_busy,
    // C2H to the IP
    output logic [DATA_W-1:0]   c2h_tdata,
    output logic [DATA_W/8-1:0] c2h_tkeep,
    output logic                c2h_tlast,
    output logic                c2h_tvalid,
    input  logic                c2h_tready
);
    localparam int B = DATA_W / 8;
    localparam int AW = $clog2(LOOP_DEPTH);
    localparam int FW = DATA_W + B + 1;

    logic          rdy;          // out of reset
    logic          h_inpkt, h_route, owner, f_inpkt;
    logic [FW-1:0] mem [0:LOOP_DEPTH-1];
    logic [AW-1:0] wp, rp;
    logic [AW:0]   cnt;          // beats in the RAM
    logic          f_v;
    logic [FW-1:0] f_q;

    // H2C: to the FIFO (route) or the sink
    wire route = h_inpkt ? h_route : loop_en;
    wire room = cnt < LOOP_DEPTH[AW:0];
    assign h2c_tready = rdy && (!route || room);
    assign snk_tvalid = rdy && h2c_tvalid && !route;
    wire h_hs = h2c_tvalid && h2c_tready;
    wire push = h_hs && route;

    // the FIFO's output register is the block RAM's
    wire f_ready = c2h_tready && owner;
    wire rd = cnt != '0 && (!f_v || f_ready);
    always_ff @(posedge clk) begin
        if (push)
            mem[wp] <= {h2c_tlast, h2c_tkeep, h2c_tdata};
        if (rd)
            f_q <= mem[rp];
    end

    always_ff @(posedge clk) begin
        rdy <= 1'b1;
        if (h_hs) begin
            h_inpkt <= !h2c_tlast;
            h_route <= route;
        end
        if (push)
            wp <= wp + 1'b1;
        if (rd)
            rp <= rp + 1'b1;
        cnt <= cnt + {{AW{1'b0}}, push} - {{AW{1'b0}}, rd};
        if (rd)
            f_v <= 1'b1;
        else if (f_ready)
            f_v <= 1'b0;
        if (f_v && f_ready)
            f_inpkt <= !f_q[FW-1];
        if (!owner && loop_en && !src_busy)
            owner <= 1'b1;
        if (owner && !loop_en && !f_inpkt && !f_v && cnt == '0)
            owner <= 1'b0;
        if (!rst_n) begin
            rdy <= 1'b0;
            h_inpkt <= 1'b0;
            h_route <= 1'b0;
            wp <= '0;
            rp <= '0;
            cnt <= '0;
            f_v <= 1'b0;
            f_inpkt <= 1'b0;
            owner <= 1'b0;
        end
    end

    assign src_tready = c2h_tready && !owner;
    assign c2h_tvalid = owner ? f_v : src_tvalid;
    assign c2h_tdata = owner ? f_q[DATA_W-1:0] : src_tdata;
    assign c2h_tkeep = owner ? f_q[DATA_W +: B] : src_tkeep;
    assign c2h_tlast = owner ? f_q[FW-1] : src_tlast;
endmodule
