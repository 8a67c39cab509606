/*
 * snapfile.h - a file of tagged, aligned sections, written once from
 * arrays in memory and mapped back without copying: the on-disk form of a
 * finalized model and its trace index, which lets a restarted server
 * reopen a trace it has read before without parsing it again.
 *
 * Layout (native byte order and struct layout; the signature says which):
 *   header  64 bytes: magic "NNSSNAP1", format version, the caller's layout
 *           signature, the caller's key (two 64-bit words)
 *   data    each section's bytes at a 64-byte aligned offset
 *   table   per section: tag, offset, bytes (24 bytes each)
 *   trailer 64 bytes: magic "NNSSNEND", section count, table offset, total
 *           size, the key and signature again
 * A file is read only when header and trailer agree with each other, with
 * the caller's signature and key, and with the file's size, and every
 * section lies inside the data: a file cut short, written by another
 * build or for another source is refused with a reason, never read.
 * Section contents are trusted: the file is the caller's own cache.
 *
 * Ownership: snapw writes through a descriptor it does not own. snapr maps
 * the whole file (private, copy-on-write) into a struct snap_map, which
 * whoever takes it releases with snap_map_release.
 */
#ifndef NNS_COMMON_SNAPFILE_H
#define NNS_COMMON_SNAPFILE_H

#include "common/err.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A mapped file: base "" (NULL) when nothing is mapped. */
struct snap_map {
	void *base;
	size_t len;
};

/* 1 when p points into the mapping (so it must not be freed). */
static inline int snap_map_holds(const struct snap_map *mp, const void *p)
{
	const char *b = (const char *)mp->base, *q = (const char *)p;

	return b && q >= b && q < b + mp->len;
}
/* Unmaps it (nothing when nothing is mapped) and clears it. */
void snap_map_release(struct snap_map *mp);

struct snap_sec {
	uint32_t tag, pad;
	uint64_t off, bytes;
};

struct snapw {
	int fd;
	uint64_t off, sig, key[2];
	struct snap_sec *secs;
	size_t nsecs, cap;
	int rc; /* the first failure; later calls do nothing */
	struct nns_err *err;
	_Atomic int *cancel; /* NULL, or non-zero: stop (NNS_EINVAL), set by the caller */
};

/* Starts a file on fd (empty, positioned anywhere: writes use offsets).
 * Failures are kept in w and returned by snapw_end. */
void snapw_begin(struct snapw *w, int fd, uint64_t sig, const uint64_t key[2], struct nns_err *err);
/* Appends a section of `bytes` bytes at p (p may be NULL when bytes is 0). */
void snapw_add(struct snapw *w, uint32_t tag, const void *p, size_t bytes);
/* Writes the table and trailer; NNS_OK, or the first failure (NNS_EIO,
 * NNS_ENOMEM) with its reason. Frees what w holds either way. */
int snapw_end(struct snapw *w);

struct snapr {
	struct snap_map map; /* the mapping, until someone takes it */
	const char *base;    /* where it lies, taken or not */
	const struct snap_sec *tab;
	uint32_t nsecs, next;
};

/* Maps the file fd (which may then be closed) and checks it as above.
 * NNS_OK, or NNS_EFORMAT (not such a file, another signature or key, cut
 * short: the message says which), NNS_EIO. */
int snapr_open(struct snapr *r, int fd, uint64_t sig, const uint64_t key[2], struct nns_err *err);
/* The next section: it must carry `tag` and hold whole elements of
 * `elem` bytes; *count gets their number. Its bytes (never NULL, even
 * when empty), or NULL with NNS_EFORMAT in err. */
const void *snapr_next(struct snapr *r, uint32_t tag, size_t elem, size_t *count,
		       struct nns_err *err);

#endif
