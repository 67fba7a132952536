// SPDX-License-Identifier: MIT
/*
 * test_errors.c - error codes and their texts: HelloFPGA_StrError() for
 * every int, and the error lists include/hellofpga.h documents.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api_doc.h"
#include "harness.h"
#include "hf_lib.h"
#include "lib_helpers.h"

/* -INT_MIN does not exist: StrError must not negate its argument. */
HF_TEST(strerror_of_int_min_is_defined)
{
	const char *s = HelloFPGA_StrError(INT_MIN);

	HF_CHECK(s && s[0]);
	HF_CHECK(strcmp(s, HelloFPGA_StrError(0)));
}

/*
 * Every errno of Linux up to EHWPOISON (133) is named, with glibc's name
 * for it; the two numbers below 133 that no errno has (41, 58 on the
 * asm-generic table) say so.
 */
HF_TEST(strerror_names_every_errno_1_to_133)
{
	for (int e = 1; e <= 133; e++) {
		const char *name = strerrorname_np(e);
		const char *s = HelloFPGA_StrError(-e);
		size_t n;

		HF_CHECK_MSG(s && s[0], "errno %d: no text", e);
		if (!name) {
			HF_CHECK_MSG(strstr(s, "no errno of Linux"),
				     "%d is no errno, but StrError says '%s'",
				     e, s);
			continue;
		}
		n = strlen(name);
		HF_CHECK_MSG(!strncmp(s, name, n) && s[n] == ':' &&
			     s[n + 1] == ' ' && s[n + 2],
			     "errno %d (%s): StrError says '%s'", e, name, s);
	}
}

/* The edges of int each get a text of their own, never a guess. */
HF_TEST(strerror_of_int_limits_zero_and_positive_is_specific)
{
	HF_CHECK(!strcmp(HelloFPGA_StrError(0), "success"));
	HF_CHECK(strstr(HelloFPGA_StrError(1), "positive"));
	HF_CHECK(strstr(HelloFPGA_StrError(INT_MAX), "positive"));
	HF_CHECK(strstr(HelloFPGA_StrError(INT_MIN), "not an error code"));
	HF_CHECK(strstr(HelloFPGA_StrError(-4096), "not an error code"));
	HF_CHECK(strstr(HelloFPGA_StrError(-4095), "no errno of Linux"));
	HF_CHECK(strstr(HelloFPGA_StrError(-134), "no errno of Linux"));
}

/*
 * Open the emulated card with its files in @dir: the error, which must be
 * one HelloFPGA_Open() documents, have a name, and a text naming @dir.
 */
static int open_in_dir(const char *dir)
{
	char saved[256] = "";
	const char *env;
	HELLOFPGA_HANDLE h = NULL;
	int ret;

	t_emu_dir();
	env = getenv("HELLOFPGA_EMU_DIR");
	snprintf(saved, sizeof(saved), "%s", env ? env : "");
	setenv("HELLOFPGA_EMU_DIR", dir, 1);
	ret = HelloFPGA_Open("emu:0", &h);
	setenv("HELLOFPGA_EMU_DIR", saved, 1);
	if (!ret)
		HelloFPGA_Close(h);
	HF_CHECK_MSG(ret < 0, "HelloFPGA_Open with HELLOFPGA_EMU_DIR=%s succeeded",
		     dir);
	HF_CHECK_MSG(t_doc_allows("HelloFPGA_Open", ret),
		     "HelloFPGA_Open returned %d (%s), which include/hellofpga.h does not list",
		     ret, HelloFPGA_StrError(ret));
	HF_CHECK_MSG(!strstr(HelloFPGA_StrError(ret), "unknown"), "%d: %s",
		     ret, HelloFPGA_StrError(ret));
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), dir),
		     "the text does not name %s: %s", dir,
		     HelloFPGA_GetLastError(NULL));
	return ret;
}

/* (a missing state directory itself is made, 0700: test_emu_state.c) */
HF_TEST(open_emu_dir_parent_missing_is_documented_enoent)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/no-such-dir/cards", t_emu_dir());
	HF_CHECK_ERR(open_in_dir(dir), -ENOENT);
}

HF_TEST(open_emu_dir_under_a_file_is_documented_enotdir)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/a-file", t_emu_dir());
	f = fopen(path, "w");
	HF_CHECK(f);
	fclose(f);
	strcat(path, "/cards");
	HF_CHECK_ERR(open_in_dir(path), -ENOTDIR);
}

HF_TEST(open_emu_dir_symlink_loop_is_eio)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/loop", t_emu_dir());
	HF_CHECK(!symlink(path, path));
	strcat(path, "/cards");
	/* ELOOP: no documented case of its own, the catch-all EIO */
	HF_CHECK_ERR(open_in_dir(path), -EIO);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "symbolic links"));
}

/*
 * A directory the caller may not write: as root (who may write anywhere)
 * the open runs in a child that gave up root for nobody.
 */
HF_TEST(open_emu_dir_not_writable_is_documented_eacces)
{
	char dir[128];
	pid_t pid;
	int status;

	snprintf(dir, sizeof(dir), "%s/ro", t_emu_dir());
	HF_CHECK(!mkdir(dir, 0555));
	HF_CHECK(!chmod(t_emu_dir(), 0755));
	strcat(dir, "/cards");	/* the state directory cannot be made there */
	if (geteuid() != 0) {
		HF_CHECK_ERR(open_in_dir(dir), -EACCES);
		return;
	}
	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		HELLOFPGA_HANDLE h;
		int ret;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		setenv("HELLOFPGA_EMU_DIR", dir, 1);
		ret = HelloFPGA_Open("emu:0", &h);
		if (ret != -EACCES)
			_exit(11);
		if (!t_doc_allows("HelloFPGA_Open", ret))
			_exit(12);
		if (!strstr(HelloFPGA_GetLastError(NULL), dir))
			_exit(13);
		_exit(0);
	}
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     "child (uid 65534): status 0x%x (10 setuid failed, 11 not -EACCES, 12 not documented, 13 text)",
		     status);
}

/* A card in TransferMode GPU_PINNED with a registered buffer of @size. */
static HELLOFPGA_HANDLE transfer_mode_card(void **gpu, size_t size)
{
	HELLOFPGA_GPU_STATUS st;
	HELLOFPGA_HANDLE h;

	setenv("HELLOFPGA_GPU", "emu", 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	HF_CHECK_MSG(st.supported, "no emulated GPU: %s", st.reason);
	h = t_open("emu,private,ddr=16M");
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_SetGPUBuffer(h, *gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(h,
					       HELLOFPGA_XFER_MODE_GPU_PINNED),
		     0);
	return h;
}

HF_TEST(transfer_mode_straddling_buffer_is_documented_einval)
{
	void *gpu;
	HELLOFPGA_HANDLE h = transfer_mode_card(&gpu, 65536);
	int ret;

	/* the last 4 KiB of the registered buffer and 4 KiB past it */
	ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, (char *)gpu + 61440, 0, 8192,
				       NULL);
	HF_CHECK_ERR(ret, -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "straddles"));
	HF_CHECK_MSG(t_doc_allows("HelloFPGA_DMA_MM_ReadC2H", ret),
		     "include/hellofpga.h does not list -EINVAL for HelloFPGA_DMA_MM_ReadC2H");
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, (char *)gpu + 61440, 0, 8192,
					NULL);
	HF_CHECK_ERR(ret, -EINVAL);
	HF_CHECK(t_doc_allows("HelloFPGA_DMA_MM_WriteH2C", ret));
	HelloFPGA_Close(h);
	HelloFPGA_GPU_Free(gpu);
}

HF_TEST(transfer_mode_freed_buffer_is_documented_enxio)
{
	void *gpu;
	HELLOFPGA_HANDLE h = transfer_mode_card(&gpu, 65536);
	int ret;

	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, gpu, 0, 4096, NULL);
	HF_CHECK_ERR(ret, -ENXIO);
	HF_CHECK_MSG(t_doc_allows("HelloFPGA_DMA_MM_ReadC2H", ret),
		     "include/hellofpga.h does not list -ENXIO for HelloFPGA_DMA_MM_ReadC2H");
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, gpu, 0, 4096, NULL);
	HF_CHECK_ERR(ret, -ENXIO);
	HF_CHECK(t_doc_allows("HelloFPGA_DMA_MM_WriteH2C", ret));
	HelloFPGA_Close(h);
}

/*
 * The buffer of SetGPUBuffer has no handle the caller could unpin: the
 * text after it was freed says to register another or unregister it, and
 * that works.
 */
HF_TEST(set_gpu_buffer_freed_text_says_set_gpu_buffer_not_unpin)
{
	void *gpu;
	HELLOFPGA_HANDLE h = transfer_mode_card(&gpu, 65536);
	const char *text;

	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, gpu, 0, 4096, NULL),
		     -ENXIO);
	text = HelloFPGA_GetLastError(h);
	HF_CHECK_MSG(strstr(text, "HelloFPGA_SetGPUBuffer(hDev, NULL, 0)") &&
		     !strstr(text, "unpin") && !strstr(text, "handle 0x"),
		     "text: %s", text);
	HF_CHECK_ERR(HelloFPGA_SetGPUBuffer(h, NULL, 0), 0);
	HelloFPGA_Close(h);
}

/* Every int function of the header has a "Return:" that lists its errors. */
HF_TEST(header_lists_errors_of_every_public_function)
{
	int errs[T_DOC_MAX_ERRS], n = 0;
	const char *fn;

	for (int i = 0; (fn = t_doc_function(i)); i++, n++)
		HF_CHECK_MSG(t_doc_errors(fn, errs) > 0,
			     "%s: include/hellofpga.h lists no errors", fn);
	HF_CHECK_MSG(n >= 22, "only %d int functions found in the header", n);
}

/*
 * The library's own lists (hf_api_errs, what hf_api_ret() lets through)
 * are the header's, error for error.
 */
HF_TEST(library_error_lists_match_the_header)
{
	for (int i = 0; i < HF_API_COUNT; i++) {
		const struct hf_api_errs *a = &hf_api_errs[i];
		int errs[T_DOC_MAX_ERRS], n, m = 0;

		HF_CHECK_MSG(a->fn, "hf_api_errs[%d] is empty", i);
		n = t_doc_errors(a->fn, errs);
		HF_CHECK_MSG(n > 0, "%s: not documented", a->fn);
		for (int k = 0; k < HF_API_MAX_ERRS && a->errs[k]; k++, m++)
			HF_CHECK_MSG(t_doc_allows(a->fn, -a->errs[k]),
				     "%s: the library lets %s through, the header does not list it",
				     a->fn, HelloFPGA_StrError(-a->errs[k]));
		HF_CHECK_MSG(m == n,
			     "%s: the header lists %d errors, the library %d",
			     a->fn, n, m);
	}
}
