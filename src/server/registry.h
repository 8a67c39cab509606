/*
 * registry.h - what `nnscope serve` knows about the logdir: the runs
 * found under it (rescanned on demand), one entry per worker/span trace
 * file, and the background workers that load, analyse, cache and index
 * those traces.
 *
 * An entry moves IDLE -> QUEUED -> WORKING -> READY (model, profile and
 * trace index in memory) or FAILED (err says why). READY entries are
 * evicted back to IDLE, least recently used first, when more than
 * max_loaded are in memory or they hold more than max_bytes, and nobody
 * holds them. Analysis results are also written to the disk cache
 * (cache.h), so views of an IDLE entry whose cache is valid are answered
 * without parsing; the logdir is walked by scan.h.
 *
 * Concurrency: every field marked (mu) is guarded by registry.mu. Entries
 * are never freed before reg_release(), so a pointer from reg_find() stays
 * valid; the model/profile/index of a READY entry stay valid while the
 * caller holds a reference (reg_acquire .. reg_put).
 *
 * Ownership: the registry owns its entries and everything loaded in them.
 */
#ifndef NNS_SERVER_REGISTRY_H
#define NNS_SERVER_REGISTRY_H

#include "analysis/analysis.h"
#include "common/err.h"
#include "common/vec.h"
#include "importers/kineto.h"
#include "importers/run.h"
#include "output/outfile.h"
#include "trace/trace_index.h"

#include <pthread.h>
#include <stdatomic.h>

enum reg_state { REG_IDLE, REG_QUEUED, REG_WORKING, REG_READY, REG_FAILED };
enum reg_phase { PH_QUEUED, PH_PARSING, PH_ANALYSING, PH_CACHING, PH_INDEXING };

struct reg_entry {
	char *run, *worker, *span; /* names; span "" when the worker has none */
	char *path;		   /* the trace file */
	char *run_dir;
	int64_t size, mtime_ns;	      /* of path when discovered */
	int run_workers;	      /* workers of the run (host_info matching) */
	VEC(char *) host_info;	      /* the run's host_info CSVs */
	char cache_dir[OUT_PATH_MAX]; /* <cache root>/<worker>[.<span>], "" if none */

	int gone;		    /* (mu) no longer found by a rescan */
	int was_gone;		    /* (mu) gone at the previous rescan too */
	int replaced;		    /* (mu) the file changed: a new entry took its place;
				     * this one stays FAILED */
	int state, phase;	    /* (mu) enum reg_state, enum reg_phase */
	char err[NNS_ERR_MSG_MAX];  /* (mu) why FAILED */
	int err_code;		    /* (mu) its NNS_E* status */
	_Atomic int64_t done_bytes; /* parser progress */
	int refs;		    /* (mu) holders of m/p/ix */
	uint64_t last_used;	    /* (mu) */
	struct model *m;	    /* (mu) READY: the trace */
	struct an_profile *p;	    /* (mu) READY: its analyses */
	struct trace_index *ix;	    /* (mu) READY: timeline index */
	size_t bytes;		    /* (mu) READY: memory it holds, roughly */
};

struct registry {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *logdir;	    /* as given */
	char *logdir_real;  /* realpath */
	char *cache_dir;    /* --cache-dir, NULL for beside the runs */
	int64_t scanned_ns; /* (mu) */
	int scanning;	    /* (mu) a walk of the logdir is under way */
	uint64_t generation;
	VEC(struct reg_entry *) entries; /* (mu) in discovery order */
	VEC(struct reg_entry *) queue;	 /* (mu) FIFO of QUEUED entries */
	char *runs_json;		 /* (mu) the /api/runs document */
	size_t runs_json_len;
	pthread_t workers[4];
	int nworkers;
	int stop;	    /* (mu) */
	_Atomic int cancel; /* set by reg_release: loads under way give up */
	size_t max_loaded;  /* READY entries kept in memory */
	size_t max_bytes;   /* and the memory they may hold (half the RAM) */
	uint64_t clock;	    /* (mu) for last_used */
	int quiet;
	/* the input limits (max_*) of every load, set before serving */
	struct kineto_opts limits;
};

/* Scans logdir (which must be a directory), with analysis caches under
 * cache_dir (NULL: beside each run, see cache.h) and starts nworkers (1..4) background
 * workers. NNS_OK, NNS_ENOTFOUND, NNS_EIO or NNS_ENOMEM. */
int reg_init(struct registry *r, const char *logdir, const char *cache_dir, int nworkers,
	     struct nns_err *err);
/* Stops the workers (after their current job) and frees everything. */
void reg_release(struct registry *r);

/* The /api/runs document (rescanning first when the last scan is older
 * than 2 s). Returns a malloc'd copy in *out (caller frees), or NULL on
 * allocation failure. */
char *reg_runs_json(struct registry *r, size_t *len);

/* The entry of (run, worker, span) — span NULL or "" for none — or NULL. */
struct reg_entry *reg_find(struct registry *r, const char *run, const char *worker,
			   const char *span);
/* The entries of run with span name span ("" or NULL: none), into out
 * (up to max); returns how many. */
size_t reg_find_group(struct registry *r, const char *run, const char *span, struct reg_entry **out,
		      size_t max);

/* Progress of an entry that is not ready. */
struct reg_progress {
	int state, phase;
	double progress; /* 0..1 */
	char err[NNS_ERR_MSG_MAX];
	int err_code; /* REG_FAILED: NNS_E* (NNS_ENOMEM: out of memory) */
};

/* If e is READY, takes a reference (release with reg_put) and returns
 * REG_READY. Otherwise queues it for loading when IDLE and returns its
 * state with the progress in *pr (REG_FAILED: pr->err says why). */
int reg_acquire(struct registry *r, struct reg_entry *e, struct reg_progress *pr);
void reg_put(struct registry *r, struct reg_entry *e);
/* e's state (enum reg_state), read under the lock. */
int reg_state(struct registry *r, struct reg_entry *e);

/* Reads <view>.json of e from the disk cache when the cache is valid for
 * the current file. Returns a malloc'd buffer (caller frees) or NULL. */
char *reg_cached_view(struct registry *r, struct reg_entry *e, const char *view, size_t *len);

/* Phase names for the progress answer. */
const char *reg_phase_name(int phase);

#endif
