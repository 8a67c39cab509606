/*
 * strpool.h - string interning: each distinct byte string gets a dense
 * uint32 id; equal strings share one copy.
 *
 * Used by the model for event names, thread ids, shapes and call stacks, so
 * that millions of events store 4-byte ids instead of text. Ids are stable
 * for the life of the pool. Id 0 is always the empty string.
 * The pool owns all its bytes; strpool_get() pointers stay valid until
 * strpool_release(). Strings are NUL-terminated in the pool, and may also
 * contain NUL bytes (use strpool_len()).
 */
#ifndef NNS_COMMON_STRPOOL_H
#define NNS_COMMON_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

#define STRPOOL_NONE UINT32_MAX

struct strpool {
	char **blocks; /* storage blocks, never moved once written */
	size_t nblocks, blocks_cap;
	size_t block_used, block_size;
	const char **str; /* id -> bytes */
	uint32_t *len;	  /* id -> length */
	uint32_t *hashv;  /* id -> hash */
	size_t count, cap;
	uint32_t *table; /* open addressing: slot -> id+1, 0 empty */
	size_t table_mask;
	size_t bytes;	  /* total bytes stored */
	size_t max_bytes; /* cap on bytes; 0 = default (4 GiB) */
};

int strpool_init(struct strpool *p);
void strpool_release(struct strpool *p);

/* Returns the id of s[0..n), adding it if new; STRPOOL_NONE when over the
 * cap or out of memory. */
uint32_t strpool_intern(struct strpool *p, const char *s, size_t n);

/* Returns the id or STRPOOL_NONE if s is not in the pool. */
uint32_t strpool_find(const struct strpool *p, const char *s, size_t n);

static inline const char *strpool_get(const struct strpool *p, uint32_t id)
{
	return id < p->count ? p->str[id] : "";
}

static inline size_t strpool_len(const struct strpool *p, uint32_t id)
{
	return id < p->count ? p->len[id] : 0;
}

uint32_t strpool_hash(const char *s, size_t n);

#endif
