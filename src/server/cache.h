/*
 * cache.h - the on-disk analysis cache of one trace file: the JSON views
 * `nnscope analyse` would write, in a directory per worker/span under a
 * cache root (<run>/.nnscope-cache, or --cache-dir / $XDG_CACHE_HOME when
 * the run is read-only or its .nnscope-cache is a link or not ours;
 * docs/SERVER.md), with a key file naming the trace file's path, size and
 * mtime and nnscope's version. The views are valid while the key says the
 * same as the file; the key is removed first and written last, so a crash
 * while writing leaves an invalid cache, never a stale one.
 *
 * Nothing planted in a cache leads out of it: no open follows a symbolic
 * link, and a cache file is read only when it is a regular file with one
 * link owned by the server's user (cache.c says how).
 *
 * It knows trace files by path, size and mtime only (struct cache_key),
 * nothing of the server's registry. Every open, read and write of a cache
 * file happens in cache.c.
 *
 * Threads: no state; concurrent writers of one directory each rename whole
 * files into place.
 */
#ifndef NNS_SERVER_CACHE_H
#define NNS_SERVER_CACHE_H

#include "analysis/analysis.h"
#include "common/err.h"
#include "common/fs.h"
#include "output/outfile.h"
#include "output/output.h"

#include <stddef.h>
#include <stdint.h>

/* What the cache of a trace file is valid for (borrowed strings). */
struct cache_key {
	const char *path; /* the trace file */
	int64_t size, mtime_ns;
};

/* Where the cache of one worker/span lies: base, opened as named (beneath
 * root when root is set), then each component of rel opened without
 * following a link. base "" for none. */
struct cache_dir {
	char base[OUT_PATH_MAX];
	char rel[OUT_NAME_MAX * 2 + 48];
	const struct fs_root *root; /* borrowed */
};

/* Makes sure --cache-dir `dir` exists and is writable. NNS_OK or NNS_EIO. */
int cache_check_root(const char *dir, struct nns_err *err);

/* The cache directory of one worker/span (span NULL or "" for none) of the
 * run in run_dir (beneath root, the logdir; NULL: as named), with caches
 * under `override` (--cache-dir, NULL: beside the run) into d; creates its
 * root. 0, or -1 with d->base "" when no usable place was found (the views
 * are then never cached). */
int cache_dir_of(struct cache_dir *d, const struct fs_root *root, const char *run_dir,
		 const char *override, const char *worker, const char *span);

/* 1 when the views in d were written for the file k names. */
int cache_valid(const struct cache_dir *d, const struct cache_key *k);

/* <view>.json from d when the cache is valid for k: a malloc'd,
 * NUL-terminated buffer (caller frees) of *len bytes, or NULL. */
char *cache_read_view(const struct cache_dir *d, const struct cache_key *k, const char *view,
		      size_t *len);

/* Writes every view of p (the analyses of src) into d, then the key of k.
 * Best effort: a failure leaves the cache invalid. */
void cache_write(const struct cache_dir *d, const struct cache_key *k, const struct out_source *src,
		 const struct an_profile *p);

/* ---- the snapshot: the model and trace index beside the views ----
 * trace.snap (common/snapfile.h): the finalized model and its trace index,
 * keyed by the file's path, size and mtime and by the nnscope binary that
 * wrote it (its size and mtime: another build may lay the model out or
 * fill it differently), and valid only while the views' key is. A
 * restarted server maps it instead of parsing the trace again. */
struct model;
struct trace_index;
/* Maps d's snapshot of k into a model (m, uninitialized) and its index
 * (*ix). NNS_OK; NNS_ENOTFOUND when there is none (or the views' key is
 * not k's); else why it was refused (NNS_EFORMAT: cut short, another build
 * or source; the message says which), nothing left to release. */
int cache_snap_read(const struct cache_dir *d, const struct cache_key *k, struct model *m,
		    struct trace_index **ix, struct nns_err *err);
/* Writes the snapshot of m and ix into d (atomically: a temporary file
 * renamed into place), when the views there are valid for k; stops when
 * *cancel (may be NULL) becomes non-zero. NNS_OK or the failure (nothing
 * is left behind). */
int cache_snap_write(const struct cache_dir *d, const struct cache_key *k, const struct model *m,
		     const struct trace_index *ix, _Atomic int *cancel, struct nns_err *err);

#endif
