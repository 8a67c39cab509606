/*
 * nnst_clock.c - raw trace timestamps -> CLOCK_MONOTONIC nanoseconds
 * (struct nnst_clockmap, nnst.h).
 *
 * Calibration points (tsc, mono_ns) are kept sorted by tsc. A timestamp is
 * mapped by linear interpolation between the two points around it, and by
 * extrapolating the first (last) segment before the first (after the last)
 * point. With a single point, one tick counts as one nanosecond; with none,
 * or when the trace's timestamps are not TSC ticks, the raw value already
 * is CLOCK_MONOTONIC ns and is returned as is.
 *
 * A point that would make the map run backwards (a later tsc with an
 * earlier mono time than a neighbour) is refused with NNS_EINVAL: a bogus
 * point must not fold the timeline. Equal tsc values replace the older
 * point. At most NNST_CLOCK_MAX points are kept (further ones are ignored).
 *
 * Linked into libnnscope.so too:
 * no analyzer dependencies.
 */
#include "format/nnst.h"
#include "nnscope.h"
#include "common/vec.h"

#include <stdlib.h>
#include <string.h>

#define NNST_CLOCK_MAX (1u << 20)

/* Index of the first point with tsc >= ts (n if none). */
static size_t lower_bound(const struct nnst_clockmap *c, uint64_t ts)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->pts[mid].tsc < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int nnst_clockmap_add(struct nnst_clockmap *c, const struct nnst_clock *pt)
{
	size_t i;

	if (c->n && c->pts[c->n - 1].tsc < pt->tsc) {
		i = c->n; /* the usual case: points arrive in order */
	} else {
		i = lower_bound(c, pt->tsc);
		if (i < c->n && c->pts[i].tsc == pt->tsc) {
			if ((i > 0 && c->pts[i - 1].mono_ns > pt->mono_ns) ||
			    (i + 1 < c->n && c->pts[i + 1].mono_ns < pt->mono_ns))
				return NNS_EINVAL;
			c->pts[i] = *pt;
			return NNS_OK;
		}
	}
	if ((i > 0 && c->pts[i - 1].mono_ns > pt->mono_ns) ||
	    (i < c->n && c->pts[i].mono_ns < pt->mono_ns))
		return NNS_EINVAL;
	if (c->n >= NNST_CLOCK_MAX)
		return NNS_OK;
	if (vec_reserve_raw((void **)&c->pts, &c->cap, c->n + 1, sizeof(*c->pts)))
		return NNS_ENOMEM;
	memmove(c->pts + i + 1, c->pts + i, (c->n - i) * sizeof(*c->pts));
	c->pts[i] = *pt;
	c->n++;
	return NNS_OK;
}

/* a.mono + (ts - a.tsc) * rate, in long double (64-bit mantissa: exact to
 * the nanosecond over hours), clamped to the int64 range. */
static int64_t project(const struct nnst_clock *a, uint64_t ts, long double rate)
{
	long double dt = ts >= a->tsc ? (long double)(ts - a->tsc) : -(long double)(a->tsc - ts);
	long double v = (long double)a->mono_ns + dt * rate;

	if (!(v < 9.2e18L))
		return INT64_MAX;
	if (!(v > -9.2e18L))
		return INT64_MIN;
	return (int64_t)(v < 0 ? v - 0.5L : v + 0.5L);
}

int64_t nnst_clockmap_ns(const struct nnst_clockmap *c, uint64_t ts)
{
	const struct nnst_clock *a, *b;
	size_t i;

	if (!c->tsc || c->n == 0)
		return ts > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ts;
	if (c->n == 1)
		return project(&c->pts[0], ts, 1.0L);
	i = lower_bound(c, ts); /* pts[i-1].tsc < ts <= pts[i].tsc */
	if (i == 0)
		i = 1;
	else if (i >= c->n)
		i = c->n - 1;
	a = &c->pts[i - 1];
	b = &c->pts[i];
	return project(a, ts,
		       ((long double)b->mono_ns - (long double)a->mono_ns) /
			   (long double)(b->tsc - a->tsc));
}

void nnst_clockmap_release(struct nnst_clockmap *c)
{
	free(c->pts);
	c->pts = NULL;
	c->n = c->cap = 0;
}
