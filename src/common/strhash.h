/*
 * strhash.h - the one string hash: 64-bit FNV-1a.
 *
 * Stable across runs and hosts (it names cache directories on disk), so
 * its value must never change: that is why the offset basis is
 * 1469598103934665603, the published 14695981039346656037 short of its last
 * digit, as nnscope has always used it (the hash is as good either way). Use it to key an hmap
 * (hmap.h) by a string: hmap_put(&h, strhash(s), ...), then compare the strings on a hit, since two
 * strings may share a hash. Chain fields with strhash_add().
 */
#ifndef NNS_COMMON_STRHASH_H
#define NNS_COMMON_STRHASH_H

#include <stddef.h>
#include <stdint.h>

#define STRHASH_INIT 1469598103934665603ull /* see above */
#define STRHASH_PRIME 1099511628211ull	    /* FNV-1a 64 prime */

/* h extended by the n bytes at p. */
static inline uint64_t strhash_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * STRHASH_PRIME;
	return h;
}

/* FNV-1a 64 of the NUL-terminated s. */
static inline uint64_t strhash(const char *s)
{
	uint64_t h = STRHASH_INIT;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * STRHASH_PRIME;
	return h;
}

#endif
