// SPDX-License-Identifier: MIT
/*
 * cases.c - the cases of "hellofpga test", in their order: the seed's ten
 * (cases_seed.c) and five more (cases_extra.c); runner.c runs them,
 * report.c names them.
 */
#include "test.h"

const struct tcase t_cases[T_NCASES] = {
	{ "get_status", "GetGPUStatus platform detection", false, case_get_status },
	{ "pin", "Pin GPU memory", true, case_pin },
	{ "read_c2h", "ReadC2H: card -> GPU", true, case_read_c2h },
	{ "write_h2c", "WriteH2C: GPU -> card", true, case_write_h2c },
	{ "unpin", "Unpin", true, case_unpin },
	{ "data_correctness", "byte-by-byte data correctness, both directions", true, case_data_correctness },
	{ "batch_10x_read", "batch of 10 ReadC2H", true, case_batch_10x_read },
	{ "addr_space_2g_7pts", "card address space at 7 points", true, case_addr_space },
	{ "stress_2g_6offs", "stress: large transfers at 6 offsets", true, case_stress },
	{ "boundary_2g_6pts", "boundaries: 6 points at the edges of card memory", true, case_boundary },
	{ "transfer_mode_switch", "TransferMode switch: SetGPUBuffer, SetTransferMode", true, case_transfer_mode },
	{ "cpu_path_unchanged", "the CPU path unchanged beside GPU Direct", false, case_cpu_path },
	{ "pin_misuse", "pin misuse: unaligned, host memory, double unpin, use after unpin", true, case_pin_misuse },
	{ "handle_reuse", "one handle over thousands of transfers", true, case_handle_reuse },
	{ "multi_buffer_rotation", "rotation over 4 pinned buffers", true, case_rotation },
};
