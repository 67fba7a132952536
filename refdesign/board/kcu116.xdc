# SPDX-License-Identifier: MIT
#
# kcu116.xdc - the hellofpga reference design on the KCU116 (XCKU5P-2FFVB676E):
# PCIe edge connector (Gen3 x8), LEDs, configuration.  Ports are those of the
# block design build.tcl makes (hf_wrapper).  NOT BUILT: no Vivado has read
# this file in this project.
#
# Sources (public): LiteX's KCU116 platform (litex-boards,
# platforms/xilinx_kcu116.py) for every pin below, and Xilinx's KCU116
# Partial Reconfiguration tutorial constraints (top_kcu116.xdc), which agree
# on the LEDs and give the configuration voltage.  UG1239 (KCU116 user
# guide) itself was not read here: the PCIe pins (reference clock, PERST#,
# lanes) have ONE source and are UNCONFIRMED; check them against UG1239's
# PCIe table before the first build.

# ---- configuration -------------------------------------------------------
set_property CFGBVS GND                      [current_design]
set_property CONFIG_VOLTAGE 1.8              [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
# The configuration flash settings (SPI bus width, addressing) are not set:
# not confirmed for this board.  Program over JTAG, or set them from UG1239
# before writing a flash image.

# ---- PCIe (UNCONFIRMED: LiteX's platform only) ---------------------------
# 100 MHz reference clock from the slot
set_property PACKAGE_PIN V7 [get_ports pcie_refclk_clk_p*]
set_property PACKAGE_PIN V6 [get_ports pcie_refclk_clk_n*]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_clk_p*]

# PERST# from the slot (the IP's sys_rst_n)
set_property PACKAGE_PIN T19 [get_ports pcie_perstn]
set_property IOSTANDARD LVCMOS18 [get_ports pcie_perstn]
set_property PULLUP true [get_ports pcie_perstn]
set_false_path -from [get_ports pcie_perstn]

# Lanes 0..7.  The IP places its GTs by pcie_blk_locn / select_quad
# (build.tcl: X0Y0 / GTY_Quad_225, ASSUMED); these pins must agree with it,
# so a wrong guess there fails in placement.
set_property PACKAGE_PIN P2  [get_ports {pci_exp_rxp[0]}]
set_property PACKAGE_PIN P1  [get_ports {pci_exp_rxn[0]}]
set_property PACKAGE_PIN R5  [get_ports {pci_exp_txp[0]}]
set_property PACKAGE_PIN R4  [get_ports {pci_exp_txn[0]}]
set_property PACKAGE_PIN T2  [get_ports {pci_exp_rxp[1]}]
set_property PACKAGE_PIN T1  [get_ports {pci_exp_rxn[1]}]
set_property PACKAGE_PIN U5  [get_ports {pci_exp_txp[1]}]
set_property PACKAGE_PIN U4  [get_ports {pci_exp_txn[1]}]
set_property PACKAGE_PIN V2  [get_ports {pci_exp_rxp[2]}]
set_property PACKAGE_PIN V1  [get_ports {pci_exp_rxn[2]}]
set_property PACKAGE_PIN W5  [get_ports {pci_exp_txp[2]}]
set_property PACKAGE_PIN W4  [get_ports {pci_exp_txn[2]}]
set_property PACKAGE_PIN Y2  [get_ports {pci_exp_rxp[3]}]
set_property PACKAGE_PIN Y1  [get_ports {pci_exp_rxn[3]}]
set_property PACKAGE_PIN AA5 [get_ports {pci_exp_txp[3]}]
set_property PACKAGE_PIN AA4 [get_ports {pci_exp_txn[3]}]
set_property PACKAGE_PIN AB2 [get_ports {pci_exp_rxp[4]}]
set_property PACKAGE_PIN AB1 [get_ports {pci_exp_rxn[4]}]
set_property PACKAGE_PIN AC5 [get_ports {pci_exp_txp[4]}]
set_property PACKAGE_PIN AC4 [get_ports {pci_exp_txn[4]}]
set_property PACKAGE_PIN AD2 [get_ports {pci_exp_rxp[5]}]
set_property PACKAGE_PIN AD1 [get_ports {pci_exp_rxn[5]}]
set_property PACKAGE_PIN AD7 [get_ports {pci_exp_txp[5]}]
set_property PACKAGE_PIN AD6 [get_ports {pci_exp_txn[5]}]
set_property PACKAGE_PIN AE4 [get_ports {pci_exp_rxp[6]}]
set_property PACKAGE_PIN AE3 [get_ports {pci_exp_rxn[6]}]
set_property PACKAGE_PIN AE9 [get_ports {pci_exp_txp[6]}]
set_property PACKAGE_PIN AE8 [get_ports {pci_exp_txn[6]}]
set_property PACKAGE_PIN AF2 [get_ports {pci_exp_rxp[7]}]
set_property PACKAGE_PIN AF1 [get_ports {pci_exp_rxn[7]}]
set_property PACKAGE_PIN AF7 [get_ports {pci_exp_txp[7]}]
set_property PACKAGE_PIN AF6 [get_ports {pci_exp_txn[7]}]

# ---- LEDs (GPIO_LED_0..3) ------------------------------------------------
# [0] PCIe link up, [1] heartbeat of time_ns, [2] a usr_irq_req line up,
# [3] a refused register access since reset (hf_refdesign_bd.v)
set_property PACKAGE_PIN C9  [get_ports {led[0]}]
set_property PACKAGE_PIN D9  [get_ports {led[1]}]
set_property PACKAGE_PIN E10 [get_ports {led[2]}]
set_property PACKAGE_PIN E11 [get_ports {led[3]}]
set_property IOSTANDARD LVCMOS33 [get_ports {led[*]}]
set_false_path -to [get_ports {led[*]}]
