/*
 * vec.h - growable arrays with a hard cap.
 *
 * A vec is a plain struct { T *v; size_t n, cap; } declared with VEC(T).
 * vec_grow() doubles the capacity (geometric growth, amortised O(1) push)
 * and refuses to exceed VEC_MAX_BYTES, so a hostile input cannot make the
 * process allocate without bound. The owner of the struct frees v.
 */
#ifndef NNS_COMMON_VEC_H
#define NNS_COMMON_VEC_H

#include <stddef.h>
#include <stdint.h>

/* No single array may exceed 16 GiB. */
#define VEC_MAX_BYTES ((size_t)16 << 30)

#define VEC(T)                                                                                     \
	struct {                                                                                   \
		T *v;                                                                              \
		size_t n, cap;                                                                     \
	}

/* Ensures room for `need` elements of size `elem` in *data (capacity *cap).
 * Returns 0 or NNS_ENOMEM; on failure the array is unchanged. */
int vec_reserve_raw(void **data, size_t *cap, size_t need, size_t elem);

#define vec_reserve(a, need) vec_reserve_raw((void **)&(a)->v, &(a)->cap, (need), sizeof(*(a)->v))

/* Appends x; evaluates to 0 or NNS_ENOMEM. */
#define vec_push(a, x)                                                                             \
	(((a)->n < (a)->cap || vec_reserve((a), (a)->n + 1) == 0) ? ((a)->v[(a)->n++] = (x), 0)    \
								  : -1)

/* Gives the whole pages inside [p, p + n) back to the kernel
 * (MADV_DONTNEED) for a caller done with those bytes of an array it frees
 * soon after: they read as zero until then. Copying a large array into
 * another so peaks at one array and a bit, not two. */
void vec_drop_pages(void *p, size_t n);

#define vec_free(a)                                                                                \
	do {                                                                                       \
		free((a)->v);                                                                      \
		(a)->v = NULL;                                                                     \
		(a)->n = (a)->cap = 0;                                                             \
	} while (0)

#endif
