/*
 * run.h - discovering what an input path holds: runs -> workers -> spans
 * -> trace files, following tb_plugin's layout (reference
 * kineto-tbplugin.md §2).
 *
 * A directory is walked recursively; every directory that directly holds
 * trace files is a run, named by its path relative to the given directory
 * (the given directory itself is named by its base name). Files are told
 * apart by their content, not their name:
 *  - *.json / *.json.gz (gzip or not): a JSON object with a "traceEvents"
 *    key, or a JSON array whose first element is an object with "ph"
 *    (Chrome's array format);
 *  - *.nnst: the NNSTRACE magic;
 *  - MindSpore profiler files by their names (ms_load.h), one worker
 *    device_<id> per device; in such a directory the other JSON files are
 *    its layout's, and its PROF_* subdirectories are not walked.
 * Every other *.json[.gz] / *.nnst file is listed in run_set.skipped with
 * the reason (empty array, a JSON object without traceEvents, no magic ...).
 * Workers: a file named ^(.*?)(\.\d+)?\.pt\.trace\.json(\.gz)?$
 * (tb_plugin) or ^(.*?)(\.\d+)?\.nnst$ gives group 1 as the worker and
 * the numeric suffix as the span; a group 1 that would be empty or end in
 * '.' keeps the whole stem and has no span. Any other trace file is a
 * worker named by its file name without ".json"/".json.gz"; when two files
 * of one directory would share such a name each keeps its whole file name.
 * A worker's spans are sorted by suffix, tb_plugin's as strings, .nnst
 * ordinals as numbers (the collector writes <host>_<pid>.nnst, then
 * <host>_<pid>.<k>.nnst, k = 2, 3, ... for the same process's next
 * traces), and named "1".."n"; a worker with a single file and no suffix
 * has no span (name NULL).
 * A path that is a file is one run (named after its directory) with one
 * worker: the tb_plugin or .nnst name if it matches, else the file name
 * without ".json"/".json.gz"/".gz"; its content is judged by the importer.
 * Each run also lists the MindSpore host_info CSVs beside its traces
 * (host_info_<N>.csv in the run directory or its host_info/ subdirectory,
 * where nnscope's collector writes them).
 *
 * The walk never follows symbolic links to directories (symlinked files
 * are read), refuses to re-enter a directory it is already inside (bind
 * mount loops), skips unreadable subdirectories, and is bounded by
 * struct run_limits. run_discover_in also keeps every open beneath a root.
 *
 * Ownership: struct run_set owns every string and array reachable from it;
 * run_set_release() frees them all.
 */
#ifndef NNS_IMPORTERS_RUN_H
#define NNS_IMPORTERS_RUN_H

#include "common/err.h"
#include "common/vec.h"

#include <stddef.h>

struct run_span {
	char *name;   /* "1".."n", or NULL (single unsuffixed file) */
	char *suffix; /* numeric suffix without the dot, NULL if none */
	char *path;   /* the trace file */
};

struct run_worker {
	char *name;
	VEC(struct run_span) spans; /* sorted by suffix, at least one */
};

struct run {
	char *name;			/* relative path ("a/b"), or the base name of the root */
	char *dir;			/* the directory as a path usable with open() */
	VEC(struct run_worker) workers; /* sorted by name */
	VEC(char *) host_info;		/* host_info_<N>.csv paths, sorted */
};

/* A *.json[.gz] / *.nnst file the walk left out, and why. */
struct run_skip {
	char *path;
	char *reason;
};

struct run_set {
	VEC(struct run) runs;	      /* sorted by name */
	VEC(struct run_skip) skipped; /* in walk order, at most 1000 */
	size_t skipped_more;	      /* skipped files past those */
	size_t files;		      /* trace files found */
	int single_file;	      /* the path given was a file */
};

struct run_limits {
	size_t max_entries; /* directory entries examined (default 1,000,000) */
	size_t max_files;   /* trace files accepted (default 100,000) */
	int max_depth;	    /* directory nesting (default 64) */
};

/* Fills rs (caller storage, overwritten) from path. lim may be NULL.
 * Returns NNS_OK; NNS_ENOTFOUND if path does not exist or holds no trace;
 * NNS_EIO if it cannot be read; NNS_ENOMEM over a limit or out of memory.
 * On NNS_ENOTFOUND rs has no runs but still lists the skipped files; on
 * other errors rs is empty. run_set_release() is safe in every case. */
int run_discover(struct run_set *rs, const char *path, const struct run_limits *lim,
		 struct nns_err *err);
/* The same for the directory root (common/fs.h, the server's logdir), every
 * directory and file opened beneath it: the content sniffed is that of the
 * file the open checked, and a *.json[.gz] / *.nnst / MindSpore file whose
 * link resolves outside root is listed in skipped ("refused: resolves
 * outside <root>"), never a span. Paths are root->path + "/...". */
struct fs_root;
int run_discover_in(struct run_set *rs, const struct fs_root *root, const struct run_limits *lim,
		    struct nns_err *err);
void run_set_release(struct run_set *rs);

/* Matches a file base name against the tb_plugin pattern. On a match
 * returns 1 and writes the worker (group 1) and the suffix without its
 * dot ("" if none) into the buffers, truncated to fit; else returns 0. */
int run_match_name(const char *name, char *worker, size_t wsize, char *suffix, size_t ssize);
/* The same for nnscope traces: ^(.*?)(\.\d+)?\.nnst$. */
int run_match_nnst(const char *name, char *worker, size_t wsize, char *suffix, size_t ssize);

/* 1 when every worker of r is a MindSpore device (ms_load.h). */
int run_is_mindspore(const struct run *r);

/* Lookups; NULL when absent. A span is found by its name ("2") or its
 * suffix ("1623143089861"). */
const struct run_worker *run_find_worker(const struct run *r, const char *name);
const struct run_span *run_find_span(const struct run_worker *w, const char *name);

#endif
