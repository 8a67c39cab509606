/*
 * registry.c - the entries of `nnscope serve` (registry.h): one per trace
 * file the scan finds (scan.c), merged on each rescan; the /api/runs
 * document; the LRU of loaded entries; and the background workers that
 * run an entry's load (registry_load.c: load, analyse, cache, index),
 * with the supervisor that marks slow loads and cancels abandoned or
 * overdue ones (the scheduling rules are in registry.h). Live entries (a
 * .nnst being written) are handled by live_entries.c; the rescan sets
 * their flag.
 */
#include "server/registry.h"
#include "server/registry_int.h"
#include "common/clock.h"
#include "server/cache.h"
#include "server/live_entries.h"
#include "server/loads.h"
#include "server/scan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RESCAN_NS 2000000000LL
#define SUPER_TICK_MS 100

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

const char *reg_phase_name(int phase)
{
	static const char *const names[] = {"queued", "parsing", "analysing", "caching",
					    "indexing"};

	return phase >= 0 && phase <= PH_INDEXING ? names[phase] : "queued";
}

struct cache_key reg_key_of(const struct reg_entry *e)
{
	struct cache_key k = {e->path, e->size, e->mtime_ns};

	return k;
}

char *reg_cached_view(struct registry *r, struct reg_entry *e, const char *view, size_t *len)
{
	struct cache_key k = reg_key_of(e);

	(void)r;
	return cache_read_view(&e->cache_dir, &k, view, len);
}

/* ---- entries ---------------------------------------------------------------- */

static void entry_unload(struct reg_entry *e)
{
	if (e->ix)
		trace_index_free(e->ix);
	if (e->p) {
		an_profile_release(e->p);
		free(e->p);
	}
	if (e->m) {
		model_release(e->m);
		free(e->m);
	}
	e->ix = NULL;
	e->p = NULL;
	e->m = NULL;
	e->from_snapshot = 0;
	e->trace_early = 0;
	e->views_early = 0;
}

static void entry_free(struct reg_entry *e)
{
	entry_unload(e);
	for (size_t i = 0; i < e->host_info.n; i++)
		free(e->host_info.v[i]);
	vec_free(&e->host_info);
	free(e->run);
	free(e->worker);
	free(e->span);
	free(e->path);
	free(e->run_dir);
	free(e->variant);
	free(e);
}

void reg_unload_locked(struct registry *r, struct reg_entry *e)
{
	(void)r;
	if (e->state != REG_READY || e->refs)
		return;
	entry_unload(e);
	e->state = REG_IDLE;
}

struct reg_entry *reg_entry_by_path_locked(struct registry *r, const char *path)
{
	for (size_t i = 0; i < r->entries.n; i++)
		if (!r->entries.v[i]->replaced && !r->entries.v[i]->variant &&
		    strcmp(r->entries.v[i]->path, path) == 0)
			return r->entries.v[i];
	return NULL;
}

static struct reg_entry *entry_new(const struct registry *r, const struct run *run,
				   const struct run_worker *w, const struct run_span *s,
				   int64_t size, int64_t mtime_ns)
{
	struct reg_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->run = xstrdup(run->name);
	e->worker = xstrdup(w->name);
	e->span = xstrdup(s->name);
	e->path = xstrdup(s->path);
	e->run_dir = xstrdup(run->dir);
	e->size = size;
	e->mtime_ns = mtime_ns;
	e->run_workers = (int)run->workers.n;
	if (!e->run || !e->worker || !e->span || !e->path || !e->run_dir)
		goto fail;
	for (size_t i = 0; i < run->host_info.n; i++) {
		char *p = strdup(run->host_info.v[i]);

		if (!p || vec_push(&e->host_info, p)) {
			free(p);
			goto fail;
		}
	}
	cache_dir_of(&e->cache_dir, &r->root, run->dir, r->cache_dir, w->name, s->name);
	return e;
fail:
	entry_free(e);
	return NULL;
}

/* Merges a fresh discovery into the entries; caller holds mu. Entries
 * whose file changed are replaced (when nobody holds them) so that they
 * are analysed again. */
static void merge_locked(struct registry *r, const struct run_set *rs)
{
	int changed = 0;
	int64_t now = clock_mono_ns();

	for (size_t i = 0; i < r->entries.n; i++)
		r->entries.v[i]->gone = 1; /* until found again (never for replaced ones) */
	for (size_t i = 0; i < rs->runs.n; i++) {
		const struct run *run = &rs->runs.v[i];

		for (size_t j = 0; j < run->workers.n; j++) {
			const struct run_worker *w = &run->workers.v[j];

			for (size_t k = 0; k < w->spans.n; k++) {
				const struct run_span *s = &w->spans.v[k];
				struct reg_entry *e = reg_entry_by_path_locked(r, s->path);
				int64_t size, mt;
				int same_names;

				if (scan_stat(&r->root, s->path, &size, &mt) != 0)
					continue;
				same_names = e && !strcmp(e->run, run->name) &&
					     !strcmp(e->worker, w->name) &&
					     !strcmp(e->span, s->name ? s->name : "");
				if (e && same_names && e->live && e->state != REG_READY &&
				    e->state != REG_WORKING && e->state != REG_QUEUED) {
					/* a live trace grows: the same entry, nothing loaded */
					e->size = size;
					e->mtime_ns = mt;
				} else if (e &&
					   (e->size != size || e->mtime_ns != mt || !same_names)) {
					if (e->refs || e->state == REG_WORKING ||
					    e->state == REG_QUEUED) {
						e->gone = 0; /* retried at the next scan */
						continue;
					}
					/* replaced: a fresh entry takes its place; the old
					 * one stays allocated (a request may still hold a
					 * pointer from reg_find) but is unloaded and dead */
					e->replaced = 1;
					entry_unload(e);
					e->state = REG_FAILED;
					e->err_code = NNS_ENOTFOUND;
					snprintf(e->err, sizeof(e->err),
						 "%s changed while being served; reload the page",
						 e->path);
					e = NULL;
				}
				if (!e) {
					e = entry_new(r, run, w, s, size, mt);
					if (!e || vec_push(&r->entries, e)) {
						if (e)
							entry_free(e);
						continue;
					}
					changed = 1;
				}
				if (e->gone)
					e->gone = 0;
				live_update_locked(
				    r, e, live_probe(&r->root, s->path, size, mt, r->live_idle_ns));
			}
		}
	}
	for (size_t i = 0; i < r->entries.n; i++) {
		struct reg_entry *v = r->entries.v[i];

		if (v->variant) /* a view lives as long as its entry */
			v->gone = v->was_gone = v->parent->gone || v->parent->replaced;
	}
	for (size_t i = 0; i < r->entries.n; i++)
		if (r->entries.v[i]->variant)
			continue;
		else if (r->entries.v[i]->gone && !r->entries.v[i]->was_gone) {
			r->entries.v[i]->was_gone = 1;
			changed = 1;
		} else if (!r->entries.v[i]->gone) {
			r->entries.v[i]->was_gone = 0;
		}
	for (size_t i = 0; i < r->entries.n; i++) {
		struct reg_entry *e = r->entries.v[i];

		if (!e->variant && !e->gone && e->live != e->listed_live)
			changed = 1; /* became live or stopped being live */
	}
	if (changed || !r->runs_json || reg_skipped_sig(rs) != r->skipped_sig) {
		r->generation++;
		r->skipped_sig = reg_skipped_sig(rs);
		reg_runs_doc_locked(r, rs);
		for (size_t i = 0; i < r->entries.n; i++)
			r->entries.v[i]->listed_live = r->entries.v[i]->live;
	}
	live_sweep_locked(r, now);
}

/* Walks the logdir (without holding mu: a big tree must not stall the
 * requests), then merges what it found into the entries under mu. */
static void rescan(struct registry *r)
{
	struct run_set rs;

	scan_logdir(&rs, &r->root);
	pthread_mutex_lock(&r->mu);
	merge_locked(r, &rs);
	pthread_mutex_unlock(&r->mu);
	run_set_release(&rs);
}

int reg_rescan_if_stale(struct registry *r)
{
	int stale;

	pthread_mutex_lock(&r->mu);
	stale = !r->scanning && clock_mono_ns() - r->scanned_ns > RESCAN_NS;
	if (stale) {
		r->scanning = 1; /* one walk at a time; others answer the last list */
		r->scanned_ns = clock_mono_ns();
	}
	pthread_mutex_unlock(&r->mu);
	if (stale) {
		rescan(r);
		pthread_mutex_lock(&r->mu);
		r->scanning = 0;
		pthread_mutex_unlock(&r->mu);
	}
	return stale;
}

char *reg_runs_json(struct registry *r, size_t *len)
{
	char *copy = NULL;

	reg_rescan_if_stale(r);
	pthread_mutex_lock(&r->mu);
	if (r->runs_json && (copy = malloc(r->runs_json_len + 1)) != NULL) {
		memcpy(copy, r->runs_json, r->runs_json_len + 1);
		*len = r->runs_json_len;
	}
	pthread_mutex_unlock(&r->mu);
	return copy;
}

struct reg_entry *reg_find(struct registry *r, const char *run, const char *worker,
			   const char *span)
{
	struct reg_entry *found = NULL;

	if (!span)
		span = "";
	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->entries.n && !found; i++) {
		struct reg_entry *e = r->entries.v[i];

		if (!e->gone && !e->variant && strcmp(e->run, run) == 0 &&
		    strcmp(e->worker, worker) == 0 && strcmp(e->span, span) == 0)
			found = e;
	}
	pthread_mutex_unlock(&r->mu);
	return found;
}

size_t reg_find_group(struct registry *r, const char *run, const char *span, struct reg_entry **out,
		      size_t max)
{
	size_t n = 0;

	if (!span)
		span = "";
	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->entries.n && n < max; i++) {
		struct reg_entry *e = r->entries.v[i];

		if (!e->gone && !e->variant && strcmp(e->run, run) == 0 &&
		    strcmp(e->span, span) == 0)
			out[n++] = e;
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

/* A new variant entry of base (reg_variant, reg_snapshot_locked), in the
 * entries; caller holds mu. NULL when out of memory. */
static struct reg_entry *variant_new_locked(struct registry *r, struct reg_entry *base,
					    const char *view)
{
	struct reg_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->run = xstrdup(base->run);
	e->worker = xstrdup(base->worker);
	e->span = xstrdup(base->span);
	e->path = xstrdup(base->path);
	e->run_dir = xstrdup(base->run_dir);
	e->variant = xstrdup(view);
	e->parent = base;
	e->size = base->size;
	e->mtime_ns = base->mtime_ns;
	e->run_workers = base->run_workers;
	e->gone = base->gone; /* cache_dir stays zero: base "", none */
	if (!e->run || !e->worker || !e->span || !e->path || !e->run_dir || !e->variant ||
	    vec_push(&r->entries, e)) {
		entry_free(e);
		return NULL;
	}
	return e;
}

struct reg_entry *reg_variant(struct registry *r, struct reg_entry *base, const char *view)
{
	struct reg_entry *found = NULL, *e;
	size_t nv = 0;

	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->entries.n && !found; i++) {
		e = r->entries.v[i];
		if (!e->variant || e->snapshot) /* snapshots: two per live entry at most */
			continue;
		nv++;
		if (e->parent == base && strcmp(e->variant, view) == 0)
			found = e;
	}
	if (!found && nv < REG_MAX_VARIANTS)
		found = variant_new_locked(r, base, view);
	pthread_mutex_unlock(&r->mu);
	return found;
}

struct reg_entry *reg_snapshot_locked(struct registry *r, struct reg_entry *base, int slot)
{
	struct reg_entry *e = base->snap[slot & 1];

	if (!e && (e = variant_new_locked(r, base, slot ? "live-snapshot/1" : "live-snapshot/0"))) {
		e->snapshot = 1;
		base->snap[slot & 1] = e;
	}
	return e;
}

int reg_state(struct registry *r, struct reg_entry *e)
{
	int st;

	pthread_mutex_lock(&r->mu);
	st = e->state;
	pthread_mutex_unlock(&r->mu);
	return st;
}

/* e's state as a request that reads need (enum reg_need) sees it: a trace
 * endpoint takes an entry whose trace index is published as ready, a view
 * one whose base passes have run, their other analyses not yet done.
 * Caller holds mu. */
static int state_for_locked(const struct reg_entry *e, int need)
{
	if (e->state == REG_WORKING && ((need == REG_NEED_TRACE && e->trace_early) ||
					(need == REG_NEED_VIEW && e->views_early)))
		return REG_READY;
	return e->state;
}

void reg_on_settle(struct registry *r, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&r->mu);
	r->on_settle = fn;
	r->on_settle_arg = arg;
	pthread_mutex_unlock(&r->mu);
}

void reg_settle_notify(struct registry *r)
{
	void (*fn)(void *arg);
	void *arg;

	pthread_mutex_lock(&r->mu);
	fn = r->on_settle;
	arg = r->on_settle_arg;
	pthread_mutex_unlock(&r->mu);
	if (fn)
		fn(arg);
}

int reg_settled(struct registry *r, struct reg_entry *e, int need)
{
	int st;

	pthread_mutex_lock(&r->mu);
	st = state_for_locked(e, need);
	pthread_mutex_unlock(&r->mu);
	return st != REG_QUEUED && st != REG_WORKING;
}

void reg_queue_locked(struct registry *r, struct reg_entry *e, int64_t now)
{
	e->asked_ns = now; /* somebody still waits for it (the supervisor) */
	if (e->state == REG_IDLE && !r->stop && vec_push(&r->queue, e) == NNS_OK) {
		e->state = REG_QUEUED;
		e->phase = PH_QUEUED;
		e->queued_ns = now;
		pthread_cond_broadcast(&r->cv);
	}
}

int reg_acquire_for(struct registry *r, struct reg_entry *e, struct reg_progress *pr, int need)
{
	int64_t now = clock_mono_ns();
	int st;

	pthread_mutex_lock(&r->mu);
	if (e->live) {
		pthread_mutex_unlock(&r->mu);
		if (pr) {
			memset(pr, 0, sizeof(*pr));
			pr->state = REG_LIVE;
			snprintf(pr->err, sizeof(pr->err),
				 "%s is still being written: this view is available when the run "
				 "ends (while it runs: overview, operators, kernels, memory, cpu, "
				 "datapipe and the trace)",
				 e->path);
		}
		return REG_LIVE;
	}
	reg_queue_locked(r, e, now);
	st = state_for_locked(e, need);
	if (st == REG_READY) {
		e->refs++;
		e->last_used = ++r->clock;
	} else if (pr) {
		loads_progress_locked(r, e, now, pr);
	}
	pthread_mutex_unlock(&r->mu);
	return st;
}

int reg_acquire(struct registry *r, struct reg_entry *e, struct reg_progress *pr)
{
	return reg_acquire_for(r, e, pr, REG_NEED_ALL);
}

void reg_put(struct registry *r, struct reg_entry *e)
{
	pthread_mutex_lock(&r->mu);
	if (e->refs > 0)
		e->refs--;
	pthread_mutex_unlock(&r->mu);
}

/* What a loaded entry holds in memory, roughly (the arrays' capacities,
 * the strings and the index; the profile is small beside them). */
static size_t loaded_bytes(const struct reg_entry *e)
{
	const struct model *m = e->m;

	if (!m)
		return 0;
	return m->events.cap * sizeof(*m->events.v) + m->op_args.cap * sizeof(*m->op_args.v) +
	       m->dev_args.cap * sizeof(*m->dev_args.v) + m->mems.cap * sizeof(*m->mems.v) +
	       m->flows.cap * sizeof(*m->flows.v) + m->counters.cap * sizeof(*m->counters.v) +
	       m->events.n * sizeof(uint32_t) /* launch_of */ + m->strings.bytes +
	       m->strings.cap * 16 + (e->ix ? trace_index_bytes(e->ix) : 0);
}

/* Unloads the least recently used READY entries nobody holds while more
 * than max_loaded are in memory or together they hold more than
 * max_bytes; the most recently used one always stays. Caller holds mu. */
static void evict_locked(struct registry *r)
{
	for (;;) {
		struct reg_entry *lru = NULL, *mru = NULL;
		size_t loaded = 0, bytes = 0;

		for (size_t i = 0; i < r->entries.n; i++) {
			struct reg_entry *e = r->entries.v[i];

			if (e->state != REG_READY)
				continue;
			loaded++;
			bytes += e->bytes;
			if (!mru || e->last_used > mru->last_used)
				mru = e;
			if (e->refs == 0 && (!lru || e->last_used < lru->last_used))
				lru = e;
		}
		if ((loaded <= r->max_loaded && bytes <= r->max_bytes) || !lru || lru == mru)
			return;
		entry_unload(lru);
		lru->state = REG_IDLE;
	}
}

/* What loading e will take, roughly: its size, times 8 for a .gz. */
static int64_t work_of(const struct reg_entry *e)
{
	return loads_is_gz(e->path) ? e->size * 8 : e->size;
}

/* The entry a loader takes next, or NULL when none may start now; caller
 * holds mu. The queue is served smallest first. A small one starts on the
 * loader kept for small files when that one is free; any one starts on
 * the others while fewer than `lanes` of their loads are not slow and
 * fewer than max_loads run. *reserve says which. */
static struct reg_entry *pick_locked(const struct registry *r, int *reserve)
{
	struct reg_entry *best = NULL;
	int fast = 0, total = 0, reserve_busy = 0;

	for (size_t i = 0; i < r->queue.n; i++)
		if (!best || work_of(r->queue.v[i]) < work_of(best))
			best = r->queue.v[i];
	if (!best)
		return NULL;
	for (size_t i = 0; i < r->active.n; i++) {
		const struct reg_entry *a = r->active.v[i];

		if (a->reserved) {
			reserve_busy = 1;
			continue;
		}
		total++;
		fast += !a->slow;
	}
	*reserve = 0;
	if (fast < r->lanes && total < r->max_loads)
		return best;
	if (!reserve_busy && r->small_bytes > 0 && work_of(best) <= r->small_bytes) {
		*reserve = 1;
		return best;
	}
	return NULL;
}

static void remove_ptr(struct reg_entry **v, size_t *n, const struct reg_entry *e)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == e) {
			memmove(v + i, v + i + 1, (*n - i - 1) * sizeof(*v));
			(*n)--;
			return;
		}
}

/* The end of e's load (rc, err) under mu: READY, FAILED or, when it was
 * cancelled because nobody waits for it, IDLE again. */
static void finish_locked(struct registry *r, struct reg_entry *e, int rc, struct nns_err *err,
			  struct model *m, struct an_profile *p, struct trace_index *ix)
{
	int64_t now = clock_mono_ns();
	char a[32], b[32];

	remove_ptr(r->active.v, &r->active.n, e);
	e->slow = 0;
	if (rc == NNS_OK) {
		e->m = m;
		e->p = p;
		e->ix = ix;
		e->bytes = loaded_bytes(e);
		e->state = REG_READY;
		e->last_used = ++r->clock;
		evict_locked(r);
	} else if (e->cancel_why == RC_ABANDONED || e->cancel_why == RC_SHUTDOWN) {
		e->state = REG_IDLE; /* the next request starts it again */
		e->phase = PH_QUEUED;
		if (!r->quiet && e->cancel_why == RC_ABANDONED)
			fprintf(
			    stderr,
			    "nnscope serve: stopped loading %s after %.1f s: nobody asked for it "
			    "for %.0f s\n",
			    e->path, (double)(now - e->started_ns) / NS_PER_S,
			    (double)r->abandon_ns / NS_PER_S);
	} else if (e->cancel_why == RC_DEADLINE) {
		loads_bytes(a, sizeof(a), (double)atomic_load(&e->done_bytes));
		loads_bytes(b, sizeof(b), (double)e->size);
		e->state = REG_FAILED;
		e->err_code = NNS_EINVAL;
		e->timed_out = 1;
		snprintf(
		    e->err, sizeof(e->err),
		    "%s: loading took longer than %.0f s (--load-timeout) and was stopped while "
		    "%s (%s of %s read); raise --load-timeout for a trace this large",
		    e->path, (double)r->deadline_ns / NS_PER_S, reg_phase_name(e->phase), a, b);
		if (!r->quiet)
			fprintf(stderr, "nnscope serve: %s\n", e->err);
	} else {
		e->state = REG_FAILED;
		e->err_code = rc;
		snprintf(e->err, sizeof(e->err), "%s", err->msg[0] ? err->msg : nns_strerror(rc));
		if (!r->quiet)
			fprintf(stderr, "nnscope serve: %s\n", e->err);
	}
	atomic_store(&e->cancel, 0);
	e->cancel_why = RC_NONE;
	pthread_cond_broadcast(&r->cv); /* a loader may take the next one */
}

static void *worker_main(void *arg)
{
	struct registry *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct reg_entry *e = NULL;
		struct model *m = NULL;
		struct an_profile *p = NULL;
		struct trace_index *ix = NULL;
		struct nns_err err;
		int rc, reserve = 0;

		while (!r->stop && !(e = pick_locked(r, &reserve)))
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		remove_ptr(r->queue.v, &r->queue.n, e);
		if (vec_push(&r->active, e) != NNS_OK) {
			e->state = REG_FAILED;
			e->err_code = NNS_ENOMEM;
			snprintf(e->err, sizeof(e->err), "%s: out of memory", e->path);
			continue;
		}
		e->state = REG_WORKING;
		e->phase = PH_PARSING;
		e->reserved = reserve;
		e->started_ns = clock_mono_ns();
		e->nevents = 0;
		e->slow = 0;
		atomic_store(&e->done_bytes, 0);
		pthread_mutex_unlock(&r->mu);

		nns_err_clear(&err);
		rc = reg_load_entry(r, e, &m, &p, &ix, &err);
		if (!r->quiet && rc == NNS_OK)
			fprintf(stderr, "nnscope serve: loaded %s (%zu events%s)\n", e->path,
				m->events.n, e->from_snapshot ? ", from its snapshot" : "");

		pthread_mutex_lock(&r->mu);
		finish_locked(r, e, rc, &err, m, p, ix);
		if (rc == NNS_OK && !e->from_snapshot && !e->variant && !r->no_snapshots) {
			e->refs++; /* kept loaded while its snapshot is written */
			pthread_mutex_unlock(&r->mu);
			reg_settle_notify(r); /* the requests held for it (hold.h) */
			reg_save_snapshot(r, e);
			pthread_mutex_lock(&r->mu);
			e->refs--;
			evict_locked(r);
		} else {
			pthread_mutex_unlock(&r->mu);
			reg_settle_notify(r);
			pthread_mutex_lock(&r->mu);
		}
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Sets e's cancel flag for why; caller holds mu. */
static void cancel_locked(struct reg_entry *e, int why)
{
	if (e->cancel_why != RC_NONE)
		return;
	e->cancel_why = why;
	atomic_store(&e->cancel, 1);
}

/* One look at the loads: marks the slow ones (a loader may start another
 * beside them), cancels those past the deadline or that nobody asked for
 * lately, and drops queued entries nobody waits for. Caller holds mu. */
static void supervise_locked(struct registry *r)
{
	int64_t now = clock_mono_ns();
	int wake = 0;
	char a[32], b[32];

	for (size_t i = 0; i < r->active.n; i++) {
		struct reg_entry *e = r->active.v[i];

		if (!e->slow && now - e->started_ns >= r->slow_ns) {
			char why[384];

			e->slow = 1;
			wake = 1;
			loads_cause_locked(r, e, now, why, sizeof(why));
			loads_bytes(a, sizeof(a), (double)atomic_load(&e->done_bytes));
			loads_bytes(b, sizeof(b), (double)e->size);
			if (!r->quiet)
				fprintf(stderr,
					"nnscope serve: slow load: %s (%s, %s of %s read): %s\n",
					e->path, reg_phase_name(e->phase), a, b, why);
		}
		if (r->deadline_ns > 0 && now - e->started_ns > r->deadline_ns)
			cancel_locked(e, RC_DEADLINE);
		else if (r->abandon_ns > 0 && now - e->asked_ns > r->abandon_ns)
			cancel_locked(e, RC_ABANDONED);
	}
	for (size_t i = 0; i < r->queue.n;) {
		struct reg_entry *e = r->queue.v[i];

		if (r->abandon_ns > 0 && now - e->asked_ns > r->abandon_ns) {
			remove_ptr(r->queue.v, &r->queue.n, e);
			e->state = REG_IDLE;
			continue;
		}
		i++;
	}
	if (wake)
		pthread_cond_broadcast(&r->cv);
}

static void *super_main(void *arg)
{
	struct registry *r = arg;

	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		struct timespec until = clock_deadline(CLOCK_REALTIME, SUPER_TICK_MS);

		pthread_cond_timedwait(&r->super_cv, &r->mu, &until);
		if (!r->stop)
			supervise_locked(r);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static int64_t secs_ns(double s, double dflt)
{
	if (s == 0)
		s = dflt;
	return s < 0 ? 0 : (int64_t)(s * NS_PER_S);
}

int reg_init(struct registry *r, const char *logdir, const char *cache_dir,
	     const struct reg_limits *lim, struct nns_err *err)
{
	struct reg_limits l = {0};
	char real[PATH_MAX];
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = scan_check_logdir(logdir, real, err)) != NNS_OK)
		return rc;
	if (cache_dir) {
		if ((rc = cache_check_root(cache_dir, err)) != NNS_OK)
			return rc;
		if (!(r->cache_dir = strdup(cache_dir)))
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	r->logdir = strdup(logdir);
	r->logdir_real = strdup(real);
	if (!r->logdir || !r->logdir_real || (rc = fs_root_open(&r->root, logdir, err)) != NNS_OK) {
		free(r->cache_dir);
		free(r->logdir);
		free(r->logdir_real);
		return r->logdir && r->logdir_real ? rc
						   : nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	r->max_loaded = 8;
	{
		long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

		/* loaded traces may take half of the machine's memory */
		r->max_bytes =
		    pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize / 2 : (size_t)8 << 30;
	}
	if (lim)
		l = *lim;
	r->lanes = l.lanes > 0 ? l.lanes : 2;
	r->no_snapshots = l.no_snapshots;
	r->max_loads = r->lanes + (l.spare > 0 ? l.spare : l.spare < 0 ? 0 : 2);
	if (r->max_loads > REG_MAX_LOADERS - 1)
		r->max_loads = REG_MAX_LOADERS - 1;
	if (r->lanes > r->max_loads)
		r->lanes = r->max_loads;
	r->slow_ns = secs_ns(l.slow_s, 2);
	r->abandon_ns = secs_ns(l.abandon_s, 30);
	r->deadline_ns = secs_ns(l.deadline_s, 300);
	r->live_idle_ns = secs_ns(l.live_idle_s, 10);
	r->live_refresh_ns = LIVE_REFRESH_NS;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	pthread_cond_init(&r->super_cv, NULL);
	r->scanned_ns = clock_mono_ns();
	rescan(r);
	r->small_bytes = l.small_bytes > 0 ? l.small_bytes : l.small_bytes < 0 ? 0 : 32 << 20;
	for (int i = 0; i < r->max_loads + (r->small_bytes > 0); i++) {
		if (pthread_create(&r->workers[i], NULL, worker_main, r) != 0)
			break;
		r->nworkers++;
	}
	if (r->nworkers <= r->max_loads) {
		r->small_bytes = 0; /* no loader left for small files */
		r->max_loads = r->nworkers;
	}
	if (r->lanes > r->max_loads)
		r->lanes = r->max_loads;
	if (r->nworkers > 0 && pthread_create(&r->super, NULL, super_main, r) == 0)
		r->super_started = 1;
	if (!r->super_started) {
		reg_release(r);
		return nns_err_set(err, NNS_ENOMEM, "cannot start the loader threads");
	}
	return NNS_OK;
}

void reg_release(struct registry *r)
{
	atomic_store(&r->halt, 1);
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	for (size_t i = 0; i < r->active.n; i++) /* a load stops at its next read */
		cancel_locked(r->active.v[i], RC_SHUTDOWN);
	pthread_cond_broadcast(&r->cv);
	pthread_cond_broadcast(&r->super_cv);
	pthread_mutex_unlock(&r->mu);
	for (int i = 0; i < r->nworkers; i++)
		pthread_join(r->workers[i], NULL);
	if (r->super_started)
		pthread_join(r->super, NULL);
	live_free_all(r);
	for (size_t i = 0; i < r->entries.n; i++)
		entry_free(r->entries.v[i]);
	vec_free(&r->entries);
	vec_free(&r->queue);
	vec_free(&r->active);
	free(r->runs_json);
	free(r->logdir);
	free(r->logdir_real);
	free(r->cache_dir);
	fs_root_close(&r->root);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	pthread_cond_destroy(&r->super_cv);
	memset(r, 0, sizeof(*r));
}
