# SPDX-License-Identifier: MIT
#
# board_tcl.tcl SOURCE_DIR CHECK - refdesign/board/ without Vivado (tclsh).
# build.tcl runs with Vivado's commands recorded instead of executed, for
# every board and variant it supports, and CHECK says what must hold:
#   complete  every .tcl and .xdc file there is complete Tcl (no brace,
#             bracket or quote left open), and build.tcl goes through
#   args      build.tcl refuses the boards, variants and memories it does
#             not support
#   xdma      the XDMA IP is configured as hellofpga.ko expects (the user
#             BAR, 64 KiB at AXI 0; MSI-X, 32 entries in BAR1 at 0x8000;
#             MSI; 16 user interrupts; 4 + 4 channels; AXI-ST or AXI-MM;
#             Gen3 x8 at 256 bits), each CONFIG name it sets named in
#             docs/refdesign.md
#   wrapper   build.tcl connects only ports and interfaces and sets only
#             parameters hf_refdesign_bd.v has, and tells the design its
#             card memory (DDR_SIZE_MB)
#   pins      the external ports build.tcl makes are exactly those the
#             board's .xdc constrains
# Prints what failed; exit 1 if anything did.
set src   [file normalize [lindex $argv 0]]
set check [lindex $argv 1]
set dir   [file join $src refdesign board]
set failed 0

proc fail {msg} {
    puts "FAIL: $msg"
    set ::failed 1
}

proc slurp {path} {
    set f [open $path]
    set text [read $f]
    close $f
    return $text
}

# ---- Vivado's commands, recorded --------------------------------------------
# A command Tcl does not know is Vivado's: recorded, it returns its last
# argument (the object it names); those whose result build.tcl computes
# with return something of the right kind.
set ::calls {}
proc unknown {args} {
    lappend ::calls $args
    return [lindex $args end]
}
proc get_property {name obj} {
    lappend ::calls [list get_property $name $obj]
    return [dict get {RANGE 2G PROGRESS 100%} $name]
}
proc get_board_parts {args} {
    return [list xilinx.com:kcu105:part0:1.6]
}
proc puts_quiet {args} {}

set ::hf_dryrun 1
source [file join $dir build.tcl]
proc hf_sources {} { return {} }
proc hf_implement {name jobs} { lappend ::calls [list hf_implement $name $jobs] }

# The runs: arguments, the XDMA's interface, the card memory in MiB.
set runs {
    {kcu105}           AXI_Stream        0
    {kcu105 mm}        AXI_Memory_Mapped 1
    {kcu105 mm ddr4}   AXI_Memory_Mapped 2048
    {kcu116 st}        AXI_Stream        0
    {kcu116 mm bram}   AXI_Memory_Mapped 1
}

# build.tcl ARGS, recorded: the list of Vivado calls, or an error.
proc dry {args} {
    set ::calls {}
    rename puts puts_real
    rename puts_quiet puts
    set rc [catch {hf_main $args} err]
    rename puts puts_quiet
    rename puts_real puts
    if {$rc} { error $err }
    return $::calls
}

# A dict's value, or "unset" (not through expr, which turns 0x00000000 into 0).
proc dget {d k} {
    if {[dict exists $d $k]} { return [dict get $d $k] }
    return unset
}

# The -dict a recorded run set on a cell.
proc props {calls cell} {
    foreach c $calls {
        if {[lindex $c 0] eq "set_property" && [lindex $c 1] eq "-dict" &&
            [lindex $c end] eq $cell} {
            return [lindex $c 2]
        }
    }
    return {}
}

switch -- $check {
complete {
    foreach f [lsort [glob -directory $dir *.tcl *.xdc]] {
        if {![info complete [slurp $f]]} {
            fail "[file tail $f]: not complete Tcl (a brace, bracket or quote open)"
        }
    }
    foreach {args - -} $runs {
        if {[catch {dry {*}$args} err]} { fail "build.tcl $args: $err" }
    }
}
args {
    foreach args {{} {kcu107} {kcu105 xx} {kcu105 st bram} {kcu105 mm sram}
                  {kcu116 mm ddr4} {kcu105 mm bram x}} {
        if {![catch {hf_args $args}]} {
            fail "build.tcl accepts '$args'"
        }
    }
}
xdma {
    set docs [slurp [file join $src docs refdesign.md]]
    set want {
        CONFIG.axilite_master_en true CONFIG.axilite_master_size 64
        CONFIG.axilite_master_scale Kilobytes
        CONFIG.pciebar2axibar_axil_master 0x00000000
        CONFIG.pf0_msix_enabled true CONFIG.pf0_msix_cap_table_size 01F
        CONFIG.pf0_msix_cap_table_bir BAR_1 CONFIG.pf0_msix_cap_table_offset 00008000
        CONFIG.pf0_msix_cap_pba_bir BAR_1 CONFIG.pf0_msix_cap_pba_offset 00008FE0
        CONFIG.pf0_msi_enabled true
        CONFIG.xdma_num_usr_irq 16 CONFIG.xdma_rnum_chnl 4 CONFIG.xdma_wnum_chnl 4
        CONFIG.pl_link_cap_max_link_speed 8.0_GT/s CONFIG.axisten_freq 250
        CONFIG.pl_link_cap_max_link_width X8 CONFIG.axi_data_width 256_bit
        CONFIG.pf0_device_id 9038
    }
    foreach {args intf -} $runs {
        set xdma [props [dry {*}$args] xdma_0]
        dict for {k v} [dict merge $want [list CONFIG.xdma_axi_intf_mm $intf]] {
            set got [dget $xdma $k]
            if {$got ne $v} {
                fail "build.tcl $args: xdma_0 $k is '$got', expected '$v'"
            }
        }
        dict for {k v} $xdma {
            if {[string first "`[string range $k 7 end]`" $docs] < 0 &&
                ![info exists told($k)]} {
                set told($k) 1
                fail "docs/refdesign.md does not name the XDMA's $k"
            }
        }
    }
}
wrapper {
    # the wrapper's ports, interfaces (X_INTERFACE_INFO) and parameters
    set v [slurp [file join $dir hf_refdesign_bd.v]]
    set ports {}
    foreach {- p} [regexp -all -inline -line \
            {^\s*(?:input|output)\s+wire\s+(?:\[[^\]]*\]\s*)?(\w+)} $v] {
        lappend ports $p
    }
    set intfs {}
    foreach {- i} [regexp -all -inline {interface:\w+:[\d.]+ (\w+) } $v] {
        lappend intfs $i
    }
    set params {}
    foreach {- p} [regexp -all -inline -line {^\s*parameter\s+(\w+)} $v] {
        lappend params $p
    }
    foreach {args - mb} $runs {
        set calls [dry {*}$args]
        set user [props $calls hf_user]
        dict for {k -} $user {
            if {[string range $k 7 end] ni $params} {
                fail "build.tcl $args: hf_user $k: no such parameter in hf_refdesign_bd.v"
            }
        }
        set got [dget $user CONFIG.DDR_SIZE_MB]
        if {$got ne $mb} {
            fail "build.tcl $args: DDR_SIZE_MB $got, expected $mb"
        }
        foreach c $calls {
            set pin [lindex $c end]
            if {[lindex $c 0] ni {get_bd_pins get_bd_intf_pins} ||
                ![string match hf_user/* $pin]} {
                continue
            }
            set name [string range $pin 8 end]
            if {[lindex $c 0] eq "get_bd_pins" && $name ni $ports} {
                fail "build.tcl $args: $pin: no such port in hf_refdesign_bd.v"
            }
            if {[lindex $c 0] eq "get_bd_intf_pins" && $name ni $intfs} {
                fail "build.tcl $args: $pin: no such interface in hf_refdesign_bd.v"
            }
        }
    }
}
pins {
    foreach {args - -} $runs {
        set board [lindex $args 0]
        # the external ports, by the names the block design's wrapper gives them
        set made {}
        foreach c [dry {*}$args] {
            set name [lindex $c end]
            switch -glob -- [lindex $c 0]:[lindex $c end-1] {
                create_bd_port:* { lappend made $name }
                create_bd_intf_port:*diff_clock* {
                    lappend made ${name}_clk_p ${name}_clk_n
                }
                create_bd_intf_port:*pcie_7x_mgt* {
                    lappend made ${name}_rxp ${name}_rxn ${name}_txp ${name}_txn
                }
                create_bd_intf_port:* { fail "build.tcl $args: port $name of an unknown kind" }
            }
        }
        set xdc {}
        foreach {- p} [regexp -all -inline {get_ports \{?(\w+)} [slurp [file join $dir $board.xdc]]] {
            lappend xdc $p
        }
        foreach p [lsort -unique $xdc] {
            if {$p ni $made} { fail "$board.xdc constrains $p, which build.tcl $args does not make" }
        }
        foreach p [lsort -unique $made] {
            if {$p ni $xdc} { fail "build.tcl $args makes port $p, which $board.xdc does not constrain" }
        }
    }
}
default {
    puts "usage: board_tcl.tcl SOURCE_DIR complete|args|xdma|wrapper|pins"
    exit 2
}
}

if {$failed} { exit 1 }
puts "PASS: refdesign/board/: $check"
