// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_timer.sv - the free-running time of a board for hf_refdesign's
// time_ns: CLK_PERIOD_NS more every clock (4: axi_aclk at 250 MHz), 0 at
// reset.  In co-simulation the bridge drives time_ns instead.
module hf_timer #(
    parameter int CLK_PERIOD_NS = 4
) (
    input  logic        clk,
    input  logic        rst_n,
    output logic [63:0] time_ns
);
    always_ff @(posedge clk) begin
        time_ns <= time_ns + 64'(CLK_PERIOD_NS);
        if (!rst_n)
            time_ns <= 64'h0;
    end
endmodule
