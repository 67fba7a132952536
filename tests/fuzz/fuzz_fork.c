// SPDX-License-Identifier: MIT
/*
 * fuzz_fork.c - the fuzzer's fork() while the other threads are inside
 * calls of every family.
 */
#include "fuzz.h"

/*
 * P_FORK: fork() while the other threads are inside calls of every family
 * (the library's process-wide locks may be held by them then).  In the
 * child (bounded by alarm(): a hang is a failure) every call on what the
 * parent opened answers at once: -ECHILD for the handles, their streams,
 * the GPU streams (-EINVAL, -EBADF once closed or destroyed), Close of an
 * inherited handle only forgets it, after which its streams' Close only
 * forgets them too; the GPU memory is the child's copy.  The child takes
 * none of the fuzzer's locks and, under ASan, allocates and frees nothing
 * (ASan's allocator takes no lock around fork()).  The parent's card goes
 * on.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FZ_CHILD_MALLOC	0
#else
#define FZ_CHILD_MALLOC	1
#endif

/* The child's checks; 0, or 1 with the failure in @msg. */
static int fork_child(struct fz_thread *t, char *msg, size_t len)
{
	HELLOFPGA_HANDLE h = cards[0].h, sh;
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_GPU_HANDLE pin;
	HELLOFPGA_FRAME f;
	HELLOFPGA_STREAM v;
	uint8_t b[64];
	uint32_t n;
	int fd, ret;
	void *gs, *p;

/* (the call is named in @msg first: the parent reports a hang in it) */
#define CHILD_EXPECT(call, ok)						\
	do {								\
		snprintf(msg, len, "in the fork() child: %s did not return", \
			 #call);					\
		ret = (call);						\
		if (!(ok)) {						\
			snprintf(msg, len, "in the fork() child: %s returned %d (%s)", \
				 #call, ret, HelloFPGA_StrError(ret));	\
			return 1;					\
		}							\
	} while (0)

	CHILD_EXPECT(HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), NULL),
		     ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_UserIRQ_Wait(h, 0, 0, &n), ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_UserIRQ_GetFd(h, 0, &fd), ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_GPUDirect_Complete(subc.h, 1, 0, NULL),
		     ret == -ECHILD);
	if (t->spin)
		CHILD_EXPECT(HelloFPGA_GPUDirect_Submit(subc.h, 0, t->spin, 0,
							0, 4096,
							HELLOFPGA_DIR_H2C,
							NULL, 0, 0, &sub),
			     ret == -ECHILD);
	if (t->g[0].gpu) {
		CHILD_EXPECT(HelloFPGA_GPUDirect_Pin(h, t->g[0].gpu, 4096,
						     &pin), ret == -ECHILD);
		/* the child's copy of the GPU memory */
		CHILD_EXPECT(HelloFPGA_GPU_Memcpy(b, t->g[0].gpu, sizeof(b),
						  HELLOFPGA_MEMCPY_GPU_TO_HOST),
			     !ret && !memcmp(b, t->g[0].copy, sizeof(b)));
	}
	if (FZ_CHILD_MALLOC) {
		CHILD_EXPECT(HelloFPGA_GPU_Alloc(&p, 65536), !ret);
		CHILD_EXPECT(HelloFPGA_GPU_Free(p), !ret);
	}
	for (int i = 0; i < FZ_GS; i++) {
		gs = __atomic_load_n(&gsp.s[i], __ATOMIC_RELAXED);
		if (!gs)
			gs = __atomic_load_n(&gsp.dead[i], __ATOMIC_RELAXED);
		if (!gs)
			continue;
		CHILD_EXPECT(HelloFPGA_GPU_StreamSynchronize(gs, 0),
			     ret == -ECHILD || ret == -EINVAL);
		CHILD_EXPECT(HelloFPGA_GPU_LaunchHostFunc(gs, fz_noop, NULL),
			     ret == -ECHILD || ret == -EINVAL);
	}
	for (int i = 0; i < FZ_ST_CH; i++) {
		v = __atomic_load_n(&slots[i].s, __ATOMIC_RELAXED);
		if (!v)
			continue;
		gs = __atomic_load_n(&gsp.s[0], __ATOMIC_RELAXED);
		CHILD_EXPECT(HelloFPGA_Stream_Wait(v, 0, &f),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_GetStats(v, &st),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_Release(v, 0),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_WaitOnGPU(v, gs, 0, 0, NULL),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_ReleaseOnGPU(v, gs, 0, 0),
			     ret == -ECHILD || ret == -EBADF);
		/* (a stream of a card closed before the fork() is freed) */
		if (FZ_CHILD_MALLOC)
			CHILD_EXPECT(HelloFPGA_Stream_Close(v),
				     ret == -ECHILD || ret == -EBADF || !ret);
	}
	/* Close of an inherited card only forgets it; then its streams' */
	sh = __atomic_load_n(&stc.h, __ATOMIC_RELAXED);
	CHILD_EXPECT(HelloFPGA_Close(h), !ret);
	CHILD_EXPECT(HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), NULL),
		     ret == -EBADF);
	if (sh && FZ_CHILD_MALLOC) {
		CHILD_EXPECT(HelloFPGA_Close(sh), !ret || ret == -EBADF);
		for (int i = 0; i < FZ_ST_CH; i++) {
			v = __atomic_load_n(&slots[i].s, __ATOMIC_RELAXED);
			if (!v)
				continue;
			CHILD_EXPECT(HelloFPGA_Stream_Close(v),
				     !ret || ret == -EBADF || ret == -ECHILD);
			CHILD_EXPECT(HelloFPGA_Stream_Wait(v, 0, &f),
				     ret == -EBADF || ret == -ECHILD);
		}
	}
#undef CHILD_EXPECT
	msg[0] = '\0';
	return 0;
}

/*
 * A fork storm: a thread about to fork() says so, and the other threads,
 * at their next call, make calls that take the library's process-wide
 * locks (the stream table's, the emulated GPU's allocations' and streams')
 * until the child has ended, so that the fork() comes while one is held.
 */
struct fz_fork_storm fstorm;

void fork_hammer(struct fz_thread *t)
{
	HELLOFPGA_STREAM_STATS st;
	uint8_t b[64];
	void *gs;
	int ret;

	if (__atomic_load_n(&fstorm.owner, __ATOMIC_ACQUIRE) == t->id + 1)
		return;
	fz_log(t, "calls that take the library's locks while another thread forks");
	__atomic_add_fetch(&fstorm.hammering, 1, __ATOMIC_ACQ_REL);
	while (!t->failed && !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&fstorm.owner, __ATOMIC_ACQUIRE)) {
		switch (below(t, 3)) {
		case 0:
			ret = HelloFPGA_Stream_GetStats(
				__atomic_load_n(&slots[below(t, FZ_ST_CH)].s,
						__ATOMIC_RELAXED), &st);
			doc_ok(t, "HelloFPGA_Stream_GetStats", ret);
			break;
		case 1:
			gs = __atomic_load_n(&gsp.s[below(t, FZ_GS)],
					     __ATOMIC_RELAXED);
			if (gs)
				doc_ok(t, "HelloFPGA_GPU_StreamSynchronize",
				       HelloFPGA_GPU_StreamSynchronize(gs, 0));
			break;
		default:
			if (t->g[0].gpu)
				must_succeed(t, "HelloFPGA_GPU_Memcpy",
					     HelloFPGA_GPU_Memcpy(b, t->g[0].gpu,
								  sizeof(b),
								  HELLOFPGA_MEMCPY_GPU_TO_HOST),
					     NULL);
			break;
		}
	}
	__atomic_sub_fetch(&fstorm.hammering, 1, __ATOMIC_ACQ_REL);
}

void op_fork(struct fz_thread *t)
{
	char *msg;
	int status = 0, zero = 0;
	bool in_storm = false;
	pid_t pid;

	msg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (msg == MAP_FAILED)
		return;
	msg[0] = '\0';
	if (nthreads > 1 && chance(t, 70))
		in_storm = __atomic_compare_exchange_n(&fstorm.owner, &zero,
						       t->id + 1, false,
						       __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE);
	/* until a thread hammers (bounded: they may be busy) */
	for (int i = 0; in_storm && i < 1000 &&
	     !__atomic_load_n(&fstorm.hammering, __ATOMIC_ACQUIRE); i++)
		usleep(10);
	fz_log(t, "fork(), the child calls on what the parent opened%s",
	       in_storm ? ", the other threads inside calls" : "");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		if (in_storm)
			__atomic_store_n(&fstorm.owner, 0, __ATOMIC_RELEASE);
		munmap(msg, 4096);
		return;
	}
	if (pid == 0) {
		alarm(10);
		_exit(fork_child(t, msg, 4096));
	}
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	if (in_storm)
		__atomic_store_n(&fstorm.owner, 0, __ATOMIC_RELEASE);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status))
		fz_fail(t, "fork: the child %s (status 0x%x)%s%s",
			WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
			"hung (10 s)" : "failed", status, msg[0] ? ": " : "",
			msg);
	munmap(msg, 4096);
}
