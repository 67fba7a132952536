#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""synth.py - synthetic trees for "hellofpga doctor --root" (doctor_test.sh).

    synth.py DIR [VARIANT...]

writes into DIR the tree of a machine where every check is ok: hellofpga.ko
with its nvp2p provider, the card 0000:03:00.0 and an H200 0000:04:00.0 on
two downstream ports of one PCIe switch, IOMMU off, the open NVIDIA module,
CUDA saying yes to both attributes, the kernel options set, and a user of
group hellofpga with unlimited memlock.  Each VARIANT changes one thing
(the table VARIANTS); the files are those scripts/doctor-record.sh records.
"""
import os
import struct
import sys

CARD = "0000:03:00.0"
GPU = "0000:04:00.0"
KERNEL = "6.8.0-synth"


def config(vendor, device, cls, bridge, mps=2, mps_cap=2, mrrs=2, acs=None,
           size=4096):
    """A config space: IDs, a PCI Express capability at 0x40 (Device
    Control: MPS 128 << mps, MRRS 128 << mrrs; Device Capabilities: MPS
    128 << mps_cap) and, for a bridge, an ACS capability at 0x100 whose
    control register is acs."""
    c = bytearray(4096)
    struct.pack_into("<HH", c, 0, vendor, device)
    struct.pack_into("<H", c, 0x06, 0x0010)          # capability list
    struct.pack_into("<I", c, 0x08, cls << 8)
    c[0x0e] = 1 if bridge else 0
    c[0x34] = 0x40
    c[0x40], c[0x41] = 0x10, 0x00                    # PCI Express, last
    struct.pack_into("<I", c, 0x44, mps_cap)
    struct.pack_into("<H", c, 0x48, mps << 5 | mrrs << 12)
    if bridge and acs is not None:
        struct.pack_into("<IHH", c, 0x100, 0x0001000D, 0x005F, acs)
    return bytes(c[:size])


class Tree:
    def __init__(self):
        self.files = {}      # path -> bytes or str
        self.links = {}      # path -> target
        self.env = {}        # doctor-env key -> value (a list for repeats)
        self.pci = {}        # bdf -> dict

    def add_pci(self, path, vendor, device, cls, driver=None, nocfg=False,
                **cfg):
        bdf = path.rsplit("/", 1)[-1]
        self.pci[bdf] = dict(path=path, vendor=vendor, device=device,
                             cls=cls, driver=driver,
                             cfg=None if nocfg else cfg, link=None,
                             numa=0, resource=None, group=None)
        return self.pci[bdf]

    def write(self, top):
        for bdf, p in self.pci.items():
            d = "/sys/devices/" + p["path"]
            f = self.files
            f[d + "/vendor"] = "0x%04x\n" % p["vendor"]
            f[d + "/device"] = "0x%04x\n" % p["device"]
            f[d + "/class"] = "0x%06x\n" % p["cls"]
            f[d + "/numa_node"] = "%d\n" % p["numa"]
            if p["cfg"] is not None:
                f[d + "/config"] = config(p["vendor"], p["device"], p["cls"],
                                          p["cls"] >> 8 == 0x0604,
                                          **p["cfg"])
            if p["link"]:
                cs, cw, ms, mw = p["link"]
                f[d + "/current_link_speed"] = cs + "\n"
                f[d + "/current_link_width"] = "%d\n" % cw
                f[d + "/max_link_speed"] = ms + "\n"
                f[d + "/max_link_width"] = "%d\n" % mw
            if p["resource"]:
                f[d + "/resource"] = "".join(
                    "0x%016x 0x%016x 0x%016x\n" % r for r in p["resource"])
            if p["driver"]:
                self.links[d + "/driver"] = \
                    "../../../../bus/pci/drivers/" + p["driver"]
            if p["group"] is not None:
                self.links[d + "/iommu_group"] = \
                    "../../../../kernel/iommu_groups/%d" % p["group"]
            self.links["/sys/bus/pci/devices/" + bdf] = \
                "../../../devices/" + p["path"]
        for path, data in self.files.items():
            full = top + path
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as fh:
                fh.write(data.encode() if isinstance(data, str) else data)
        for path, target in self.links.items():
            full = top + path
            os.makedirs(os.path.dirname(full), exist_ok=True)
            os.symlink(target, full)
        with open(top + "/doctor-env", "w") as fh:
            fh.write("# synth.py\n")
            for k, v in self.env.items():
                for one in v if isinstance(v, list) else [v]:
                    fh.write("%s=%s\n" % (k, one))


def nodes(mode, uid, gid):
    return ["/dev/hellofpga0_%s %s %d %d" % (n, mode, uid, gid)
            for n in ("c2h_0", "control", "h2c_0", "user")]


def base():
    t = Tree()
    f = t.files
    f["/sys/module/hellofpga/version"] = "1.4.0\n"
    f["/sys/module/hellofpga/parameters/pin_limit_mb"] = "0\n"
    f["/sys/module/hellofpga_nvp2p/version"] = "1.4.0\n"
    f["/sys/module/nvidia/version"] = "580.95.05\n"
    f["/proc/driver/nvidia/version"] = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05"
        "  Release Build  (dvs-builder@U22-I3-AF03-09-1)\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
    f["/proc/cmdline"] = "BOOT_IMAGE=/vmlinuz-%s root=/dev/sda1 ro quiet\n" \
        % KERNEL
    f["/proc/meminfo"] = "MemTotal:       65536000 kB\n"
    f["/boot/config-" + KERNEL] = ("CONFIG_DMA_SHARED_BUFFER=y\n"
                                   "CONFIG_PCI_P2PDMA=y\n"
                                   "CONFIG_DMABUF_MOVE_NOTIFY=y\n")
    t.add_pci("pci0000:00/0000:00:00.0", 0x8086, 0x09a2, 0x060000, nocfg=True)
    rp = "pci0000:00/0000:00:01.0"
    usp = rp + "/0000:01:00.0"
    t.add_pci(rp, 0x8086, 0x347a, 0x060400, "pcieport", acs=0)
    t.add_pci(usp, 0x1000, 0xc030, 0x060400, "pcieport", acs=0)
    t.add_pci(usp + "/0000:02:00.0", 0x1000, 0xc030, 0x060400, "pcieport",
              acs=0)
    t.add_pci(usp + "/0000:02:01.0", 0x1000, 0xc030, 0x060400, "pcieport",
              acs=0)
    card = t.add_pci(usp + "/0000:02:00.0/" + CARD, 0x10ee, 0x9038,
                     0x058000, "hellofpga")
    card["link"] = ("8.0 GT/s PCIe", 8, "8.0 GT/s PCIe", 8)
    card["resource"] = [(0xf0000000, 0xf000ffff, 0x40200),
                        (0xf0010000, 0xf001ffff, 0x40200)]
    gpu = t.add_pci(usp + "/0000:02:01.0/" + GPU, 0x10de, 0x2335, 0x030200,
                    "nvidia")
    gpu["link"] = ("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16)
    # the H200's layout: 64-bit BAR0 (lines 1-2), BAR1 256 GiB (line 3)
    gpu["resource"] = [(0x104002000000, 0x104002ffffff, 0x14220c),
                       (0, 0, 0),
                       (0x100000000000, 0x103fffffffff, 0x14220c),
                       (0, 0, 0)]
    t.env = {
        "uid": "1000", "gids": "1000 998", "memlock": "unlimited",
        "kernel": KERNEL, "node": nodes("0660", 0, 998),
        "group": ["1000 user", "998 hellofpga"], "abi": "1.4",
        "features": "0x53", "gpu_platform": "desktop", "gpu_emulated": "0",
        "gpu_name": "NVIDIA H200", "gpu_pci": GPU, "gpu_reason": "",
        "cuda_driver": "13000", "rdma_supported": "1",
        "dmabuf_supported": "1",
    }
    return t


def drop(t, prefix):
    for k in [k for k in t.files if k.startswith(prefix)]:
        del t.files[k]


def no_driver(t):
    drop(t, "/sys/module/hellofpga")
    t.pci[CARD]["driver"] = None
    for k in ("node", "abi", "features"):
        del t.env[k]


def iommu(t, kind):
    t.links["/sys/class/iommu/dmar0"] = "../../devices/virtual/iommu/dmar0"
    for n, bdf in ((5, CARD), (6, GPU)):
        t.pci[bdf]["group"] = n
        t.files["/sys/kernel/iommu_groups/%d/type" % n] = kind + "\n"


def root_complex(t):
    """card and GPU below two root ports of one host bridge"""
    for bdf in ("0000:01:00.0", "0000:02:00.0", "0000:02:01.0"):
        del t.pci[bdf]
    t.add_pci("pci0000:00/0000:00:02.0", 0x8086, 0x347b, 0x060400,
              "pcieport", acs=0)
    t.pci[CARD]["path"] = "pci0000:00/0000:00:01.0/" + CARD
    t.pci[GPU]["path"] = "pci0000:00/0000:00:02.0/" + GPU


def cross_socket(t):
    """the GPU below the host bridge of the other socket"""
    root_complex(t)
    del t.pci["0000:00:02.0"]
    t.add_pci("pci0000:80/0000:80:01.0", 0x8086, 0x347a, 0x060400,
              "pcieport", acs=0)["numa"] = 1
    t.pci[GPU]["path"] = "pci0000:80/0000:80:01.0/" + GPU
    t.pci[GPU]["numa"] = 1


def flat_vm(t):
    """a virtual machine's flat bus: both on the root bus"""
    for bdf in ("0000:00:01.0", "0000:01:00.0", "0000:02:00.0",
                "0000:02:01.0"):
        del t.pci[bdf]
    t.pci[CARD]["path"] = "pci0000:00/" + CARD
    t.pci[GPU]["path"] = "pci0000:00/" + GPU


def set_cfg(bdf, **kw):
    return lambda t: t.pci[bdf]["cfg"].update(kw)


def env(**kw):
    return lambda t: t.env.update(kw)


def set_file(path, text):
    return lambda t: t.files.__setitem__(path, text)


VARIANTS = {
    "no-driver": no_driver,
    "abi-major": env(abi="2.0"),
    "abi-minor": env(abi="1.0"),
    "abi-eproto": lambda t: (t.env.pop("abi"), t.env.update(
        card_error="/dev/hellofpga0: Protocol error: GET_INFO is not understood",
        card_errno="71")),
    "card-missing": lambda t: t.pci.pop(CARD),
    "card-unbound": lambda t: t.pci[CARD].update(driver=None),
    "card-xdma": lambda t: t.pci[CARD].update(driver="xdma"),
    "nodes-root-only": env(node=nodes("0600", 0, 0)),
    "nodes-not-member": env(gids="1000"),
    "nodes-none": lambda t: t.env.pop("node"),
    "memlock-low": env(memlock="8388608"),
    "memlock-root": env(uid="0", gids="0", memlock="8388608"),
    "memlock-pin-limit": lambda t: (
        t.env.update(memlock="1073741824"),
        t.files.__setitem__("/sys/module/hellofpga/parameters/pin_limit_mb",
                            "512\n")),
    "iommu-translated": lambda t: iommu(t, "DMA-FQ"),
    "iommu-passthrough": lambda t: iommu(t, "identity"),
    "acs-redirect": set_cfg("0000:02:00.0", acs=0x001d),
    "acs-source-valid": set_cfg("0000:02:00.0", acs=0x0001),
    "config-64": lambda t: [p["cfg"].update(size=64)
                            for p in t.pci.values() if p["cfg"] is not None],
    "root-complex": root_complex,
    "cross-socket": cross_socket,
    "flat-vm": flat_vm,
    "same-port": lambda t: t.pci[GPU].update(
        path=t.pci[CARD]["path"].rsplit("/", 1)[0] + "/" + GPU),
    "mps-low": set_cfg(CARD, mps=0),
    "link-narrow": lambda t: t.pci[CARD].update(
        link=("8.0 GT/s PCIe", 4, "8.0 GT/s PCIe", 8)),
    "link-slow": lambda t: t.pci[CARD].update(
        link=("2.5 GT/s PCIe", 8, "8.0 GT/s PCIe", 8)),
    "gpu-idle-speed": lambda t: t.pci[GPU].update(
        link=("2.5 GT/s PCIe", 16, "32.0 GT/s PCIe", 16)),
    "bar1-small": lambda t: t.pci[GPU].update(resource=[
        (0xf2000000, 0xf2ffffff, 0x40200),
        (0xe0000000, 0xefffffff, 0x14220c), (0, 0, 0),
        (0xf0000000, 0xf1ffffff, 0x14220c)]),
    "no-gpu": lambda t: t.pci.pop(GPU),
    "no-nvidia": lambda t: (drop(t, "/sys/module/nvidia"),
                            drop(t, "/proc/driver/nvidia")),
    "proprietary": set_file("/proc/driver/nvidia/version",
                            "NVRM version: NVIDIA UNIX x86_64 Kernel Module"
                            "  580.95.05  Release Build\n"),
    "no-nvp2p": lambda t: (drop(t, "/sys/module/hellofpga_nvp2p"),
                           t.env.update(features="0x51")),
    "cuda-neither": env(rdma_supported="0", dmabuf_supported="0"),
    "cuda-rdma-only": env(dmabuf_supported="0"),
    "cuda-none": env(gpu_platform="none", gpu_name="", gpu_pci="",
                     gpu_reason="libcuda.so.1 not found",
                     rdma_supported="-1", dmabuf_supported="-1"),
    "cuda-emulated": env(gpu_emulated="1"),
    "no-p2pdma": set_file("/boot/config-" + KERNEL,
                          "CONFIG_DMA_SHARED_BUFFER=y\n"
                          "# CONFIG_PCI_P2PDMA is not set\n"
                          "CONFIG_DMABUF_MOVE_NOTIFY=y\n"),
    "kconfig-gz": lambda t: t.files.__setitem__(
        "/proc/config.gz", __import__("gzip").compress(
            t.files.pop("/boot/config-" + KERNEL).encode(), mtime=0)),
    "no-kconfig": lambda t: t.files.pop("/boot/config-" + KERNEL),
    "no-env": lambda t: t.env.clear(),
}


def main():
    if len(sys.argv) < 2 or any(v not in VARIANTS for v in sys.argv[2:]):
        sys.exit("usage: synth.py DIR [%s]..." % "|".join(VARIANTS))
    t = base()
    for v in sys.argv[2:]:
        VARIANTS[v](t)
    t.write(sys.argv[1].rstrip("/"))
    if not t.env:
        os.remove(sys.argv[1].rstrip("/") + "/doctor-env")


if __name__ == "__main__":
    main()
