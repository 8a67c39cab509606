/*
 * intervals.h - interval algebra on half-open [start, end) int64 ranges:
 * union (merge), intersection, subtraction and total length, all linear in
 * the input sizes on sorted, merged sets. Mirrors tb_plugin's range_utils.
 *
 * An iv_set owns its array; iv_set_release() frees it.
 */
#ifndef NNS_ANALYSIS_INTERVALS_H
#define NNS_ANALYSIS_INTERVALS_H

#include "common/vec.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct iv {
	int64_t start, end;
};

struct iv_set {
	VEC(struct iv) r; /* sorted, disjoint, non-empty after iv_merge */
};

void iv_set_release(struct iv_set *s);
int iv_add(struct iv_set *s, int64_t start, int64_t end); /* unmerged append */
/* iv_add that joins [start, end) to the last range when it starts inside
 * or right at the end of it (and not before its start), as iv_merge would:
 * ranges added in start order stay merged as they come, so the set holds
 * the union's ranges, not one per add. iv_merge afterwards gives the same
 * set as after iv_add. */
int iv_add_union(struct iv_set *s, int64_t start, int64_t end);
int iv_merge(struct iv_set *s); /* sort + union in place */
int iv_intersect(const struct iv_set *a, const struct iv_set *b, struct iv_set *out);
int iv_subtract(const struct iv_set *a, const struct iv_set *b, struct iv_set *out);
int iv_clip(const struct iv_set *a, int64_t start, int64_t end, struct iv_set *out);
int64_t iv_total(const struct iv_set *s);
/* Total length of s inside [start, end) without allocating. */
int64_t iv_total_in(const struct iv_set *s, int64_t start, int64_t end);

/* In n records of `size` bytes at base, sorted by the int64 key at byte
 * offset off of each: the index of the first record whose key is >= key
 * (after = 0) or > key (after = 1); n when there is none. */
static inline size_t iv_bound(const void *base, size_t n, size_t size, size_t off, int64_t key,
			      int after)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t k;

		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k < key || (after && k == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
