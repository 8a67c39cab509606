/*
 * marey_cache.h - the server's in-memory cache of stage timeline (Marey)
 * documents, one per (profiler directory, step), so that switching steps
 * in the UI recomputes nothing it has shown before (docs/MINDSPORE.md).
 * Bounded: MC_MAX entries and MC_MAX_BYTES of documents; the least recently
 * used entry goes first. Thread-safe (one mutex). A document whose files
 * change on disk stays cached until evicted or the server restarts.
 *
 * Ownership: the cache owns copies of what it is given; mc_get returns a
 * malloc'd copy the caller frees.
 */
#ifndef NNS_SERVER_MAREY_CACHE_H
#define NNS_SERVER_MAREY_CACHE_H

#include <pthread.h>
#include <stddef.h>

#define MC_MAX 16
#define MC_MAX_BYTES ((size_t)256 << 20)

struct mc_entry {
	char *key; /* NULL: free slot */
	char *doc;
	size_t len;
	unsigned long used; /* tick of the last use */
};

struct marey_cache {
	pthread_mutex_t mu;
	struct mc_entry e[MC_MAX];
	unsigned long tick;
	size_t bytes;
};

/* 0, or -1 when the mutex cannot be made. */
int mc_init(struct marey_cache *c);
void mc_release(struct marey_cache *c);
/* A copy of the document cached for (dir, step) and its length, or NULL
 * (absent, or out of memory). step "" = the default step. */
char *mc_get(struct marey_cache *c, const char *dir, const char *step, size_t *len);
/* Caches a copy of doc[0..len) for (dir, step), evicting the least
 * recently used entries to stay within the bounds; a document over
 * MC_MAX_BYTES, or out of memory: not cached. */
void mc_put(struct marey_cache *c, const char *dir, const char *step, const char *doc, size_t len);

#endif
