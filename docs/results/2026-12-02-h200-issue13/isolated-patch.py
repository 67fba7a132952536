p='lib/gpu_cuda.c'
s=open(p).read()
s=s.replace('static int cu_engine_copy(bool to_gpu', '''#include <time.h>
uint64_t hf_dbg_copy_ns, hf_dbg_copy_n;
static uint64_t dbg_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static int cu_engine_copy(bool to_gpu''',1)
s=s.replace('''	r = cu_copy(to_gpu, dst, src, size, true);
	if (r == CUDA_SUCCESS && to_gpu''','''	uint64_t dbg0 = dbg_now();
	r = cu_copy(to_gpu, dst, src, size, true);
	hf_dbg_copy_ns += dbg_now() - dbg0;
	hf_dbg_copy_n++;
	if (r == CUDA_SUCCESS && to_gpu''',1)
open(p,'w').write(s)
