/* vec.c - capacity growth for vec.h arrays. */
#include "vec.h"
#include "nnscope.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int vec_reserve_raw(void **data, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	if (elem == 0 || need > VEC_MAX_BYTES / elem)
		return NNS_ENOMEM;
	ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap = ncap > VEC_MAX_BYTES / elem / 2 ? VEC_MAX_BYTES / elem : ncap * 2;
	p = realloc(*data, ncap * elem);
	if (!p)
		return NNS_ENOMEM;
	*data = p;
	*cap = ncap;
	return 0;
}

void vec_drop_pages(void *p, size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;

	if (!p || pg <= 0)
		return;
	/* only pages wholly inside: the allocator's own words before and
	 * after the array stay untouched */
	lo = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	hi = ((uintptr_t)p + n) & ~((uintptr_t)pg - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
