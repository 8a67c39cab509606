/* strpool.c - string interning with an open-addressing hash table. */
#include "strpool.h"
#include "strhash.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

#define STRPOOL_BLOCK (1u << 20)
#define STRPOOL_DEFAULT_MAX ((size_t)4 << 30)

uint32_t strpool_hash(const char *s, size_t n)
{
	/* FNV-1a on 8-byte words for speed, finished with a mixer; long
	 * strings (kernel names, call stacks) in two lanes of 16 bytes, whose
	 * multiplications do not wait on each other. */
	uint64_t h = STRHASH_INIT ^ n;
	size_t i = 0;

	if (n >= 32) {
		uint64_t h2 = h ^ 0x9e3779b97f4a7c15ull;
		for (; i + 16 <= n; i += 16) {
			uint64_t w, w2;
			memcpy(&w, s + i, 8);
			memcpy(&w2, s + i + 8, 8);
			h = (h ^ w) * STRHASH_PRIME;
			h2 = (h2 ^ w2) * STRHASH_PRIME;
			h ^= h >> 29;
			h2 ^= h2 >> 29;
		}
		h = (h ^ (h2 >> 32 | h2 << 32)) * STRHASH_PRIME;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * STRHASH_PRIME;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * STRHASH_PRIME;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

int strpool_init(struct strpool *p)
{
	memset(p, 0, sizeof(*p));
	p->table_mask = 1023;
	p->table = calloc(p->table_mask + 1, sizeof(*p->table));
	if (!p->table)
		return -1;
	if (strpool_intern(p, "", 0) != 0) {
		strpool_release(p);
		return -1;
	}
	return 0;
}

void strpool_release(struct strpool *p)
{
	size_t i;

	for (i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->str);
	free(p->len);
	free(p->hashv);
	free(p->table);
	memset(p, 0, sizeof(*p));
}

uint32_t strpool_find(const struct strpool *p, const char *s, size_t n)
{
	uint32_t h = strpool_hash(s, n);
	size_t slot = h & p->table_mask;

	for (;;) {
		uint32_t e = p->table[slot];
		if (!e)
			return STRPOOL_NONE;
		e--;
		if (p->hashv[e] == h && p->len[e] == n && memcmp(p->str[e], s, n) == 0)
			return e;
		slot = (slot + 1) & p->table_mask;
	}
}

static int rehash(struct strpool *p)
{
	size_t nmask = p->table_mask * 2 + 1, i;
	uint32_t *nt = calloc(nmask + 1, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < p->count; i++) {
		size_t slot = p->hashv[i] & nmask;
		while (nt[slot])
			slot = (slot + 1) & nmask;
		nt[slot] = (uint32_t)i + 1;
	}
	free(p->table);
	p->table = nt;
	p->table_mask = nmask;
	return 0;
}

static char *store(struct strpool *p, const char *s, size_t n)
{
	char *dst;

	if (p->nblocks == 0 || p->block_used + n + 1 > p->block_size) {
		/* blocks grow from 16 KiB to 1 MiB so that small models stay small */
		size_t grow = p->nblocks < 6 ? ((size_t)16384 << p->nblocks) : STRPOOL_BLOCK;
		size_t bs = n + 1 > grow ? n + 1 : grow;
		char *b;
		if (vec_reserve_raw((void **)&p->blocks, &p->blocks_cap, p->nblocks + 1,
				    sizeof(*p->blocks)))
			return NULL;
		b = malloc(bs);
		if (!b)
			return NULL;
		p->blocks[p->nblocks++] = b;
		p->block_used = 0;
		p->block_size = bs;
	}
	dst = p->blocks[p->nblocks - 1] + p->block_used;
	memcpy(dst, s, n);
	dst[n] = '\0';
	p->block_used += n + 1;
	return dst;
}

uint32_t strpool_intern(struct strpool *p, const char *s, size_t n)
{
	uint32_t h = strpool_hash(s, n);
	size_t slot = h & p->table_mask, maxb;
	char *dst;

	for (;;) {
		uint32_t e = p->table[slot];
		if (!e)
			break;
		e--;
		if (p->hashv[e] == h && p->len[e] == n && memcmp(p->str[e], s, n) == 0)
			return e;
		slot = (slot + 1) & p->table_mask;
	}
	maxb = p->max_bytes ? p->max_bytes : STRPOOL_DEFAULT_MAX;
	if ((p->count + 1) * 2 > p->table_mask + 1) {
		/* grow before inserting so the table never fills up */
		if (rehash(p))
			return STRPOOL_NONE;
		slot = h & p->table_mask;
		while (p->table[slot])
			slot = (slot + 1) & p->table_mask;
	}
	if (n > UINT32_MAX - 1 || p->bytes + n + 1 > maxb || p->count >= UINT32_MAX - 1)
		return STRPOOL_NONE;
	if (p->count == p->cap) {
		size_t c1 = p->cap, c2 = p->cap, c3 = p->cap;
		if (vec_reserve_raw((void **)&p->str, &c1, p->count + 1, sizeof(*p->str)) ||
		    vec_reserve_raw((void **)&p->len, &c2, c1, sizeof(*p->len)) ||
		    vec_reserve_raw((void **)&p->hashv, &c3, c1, sizeof(*p->hashv)))
			return STRPOOL_NONE;
		p->cap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
	}
	dst = store(p, s, n);
	if (!dst)
		return STRPOOL_NONE;
	p->str[p->count] = dst;
	p->len[p->count] = (uint32_t)n;
	p->hashv[p->count] = h;
	p->table[slot] = (uint32_t)p->count + 1;
	p->count++;
	p->bytes += n + 1;
	return (uint32_t)(p->count - 1);
}
