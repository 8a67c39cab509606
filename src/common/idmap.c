/* idmap.c - int64 id -> first uint32 value, dense array or hash (idmap.h). */
#include "common/idmap.h"
#include "common/err.h"

#include <stdlib.h>
#include <string.h>

#define DENSE_SLACK ((uint64_t)1 << 16)

int idmap_init(struct idmap *m, int64_t lo, int64_t hi, size_t count)
{
	uint64_t span;

	memset(m, 0, sizeof(*m));
	hmap_init(&m->h);
	if (count == 0 || hi < lo)
		return NNS_OK;
	span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span == 0 || span > (uint64_t)count * 4 + DENSE_SLACK || span > SIZE_MAX / 4)
		return NNS_OK; /* sparse: the hmap */
	m->dense = malloc((size_t)span * sizeof(*m->dense));
	if (!m->dense)
		return NNS_OK; /* the hmap then, which grows as it needs */
	memset(m->dense, 0xff, (size_t)span * sizeof(*m->dense));
	m->lo = lo;
	m->span = span;
	return NNS_OK;
}

static int in_range(const struct idmap *m, int64_t id)
{
	return id >= m->lo && (uint64_t)id - (uint64_t)m->lo < m->span;
}

int idmap_put_first(struct idmap *m, int64_t id, uint32_t v)
{
	if (m->span && in_range(m, id)) {
		uint32_t *s = &m->dense[(uint64_t)id - (uint64_t)m->lo];
		if (*s == IDMAP_NONE)
			*s = v;
		return NNS_OK;
	}
	/* outside the range given at init (or sparse): the hmap */
	return hmap_put(&m->h, (uint64_t)id, v, NULL) ? NNS_OK : NNS_ENOMEM;
}

uint32_t idmap_get(const struct idmap *m, int64_t id)
{
	const uint32_t *hit;

	if (m->span && in_range(m, id))
		return m->dense[(uint64_t)id - (uint64_t)m->lo];
	hit = hmap_get(&m->h, (uint64_t)id);
	return hit ? *hit : IDMAP_NONE;
}

void idmap_release(struct idmap *m)
{
	free(m->dense);
	hmap_release(&m->h);
	memset(m, 0, sizeof(*m));
}
