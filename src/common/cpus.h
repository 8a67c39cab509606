/*
 * cpus.h - how many threads a parallel step uses: the number asked for
 * (the CLI's -j), or one per online CPU when that is <= 0, and never
 * fewer than 1 nor more than the step's own maximum.
 */
#ifndef NNS_COMMON_CPUS_H
#define NNS_COMMON_CPUS_H

#include <unistd.h>

static inline int cpus_threads(long asked, int max)
{
	long n = asked > 0 ? asked : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > max ? max : (int)n;
}

#endif
