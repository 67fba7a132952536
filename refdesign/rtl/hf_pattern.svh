// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
//
// hf_pattern.svh - the frame pattern of refdesign/hf_stream_pattern.h for the
// RTL: its constants and the steps of its bit mixer.  Included inside the
// body of each module that needs it (no package: Yosys 0.23 reads none).
//
// hf_stream_mix(x) is two multiplies between three xor-shifts; the RTL runs
// it as a pipeline of HF_MIX_LAT clocks (hf_mix_pipe in hf_st_src.sv):
//   a = hf_xs16(x); m1 = a * HF_MIX_M1; b = hf_xs15(m1); m2 = b * HF_MIX_M2;
//   y = hf_xs16(m2)
// Word idx of frame seq is hf_stream_mix(idx * HF_K_IDX ^ hf_seq_key(seq)).

/* verilator lint_off UNUSEDPARAM */
localparam logic [31:0] HF_STREAM_MAGIC = 32'h54534648;  // "HFST"
localparam int          HF_STREAM_HDR   = 16;            // header bytes
localparam logic [31:0] HF_STREAM_MIN   = 32'd16;
localparam logic [31:0] HF_STREAM_MAX   = 32'h0fffffff;  // 28-bit lengths
localparam logic [31:0] HF_K_IDX        = 32'h9e3779b1;  // word index
localparam logic [31:0] HF_K_SEQ_LO     = 32'h85ebca77;  // seq[31:0]
localparam logic [31:0] HF_K_SEQ_HI     = 32'hc2b2ae3d;  // seq[63:32]
localparam logic [31:0] HF_K_REC        = 32'h5bd1e995;  // record length
localparam logic [31:0] HF_MIX_M1       = 32'h7feb352d;
localparam logic [31:0] HF_MIX_M2       = 32'h846ca68b;
localparam int          HF_MIX_LAT      = 7;   // clocks of hf_mix_pipe
/* verilator lint_on UNUSEDPARAM */

// Lint (Verilator 5.006) flags a function of a module inlined into one that
// includes this file too as hiding its own declaration (VARHIDDEN).
/* verilator lint_off VARHIDDEN */
function automatic logic [31:0] hf_xs16(input logic [31:0] f_x);
    hf_xs16 = f_x ^ (f_x >> 16);
endfunction

function automatic logic [31:0] hf_xs15(input logic [31:0] f_x);
    hf_xs15 = f_x ^ (f_x >> 15);
endfunction

// d * HF_K_IDX for a small d (0..31) as a table of constants: the step of a
// word-index accumulator, no multiplier.
function automatic logic [31:0] hf_idx_step(input logic [4:0] f_d);
    hf_idx_step = 32'h0;
    for (int i = 0; i < 32; i++)
        if (f_d == i[4:0])
            hf_idx_step = i * HF_K_IDX;
endfunction
/* verilator lint_on VARHIDDEN */
