/* idmap.c - int64 id -> first uint32 value: paged array, else hash (idmap.h). */
#include "common/idmap.h"
#include "common/err.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_BITS 12
#define PAGE_SLOTS ((size_t)1 << PAGE_BITS)

int idmap_init(struct idmap *m, int64_t lo, int64_t hi, size_t count)
{
	uint64_t span, ndir;

	memset(m, 0, sizeof(*m));
	hmap_init(&m->h);
	if (count == 0 || hi < lo)
		return NNS_OK;
	span = (uint64_t)hi - (uint64_t)lo; /* + 1 may wrap: ndir below adds it */
	ndir = (span >> PAGE_BITS) + 1;
	if (ndir > (uint64_t)count + 65536)
		return NNS_OK; /* too scattered for a directory: the hmap */
	m->dir = calloc((size_t)ndir, sizeof(*m->dir));
	if (!m->dir)
		return NNS_OK; /* the hmap then, which grows as it needs */
	m->lo = lo;
	m->ndir = (size_t)ndir;
	m->pages_left = count / 1024 + 64;
	return NNS_OK;
}

/* The page of id and id's slot in it; 0 when id is outside the range. */
static int locate(const struct idmap *m, int64_t id, size_t *page, size_t *slot)
{
	uint64_t off;

	if (!m->ndir || id < m->lo)
		return 0;
	off = (uint64_t)id - (uint64_t)m->lo;
	if ((off >> PAGE_BITS) >= m->ndir)
		return 0;
	*page = (size_t)(off >> PAGE_BITS);
	*slot = (size_t)(off & (PAGE_SLOTS - 1));
	return 1;
}

int idmap_put_first(struct idmap *m, int64_t id, uint32_t v)
{
	size_t pg, sl;

	if (locate(m, id, &pg, &sl)) {
		uint32_t *p = m->dir[pg];
		if (!p && m->pages_left > 0) {
			if ((p = malloc(PAGE_SLOTS * sizeof(*p))) != NULL) {
				memset(p, 0xff, PAGE_SLOTS * sizeof(*p));
				m->dir[pg] = p;
				m->pages_left--;
			} else {
				m->pages_left =
				    0; /* no page is made after an id went to the hmap */
			}
		}
		if (p) {
			if (p[sl] == IDMAP_NONE)
				p[sl] = v;
			return NNS_OK;
		}
	}
	/* no page for it: the hmap (an id's page, once made, holds it) */
	return hmap_put(&m->h, (uint64_t)id, v, NULL) ? NNS_OK : NNS_ENOMEM;
}

uint32_t idmap_get(const struct idmap *m, int64_t id)
{
	const uint32_t *hit;
	size_t pg, sl;

	if (locate(m, id, &pg, &sl) && m->dir[pg])
		return m->dir[pg][sl];
	hit = hmap_get(&m->h, (uint64_t)id);
	return hit ? *hit : IDMAP_NONE;
}

void idmap_release(struct idmap *m)
{
	for (size_t i = 0; i < m->ndir; i++)
		free(m->dir[i]);
	free(m->dir);
	hmap_release(&m->h);
	memset(m, 0, sizeof(*m));
}
