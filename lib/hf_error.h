/* SPDX-License-Identifier: MIT */
/*
 * hf_error.h - errors of libhellofpga (error.c): the last-error texts, per
 * handle or per thread, and what each public call may return.
 */
#ifndef HF_ERROR_H
#define HF_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#include "hellofpga.h"

#define HF_ERRLEN		512

struct hellofpga_dev;

int hf_set_error(struct hellofpga_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hf_set_errorv(struct hellofpga_dev *dev, int err, const char *fmt,
		  va_list ap);
void hf_clear_error(struct hellofpga_dev *dev);
void hf_error_to_thread(bool on);
const char *hf_last_error(struct hellofpga_dev *dev);

/*
 * error.c: the public functions that pass on errors of system calls, the
 * driver or CUDA return only the errors include/hellofpga.h documents for
 * them; hf_api_ret() reports any other as -EIO.
 */
enum hf_api {
	HF_API_OPEN,
	HF_API_DMA_MM_READ_C2H,
	HF_API_DMA_MM_WRITE_H2C,
	HF_API_USER_READ32,
	HF_API_USER_WRITE32,
	HF_API_USER_IRQ_WAIT,
	HF_API_USER_IRQ_GET_FD,
	HF_API_GPUDIRECT_PIN,
	HF_API_GPUDIRECT_READ_C2H,
	HF_API_GPUDIRECT_WRITE_H2C,
	HF_API_GPUDIRECT_XFER,
	HF_API_SET_GPU_BUFFER,
	HF_API_GPU_ALLOC,
	HF_API_GPU_FREE,
	HF_API_GPU_MEMCPY,
	HF_API_STREAM_OPEN,
	HF_API_STREAM_WAIT,
	HF_API_STREAM_RELEASE,
	HF_API_STREAM_GET_STATS,
	HF_API_STREAM_CLOSE,
	HF_API_STREAM_WAIT_ON_GPU,
	HF_API_STREAM_RELEASE_ON_GPU,
	HF_API_GPU_STREAM_CREATE,
	HF_API_GPU_STREAM_DESTROY,
	HF_API_GPU_STREAM_SYNCHRONIZE,
	HF_API_GPU_LAUNCH_HOST_FUNC,
	HF_API_GPUDIRECT_SUBMIT,
	HF_API_GPUDIRECT_COMPLETE,
	HF_API_COUNT
};

#define HF_API_MAX_ERRS	24

/**
 * struct hf_api_errs - the errors a public function documents.
 * @fn: its name
 * @errs: the errnos (positive), 0-terminated; EIO among them
 */
struct hf_api_errs {
	const char *fn;
	int errs[HF_API_MAX_ERRS];
};

extern const struct hf_api_errs hf_api_errs[HF_API_COUNT];
int hf_api_ret(enum hf_api fn, int ret);

#endif /* HF_ERROR_H */
