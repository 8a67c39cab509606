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
 * Loading (registry.c): the queue is served smallest file first (a .gz
 * counts 8 times its size). Up to `lanes` loads run at once; a load that
 * has run for more than slow_ns is "slow" and stops counting against the
 * lanes, so up to `spare` more may start beside slow ones (a .gz that
 * expands far more than its size says is only found out by its time). One
 * more loader is kept for small files (small_bytes), so that a small
 * span's view never waits for big ones, however many are loading. A
 * supervisor thread cancels a load (through its own cancel flag, which the
 * parser checks at each read, and between the phases) when nobody asked
 * for it for abandon_ns (back to IDLE: the next ask starts it again) or
 * when it ran past deadline_ns (FAILED, timed_out, the message says how far
 * it got). The progress answer says which file, how far, for how long and,
 * for a slow load, why (reg_cause).
 *
 * A .nnst trace still being written is *live* (live_entries.h): it is not
 * loaded while live (reg_acquire answers REG_LIVE); its live views come
 * from a struct live_follow that reads only the new bytes, and its Trace
 * view from snapshot entries loaded the ordinary way. When it ends (END
 * chunk, or no growth for live_idle_ns) it becomes an ordinary entry.
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
#include "server/cache.h"
#include "trace/trace_index.h"

#include <pthread.h>
#include <stdatomic.h>

enum reg_state {
	REG_IDLE,
	REG_QUEUED,
	REG_WORKING,
	REG_READY,
	REG_FAILED,
	REG_LIVE /* only returned by reg_acquire: a live entry is never loaded */
};
enum reg_phase { PH_QUEUED, PH_PARSING, PH_ANALYSING, PH_CACHING, PH_INDEXING };
/* Why a load was stopped before it finished. */
enum reg_cancel { RC_NONE, RC_ABANDONED, RC_DEADLINE, RC_SHUTDOWN };

#define REG_MAX_LOADERS 8

struct reg_live; /* live_entries.h */

/* How loads are scheduled and bounded (reg_init; zeros take the defaults). */
struct reg_limits {
	int lanes;	     /* loads that may run at once while none is slow (2) */
	int spare;	     /* more loads allowed beside slow ones (2) */
	double slow_s;	     /* a load running longer is slow (2 s) */
	double abandon_s;    /* cancel a load nobody asked for for this long (30 s) */
	double deadline_s;   /* cancel a load running longer (300 s; < 0: none) */
	int64_t small_bytes; /* files up to this size (.gz: 1/8) have a loader of
			      * their own (32 MiB; < 0: none) */
	double live_idle_s;  /* a .nnst without END that grew within this is live
			      * (10 s; < 0: nothing is live) */
	int no_snapshots;    /* read and write no snapshots (cache.h) */
};

struct reg_entry {
	char *run, *worker, *span; /* names; span "" when the worker has none */
	char *path;		   /* the trace file */
	char *run_dir;
	int64_t size, mtime_ns;	    /* of path when discovered */
	int run_workers;	    /* workers of the run (host_info matching) */
	VEC(char *) host_info;	    /* the run's host_info CSVs */
	struct cache_dir cache_dir; /* <cache root>/<worker>[.<span>], base "" if none */
	/* A view of an msprof timeline rank other than its default (reg_variant):
	 * the view ("summary/apart/0,2", ms_timeline.h) and the discovered entry
	 * it is a view of; NULL for a discovered entry. Never cached on disk,
	 * never listed, found only by reg_variant. */
	char *variant;
	struct reg_entry *parent;
	int snapshot; /* a variant that is a snapshot of a live entry (live_entries.h):
		       * loaded as the plain file, never cached */

	/* live (live_entries.h) */
	int live;	     /* (mu) a .nnst being written: never loaded while set */
	int listed_live;     /* (mu) live as the /api/runs document says */
	int live_done;	     /* (mu) its follow failed: not live again until the file changes */
	struct reg_live *lv; /* (mu) its follow, NULL until a request opens one */
	struct reg_entry *snap[2]; /* (mu) the Trace view's snapshots of it */
	int snap_cur;		   /* (mu) the one answering (index in snap) */

	int gone;		    /* (mu) no longer found by a rescan */
	int was_gone;		    /* (mu) gone at the previous rescan too */
	int replaced;		    /* (mu) the file changed: a new entry took its place;
				     * this one stays FAILED */
	int state, phase;	    /* (mu) enum reg_state, enum reg_phase */
	char err[NNS_ERR_MSG_MAX];  /* (mu) why FAILED */
	int err_code;		    /* (mu) its NNS_E* status */
	_Atomic int64_t done_bytes; /* parser progress */
	_Atomic int cancel;	    /* non-zero: the load under way stops */
	int cancel_why;		    /* (mu) enum reg_cancel, while cancel is set */
	int slow;		    /* (mu) WORKING longer than slow_ns */
	int reserved;		    /* (mu) WORKING on the loader kept for small files */
	int timed_out;		    /* (mu) FAILED by the deadline */
	int64_t queued_ns;	    /* (mu) when it was queued (clock_mono_ns) */
	int64_t started_ns;	    /* (mu) when its load started */
	int64_t asked_ns;	    /* (mu) when a request last asked for it */
	int64_t nevents;	    /* (mu) events parsed (after PH_PARSING) */
	int refs;		    /* (mu) holders of m/p/ix */
	uint64_t last_used;	    /* (mu) */
	struct model *m;	    /* (mu) READY: the trace */
	struct an_profile *p;	    /* (mu) READY: its analyses */
	struct trace_index *ix;	    /* (mu) READY: timeline index */
	int trace_early;	    /* (mu) m, p and ix set while still WORKING: the trace
				     * index is built, the loader goes on with the
				     * passes and the cache (REG_NEED_TRACE) */
	int views_early;	    /* (mu) and p's base passes have run: the views
				     * answer while the loader runs the others and
				     * writes the cache (REG_NEED_VIEW) */
	int from_snapshot;	    /* (mu) READY: m and ix mapped from the cache's
				     * snapshot, p empty until asked (reg_profile) */
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
	VEC(struct reg_entry *) active;	 /* (mu) WORKING entries */
	char *runs_json;		 /* (mu) the /api/runs document */
	size_t runs_json_len;
	pthread_t workers[REG_MAX_LOADERS];
	int nworkers;
	pthread_t super; /* the supervisor: slow marks, abandon, deadline */
	int super_started;
	pthread_cond_t super_cv;
	int lanes, max_loads; /* see struct reg_limits (max_loads: lanes + spare) */
	int64_t small_bytes;  /* 0: no loader kept for small files */
	int64_t slow_ns, abandon_ns, deadline_ns; /* deadline_ns 0: none */
	int stop;				  /* (mu) */
	_Atomic int halt;  /* set first thing on release: a snapshot being written stops */
	size_t max_loaded; /* READY entries kept in memory */
	size_t max_bytes;  /* and the memory they may hold (half the RAM) */
	uint64_t clock;	   /* (mu) for last_used */
	int quiet;
	int no_snapshots; /* reg_limits.no_snapshots */

	struct fs_root root;	 /* the logdir held open: every file is read beneath it */
	uint64_t skipped_sig;	 /* (mu) of the skipped files in runs_json */
	int64_t live_idle_ns;	 /* see reg_limits.live_idle_s; 0: nothing is live */
	int64_t live_refresh_ns; /* a follow's refreshes at most this often (LIVE_REFRESH_NS) */
	size_t nfollows;	 /* (mu) struct reg_live open */
	/* the input limits (max_*) of every load, set before serving */
	struct kineto_opts limits;
	/* (mu) called, with mu not held, each time a load settles for a
	 * waiting request (reg_settled): its trace index published, or the
	 * load over, ready or failed; NULL: nobody listens. Set by the
	 * server's long polls (hold.h), which must outlive the loaders. */
	void (*on_settle)(void *arg);
	void *on_settle_arg;
};

/* Scans logdir (which must be a directory), with analysis caches under
 * cache_dir (NULL: beside each run, see cache.h) and starts the loaders
 * (lim: NULL or zeros for the defaults). NNS_OK, NNS_ENOTFOUND, NNS_EIO or
 * NNS_ENOMEM. */
int reg_init(struct registry *r, const char *logdir, const char *cache_dir,
	     const struct reg_limits *lim, struct nns_err *err);
/* Cancels the loads under way, stops the loaders and frees everything. */
void reg_release(struct registry *r);

/* Walks the logdir again when the last walk is older than 2 s (and no
 * other is under way): 1 when it walked. */
int reg_rescan_if_stale(struct registry *r);
/* The /api/runs document (rescanning first when the last scan is older
 * than 2 s). Returns a malloc'd copy in *out (caller frees), or NULL on
 * allocation failure. */
char *reg_runs_json(struct registry *r, size_t *len);

/* Sets r's on_settle hook (NULL: none). */
void reg_on_settle(struct registry *r, void (*fn)(void *arg), void *arg);
/* Calls r's on_settle hook, if any; caller does not hold mu. */
void reg_settle_notify(struct registry *r);

/* The entry of (run, worker, span) — span NULL or "" for none — or NULL. */
struct reg_entry *reg_find(struct registry *r, const char *run, const char *worker,
			   const char *span);
/* The entry of base's view `view` (a canonical msprof timeline view,
 * ms_timeline.h), made on first use; loaded, held and evicted like any
 * entry. NULL when out of memory or when REG_MAX_VARIANTS exist. */
#define REG_MAX_VARIANTS 256
struct reg_entry *reg_variant(struct registry *r, struct reg_entry *base, const char *view);
/* Snapshot slot `slot` (0 or 1) of live entry base, made on first use
 * (a variant loaded as the plain file, not counted in REG_MAX_VARIANTS);
 * caller holds mu. NULL when out of memory. */
struct reg_entry *reg_snapshot_locked(struct registry *r, struct reg_entry *base, int slot);
/* Queues IDLE entry e for loading (as a request would); caller holds mu. */
void reg_queue_locked(struct registry *r, struct reg_entry *e, int64_t now);
/* Frees what READY entry e holds and makes it IDLE, when nobody holds it;
 * caller holds mu. */
void reg_unload_locked(struct registry *r, struct reg_entry *e);

/* The entries of run with span name span ("" or NULL: none), into out
 * (up to max); returns how many. */
size_t reg_find_group(struct registry *r, const char *run, const char *span, struct reg_entry **out,
		      size_t max);

/* Progress of an entry that is not ready. */
struct reg_progress {
	int state, phase;
	double progress; /* 0..1 */
	char err[NNS_ERR_MSG_MAX];
	int err_code;	    /* REG_FAILED: NNS_E* (NNS_ENOMEM: out of memory) */
	int timed_out;	    /* REG_FAILED: by the load deadline */
	char file[512];	    /* the trace file, relative to the logdir ("" if unknown) */
	int64_t size;	    /* its size in bytes */
	int64_t bytes_read; /* of it, so far (compressed bytes for a .gz) */
	int64_t elapsed_ms; /* since its load started (queued: since it was queued) */
	int64_t nevents;    /* events parsed (after parsing) */
	int slow;	    /* loading for longer than the slow threshold */
	char cause[384];    /* why it takes long, when known ("" if not) */
};

/* What a request reads of an entry, and so how early it may take it:
 * everything (READY); m and ix, the trace endpoints (also while the loader
 * goes on once the trace index is published); m, ix and p's base passes,
 * the views (also once those passes have run, before the other passes and
 * the cache). */
enum reg_need { REG_NEED_ALL = 0, REG_NEED_TRACE, REG_NEED_VIEW };

/* If e is READY, takes a reference (release with reg_put) and returns
 * REG_READY. A live entry is not loaded: REG_LIVE (pr->err says why).
 * Otherwise queues it for loading when IDLE and returns its state with the
 * progress in *pr (REG_FAILED: pr->err says why). */
int reg_acquire(struct registry *r, struct reg_entry *e, struct reg_progress *pr);
/* The same for a request that needs less (enum reg_need): also takes a
 * WORKING entry that has what it reads. */
int reg_acquire_for(struct registry *r, struct reg_entry *e, struct reg_progress *pr, int need);
void reg_put(struct registry *r, struct reg_entry *e);
/* Makes sure the profile of e (held: READY, reg_acquire) has every pass its
 * documents read: at once for a trace parsed here, on first call for one
 * mapped from its snapshot (whose documents are cached; diffs, clusters
 * and views not in the cache come here). NNS_OK or the first pass's
 * failure. */
int reg_profile(struct reg_entry *e, struct nns_err *err);
/* The same for the passes every view's writer reads (AN_PASSES_BASE; an
 * HTA writer runs its own), on the caller's thread: nothing to run for e
 * held with REG_NEED_VIEW while the loader goes on; for one mapped from
 * its snapshot, what a view not in the cache needs. NNS_OK or the first
 * pass's failure. */
int reg_profile_base(struct reg_entry *e, struct nns_err *err);
/* e's state (enum reg_state), read under the lock. */
int reg_state(struct registry *r, struct reg_entry *e);
/* 1 when e is neither queued nor loading (ready, failed, stopped), or
 * when it has what need (enum reg_need) reads; read under the lock. */
int reg_settled(struct registry *r, struct reg_entry *e, int need);

/* Reads <view>.json of e from the disk cache when the cache is valid for
 * the current file. Returns a malloc'd buffer (caller frees) or NULL. */
char *reg_cached_view(struct registry *r, struct reg_entry *e, const char *view, size_t *len);

/* The loads queued or under way, under way first (up to max, into
 * out); returns how many. */
size_t reg_loads(struct registry *r, struct reg_progress *out, size_t max);
/* Whether a is the one to show rather than b, of a group that waits for
 * both: a slow load first, then the least advanced. */
int reg_progress_worse(const struct reg_progress *a, const struct reg_progress *b);

/* Phase names for the progress answer. */
const char *reg_phase_name(int phase);

#endif
