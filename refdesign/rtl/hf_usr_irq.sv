// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_usr_irq.sv - the 16 user interrupt lines of the reference design and
// their PG195 handshake: usr_irq_req = level | pulse.  Level lines
// (HF_USER_IRQ_SET) stay up until HF_USER_IRQ_CLEAR; pulse lines
// (HF_USER_IRQ_PULSE, a stream source's frame end) stay up until the IP
// acknowledges them (usr_irq_ack high for a clock) or HF_USER_IRQ_CLEAR.  A
// pulse set in the clock of an ack of the same line stays up.
module hf_usr_irq (
    input  logic        clk,
    input  logic        rst_n,
    input  logic [15:0] set_level,   // a clock's pulse per line (writes)
    input  logic [15:0] set_pulse,
    input  logic [15:0] clear,
    input  logic [15:0] usr_irq_ack,
    output logic [15:0] usr_irq_req
);
    logic [15:0] level, pulse;
    always_ff @(posedge clk) begin
        level <= (level & ~clear) | set_level;
        pulse <= (pulse & ~clear & ~usr_irq_ack) | set_pulse;
        if (!rst_n) begin
            level <= 16'h0;
            pulse <= 16'h0;
        end
    end
    assign usr_irq_req = level | pulse;
endmodule
