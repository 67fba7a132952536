# SPDX-License-Identifier: MIT
"""cmake --install puts the package beside the library, and it imports and
loads that library with no HELLOFPGA_LIBRARY and no PYTHONPATH but its own."""
import glob
import os
import subprocess
import sys

import pytest

BUILD = os.environ.get("HF_BUILD_DIR")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not BUILD:
        pytest.skip("HF_BUILD_DIR is not set (CTest sets it)")
    p = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(p)],
                   check=True, capture_output=True)
    return p


def installed(prefix):
    dirs = glob.glob(str(prefix / "lib" / "python3*" / "dist-packages"))
    assert len(dirs) == 1, dirs
    return dirs[0]


def run_py(prefix, code):
    env = {k: v for k, v in os.environ.items()
           if k not in ("HELLOFPGA_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = installed(prefix)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd="/",
                          capture_output=True, text=True)


def test_package_files_are_installed(prefix):
    d = os.path.join(installed(prefix), "hellofpga")
    for f in ("__init__.py", "_capi.py", "_config.py", "py.typed",
              "pattern.py", "regs.py"):
        assert os.path.isfile(os.path.join(d, f)), f
    assert not glob.glob(os.path.join(d, "__pycache__"))


def test_imports_the_installed_library(prefix):
    p = run_py(prefix, "import hellofpga; print(hellofpga.__file__); "
                       "print(hellofpga.library_path())")
    assert p.returncode == 0, p.stderr
    path, lib = p.stdout.split()
    assert path.startswith(installed(prefix))
    # not installed system-wide here: found through _config.LIBDIR
    if lib != "libhellofpga.so.1":
        assert lib.startswith(str(prefix)) and lib.endswith("libhellofpga.so.1")


def test_installed_package_moves_data(prefix):
    p = run_py(prefix, "import hellofpga\n"
                       "with hellofpga.Card('emu:0,ddr=4M,private') as c:\n"
                       "    c.write_h2c(b'installed', 0)\n"
                       "    print(bytes(c.read(0, 9)).decode())")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "installed"
