/* hmap.c - uint64 -> uint32 open-addressing hash map (hmap.h). */
#include "hmap.h"

#include <stdlib.h>
#include <string.h>

static size_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return (size_t)k;
}

void hmap_init(struct hmap *h)
{
	memset(h, 0, sizeof(*h));
}

void hmap_release(struct hmap *h)
{
	free(h->t);
	memset(h, 0, sizeof(*h));
}

uint32_t *hmap_get(const struct hmap *h, uint64_t key)
{
	size_t s;

	if (!h->t)
		return NULL;
	for (s = mix(key) & h->mask; h->t[s].used; s = (s + 1) & h->mask)
		if (h->t[s].key == key)
			return &h->t[s].val;
	return NULL;
}

static int grow(struct hmap *h)
{
	size_t nmask = h->t ? h->mask * 2 + 1 : 255, i;
	struct hmap_slot *nt;

	if (nmask > ((size_t)1 << 34))
		return -1;
	nt = calloc(nmask + 1, sizeof(*nt));
	if (!nt)
		return -1;
	for (i = 0; h->t && i <= h->mask; i++) {
		size_t s;
		if (!h->t[i].used)
			continue;
		for (s = mix(h->t[i].key) & nmask; nt[s].used; s = (s + 1) & nmask)
			;
		nt[s] = h->t[i];
	}
	free(h->t);
	h->t = nt;
	h->mask = nmask;
	return 0;
}

uint32_t *hmap_put(struct hmap *h, uint64_t key, uint32_t init, int *is_new)
{
	size_t s;

	if (is_new)
		*is_new = 0;
	if ((!h->t || (h->n + 1) * 4 > (h->mask + 1) * 3) && grow(h))
		return NULL;
	for (s = mix(key) & h->mask; h->t[s].used; s = (s + 1) & h->mask)
		if (h->t[s].key == key)
			return &h->t[s].val;
	h->t[s].used = 1;
	h->t[s].key = key;
	h->t[s].val = init;
	h->n++;
	if (is_new)
		*is_new = 1;
	return &h->t[s].val;
}
