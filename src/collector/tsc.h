/*
 * tsc.h - the collector's timestamp: the raw time-stamp counter on x86-64
 * (rdtsc, ~10 ns on the development VM, converted to nanoseconds offline
 * with the CLOCK chunks), CLOCK_MONOTONIC nanoseconds elsewhere. The .nnst
 * header flag NNST_F_TSC says which one a file holds.
 */
#ifndef NNS_COLLECTOR_TSC_H
#define NNS_COLLECTOR_TSC_H

#include "common/clock.h"
#include "format/nnst.h"

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) && !defined(NNS_NO_TSC)
#include <x86intrin.h>
#define NNS_CLOCK_FLAGS NNST_F_TSC
static inline uint64_t nns_now(void)
{
	return __rdtsc();
}
#else
#define NNS_CLOCK_FLAGS 0
static inline uint64_t nns_now(void)
{
	return (uint64_t)clock_mono_ns();
}
#endif

/* One calibration point: the counter and both clocks read as close together
 * as possible (the tightest of a few tries; tsc is the midpoint). */
static inline void nns_clock_point(struct nnst_clock *c)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = nns_now();
		int64_t mono = clock_ns(CLOCK_MONOTONIC);
		int64_t real = clock_ns(CLOCK_REALTIME);
		uint64_t t1 = nns_now();

		if (t1 - t0 < best) {
			best = t1 - t0;
			c->tsc = t0 + (t1 - t0) / 2;
			c->mono_ns = mono;
			c->realtime_ns = real;
		}
	}
}

#endif
