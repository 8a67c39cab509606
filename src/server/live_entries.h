/*
 * live_entries.h - the live entries of `nnscope serve` (docs/SERVER.md,
 * "Live runs"): a .nnst trace with no END chunk whose file grew within
 * the registry's live_idle_ns is live. A live entry is never loaded whole;
 * a request for one of its live documents (output/live_json.h) goes to its
 * struct reg_live: a live_follow, opened on first use, refreshed on
 * request at most once per LIVE_REFRESH_NS (registry.live_refresh_ns;
 * reading only the bytes
 * appended since), with a mutex of its own. Its Trace view answers from
 * snapshot entries (the file as it was, loaded the ordinary way), taken
 * again when the file grew and the last one is older than
 * LIVE_SNAPSHOT_NS. When the trace ends (END chunk, a damaged chunk, or
 * no growth for live_idle_ns) the entry becomes an ordinary one (the
 * normal load path and the disk cache take over); its follow still
 * answers /api/live (live false) until nobody asked for it for
 * LIVE_KEEP_NS, then it is closed, as are those of vanished files.
 *
 * Locking: registry.mu guards the entry's live fields, its reg_live
 * pointer and the users count; reg_live.mu guards the follow. The order is
 * reg_live.mu, then registry.mu (a refresh that finds the end updates the
 * entry); nothing waits for a reg_live.mu while holding registry.mu (a
 * follow is freed only when no request holds it).
 *
 * Ownership: the registry owns every struct reg_live (freed by
 * live_sweep_locked or live_free_all); a request holds one between
 * live_get and live_put.
 */
#ifndef NNS_SERVER_LIVE_ENTRIES_H
#define NNS_SERVER_LIVE_ENTRIES_H

#include "server/live_follow.h"
#include "server/registry.h"

#include <pthread.h>
#include <stdint.h>

/* a follow reads new bytes at most once a second */
#define LIVE_REFRESH_NS 1000000000LL
/* the Trace view's snapshot is taken again at most this often */
#define LIVE_SNAPSHOT_NS 3000000000LL
/* a follow nobody asked for this long is closed */
#define LIVE_KEEP_NS 60000000000LL
/* follows open at once */
#define LIVE_MAX_FOLLOWS 64

struct reg_live {
	pthread_mutex_t mu;	 /* guards f and refreshed_ns */
	struct live_follow *f;	 /* NULL until opened (live_get) */
	int64_t refreshed_ns;	 /* clock_mono_ns of its last refresh, 0 never */
	int64_t asked_ns;	 /* (registry.mu) when a request last used it */
	int users;		 /* (registry.mu) requests holding it */
	struct reg_entry *entry; /* the entry it follows */
};

/* 1 when path names a .nnst trace. */
int live_is_nnst(const char *path);

/* Whether the .nnst trace at path (size and mtime as stat'ed) is live:
 * no END chunk at its end and modified within idle_ns of now (CLOCK_REALTIME).
 * Reads at most the last 24 bytes. */
int live_probe(const struct fs_root *root, const char *path, int64_t size, int64_t mtime_ns,
	       int64_t idle_ns);

/* Sets e's live flag from a fresh probe during a rescan (caller holds mu):
 * an entry that stops being live becomes ordinary (its snapshots are
 * unloaded). */
void live_update_locked(struct registry *r, struct reg_entry *e, int live_now);
/* Closes the follows of entries that vanished, or that are not live and
 * nobody asked for for LIVE_KEEP_NS; caller holds mu. */
void live_sweep_locked(struct registry *r, int64_t now);
/* Frees every follow (reg_release). */
void live_free_all(struct registry *r);

/* 1 when e is live now. */
int live_entry_is_live(struct registry *r, struct reg_entry *e);

/* The follow of e, opened on first use, held until live_put, refreshed when
 * its last refresh is older than LIVE_REFRESH_NS; returned locked
 * (lv->mu): the caller writes its documents, then calls live_put. When the
 * refresh finds that the trace ended (or failed), e stops being live.
 * NULL with *status and err set: 404 not a .nnst, 503 too many follows or
 * out of memory, 422 the file cannot be opened. */
struct reg_live *live_get(struct registry *r, struct reg_entry *e, int *status,
			  struct nns_err *err);
/* Unlocks and releases lv. */
void live_put(struct registry *r, struct reg_live *lv);

/* The entry the Trace endpoints answer from for e: e itself when it is not
 * live, else its current snapshot (queued for loading when none is
 * ready; a newer one is queued when the file grew and the current one is
 * older than LIVE_SNAPSHOT_NS, and answers once loaded). NULL when out of
 * memory. */
struct reg_entry *live_trace_entry(struct registry *r, struct reg_entry *e);

/* When run has a live entry (span "" or NULL: those without a span; "*":
 * every span; *any_live then 1): every .nnst entry of run, live or ended,
 * up to max, in the registry's order (the order to lock them in), with
 * their follows held (each opened when needed), unlocked: lock each lv->mu
 * around its use (live_lock refreshes it), release each with
 * live_release. Returns how many (0 when no entry is live). The run's
 * live verdict and alerts (live_watch.h) collect its follows so. */
size_t live_collect(struct registry *r, const char *run, const char *span, struct reg_live **out,
		    size_t max, int *any_live);
/* The names of the runs that have a live entry now (malloc'd copies the
 * caller frees), up to max: how many. */
size_t live_runs(struct registry *r, char **out, size_t max);
/* Locks lv->mu and refreshes it as live_get does. */
void live_lock(struct registry *r, struct reg_live *lv);
/* Releases lv (taken by live_collect; not locked). */
void live_release(struct registry *r, struct reg_live *lv);

#endif
