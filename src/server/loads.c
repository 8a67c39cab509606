/*
 * loads.c - the progress details and causes of the loads of `nnscope
 * serve` (loads.h): the 202 answer's file, size, bytes read, elapsed time
 * and, for a slow load, why; /api/loads; the group answers' choice of the
 * load to show.
 */
#include "server/loads.h"
#include "common/clock.h"

#include <stdio.h>
#include <string.h>

/* 0..1 for the progress bar: parsing is 80 % of it, by the bytes read. */
static double progress_of(const struct reg_entry *e)
{
	double f;

	switch (e->phase) {
	case PH_PARSING:
		f = e->size > 0 ? (double)atomic_load(&e->done_bytes) / (double)e->size : 0;
		return 0.8 * (f > 1 ? 1 : f);
	case PH_ANALYSING:
		return 0.8;
	case PH_CACHING:
		return 0.88;
	case PH_INDEXING:
		return 0.92;
	default:
		return 0;
	}
}

/* The trace file of e relative to the logdir (e->path when outside). */
const char *loads_rel_path(const struct registry *r, const struct reg_entry *e)
{
	const char *roots[2] = {r->logdir, r->logdir_real};

	for (int i = 0; i < 2; i++) {
		size_t n = roots[i] ? strlen(roots[i]) : 0;

		while (n > 1 && roots[i][n - 1] == '/')
			n--;
		if (n && strncmp(e->path, roots[i], n) == 0 && e->path[n] == '/')
			return e->path + n + 1;
	}
	return e->path;
}

int loads_is_gz(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* "12.3 MB" (binary units, as the page writes them) */
void loads_bytes(char *b, size_t n, double v)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(b, n, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* Why e (queued or working) takes long, as far as the registry knows;
 * caller holds mu. Empty when there is nothing to say. */
void loads_cause_locked(const struct registry *r, const struct reg_entry *e, int64_t now, char *out,
			size_t n)
{
	char a[32], b[32], c[32];
	double secs = (double)(now - e->started_ns) / NS_PER_S;
	int64_t done = atomic_load(&e->done_bytes);
	size_t slow = 0;

	out[0] = 0;
	if (e->state == REG_QUEUED) {
		const char *slow_name = NULL;

		for (size_t i = 0; i < r->active.n; i++)
			if (r->active.v[i]->slow) {
				slow++;
				slow_name = loads_rel_path(r, r->active.v[i]);
			}
		snprintf(out, n, "waiting for a loader: %zu of %d busy%s%s%s, %zu queued in all",
			 r->active.n, r->nworkers, slow ? " (slow: " : "", slow ? slow_name : "",
			 slow > 1 ? " and others)"
			 : slow	  ? ")"
				  : "",
			 r->queue.n);
		return;
	}
	if (e->state != REG_WORKING)
		return;
	if (e->cancel_why == RC_DEADLINE || e->cancel_why == RC_ABANDONED) {
		snprintf(out, n, "being cancelled: %s",
			 e->cancel_why == RC_DEADLINE ? "it ran past the load deadline"
						      : "nobody is waiting for it any more");
		return;
	}
	if (!e->slow)
		return;
	switch (e->phase) {
	case PH_PARSING:
		loads_bytes(a, sizeof(a), (double)done);
		loads_bytes(b, sizeof(b), (double)e->size);
		loads_bytes(c, sizeof(c), secs > 0 ? (double)done / secs : 0);
		if (done == 0)
			snprintf(out, n,
				 "no progress reported yet after %.0f s (this format "
				 "reports none while it is read)",
				 secs);
		else if (loads_is_gz(e->path))
			snprintf(out, n,
				 "compressed file: %s of %s read in %.0f s (%s/s); what it "
				 "expands to is only known at its end%s",
				 a, b, secs, c,
				 secs > 0 && (double)done / secs < 2e6
				     ? " (it expands far more than a trace usually does: "
				       "mostly padding?)"
				     : "");
		else
			snprintf(out, n, "large file: %s of %s parsed in %.0f s (%s/s)", a, b, secs,
				 c);
		break;
	case PH_ANALYSING:
		snprintf(out, n, "analysing %lld events", (long long)e->nevents);
		break;
	case PH_CACHING:
		snprintf(out, n, "writing the disk cache of %lld events", (long long)e->nevents);
		break;
	case PH_INDEXING:
		snprintf(out, n, "indexing %lld events for the timeline", (long long)e->nevents);
		break;
	default:
		break;
	}
	if (r->active.n > 1) {
		size_t l = strlen(out);

		snprintf(out + l, n - l, "; %zu loads under way", r->active.n);
	}
}

/* The details of e's progress into pr; caller holds mu. */
void loads_progress_locked(const struct registry *r, struct reg_entry *e, int64_t now,
			   struct reg_progress *pr)
{
	memset(pr, 0, sizeof(*pr));
	pr->state = e->state;
	pr->phase = e->phase;
	pr->progress = progress_of(e);
	snprintf(pr->err, sizeof(pr->err), "%s", e->err);
	pr->err_code = e->err_code;
	pr->timed_out = e->timed_out;
	snprintf(pr->file, sizeof(pr->file), "%s", loads_rel_path(r, e));
	pr->size = e->size;
	pr->bytes_read = e->state == REG_WORKING ? atomic_load(&e->done_bytes) : 0;
	if (e->state == REG_WORKING)
		pr->elapsed_ms = (now - e->started_ns) / 1000000;
	else if (e->state == REG_QUEUED)
		pr->elapsed_ms = (now - e->queued_ns) / 1000000;
	pr->nevents = e->nevents;
	pr->slow = e->state == REG_WORKING && e->slow;
	loads_cause_locked(r, e, now, pr->cause, sizeof(pr->cause));
}

size_t reg_loads(struct registry *r, struct reg_progress *out, size_t max)
{
	int64_t now = clock_mono_ns();
	size_t n = 0;

	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->active.n && n < max; i++)
		loads_progress_locked(r, r->active.v[i], now, &out[n++]);
	for (size_t i = 0; i < r->queue.n && n < max; i++)
		loads_progress_locked(r, r->queue.v[i], now, &out[n++]);
	pthread_mutex_unlock(&r->mu);
	return n;
}

int reg_progress_worse(const struct reg_progress *a, const struct reg_progress *b)
{
	if (a->slow != b->slow)
		return a->slow;
	return a->progress < b->progress;
}
