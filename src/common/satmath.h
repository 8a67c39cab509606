/*
 * satmath.h - saturating int64 arithmetic for sums of values taken from
 * input files (byte counts, sizes): a hostile trace must not overflow a
 * signed integer (undefined behaviour); the sum sticks at INT64_MAX or
 * INT64_MIN instead.
 */
#ifndef NNS_COMMON_SATMATH_H
#define NNS_COMMON_SATMATH_H

#include <stdint.h>

static inline int64_t sat_add64(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t sat_mul64(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

#endif
