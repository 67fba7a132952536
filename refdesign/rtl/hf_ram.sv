// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_ram.sv - the 4 KiB scratch RAM of the user BAR (HF_USER_RAM): 1024 x
// 32 bits with byte enables and a registered read, one block RAM.  It reads
// 0 after reset as hf_refdesign.c's does: a block RAM has no reset, so after
// rst_n rises it writes zeros to every word, 1024 clocks, busy meanwhile
// (hf_axil_regs takes no access then).
module hf_ram (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        en,        // read addr (rdata in the next clock)
    input  logic [3:0]  we,        // write bytes of wdata to addr
    input  logic [9:0]  addr,
    input  logic [31:0] wdata,
    output logic [31:0] rdata,
    output logic        busy
);
    logic [31:0] mem [0:1023];
    logic [9:0]  clr_addr;

    wire [9:0]  waddr = busy ? clr_addr : addr;
    wire [3:0]  wbe = busy ? 4'hf : we;
    wire [31:0] wd = busy ? 32'h0 : wdata;

    always_ff @(posedge clk) begin
        for (int b = 0; b < 4; b++)
            if (wbe[b])
                mem[waddr][b*8 +: 8] <= wd[b*8 +: 8];
        if (en)
            rdata <= mem[addr];
    end

    always_ff @(posedge clk) begin
        if (busy)
            clr_addr <= clr_addr + 10'd1;
        if (busy && clr_addr == 10'h3ff)
            busy <= 1'b0;
        if (!rst_n) begin
            busy <= 1'b1;
            clr_addr <= 10'h0;
        end
    end
endmodule
