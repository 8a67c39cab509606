/*
 * idmap.h - a map from int64 ids to uint32 values that keeps the first
 * value put for each id: correlation ids to their launch, external ids to
 * their operator. Profilers count those ids up from a small number, in
 * one or a few dense stretches (one per process or per profiling window),
 * so the map is a paged array over the range idmap_init is given: a
 * directory of pages of 4096 slots, a page made when an id of it is
 * first put, two loads per lookup. Ids outside that range, a range too
 * wide for a directory (more entries than ids plus 64 Ki), and ids put
 * once the pages reach their budget (one per 1024 ids announced, plus 64)
 * go to an hmap (hmap.h) instead. Values must be below UINT32_MAX.
 *
 * Ownership: the map owns its pages and table; idmap_release frees them.
 */
#ifndef NNS_COMMON_IDMAP_H
#define NNS_COMMON_IDMAP_H

#include "common/hmap.h"

#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

struct idmap {
	int64_t lo;	   /* the first id of page 0 */
	size_t ndir;	   /* directory entries; 0: only the hmap is used */
	uint32_t **dir;	   /* per page: its 4096 slots (IDMAP_NONE: no value), or NULL */
	size_t pages_left; /* pages that may still be made */
	struct hmap h;
};

/* An empty map for about `count` ids, all within [lo, hi] (when count is
 * 0, lo and hi are ignored). 0, or NNS_ENOMEM. */
int idmap_init(struct idmap *m, int64_t lo, int64_t hi, size_t count);
/* Puts v for id unless id has a value: 0, or NNS_ENOMEM. */
int idmap_put_first(struct idmap *m, int64_t id, uint32_t v);
/* The value of id, IDMAP_NONE when it has none. */
uint32_t idmap_get(const struct idmap *m, int64_t id);
void idmap_release(struct idmap *m);

#endif
