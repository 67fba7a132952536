# SPDX-License-Identifier: MIT
#
# build.tcl - the hellofpga reference design on a real board: a Vivado
# project with a block design of the XDMA IP (PG195) configured as
# docs/refdesign.md says, the design's RTL (refdesign/rtl/*.sv through the
# Verilog-2001 wrapper hf_refdesign_bd.v) behind its AXI-Lite master, its
# AXI-Stream ports and its user interrupts, the board's constraints, and a
# bitstream.
#
#   vivado -mode batch -source build.tcl -tclargs BOARD [VARIANT [MEMORY]]
#
#   BOARD    kcu105 (XCKU040, Gen3 x8) or kcu116 (XCKU5P, Gen3 x8)
#   VARIANT  st  AXI-Stream channels: a frame source per C2H channel, a
#                checking sink per H2C channel, loopback (default)
#            mm  AXI memory-mapped channels to card memory
#   MEMORY   (mm) bram  1 MiB of block RAM behind an AXI BRAM controller
#                       (default; too small for `hellofpga test`)
#                 ddr4  the board's DDR4 through the memory controller (MIG),
#                       KCU105 only, through Vivado's KCU105 board files
#
# Everything goes to ./NAME/ (the project), ./NAME.bit (the bitstream) and
# ./NAME.utilization.txt, ./NAME.timing.txt (reports) in the current
# folder, NAME being hf_BOARD_st or hf_BOARD_mm_MEMORY.  HF_JOBS in the
# environment: parallel runs (default 4).
#
# NOT BUILT: nobody has run this script with Vivado in this project; the
# CONFIG names and values come from public XDMA designs and PG195, the pins
# from the boards' public files (kcu105.xdc, kcu116.xdc say which are
# unconfirmed).  docs/refdesign.md, "Building for a board".
#
# The script also runs in a plain tclsh with Vivado's commands stubbed
# (tests/lint/board_tcl.tcl): set ::hf_dryrun before sourcing it and call
# hf_main yourself.

set ::hf_here [file dirname [file normalize [info script]]]
set ::hf_top  [file dirname [file dirname $::hf_here]]

# Per board: FPGA part, PCIe lanes, the PCIe block and the GT quad of lane
# 0 (XDMA's pcie_blk_locn / select_quad), the board files' name (only the
# ddr4 memory needs them), whether that memory is supported.  Where a value
# is not confirmed by a public source it says so (docs/refdesign.md lists
# them too).
set ::hf_boards {
    kcu105 {
        part     xcku040-ffva1156-2-e
        lanes    8
        blk      X0Y0
        quad     GTH_Quad_225
        board    xilinx.com:kcu105:part0
        ddr4     1
    }
    kcu116 {
        part     xcku5p-ffvb676-2-e
        lanes    8
        blk      X0Y0
        quad     GTY_Quad_225
        board    xilinx.com:kcu116:part0
        ddr4     0
    }
}
# kcu116 blk/quad: ASSUMED from the lane pins of LiteX's KCU116 platform
# (lane 0 on the quad next to the SFP quad), not confirmed against UG1239
# or the board files; kcu116.xdc pins the lanes, so a wrong guess fails in
# placement instead of building a card whose link never comes up.

proc hf_usage {} {
    return "usage: vivado -mode batch -source build.tcl -tclargs kcu105|kcu116 \[st|mm \[bram|ddr4\]\]"
}

# The command line as a dict: board, variant, memory.
proc hf_args {argv} {
    set board   [lindex $argv 0]
    set variant [lindex $argv 1]
    set memory  [lindex $argv 2]
    if {$variant eq ""} { set variant st }
    if {$memory eq ""}  { set memory bram }
    if {![dict exists $::hf_boards $board] || [llength $argv] > 3 ||
        $variant ni {st mm} || $memory ni {bram ddr4}} {
        error [hf_usage]
    }
    if {$variant eq "st" && [llength $argv] > 2} {
        error "the st variant has no card memory: [hf_usage]"
    }
    if {$memory eq "ddr4" && ![dict get $::hf_boards $board ddr4]} {
        error "$board: ddr4 is not supported by this script (docs/refdesign.md): use bram"
    }
    return [dict create board $board variant $variant memory $memory]
}

# Gen3 at 250 MHz: the AXI width that carries the link (PG195's table of
# data widths: 8 GT/s x N lanes ~ N bytes per ns = 32 x N bits at 250 MHz)
# and the IP's default device ID for Gen3 xN (0x903N, x16: 0x903F), the
# one hellofpga.ko matches.
proc hf_link {lanes} {
    set width [dict get {4 128 8 256 16 512} $lanes]
    set devid [format 903%X [expr {$lanes == 16 ? 15 : $lanes}]]
    return [dict create width $width devid $devid]
}

# The XDMA IP's configuration (CONFIG.* of xilinx.com:ip:xdma): the
# contract with hellofpga.ko and docs/refdesign.md, "The XDMA IP".
proc hf_xdma_config {board variant} {
    set b    [dict get $::hf_boards $board]
    set link [hf_link [dict get $b lanes]]
    set intf [expr {$variant eq "st" ? "AXI_Stream" : "AXI_Memory_Mapped"}]
    return [list \
        CONFIG.mode_selection               Advanced \
        CONFIG.pcie_blk_locn                [dict get $b blk] \
        CONFIG.select_quad                  [dict get $b quad] \
        CONFIG.pl_link_cap_max_link_speed   8.0_GT/s \
        CONFIG.pl_link_cap_max_link_width   X[dict get $b lanes] \
        CONFIG.ref_clk_freq                 100_MHz \
        CONFIG.axi_data_width               [dict get $link width]_bit \
        CONFIG.axisten_freq                 250 \
        CONFIG.pf0_device_id                [dict get $link devid] \
        CONFIG.xdma_axi_intf_mm             $intf \
        CONFIG.xdma_rnum_chnl               4 \
        CONFIG.xdma_wnum_chnl               4 \
        CONFIG.axilite_master_en            true \
        CONFIG.axilite_master_size          64 \
        CONFIG.axilite_master_scale         Kilobytes \
        CONFIG.pciebar2axibar_axil_master   0x00000000 \
        CONFIG.xdma_num_usr_irq             16 \
        CONFIG.pf0_msix_enabled             true \
        CONFIG.pf0_msix_cap_table_size      01F \
        CONFIG.pf0_msix_cap_table_bir       BAR_1 \
        CONFIG.pf0_msix_cap_table_offset    00008000 \
        CONFIG.pf0_msix_cap_pba_bir         BAR_1 \
        CONFIG.pf0_msix_cap_pba_offset      00008FE0 \
        CONFIG.pf0_msi_enabled              true \
        CONFIG.pf0_interrupt_pin            INTA \
        CONFIG.cfg_mgmt_if                  false \
    ]
}

# The design's RTL and the wrapper.
proc hf_sources {} {
    set rtl [file join $::hf_top refdesign rtl]
    set files [lsort [glob -nocomplain -directory $rtl *.sv *.svh]]
    if {[llength [lsearch -all -inline $files *hf_refdesign.sv]] == 0} {
        error "no $rtl/hf_refdesign.sv: the RTL is missing"
    }
    return [concat $files [list [file join $::hf_here hf_refdesign_bd.v]]]
}

# PCIe: the reference clock through an IBUFDS_GTE (sys_clk_gt for the GTs,
# its ODIV2 output as sys_clk), PERST# as sys_rst_n, the lanes.
proc hf_bd_pcie {} {
    create_bd_intf_port -mode Slave \
        -vlnv xilinx.com:interface:diff_clock_rtl:1.0 pcie_refclk
    set_property CONFIG.FREQ_HZ 100000000 [get_bd_intf_ports pcie_refclk]
    create_bd_intf_port -mode Master \
        -vlnv xilinx.com:interface:pcie_7x_mgt_rtl:1.0 pci_exp
    create_bd_port -dir I -type rst pcie_perstn
    set_property CONFIG.POLARITY ACTIVE_LOW [get_bd_ports pcie_perstn]

    set buf [create_bd_cell -type ip -vlnv xilinx.com:ip:util_ds_buf refclk_buf]
    set_property CONFIG.C_BUF_TYPE IBUFDSGTE $buf
    connect_bd_intf_net [get_bd_intf_ports pcie_refclk] [get_bd_intf_pins refclk_buf/CLK_IN_D]
    connect_bd_net [get_bd_pins refclk_buf/IBUF_DS_ODIV2] [get_bd_pins xdma_0/sys_clk]
    connect_bd_net [get_bd_pins refclk_buf/IBUF_OUT] [get_bd_pins xdma_0/sys_clk_gt]
    connect_bd_net [get_bd_ports pcie_perstn] [get_bd_pins xdma_0/sys_rst_n]
    connect_bd_intf_net [get_bd_intf_pins xdma_0/pcie_mgt] [get_bd_intf_ports pci_exp]
}

# The design: user BAR, interrupts, LEDs; with st its stream ports.
proc hf_bd_user {variant ddr_size_mb width} {
    set u [create_bd_cell -type module -reference hf_refdesign_bd hf_user]
    set_property -dict [list \
        CONFIG.DATA_W        $width \
        CONFIG.NUM_C2H       4 \
        CONFIG.NUM_H2C       4 \
        CONFIG.ST            [expr {$variant eq "st" ? 1 : 0}] \
        CONFIG.CLK_PERIOD_NS 4 \
        CONFIG.DDR_SIZE_MB   $ddr_size_mb \
    ] $u
    connect_bd_net [get_bd_pins xdma_0/axi_aclk] [get_bd_pins hf_user/clk]
    connect_bd_net [get_bd_pins xdma_0/axi_aresetn] [get_bd_pins hf_user/rst_n]
    connect_bd_intf_net [get_bd_intf_pins xdma_0/M_AXI_LITE] [get_bd_intf_pins hf_user/s_axil]
    connect_bd_net [get_bd_pins hf_user/usr_irq_req] [get_bd_pins xdma_0/usr_irq_req]
    connect_bd_net [get_bd_pins xdma_0/usr_irq_ack] [get_bd_pins hf_user/usr_irq_ack]
    connect_bd_net [get_bd_pins xdma_0/user_lnk_up] [get_bd_pins hf_user/link_up]
    create_bd_port -dir O -from 3 -to 0 led
    connect_bd_net [get_bd_pins hf_user/led] [get_bd_ports led]
    if {$variant eq "st"} {
        foreach n {0 1 2 3} {
            connect_bd_intf_net [get_bd_intf_pins xdma_0/M_AXIS_H2C_$n] \
                [get_bd_intf_pins hf_user/s_axis_h2c_$n]
            connect_bd_intf_net [get_bd_intf_pins hf_user/m_axis_c2h_$n] \
                [get_bd_intf_pins xdma_0/S_AXIS_C2H_$n]
        }
    }
    # the user BAR: AXI address 0 (pciebar2axibar_axil_master), 64 KiB
    assign_bd_address -offset 0x00000000 -range 64K \
        -target_address_space [get_bd_addr_spaces xdma_0/M_AXI_LITE] \
        [get_bd_addr_segs hf_user/s_axil/*] -force
}

# mm, bram: 1 MiB of block RAM at card address 0.
proc hf_bd_bram {width} {
    set c [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_bram_ctrl bram_ctrl]
    set_property -dict [list CONFIG.DATA_WIDTH $width CONFIG.SINGLE_PORT_BRAM 1] $c
    create_bd_cell -type ip -vlnv xilinx.com:ip:blk_mem_gen bram
    connect_bd_intf_net [get_bd_intf_pins bram_ctrl/BRAM_PORTA] [get_bd_intf_pins bram/BRAM_PORTA]
    connect_bd_intf_net [get_bd_intf_pins xdma_0/M_AXI] [get_bd_intf_pins bram_ctrl/S_AXI]
    connect_bd_net [get_bd_pins xdma_0/axi_aclk] [get_bd_pins bram_ctrl/s_axi_aclk]
    connect_bd_net [get_bd_pins xdma_0/axi_aresetn] [get_bd_pins bram_ctrl/s_axi_aresetn]
    assign_bd_address -offset 0x00000000 -range 1M \
        -target_address_space [get_bd_addr_spaces xdma_0/M_AXI] \
        [get_bd_addr_segs bram_ctrl/S_AXI/*] -force
    return 1
}

# mm, ddr4 (KCU105): the board's DDR4 through the memory controller, its
# pins, clock and reset from the board files (board interfaces
# default_sysclk_300, ddr4_sdram, reset); a SmartConnect crosses from
# axi_aclk to the controller's clock.  Returns the size in MiB.
proc hf_bd_ddr4 {} {
    create_bd_cell -type ip -vlnv xilinx.com:ip:ddr4 ddr4_0
    # as a public KCU105 block design script applies them
    apply_bd_automation -rule xilinx.com:bd_rule:board \
        -config {Board_Interface "default_sysclk_300 ( 300 MHz System differential clock ) "} \
        [get_bd_intf_pins ddr4_0/C0_SYS_CLK]
    apply_bd_automation -rule xilinx.com:bd_rule:board \
        -config {Board_Interface "ddr4_sdram ( DDR4 SDRAM ) "} [get_bd_intf_pins ddr4_0/C0_DDR4]
    apply_bd_automation -rule xilinx.com:bd_rule:board \
        -config {Board_Interface "reset ( FPGA Reset ) "} [get_bd_pins ddr4_0/sys_rst]

    set smc [create_bd_cell -type ip -vlnv xilinx.com:ip:smartconnect ddr_smc]
    set_property -dict [list CONFIG.NUM_SI 1 CONFIG.NUM_CLKS 2] $smc
    connect_bd_intf_net [get_bd_intf_pins xdma_0/M_AXI] [get_bd_intf_pins ddr_smc/S00_AXI]
    connect_bd_intf_net [get_bd_intf_pins ddr_smc/M00_AXI] [get_bd_intf_pins ddr4_0/C0_DDR4_S_AXI]
    connect_bd_net [get_bd_pins xdma_0/axi_aclk] [get_bd_pins ddr_smc/aclk]
    connect_bd_net [get_bd_pins ddr4_0/c0_ddr4_ui_clk] [get_bd_pins ddr_smc/aclk1]
    connect_bd_net [get_bd_pins xdma_0/axi_aresetn] [get_bd_pins ddr_smc/aresetn]

    set rst [create_bd_cell -type ip -vlnv xilinx.com:ip:proc_sys_reset ddr_rst]
    set_property CONFIG.C_EXT_RESET_HIGH 1 $rst
    connect_bd_net [get_bd_pins ddr4_0/c0_ddr4_ui_clk] [get_bd_pins ddr_rst/slowest_sync_clk]
    connect_bd_net [get_bd_pins ddr4_0/c0_ddr4_ui_clk_sync_rst] [get_bd_pins ddr_rst/ext_reset_in]
    connect_bd_net [get_bd_pins ddr_rst/peripheral_aresetn] [get_bd_pins ddr4_0/c0_ddr4_aresetn]

    # card address 0 up to the memory's size, which the user BAR reports
    assign_bd_address -offset 0x00000000 \
        -target_address_space [get_bd_addr_spaces xdma_0/M_AXI] \
        [get_bd_addr_segs ddr4_0/C0_DDR4_MEMORY_MAP/*] -force
    set seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces xdma_0/M_AXI]]
    return [expr {[hf_bytes [get_property RANGE [lindex $seg 0]]] >> 20}]
}

# A size as Vivado writes it (4096, 0x1000, 64K, 2G) in bytes.
proc hf_bytes {size} {
    set scale {K 10 M 20 G 30 T 40}
    if {[regexp {^(\d+)([KMGT])$} $size -> n unit]} {
        return [expr {wide($n) << [dict get $scale $unit]}]
    }
    if {![string is wideinteger -strict $size]} {
        error "not a size: $size"
    }
    return [expr {wide($size)}]
}

# The block design "hf": XDMA, PCIe pins, card memory (mm), the design.
proc hf_bd {opts} {
    set board   [dict get $opts board]
    set variant [dict get $opts variant]
    set width   [dict get [hf_link [dict get $::hf_boards $board lanes]] width]

    create_bd_design hf
    set xdma [create_bd_cell -type ip -vlnv xilinx.com:ip:xdma xdma_0]
    set_property -dict [hf_xdma_config $board $variant] $xdma
    hf_bd_pcie
    set mb 0
    if {$variant eq "mm"} {
        set mb [expr {[dict get $opts memory] eq "ddr4" ? [hf_bd_ddr4] : [hf_bd_bram $width]}]
    }
    hf_bd_user $variant $mb $width
    validate_bd_design
    save_bd_design
    return $mb
}

proc hf_main {argv} {
    set opts    [hf_args $argv]
    set board   [dict get $opts board]
    set name    hf_[dict get $opts board]_[dict get $opts variant]
    if {[dict get $opts variant] eq "mm"} { append name _[dict get $opts memory] }
    set jobs    4
    if {[info exists ::env(HF_JOBS)]} { set jobs $::env(HF_JOBS) }

    create_project $name $name -part [dict get $::hf_boards $board part] -force
    if {[dict get $opts memory] eq "ddr4"} {
        set parts [lsort [get_board_parts -quiet [dict get $::hf_boards $board board]:*]]
        if {[llength $parts] == 0} {
            error "$board: Vivado's board files are not installed (ddr4 needs them)"
        }
        set_property board_part [lindex $parts end] [current_project]
    }
    set_property target_language Verilog [current_project]
    add_files -norecurse [hf_sources]
    set_property include_dirs [file join $::hf_top refdesign rtl] [current_fileset]
    update_compile_order -fileset sources_1

    set mb [hf_bd $opts]
    puts "hf: card memory $mb MiB (HF_USER_DDR_SIZE_MB)"
    set bd [get_files hf.bd]
    generate_target all $bd
    add_files -norecurse [make_wrapper -files $bd -top]
    set_property top hf_wrapper [current_fileset]
    add_files -fileset constrs_1 -norecurse [file join $::hf_here $board.xdc]
    update_compile_order -fileset sources_1

    hf_implement $name $jobs
}

# Synthesis, implementation, reports, the bitstream as ./NAME.bit.
proc hf_implement {name jobs} {
    launch_runs impl_1 -to_step write_bitstream -jobs $jobs
    wait_on_run impl_1
    if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} {
        error "$name: implementation failed: see $name/$name.runs/impl_1/"
    }
    open_run impl_1
    report_utilization -file $name.utilization.txt
    report_timing_summary -file $name.timing.txt
    set bit [glob -directory $name/$name.runs/impl_1 *.bit]
    file copy -force $bit $name.bit
    puts "hf: wrote $name.bit"
}

if {![info exists ::hf_dryrun]} {
    if {[catch {hf_main $argv} err]} {
        puts stderr "hf: $err"
        exit 1
    }
    exit 0
}
