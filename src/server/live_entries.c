/*
 * live_entries.c - live entries of `nnscope serve` (live_entries.h): the
 * liveness probe of a .nnst file, the follows of live entries (opened on
 * request, refreshed at most once a second, closed when unused), the
 * entry's switch to an ordinary one when its trace ends, and the Trace
 * view's snapshots.
 */
#include "server/live_entries.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/le.h"
#include "format/nnst.h"
#include "server/scan.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int live_is_nnst(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && strcmp(path + n - 5, ".nnst") == 0;
}

int live_probe(const struct fs_root *root, const char *path, int64_t size, int64_t mtime_ns,
	       int64_t idle_ns)
{
	uint8_t b[sizeof(struct nnst_chunk_header)];
	int fd, ended = 0;

	if (idle_ns <= 0 || !live_is_nnst(path) || clock_real_ns() - mtime_ns > idle_ns)
		return 0;
	if (size >= (int64_t)(sizeof(struct nnst_header) + sizeof(b))) {
		if ((fd = fs_open_beneath(root, path, O_RDONLY, 0)) < 0)
			return 0;
		/* an END chunk is a bare header: magic, type, length 0 */
		ended = pread(fd, b, sizeof(b), (off_t)(size - (int64_t)sizeof(b))) ==
			    (ssize_t)sizeof(b) &&
			le32(b) == NNST_CHUNK_MAGIC && le32(b + 4) == NNST_CHUNK_END &&
			le32(b + 8) == 0;
		close(fd);
	}
	return !ended;
}

/* e stops being live (caller holds mu): the ordinary load path takes over;
 * its snapshots are unloaded (those held are evicted later), its follow
 * is kept for /api/live until nobody asks for it. */
static void end_live_locked(struct registry *r, struct reg_entry *e)
{
	e->live = 0;
	for (int i = 0; i < 2; i++)
		if (e->snap[i])
			reg_unload_locked(r, e->snap[i]);
	if (e->lv)
		e->lv->asked_ns = clock_mono_ns();
}

void live_update_locked(struct registry *r, struct reg_entry *e, int live_now)
{
	if (e->variant)
		return;
	if (e->live_done)
		live_now = 0;
	if (e->live && !live_now)
		end_live_locked(r, e);
	else if (!e->live && live_now && (e->state == REG_IDLE || e->state == REG_FAILED))
		e->live =
		    1; /* a loaded entry stays as it is: its file changed, a rescan replaces it */
}

static void lv_free(struct reg_live *lv)
{
	if (lv->f)
		live_follow_close(lv->f);
	pthread_mutex_destroy(&lv->mu);
	free(lv);
}

void live_sweep_locked(struct registry *r, int64_t now)
{
	for (size_t i = 0; i < r->entries.n; i++) {
		struct reg_entry *e = r->entries.v[i];
		struct reg_live *lv = e->lv;

		if (!lv || lv->users > 0)
			continue;
		if (e->gone || e->replaced || now - lv->asked_ns > LIVE_KEEP_NS) {
			e->lv = NULL;
			r->nfollows--;
			lv_free(lv);
		}
	}
}

void live_free_all(struct registry *r)
{
	for (size_t i = 0; i < r->entries.n; i++)
		if (r->entries.v[i]->lv) {
			lv_free(r->entries.v[i]->lv);
			r->entries.v[i]->lv = NULL;
		}
	r->nfollows = 0;
}

int live_entry_is_live(struct registry *r, struct reg_entry *e)
{
	int live;

	pthread_mutex_lock(&r->mu);
	live = e->live;
	pthread_mutex_unlock(&r->mu);
	return live;
}

/* e's follow, made when it has none, with a user counted; caller holds mu.
 * NULL when LIVE_MAX_FOLLOWS are open or out of memory. */
static struct reg_live *lv_hold_locked(struct registry *r, struct reg_entry *e, int64_t now)
{
	struct reg_live *lv = e->lv;

	if (!lv) {
		if (r->nfollows >= LIVE_MAX_FOLLOWS)
			live_sweep_locked(r, now);
		if (r->nfollows >= LIVE_MAX_FOLLOWS || !(lv = calloc(1, sizeof(*lv))))
			return NULL;
		pthread_mutex_init(&lv->mu, NULL);
		lv->entry = e;
		e->lv = lv;
		r->nfollows++;
	}
	lv->users++;
	lv->asked_ns = now;
	return lv;
}

/* Opens lv's follow when it has none, and reads what was appended when
 * its last refresh is older than LIVE_REFRESH_NS; when the trace is no
 * longer live (ended, failed, idle), its entry becomes ordinary. Caller
 * holds lv->mu (not registry.mu). NNS_OK, or the open's error. */
static int lv_refresh(struct registry *r, struct reg_live *lv, struct nns_err *err)
{
	struct reg_entry *e = lv->entry;
	int64_t now = clock_mono_ns(), size, mt;
	struct nns_err rerr;
	int rc, still;

	if (!lv->f) {
		if ((rc = live_follow_open(&lv->f, &r->root, e->path, err)) != NNS_OK) {
			lv->f = NULL;
			return rc;
		}
		lv->refreshed_ns = 0;
	}
	if (lv->refreshed_ns && now - lv->refreshed_ns < r->live_refresh_ns)
		return NNS_OK;
	nns_err_clear(&rerr);
	live_follow_refresh(lv->f, &rerr); /* a sticky error stays in f->err */
	lv->refreshed_ns = clock_mono_ns();
	still = live_follow_is_live(lv->f, r->live_idle_ns);
	pthread_mutex_lock(&r->mu);
	if (e->live && !still) {
		if (lv->f->failed)
			e->live_done = 1; /* damaged: not live again until the file changes */
		if (scan_stat(&r->root, e->path, &size, &mt) == 0) {
			e->size = size; /* the key of the disk cache of what it ended as */
			e->mtime_ns = mt;
		}
		end_live_locked(r, e);
		r->scanned_ns = 0; /* the next /api/runs rescans: the change is listed */
	}
	pthread_mutex_unlock(&r->mu);
	return NNS_OK;
}

struct reg_live *live_get(struct registry *r, struct reg_entry *e, int *status, struct nns_err *err)
{
	struct reg_live *lv;
	int rc;

	if (e->variant || !live_is_nnst(e->path)) {
		*status = 404;
		nns_err_set(err, NNS_EINVAL,
			    "%s is not a .nnst trace: live views are of nnscope's own traces",
			    e->path);
		return NULL;
	}
	pthread_mutex_lock(&r->mu);
	lv = lv_hold_locked(r, e, clock_mono_ns());
	pthread_mutex_unlock(&r->mu);
	if (!lv) {
		*status = 503;
		nns_err_set(err, NNS_ENOMEM,
			    "too many traces followed at once (%d) or out of memory",
			    LIVE_MAX_FOLLOWS);
		return NULL;
	}
	pthread_mutex_lock(&lv->mu);
	if ((rc = lv_refresh(r, lv, err)) != NNS_OK) {
		*status = rc == NNS_ENOMEM ? 503 : rc == NNS_ENOTFOUND ? 404 : 422;
		live_put(r, lv);
		return NULL;
	}
	return lv;
}

void live_release(struct registry *r, struct reg_live *lv)
{
	pthread_mutex_lock(&r->mu);
	if (lv->users > 0)
		lv->users--;
	lv->asked_ns = clock_mono_ns();
	pthread_mutex_unlock(&r->mu);
}

void live_put(struct registry *r, struct reg_live *lv)
{
	pthread_mutex_unlock(&lv->mu);
	live_release(r, lv);
}

void live_lock(struct registry *r, struct reg_live *lv)
{
	struct nns_err err;

	pthread_mutex_lock(&lv->mu);
	nns_err_clear(&err);
	lv_refresh(r, lv, &err); /* a follow that cannot be opened stays NULL */
}

size_t live_collect(struct registry *r, const char *run, const char *span, struct reg_live **out,
		    size_t max, int *any_live)
{
	int64_t now = clock_mono_ns();
	size_t n = 0;

	if (!span)
		span = "";
	*any_live = 0;
	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->entries.n; i++) {
		struct reg_entry *e = r->entries.v[i];

		if (!e->variant && !e->gone && !e->replaced && e->live && !strcmp(e->run, run) &&
		    (!strcmp(span, "*") || !strcmp(e->span, span)))
			*any_live = 1;
	}
	for (size_t i = 0; *any_live && i < r->entries.n && n < max; i++) {
		struct reg_entry *e = r->entries.v[i];
		struct reg_live *lv;

		if (e->variant || e->gone || e->replaced || strcmp(e->run, run) ||
		    (strcmp(span, "*") && strcmp(e->span, span)) || !live_is_nnst(e->path))
			continue;
		if ((lv = lv_hold_locked(r, e, now)) != NULL)
			out[n++] = lv;
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

size_t live_runs(struct registry *r, char **out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->entries.n && n < max; i++) {
		struct reg_entry *e = r->entries.v[i];
		int seen = 0;

		if (e->variant || e->gone || e->replaced || !e->live)
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(out[k], e->run) == 0;
		if (!seen && (out[n] = strdup(e->run)) != NULL)
			n++;
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

/* Whether snapshot s is to be loaded again for the file now size bytes
 * long: never loaded, evicted, or failed on a shorter file. */
static int snap_stale(const struct reg_entry *s, int64_t size)
{
	return s->state == REG_IDLE || (s->state == REG_FAILED && s->size != size);
}

/* Makes snapshot s (not queued, not loading) stand for the file as it is
 * now and queues it; caller holds mu. */
static void snap_take_locked(struct registry *r, struct reg_entry *s, int64_t size, int64_t mt,
			     int64_t now)
{
	if (s->state == REG_FAILED)
		s->state = REG_IDLE;
	reg_unload_locked(r, s);
	if (s->state != REG_IDLE)
		return; /* held: taken again later */
	s->size = size;
	s->mtime_ns = mt;
	reg_queue_locked(r, s, now);
}

struct reg_entry *live_trace_entry(struct registry *r, struct reg_entry *e)
{
	struct reg_entry *cur, *nx;
	int64_t now = clock_mono_ns(), size, mt;

	pthread_mutex_lock(&r->mu);
	if (!e->live) {
		pthread_mutex_unlock(&r->mu);
		return e;
	}
	if (scan_stat(&r->root, e->path, &size, &mt) != 0) {
		size = e->size;
		mt = e->mtime_ns;
	}
	if (!(cur = reg_snapshot_locked(r, e, e->snap_cur)))
		goto out;
	if (snap_stale(cur, size)) {
		snap_take_locked(r, cur, size, mt, now); /* the caller waits for it (202) */
		goto out;
	}
	if (cur->state != REG_READY || cur->size == size ||
	    now - cur->started_ns < LIVE_SNAPSHOT_NS)
		goto out;
	/* the file grew: a newer snapshot loads beside the one answering */
	if (!(nx = reg_snapshot_locked(r, e, !e->snap_cur)))
		goto out;
	if (nx->state == REG_READY && nx->size > cur->size) {
		e->snap_cur = !e->snap_cur; /* loaded: it answers from now on */
		reg_unload_locked(r, cur);
		cur = nx;
	} else if (nx->state == REG_QUEUED || nx->state == REG_WORKING) {
		nx->asked_ns = now;
	} else {
		snap_take_locked(r, nx, size, mt, now);
	}
out:
	pthread_mutex_unlock(&r->mu);
	return cur;
}
