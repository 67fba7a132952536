# host-memory.py: the raw copy by the kind of host memory (run on the
# device machine with python3; output in 7-host-memory.txt).
import ctypes, mmap, time, statistics, sys
cu = ctypes.CDLL("libcuda.so.1")
def ck(r, w):
    if r: raise SystemExit(f"{w}: {r}")
ck(cu.cuInit(0), "init")
dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
ck(cu.cuCtxSetCurrent(ctx), "cur")
d = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(d), 64 << 20), "alloc")
cu.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
cu.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
cu.cuMemHostRegister_v2.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
def med(fn, n=300):
    t = []
    for _ in range(n):
        a = time.perf_counter_ns(); fn(); t.append(time.perf_counter_ns() - a)
    return statistics.median(t) / 1000
def run(name, ptr):
    for sz in (4096, 1 << 20, 4 << 20):
        h = med(lambda: cu.cuMemcpyHtoD_v2(d.value, ptr, sz))
        g = med(lambda: cu.cuMemcpyDtoH_v2(ptr, d.value, sz))
        print(f"{name:40s} {sz>>10:6d} KiB  HtoD {h:8.2f} us  DtoH {g:8.2f} us", flush=True)
p = ctypes.c_void_p(); ck(cu.cuMemAllocHost_v2(ctypes.byref(p), 8 << 20), "allochost")
run("cuMemAllocHost 8 MiB", p.value)
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
for size, touch in ((64 << 20, True), (2 << 30, False), (2 << 30, True)):
    m = libc.mmap(None, size, 3, 0x22 | 0x4000, -1, 0)
    if touch: ctypes.memset(m, 1, 64 << 20)
    t0 = time.time(); ck(cu.cuMemHostRegister_v2(m, size, 1), "reg"); t1 = time.time()
    print(f"registered {size>>20} MiB (touched {touch}) in {t1-t0:.2f} s")
    run(f"anon {size>>20} MiB reg, @32MiB", m + (32 << 20))
    cu.cuMemHostUnregister(ctypes.c_void_p(m))
