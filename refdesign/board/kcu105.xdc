# SPDX-License-Identifier: MIT
#
# kcu105.xdc - the hellofpga reference design on the KCU105 (XCKU040-2FFVA1156E):
# PCIe edge connector (Gen3 x8), LEDs, configuration.  Ports are those of the
# block design build.tcl makes (hf_wrapper).  NOT BUILT: no Vivado has read
# this file in this project.
#
# Sources (public): the KCU105 pins as in Xilinx's PCIe example constraints
# for the KCU105 and in Alex Forencich's KCU105 constraints (verilog-pcie /
# corundum, MIT), which agree pin for pin; UG917 (KCU105 user guide) itself
# was not read here.  Each line below was found in both unless it says
# otherwise.

# ---- configuration -------------------------------------------------------
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN {DIV-1} [current_design]
# the configuration flash (dual quad SPI); Forencich's file only
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 8           [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]

# ---- PCIe ----------------------------------------------------------------
# 100 MHz reference clock from the slot: MGTREFCLK0 of GTH quad 225
set_property PACKAGE_PIN AB6 [get_ports pcie_refclk_clk_p*]
set_property PACKAGE_PIN AB5 [get_ports pcie_refclk_clk_n*]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_clk_p*]

# PERST# from the slot (the IP's sys_rst_n)
set_property PACKAGE_PIN K22 [get_ports pcie_perstn]
set_property IOSTANDARD LVCMOS18 [get_ports pcie_perstn]
set_property PULLUP true [get_ports pcie_perstn]
set_false_path -from [get_ports pcie_perstn]

# Lanes: lane 0 on GTHE3_CHANNEL_X0Y7 (quad 225) down to lane 7 on X0Y0
# (quad 224); the IP places its GTs by pcie_blk_locn X0Y0 / select_quad
# GTH_Quad_225 (build.tcl), these pins must agree with it.
set_property PACKAGE_PIN AB2 [get_ports {pci_exp_rxp[0]}]
set_property PACKAGE_PIN AB1 [get_ports {pci_exp_rxn[0]}]
set_property PACKAGE_PIN AC4 [get_ports {pci_exp_txp[0]}]
set_property PACKAGE_PIN AC3 [get_ports {pci_exp_txn[0]}]
set_property PACKAGE_PIN AD2 [get_ports {pci_exp_rxp[1]}]
set_property PACKAGE_PIN AD1 [get_ports {pci_exp_rxn[1]}]
set_property PACKAGE_PIN AE4 [get_ports {pci_exp_txp[1]}]
set_property PACKAGE_PIN AE3 [get_ports {pci_exp_txn[1]}]
set_property PACKAGE_PIN AF2 [get_ports {pci_exp_rxp[2]}]
set_property PACKAGE_PIN AF1 [get_ports {pci_exp_rxn[2]}]
set_property PACKAGE_PIN AG4 [get_ports {pci_exp_txp[2]}]
set_property PACKAGE_PIN AG3 [get_ports {pci_exp_txn[2]}]
set_property PACKAGE_PIN AH2 [get_ports {pci_exp_rxp[3]}]
set_property PACKAGE_PIN AH1 [get_ports {pci_exp_rxn[3]}]
set_property PACKAGE_PIN AH6 [get_ports {pci_exp_txp[3]}]
set_property PACKAGE_PIN AH5 [get_ports {pci_exp_txn[3]}]
set_property PACKAGE_PIN AJ4 [get_ports {pci_exp_rxp[4]}]
set_property PACKAGE_PIN AJ3 [get_ports {pci_exp_rxn[4]}]
set_property PACKAGE_PIN AK6 [get_ports {pci_exp_txp[4]}]
set_property PACKAGE_PIN AK5 [get_ports {pci_exp_txn[4]}]
set_property PACKAGE_PIN AK2 [get_ports {pci_exp_rxp[5]}]
set_property PACKAGE_PIN AK1 [get_ports {pci_exp_rxn[5]}]
set_property PACKAGE_PIN AL4 [get_ports {pci_exp_txp[5]}]
set_property PACKAGE_PIN AL3 [get_ports {pci_exp_txn[5]}]
set_property PACKAGE_PIN AM2 [get_ports {pci_exp_rxp[6]}]
set_property PACKAGE_PIN AM1 [get_ports {pci_exp_rxn[6]}]
set_property PACKAGE_PIN AM6 [get_ports {pci_exp_txp[6]}]
set_property PACKAGE_PIN AM5 [get_ports {pci_exp_txn[6]}]
set_property PACKAGE_PIN AP2 [get_ports {pci_exp_rxp[7]}]
set_property PACKAGE_PIN AP1 [get_ports {pci_exp_rxn[7]}]
set_property PACKAGE_PIN AN4 [get_ports {pci_exp_txp[7]}]
set_property PACKAGE_PIN AN3 [get_ports {pci_exp_txn[7]}]

# ---- LEDs (DS7, DS6, DS8, DS9 in Forencich's names) ----------------------
# [0] PCIe link up, [1] heartbeat of time_ns, [2] a usr_irq_req line up,
# [3] a refused register access since reset (hf_refdesign_bd.v)
set_property PACKAGE_PIN AP8 [get_ports {led[0]}]
set_property PACKAGE_PIN H23 [get_ports {led[1]}]
set_property PACKAGE_PIN P20 [get_ports {led[2]}]
set_property PACKAGE_PIN P21 [get_ports {led[3]}]
set_property IOSTANDARD LVCMOS18 [get_ports {led[*]}]
set_false_path -to [get_ports {led[*]}]
