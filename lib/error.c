// SPDX-License-Identifier: MIT
/*
 * error.c - error codes and texts: HelloFPGA_StrError() names a negative
 * errno; the detailed text of the last failure is kept per handle (and per
 * thread for calls that have no handle) for HelloFPGA_GetLastError().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hf_dev.h"
#include "hf_error.h"

/*
 * The name and meaning of every errno of Linux (1 .. EHWPOISON), indexed by
 * the code; those the library returns say what they mean here.  Aliases
 * (EWOULDBLOCK, EDEADLOCK, ENOTSUP) share their code's entry.
 */
static const char *const errnames[] = {
	[EPERM] = "EPERM: operation not permitted",
	[ENOENT] = "ENOENT: no such file, directory or pinned handle",
	[ESRCH] = "ESRCH: no such process",
	[EINTR] = "EINTR: interrupted",
	[EIO] = "EIO: I/O error (the DMA engine reported an error, or a system call failed)",
	[ENXIO] = "ENXIO: no such device or address (GPU memory freed while pinned)",
	[E2BIG] = "E2BIG: argument list too long",
	[ENOEXEC] = "ENOEXEC: not an executable format",
	[EBADF] = "EBADF: invalid or closed handle",
	[ECHILD] = "ECHILD: no child processes",
	[EAGAIN] = "EAGAIN: resource temporarily unavailable, try again",
	[ENOMEM] = "ENOMEM: out of memory",
	[EACCES] = "EACCES: permission denied",
	[EFAULT] = "EFAULT: bad buffer address",
	[ENOTBLK] = "ENOTBLK: not a block device",
	[EBUSY] = "EBUSY: device or resource busy",
	[EEXIST] = "EEXIST: already exists",
	[EXDEV] = "EXDEV: link across file systems",
	[ENODEV] = "ENODEV: no such card",
	[ENOTDIR] = "ENOTDIR: not a directory",
	[EISDIR] = "EISDIR: is a directory",
	[EINVAL] = "EINVAL: invalid argument",
	[ENFILE] = "ENFILE: too many open files in the system",
	[EMFILE] = "EMFILE: too many open files in this process",
	[ENOTTY] = "ENOTTY: unknown request (inappropriate ioctl)",
	[ETXTBSY] = "ETXTBSY: text file busy",
	[EFBIG] = "EFBIG: file too large",
	[ENOSPC] = "ENOSPC: no space left",
	[ESPIPE] = "ESPIPE: illegal seek",
	[EROFS] = "EROFS: read-only file system",
	[EMLINK] = "EMLINK: too many links",
	[EPIPE] = "EPIPE: broken pipe",
	[EDOM] = "EDOM: argument outside the function's domain",
	[ERANGE] = "ERANGE: card address range outside card memory, or result out of range",
	[EDEADLK] = "EDEADLK: resource deadlock avoided",
	[ENAMETOOLONG] = "ENAMETOOLONG: file name too long",
	[ENOLCK] = "ENOLCK: no locks available",
	[ENOSYS] = "ENOSYS: function not implemented",
	[ENOTEMPTY] = "ENOTEMPTY: directory not empty",
	[ELOOP] = "ELOOP: too many levels of symbolic links",
	[ENOMSG] = "ENOMSG: no message of the desired type",
	[EIDRM] = "EIDRM: identifier removed",
	[ECHRNG] = "ECHRNG: channel number out of range",
	[EL2NSYNC] = "EL2NSYNC: level 2 not synchronized",
	[EL3HLT] = "EL3HLT: level 3 halted",
	[EL3RST] = "EL3RST: level 3 reset",
	[ELNRNG] = "ELNRNG: link number out of range",
	[EUNATCH] = "EUNATCH: protocol driver not attached",
	[ENOCSI] = "ENOCSI: no CSI structure available",
	[EL2HLT] = "EL2HLT: level 2 halted",
	[EBADE] = "EBADE: invalid exchange",
	[EBADR] = "EBADR: invalid request descriptor",
	[EXFULL] = "EXFULL: exchange full",
	[ENOANO] = "ENOANO: no anode",
	[EBADRQC] = "EBADRQC: invalid request code",
	[EBADSLT] = "EBADSLT: invalid slot",
	[EBFONT] = "EBFONT: bad font file format",
	[ENOSTR] = "ENOSTR: not a stream device",
	[ENODATA] = "ENODATA: no data available",
	[ETIME] = "ETIME: timer expired",
	[ENOSR] = "ENOSR: out of streams resources",
	[ENONET] = "ENONET: machine is not on the network",
	[ENOPKG] = "ENOPKG: package not installed",
	[EREMOTE] = "EREMOTE: object is remote",
	[ENOLINK] = "ENOLINK: link has been severed",
	[EADV] = "EADV: advertise error",
	[ESRMNT] = "ESRMNT: srmount error",
	[ECOMM] = "ECOMM: communication error on send",
	[EPROTO] = "EPROTO: protocol error (driver of another ABI)",
	[EMULTIHOP] = "EMULTIHOP: multihop attempted",
	[EDOTDOT] = "EDOTDOT: RFS specific error",
	[EBADMSG] = "EBADMSG: bad message",
	[EOVERFLOW] = "EOVERFLOW: address + length overflows",
	[ENOTUNIQ] = "ENOTUNIQ: name not unique on the network",
	[EBADFD] = "EBADFD: file descriptor in a bad state",
	[EREMCHG] = "EREMCHG: remote address changed",
	[ELIBACC] = "ELIBACC: cannot access a needed shared library",
	[ELIBBAD] = "ELIBBAD: corrupted shared library",
	[ELIBSCN] = "ELIBSCN: .lib section in a.out corrupted",
	[ELIBMAX] = "ELIBMAX: too many shared libraries",
	[ELIBEXEC] = "ELIBEXEC: cannot exec a shared library directly",
	[EILSEQ] = "EILSEQ: invalid or incomplete multibyte character",
	[ERESTART] = "ERESTART: interrupted system call should be restarted",
	[ESTRPIPE] = "ESTRPIPE: streams pipe error",
	[EUSERS] = "EUSERS: too many users",
	[ENOTSOCK] = "ENOTSOCK: not a socket",
	[EDESTADDRREQ] = "EDESTADDRREQ: destination address required",
	[EMSGSIZE] = "EMSGSIZE: message too long",
	[EPROTOTYPE] = "EPROTOTYPE: protocol wrong type for socket",
	[ENOPROTOOPT] = "ENOPROTOOPT: protocol not available",
	[EPROTONOSUPPORT] = "EPROTONOSUPPORT: protocol not supported",
	[ESOCKTNOSUPPORT] = "ESOCKTNOSUPPORT: socket type not supported",
	[EOPNOTSUPP] = "EOPNOTSUPP: not supported by this card or backend",
	[EPFNOSUPPORT] = "EPFNOSUPPORT: protocol family not supported",
	[EAFNOSUPPORT] = "EAFNOSUPPORT: address family not supported",
	[EADDRINUSE] = "EADDRINUSE: address already in use",
	[EADDRNOTAVAIL] = "EADDRNOTAVAIL: address not available",
	[ENETDOWN] = "ENETDOWN: network is down",
	[ENETUNREACH] = "ENETUNREACH: network is unreachable",
	[ENETRESET] = "ENETRESET: network dropped the connection on reset",
	[ECONNABORTED] = "ECONNABORTED: connection aborted",
	[ECONNRESET] = "ECONNRESET: connection reset by peer",
	[ENOBUFS] = "ENOBUFS: no buffer space available",
	[EISCONN] = "EISCONN: already connected",
	[ENOTCONN] = "ENOTCONN: not connected",
	[ESHUTDOWN] = "ESHUTDOWN: cannot send after shutdown",
	[ETOOMANYREFS] = "ETOOMANYREFS: too many references",
	[ETIMEDOUT] = "ETIMEDOUT: timed out (DMA engine or channel)",
	[ECONNREFUSED] = "ECONNREFUSED: connection refused",
	[EHOSTDOWN] = "EHOSTDOWN: host is down",
	[EHOSTUNREACH] = "EHOSTUNREACH: no route to host",
	[EALREADY] = "EALREADY: operation already in progress",
	[EINPROGRESS] = "EINPROGRESS: operation now in progress",
	[ESTALE] = "ESTALE: stale file handle",
	[EUCLEAN] = "EUCLEAN: structure needs cleaning",
	[ENOTNAM] = "ENOTNAM: not a XENIX named type file",
	[ENAVAIL] = "ENAVAIL: no XENIX semaphores available",
	[EISNAM] = "EISNAM: is a named type file",
	[EREMOTEIO] = "EREMOTEIO: remote I/O error",
	[EDQUOT] = "EDQUOT: disk quota exceeded",
	[ENOMEDIUM] = "ENOMEDIUM: no medium found",
	[EMEDIUMTYPE] = "EMEDIUMTYPE: wrong medium type",
	[ECANCELED] = "ECANCELED: transfer cancelled: its memory was revoked",
	[ENOKEY] = "ENOKEY: required key not available",
	[EKEYEXPIRED] = "EKEYEXPIRED: key has expired",
	[EKEYREVOKED] = "EKEYREVOKED: key has been revoked",
	[EKEYREJECTED] = "EKEYREJECTED: key was rejected",
	[EOWNERDEAD] = "EOWNERDEAD: owner died",
	[ENOTRECOVERABLE] = "ENOTRECOVERABLE: state not recoverable",
	[ERFKILL] = "ERFKILL: operation not possible due to RF-kill",
	[EHWPOISON] = "EHWPOISON: memory page has a hardware error",
};

/* Linux errnos are 1 .. 4095 (the kernel's MAX_ERRNO). */
#define HF_MAX_ERRNO	4095

const char *HelloFPGA_StrError(int err)
{
	if (err == 0)
		return "success";
	if (err > 0)
		return "not an error code (positive value)";
	/* -INT_MIN is undefined behaviour: compare before negating. */
	if (err < -HF_MAX_ERRNO)
		return "not an error code (below -4095, the lowest negative errno)";
	if ((size_t)-err < ARRAY_SIZE(errnames) && errnames[-err])
		return errnames[-err];
	return "unknown error code (no errno of Linux has this value)";
}

const struct hf_api_errs hf_api_errs[HF_API_COUNT] = {
	[HF_API_OPEN] = { "HelloFPGA_Open", {
		EFAULT, EINVAL, ENODEV, ENOENT, ENOTDIR, EACCES, EPERM, ENOSPC,
		EFBIG, ENAMETOOLONG, EMFILE, ENFILE, EAGAIN, ENOMEM, EPROTO,
		ENOEXEC, EIO } },
	[HF_API_DMA_MM_READ_C2H] = { "HelloFPGA_DMA_MM_ReadC2H", {
		EBADF, ECHILD, EFAULT, ECHRNG, ERANGE, EOVERFLOW, EBUSY, ETIMEDOUT,
		EIO, ENODEV, ENOMEM, EINVAL, ENXIO, ENOENT, EOPNOTSUPP } },
	[HF_API_DMA_MM_WRITE_H2C] = { "HelloFPGA_DMA_MM_WriteH2C", {
		EBADF, ECHILD, EFAULT, ECHRNG, ERANGE, EOVERFLOW, EBUSY, ETIMEDOUT,
		EIO, ENODEV, ENOMEM, EINVAL, ENXIO, ENOENT, EOPNOTSUPP,
		EMSGSIZE } },
	[HF_API_USER_READ32] = { "HelloFPGA_UserRead32", {
		EBADF, ECHILD, EINVAL, EFAULT, ENODEV, EIO } },
	[HF_API_USER_WRITE32] = { "HelloFPGA_UserWrite32", {
		EBADF, ECHILD, EINVAL, ENODEV, EIO } },
	[HF_API_USER_IRQ_WAIT] = { "HelloFPGA_UserIRQ_Wait", {
		EBADF, ECHILD, EFAULT, EINVAL, ETIMEDOUT, EINTR, EOPNOTSUPP,
		ENODEV, EMFILE, ENFILE, EACCES, EPERM, EIO } },
	[HF_API_USER_IRQ_GET_FD] = { "HelloFPGA_UserIRQ_GetFd", {
		EBADF, ECHILD, EFAULT, EINVAL, EOPNOTSUPP, ENODEV, EMFILE,
		ENFILE, EACCES, EPERM, EIO } },
	[HF_API_GPUDIRECT_PIN] = { "HelloFPGA_GPUDirect_Pin", {
		EBADF, ECHILD, EFAULT, EINVAL, EOPNOTSUPP, ENOMEM, ENOSPC, ENODEV,
		EIO } },
	[HF_API_GPUDIRECT_READ_C2H] = { "HelloFPGA_GPUDirect_ReadC2H", {
		EBADF, ECHILD, ECHRNG, ENOENT, ENXIO, EINVAL, ERANGE, EOVERFLOW,
		EBUSY, ETIMEDOUT, EIO, ENODEV, ENOMEM, EOPNOTSUPP } },
	[HF_API_GPUDIRECT_WRITE_H2C] = { "HelloFPGA_GPUDirect_WriteH2C", {
		EBADF, ECHILD, ECHRNG, ENOENT, ENXIO, EINVAL, ERANGE, EOVERFLOW,
		EBUSY, ETIMEDOUT, EIO, ENODEV, ENOMEM, EOPNOTSUPP, EMSGSIZE } },
	[HF_API_GPUDIRECT_XFER] = { "HelloFPGA_GPUDirect_Xfer", {
		EBADF, ECHILD, ECHRNG, ENOENT, ENXIO, EINVAL, ERANGE, EOVERFLOW,
		EBUSY, ETIMEDOUT, EIO, ENODEV, ENOMEM, EOPNOTSUPP, EMSGSIZE } },
	[HF_API_SET_GPU_BUFFER] = { "HelloFPGA_SetGPUBuffer", {
		EBADF, ECHILD, EINVAL, EOPNOTSUPP, ENOMEM, ENOSPC, ENODEV,
		EIO } },
	[HF_API_GPU_ALLOC] = { "HelloFPGA_GPU_Alloc", {
		EFAULT, EINVAL, ENODEV, ENOMEM, EOPNOTSUPP, EIO } },
	[HF_API_GPU_FREE] = { "HelloFPGA_GPU_Free", {
		EINVAL, ENODEV, EIO } },
	[HF_API_GPU_MEMCPY] = { "HelloFPGA_GPU_Memcpy", {
		EFAULT, EINVAL, ENODEV, ENOMEM, EOPNOTSUPP, EIO } },
	[HF_API_STREAM_OPEN] = { "HelloFPGA_Stream_Open", {
		EBADF, ECHILD, EFAULT, EINVAL, ECHRNG, EOPNOTSUPP, EBUSY, ENOENT,
		ENXIO, ERANGE, ENOMEM, EMFILE, ENODEV, EIO } },
	[HF_API_STREAM_WAIT] = { "HelloFPGA_Stream_Wait", {
		ETIMEDOUT, EBADF, ECHILD, EFAULT, EINVAL, EIO, ENODEV } },
	[HF_API_STREAM_RELEASE] = { "HelloFPGA_Stream_Release", {
		EBADF, ECHILD, EINVAL, EIO } },
	[HF_API_STREAM_GET_STATS] = { "HelloFPGA_Stream_GetStats", {
		EBADF, ECHILD, EFAULT, EIO } },
	[HF_API_STREAM_CLOSE] = { "HelloFPGA_Stream_Close", {
		EBADF, ECHILD, EIO } },
	[HF_API_STREAM_WAIT_ON_GPU] = { "HelloFPGA_Stream_WaitOnGPU", {
		EBADF, ECHILD, EINVAL, ERANGE, EAGAIN, EOPNOTSUPP, ENODEV,
		ENOMEM, EIO } },
	[HF_API_STREAM_RELEASE_ON_GPU] = { "HelloFPGA_Stream_ReleaseOnGPU", {
		EBADF, ECHILD, EINVAL, EOPNOTSUPP, ENODEV, ENOMEM, EIO } },
	[HF_API_GPUDIRECT_SUBMIT] = { "HelloFPGA_GPUDirect_Submit", {
		EBADF, ECHILD, ECHRNG, ENOENT, ENXIO, EINVAL, ERANGE, EOVERFLOW,
		EBUSY, EOPNOTSUPP, ENODEV, ENOMEM, EAGAIN, EIO } },
	[HF_API_GPUDIRECT_COMPLETE] = { "HelloFPGA_GPUDirect_Complete", {
		ENOENT, ENXIO, EBUSY, ETIMEDOUT, EIO, ENODEV, ECANCELED,
		EOPNOTSUPP, EBADF, ECHILD, EINVAL, ERANGE, EAGAIN } },
	[HF_API_GPU_STREAM_CREATE] = { "HelloFPGA_GPU_StreamCreate", {
		EFAULT, ENODEV, ENOMEM, EAGAIN, EOPNOTSUPP, EIO } },
	[HF_API_GPU_STREAM_DESTROY] = { "HelloFPGA_GPU_StreamDestroy", {
		EINVAL, ECHILD, ENODEV, EOPNOTSUPP, EIO } },
	[HF_API_GPU_STREAM_SYNCHRONIZE] = { "HelloFPGA_GPU_StreamSynchronize", {
		EINVAL, ECHILD, ETIMEDOUT, ENODEV, EOPNOTSUPP, EIO } },
	[HF_API_GPU_LAUNCH_HOST_FUNC] = { "HelloFPGA_GPU_LaunchHostFunc", {
		EFAULT, EINVAL, ECHILD, ENODEV, ENOMEM, EOPNOTSUPP, EIO } },
};

/**
 * hf_api_ret() - what public function @fn returns for @ret.
 * @fn: the function
 * @ret: the result of its work: 0, positive, or negative errno
 *
 * The errors of system calls, of the driver and of CUDA reach the public
 * functions in many places; this one boundary keeps each function to the
 * errors its documentation lists.  An error outside the list is reported
 * as -EIO; the last-error text, set where the error arose, still names it.
 *
 * Return: @ret when it is 0, positive or documented for @fn, else -EIO.
 */
int hf_api_ret(enum hf_api fn, int ret)
{
	const int *e = hf_api_errs[fn].errs;

	if (ret >= 0)
		return ret;
	for (int i = 0; i < HF_API_MAX_ERRS && e[i]; i++)
		if (-e[i] == ret)
			return ret;
	hf_os_log("%s: %s is not one of its documented errors: reported as EIO",
		  hf_api_errs[fn].fn, HelloFPGA_StrError(ret));
	return -EIO;
}

static _Thread_local char tls_error[HF_ERRLEN];
static _Thread_local char tls_copy[HF_ERRLEN];
static _Thread_local bool tls_own;

/**
 * hf_error_to_thread() - keep the texts of this thread's failures in its
 * own text (HelloFPGA_GetLastError(NULL)), whatever the handle: for the
 * library's own threads, whose failures are no caller's last error.
 * @on: from now on (true) or no longer
 */
void hf_error_to_thread(bool on)
{
	tls_own = on;
}

/**
 * hf_set_errorv() - record the text of a failure and return @err.
 * @dev: handle, or NULL for a failure without one (the thread's text)
 * @err: negative errno
 */
int hf_set_errorv(struct hellofpga_dev *dev, int err, const char *fmt,
		  va_list ap)
{
	char text[HF_ERRLEN];

	vsnprintf(text, sizeof(text), fmt, ap);
	hf_os_log("%s: %s", dev ? dev->info.name : "hellofpga", text);
	if (!dev || tls_own) {
		memcpy(tls_error, text, sizeof(text));
		return err;
	}
	pthread_mutex_lock(&dev->err_lock);
	memcpy(dev->last_error, text, sizeof(text));
	pthread_mutex_unlock(&dev->err_lock);
	return err;
}

int hf_set_error(struct hellofpga_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hf_set_errorv(dev, err, fmt, ap);
	va_end(ap);
	return err;
}

void hf_clear_error(struct hellofpga_dev *dev)
{
	if (!dev) {
		tls_error[0] = '\0';
		return;
	}
	pthread_mutex_lock(&dev->err_lock);
	dev->last_error[0] = '\0';
	pthread_mutex_unlock(&dev->err_lock);
}

/**
 * hf_last_error() - a copy of @dev's last-error text, good until this
 * thread's next call of it or of HelloFPGA_GetLastError(); with @dev NULL,
 * this thread's own text (that of failures without a handle).
 */
const char *hf_last_error(struct hellofpga_dev *dev)
{
	if (!dev)
		return tls_error;
	pthread_mutex_lock(&dev->err_lock);
	memcpy(tls_copy, dev->last_error, sizeof(tls_copy));
	pthread_mutex_unlock(&dev->err_lock);
	return tls_copy;
}
