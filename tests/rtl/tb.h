// SPDX-License-Identifier: MIT
/*
 * tb.h - what the Verilator testbenches of the RTL share (tests/rtl): the
 * harness (tests/harness.h: one HF_TEST per behaviour), the seed, a random
 * generator, bit access to Verilated ports of any width, a clock.
 *
 * Seed: HF_RTL_SEED from the environment, else one from the time; printed
 * by every case that uses it, so that a failure can be replayed:
 *	HF_RTL_SEED=0x1234 tests/rtl/tb_src_64 frames_match_pattern
 */
#ifndef HF_RTL_TB_H
#define HF_RTL_TB_H

#include <verilated.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <vector>

extern "C" {
#include "harness.h"
}
#include "rtl_pattern.h"

/* splitmix64 */
struct Rng {
	uint64_t s;

	explicit Rng(uint64_t seed) : s(seed) {}
	uint64_t next()
	{
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	/* 0 .. n - 1 */
	uint32_t below(uint32_t n) { return n ? (uint32_t)(next() % n) : 0; }
	/* lo .. hi */
	uint32_t range(uint32_t lo, uint32_t hi) { return lo + below(hi - lo + 1); }
	bool chance(unsigned pct) { return below(100) < pct; }
};

/* The case's generator, its seed printed. */
static inline Rng tb_rng(void)
{
	const char *e = getenv("HF_RTL_SEED");
	uint64_t seed;

	if (e && *e)
		seed = strtoull(e, nullptr, 0);
	else
		seed = (uint64_t)std::chrono::steady_clock::now()
			       .time_since_epoch().count();
	hf_test_log("seed 0x%llx (HF_RTL_SEED)", (unsigned long long)seed);
	return Rng(seed);
}

/*
 * Bits of a Verilated port: an integer type up to 64 bits, or VlWide<N>
 * (N 32-bit words, least significant first).
 */
template <typename T> static inline uint32_t tb_word(const T &v, int w)
{
	return (uint32_t)((uint64_t)v >> (32 * w));
}
template <std::size_t N>
static inline uint32_t tb_word(const VlWide<N> &v, int w)
{
	return v[w];
}
template <typename T> static inline bool tb_bit(const T &v, int i)
{
	return (tb_word(v, i / 32) >> (i % 32)) & 1;
}
template <typename T> static inline uint8_t tb_byte(const T &v, int i)
{
	return (uint8_t)(tb_word(v, i / 4) >> (8 * (i % 4)));
}
template <typename T> static inline uint64_t tb_u64(const T &v, int i)
{
	return (uint64_t)tb_word(v, 2 * i) |
	       (uint64_t)tb_word(v, 2 * i + 1) << 32;
}

template <typename T> static inline void tb_set_bit(T &v, int i, bool b)
{
	v = (T)(((uint64_t)v & ~(1ull << i)) | (uint64_t)b << i);
}
template <std::size_t N>
static inline void tb_set_bit(VlWide<N> &v, int i, bool b)
{
	v[i / 32] = (v[i / 32] & ~(1u << (i % 32))) | (uint32_t)b << (i % 32);
}
template <typename T> static inline void tb_set_byte(T &v, int i, uint8_t b)
{
	v = (T)(((uint64_t)v & ~(0xffull << (8 * i))) |
		(uint64_t)b << (8 * i));
}
template <std::size_t N>
static inline void tb_set_byte(VlWide<N> &v, int i, uint8_t b)
{
	int s = 8 * (i % 4);

	v[i / 4] = (v[i / 4] & ~(0xffu << s)) | (uint32_t)b << s;
}

/*
 * A Verilated model on one clock (clk) with an active-low reset (rst_n).
 * tick(): the inputs set before it are sampled by the rising edge; the
 * model's pre_edge() hook sees them and the outputs as they are just
 * before the edge (a handshake happens there).
 */
template <typename M> struct Clocked {
	VerilatedContext ctx;
	M *m;
	uint64_t cycles = 0;

	Clocked() : m(new M(&ctx)) { m->clk = 0; }
	virtual ~Clocked() { delete m; }
	virtual void pre_edge() {}
	void tick()
	{
		m->clk = 0;
		m->eval();
		pre_edge();
		m->clk = 1;
		m->eval();
		cycles++;
	}
	void reset(int n = 4)
	{
		m->rst_n = 0;
		for (int i = 0; i < n; i++)
			tick();
		m->rst_n = 1;
	}
};

/*
 * The register port of a stream block (hf_st_src, hf_st_sink: reg_rd,
 * reg_wr, reg_addr, reg_wdata; reg_rdata and reg_err a clock later) for a
 * testbench TB with a model m and a step() (its clock).
 */
template <typename TB> struct RegPort {
	/* read; reg_err into *@err, or it fails the case */
	uint32_t rd(uint32_t off, bool *err = nullptr)
	{
		TB &tb = static_cast<TB &>(*this);

		tb.m->reg_rd = 1;
		tb.m->reg_addr = off >> 2;
		tb.step();
		tb.m->reg_rd = 0;
		if (err)
			*err = tb.m->reg_err;
		else
			HF_CHECK_MSG(!tb.m->reg_err, "read of 0x%x: reg_err", off);
		return tb.m->reg_rdata;
	}
	/* write; returns reg_err */
	bool wr(uint32_t off, uint32_t val)
	{
		TB &tb = static_cast<TB &>(*this);

		tb.m->reg_wr = 1;
		tb.m->reg_addr = off >> 2;
		tb.m->reg_wdata = val;
		tb.step();
		tb.m->reg_wr = 0;
		return tb.m->reg_err;
	}
	/* a LO register, then its HI */
	uint64_t rd64(uint32_t lo)
	{
		uint64_t l = rd(lo);

		return l | (uint64_t)rd(lo + 4) << 32;
	}
};

/* Writes to the offsets @ro pulse reg_err; reads of @reserved too, and read 0. */
template <typename TB>
static void check_ro_reserved(TB &tb, std::initializer_list<uint32_t> ro,
			      std::initializer_list<uint32_t> reserved)
{
	bool err;

	for (uint32_t off : ro)
		HF_CHECK_MSG(tb.wr(off, 0), "write to 0x%x: no reg_err", off);
	for (uint32_t off : reserved) {
		HF_CHECK_EQ(tb.rd(off, &err), 0);
		HF_CHECK_MSG(err, "read of 0x%x: no reg_err", off);
	}
}

#endif /* HF_RTL_TB_H */
