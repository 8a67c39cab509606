/*
 * clock.h - the wall and monotonic clocks in nanoseconds.
 *
 * clock_mono_ns() never goes back (CLOCK_MONOTONIC): use it for durations
 * and timeouts. clock_real_ns() is the time of day (CLOCK_REALTIME): use it
 * for timestamps people read. clock_deadline() gives the absolute instant
 * pthread_cond_timedwait() wants, on the clock its condition variable uses.
 * The collector's fast TSC clock is in src/collector/tsc.h; these are the
 * portable ones.
 */
#ifndef NNS_COMMON_CLOCK_H
#define NNS_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t clock_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline int64_t clock_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* The instant ms milliseconds from now on clock id, as a timespec. */
static inline struct timespec clock_deadline(clockid_t id, long ms)
{
	struct timespec t;

	clock_gettime(id, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

#endif
