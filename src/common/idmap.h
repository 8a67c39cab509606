/*
 * idmap.h - a map from int64 ids to uint32 values that keeps the first
 * value put for each id: correlation ids to their launch, external ids to
 * their operator. Profilers count those ids up from a small number, so
 * when the ids given to idmap_init are dense (their range at most 4 slots
 * per id, plus 64 Ki) the map is a plain array over that range, one load
 * per lookup; else an hmap (hmap.h). Values must be below UINT32_MAX.
 *
 * Ownership: the map owns its array or table; idmap_release frees it.
 */
#ifndef NNS_COMMON_IDMAP_H
#define NNS_COMMON_IDMAP_H

#include "common/hmap.h"

#include <stddef.h>
#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

struct idmap {
	int64_t lo;	 /* the array's first id */
	uint64_t span;	 /* its length; 0: the hmap is used */
	uint32_t *dense; /* IDMAP_NONE where no id was put */
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
