/*
 * kineto_gzpar.c - parsing one large gzip input with several threads
 * while it is inflated (issue 21: .json.gz ingest was one parsing thread
 * fed by one inflating thread).
 *
 * A thread inflates the input into a ring of blocks (kineto_ring.c). The
 * inflated stream is cut every `chunk` bytes at a plausible element start
 * (kpar_find_sync, as kineto_parallel.c cuts a plain file): chunk j starts
 * at sync(j), sync(0) = 0. Chunk j belongs to worker j % nthreads when
 * that is not 0: the worker parses it speculatively into its own model,
 * sorts it, and keeps the result (up to KGZ_SLOTS results per worker).
 * The calling thread parses the other chunks with the real context and
 * joins the workers' chunks in input order, exactly as kpar_run does: a
 * chunk is accepted only if the parser before it stopped right at its
 * start, between two traceEvents elements; otherwise (or if the chunk
 * failed: damage, a read past its horizon, cancel) the calling thread
 * parses on serially from where it stopped, so the result is that of a
 * serial parse, event for event, and a corrupt or cut stream is reported
 * where the serial parse reports it.
 *
 * The calling thread parses each stretch into a scratch model, sorts it
 * and merges it into the caller's model, then merges the next accepted
 * chunk: the model grows by sorted merges in input order, which
 * model_finalize then does not redo.
 *
 * Memory: the ring keeps the inflated bytes from the calling thread's
 * window to the furthest worker, a worker reads at most one chunk past
 * its own (its horizon), and results wait at most KGZ_SLOTS per worker:
 * a few chunks in all, whatever the input size.
 */
#include "kineto_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KGZ_SLOTS 2

enum { CH_FREE = 0, CH_RUN, CH_DONE, CH_SKIP, CH_DROP, CH_TAKEN };

struct kres { /* one chunk a worker parsed */
	int state;
	int64_t j;
	int rc, inited;
	struct kparser ps;
	struct model m;
};

struct kgzpar;

struct kgzw {
	struct kgzpar *run;
	int id; /* 1 .. nt-1; slots 2*id (reader), 2*id+1 (probe) */
	struct ksrc src, probe;
	char *buf; /* KPAR_PROBE bytes */
	struct kres res[KGZ_SLOTS];
	int64_t taken; /* the calling thread is past this worker's seq < taken */
	int exited, started;
	pthread_t th;
};

struct kgzpar {
	struct kring *ring;
	int nt, stop;
	int64_t chunk;
	struct kparser *ps; /* the calling thread's: name, window, progress, limits */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int64_t *sync; /* sync[j], -1 unknown */
	uint8_t *real; /* sync[j] is an element start (else j*chunk) */
	size_t nsync;
	struct kgzw w[KP_THREADS_MAX];
};

/* ---- chunk starts ---------------------------------------------------------- */

static int64_t sync_known(struct kgzpar *g, int64_t j, int *real)
{
	int64_t v = -1;

	pthread_mutex_lock(&g->mu);
	if ((size_t)j < g->nsync) {
		v = g->sync[j];
		*real = g->real[j];
	}
	pthread_mutex_unlock(&g->mu);
	return v;
}

/* The start of chunk j: INT64_MAX when the stream ends before it. Found
 * once (through the caller's probe reader) and remembered. */
static int64_t sync_of(struct kgzpar *g, int64_t j, struct ksrc *probe, char *buf, int *real)
{
	int64_t v, off = j * g->chunk;
	int r = 0;

	*real = 1;
	if (j == 0)
		return 0;
	if ((v = sync_known(g, j, real)) >= 0)
		return v;
	if (kring_ended_before(g->ring, off)) {
		v = INT64_MAX;
	} else {
		probe->pos = probe->hold = off;
		v = kpar_find_sync(probe, off, INT64_MAX, g->chunk / 2, buf);
		kring_idle(g->ring, probe->slot);
		r = v >= 0;
		if (v < 0)
			v = off;
	}
	pthread_mutex_lock(&g->mu);
	if ((size_t)j >= g->nsync) {
		size_t n = g->nsync ? g->nsync : 64, i;
		int64_t *s;
		uint8_t *rv;
		while (n <= (size_t)j)
			n *= 2;
		s = realloc(g->sync, n * sizeof(*s));
		if (s)
			g->sync = s;
		rv = s ? realloc(g->real, n) : NULL;
		if (rv) {
			g->real = rv;
			for (i = g->nsync; i < n; i++)
				g->sync[i] = -1;
			g->nsync = n;
		}
	}
	if ((size_t)j < g->nsync) {
		if (g->sync[j] < 0) {
			g->sync[j] = v;
			g->real[j] = (uint8_t)r;
		}
		v = g->sync[j];
		r = g->real[j];
	}
	pthread_mutex_unlock(&g->mu);
	*real = r;
	return v;
}

/* ---- workers ----------------------------------------------------------------- */

static void res_free(struct kres *r)
{
	if (r->inited) {
		kp_release(&r->ps);
		model_release(&r->m);
		r->inited = 0;
	}
}

/* Parses chunk j into r (no lock held). */
static void parse_chunk(struct kgzw *w, struct kres *r, int64_t s0, int64_t s1)
{
	struct kgzpar *g = w->run;

	if (model_init(&r->m)) {
		r->rc = KR_ERR;
		return;
	}
	if (kp_init(&r->ps, &r->m, &w->src, g->ps->name, g->ps->cap, g->ps->prog)) {
		model_release(&r->m);
		r->rc = KR_ERR;
		return;
	}
	r->inited = 1;
	r->ps.lim = g->ps->lim;
	kring_reader(g->ring, &w->src, 2 * w->id, s0, g->ps->name);
	w->src.horizon = s1 == INT64_MAX ? INT64_MAX : s1 + g->chunk;
	kp_reset_at(&r->ps, s0, KS_EV_ELEM);
	r->ps.limit = s1;
	r->ps.speculative = 1;
	r->rc = kp_run(&r->ps);
	if (r->rc != KR_ERR)
		(void)model_sort_events(&r->m); /* while the calling thread parses */
}

/* What chunk i's parser published to the shared budget leaves it: its rows
 * are now counted in the caller's model (or dropped). */
static void unpublish(struct kgzpar *g, struct kres *r)
{
	struct klimits *l = g->ps->lim;

	if (!l || !r->inited)
		return;
	atomic_fetch_sub(&l->cost, r->ps.cost_pub);
	atomic_fetch_sub(&l->events, r->ps.events_pub);
	atomic_fetch_sub(&l->json, r->ps.json_pub);
	r->ps.cost_pub = r->ps.events_pub = r->ps.json_pub = 0; /* once */
}

static void *worker(void *arg)
{
	struct kgzw *w = arg;
	struct kgzpar *g = w->run;
	int64_t seq;

	for (seq = 0;; seq++) {
		int64_t j = w->id + seq * g->nt, s0, s1;
		struct kres *r = &w->res[seq % KGZ_SLOTS];
		int real, real1, drop, stop;

		pthread_mutex_lock(&g->mu);
		while (r->state != CH_FREE && !g->stop) {
			if (r->state == CH_TAKEN) { /* joined: free it here, not there */
				pthread_mutex_unlock(&g->mu);
				res_free(r);
				pthread_mutex_lock(&g->mu);
				r->state = CH_FREE;
				continue;
			}
			pthread_cond_wait(&g->cv, &g->mu);
		}
		stop = g->stop;
		drop = seq < w->taken;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			break;
		if (drop)
			continue; /* the calling thread is already past it */
		s0 = sync_of(g, j, &w->probe, w->buf, &real);
		if (s0 == INT64_MAX)
			break;
		s1 = sync_of(g, j + 1, &w->probe, w->buf, &real1);
		pthread_mutex_lock(&g->mu);
		drop = seq < w->taken;
		if (!drop) {
			r->j = j;
			r->state = real ? CH_RUN : CH_SKIP;
		}
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (drop || !real)
			continue;
		parse_chunk(w, r, s0, s1);
		pthread_mutex_lock(&g->mu);
		drop = r->state == CH_DROP || seq < w->taken;
		if (!drop)
			r->state = CH_DONE;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (drop) {
			unpublish(g, r);
			res_free(r);
			pthread_mutex_lock(&g->mu);
			r->state = CH_FREE;
			pthread_mutex_unlock(&g->mu);
		}
	}
	kring_idle(g->ring, 2 * w->id);
	pthread_mutex_lock(&g->mu);
	w->exited = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* ---- the calling thread ------------------------------------------------------ */

static int64_t next_wchunk(const struct kgzpar *g, int64_t i)
{
	i++;
	return i % g->nt ? i : i + 1;
}

/* Chunk i's result, once its worker is done with it; NULL if there is
 * none (skipped, or the worker stopped). With `drop`, the calling thread
 * passed it: a result is freed, a chunk still running is left for its
 * worker to free. The worker's next chunks may then start. */
static struct kres *take(struct kgzpar *g, int64_t i, int drop)
{
	struct kgzw *w = &g->w[i % g->nt];
	int64_t seq = i / g->nt;
	struct kres *r = &w->res[seq % KGZ_SLOTS];

	pthread_mutex_lock(&g->mu);
	if (!drop)
		while (!(r->j == i && (r->state == CH_DONE || r->state == CH_SKIP)) && !w->exited)
			pthread_cond_wait(&g->cv, &g->mu);
	if (w->taken < seq + 1)
		w->taken = seq + 1;
	if (r->j != i || r->state == CH_FREE) {
		r = NULL;
	} else if (r->state == CH_RUN) {
		r->state = CH_DROP;
		r = NULL;
	} else if (r->state == CH_SKIP || drop) {
		pthread_mutex_unlock(&g->mu);
		unpublish(g, r);
		res_free(r);
		pthread_mutex_lock(&g->mu);
		r->state = CH_FREE;
		r = NULL;
	}
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return r;
}

static void give_back(struct kgzpar *g, struct kres *r)
{
	unpublish(g, r);
	pthread_mutex_lock(&g->mu);
	r->state = CH_TAKEN; /* its worker frees it */
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* The budget counts fin's rows with the calling thread's (check_budget). */
static void count_fin(struct kparser *ps, const struct model *fin)
{
	ps->cost_more = (int64_t)model_mem_bytes(fin) + (int64_t)fin->events.n * KP_AFTER_EVENT;
	ps->events_more = (int64_t)fin->events.n;
}

/* The calling thread's stretch (in cur) sorted and merged into fin; cur
 * starts again empty. */
static int flush(struct kparser *ps, struct model *fin, struct model *cur)
{
	int rc;

	(void)model_sort_events(cur);
	rc = kpar_merge(fin, cur);
	model_release(cur);
	if (model_init(cur))
		rc = NNS_ENOMEM;
	ps->m = cur;
	ps->tc_n = ps->tc_next = 0; /* thread indices were cur's */
	count_fin(ps, fin);
	return rc;
}

static int fail_nomem(struct kparser *ps)
{
	ps->err_code = NNS_ENOMEM;
	ps->err_off = ps->base;
	strcpy(ps->err_msg, "out of memory while joining chunks");
	return KR_ERR;
}

/* The join loop: kpar_run's, over chunks found as the stream inflates. */
static int join(struct kgzpar *g, struct kparser *ps, struct model *fin, struct model *cur,
		struct ksrc *probe, char *buf)
{
	int64_t i = next_wchunk(g, 0), s;
	int real, r;

	ps->limit = sync_of(g, i, probe, buf, &real);
	r = kp_run(ps);
	while (r == KR_LIMIT || r == KR_ARRAY_END) {
		int64_t q = ps->stop_off;
		int stage = ps->stop_stage;
		struct kres *res;

		if (r == KR_ARRAY_END) {
			kpar_reposition(ps, q, stage, INT64_MAX);
			ps->total_bytes = q;
			r = kp_run(ps);
			break;
		}
		while ((s = sync_of(g, i, probe, buf, &real)) < q) {
			take(g, i, 1); /* started inside what is parsed already */
			i = next_wchunk(g, i);
		}
		res = (s == q && stage == KS_EV_ELEM && real) ? take(g, i, 0) : NULL;
		if (res) {
			if (res->rc == KR_LIMIT || res->rc == KR_ARRAY_END) {
				if (flush(ps, fin, cur)) {
					give_back(g, res);
					return fail_nomem(ps);
				}
				ps->m = fin;
				r = kpar_adopt(ps, &res->ps, res->rc);
				ps->m = cur;
				ps->tc_n = ps->tc_next = 0;
				count_fin(ps, fin);
				give_back(g, res);
				i = next_wchunk(g, i);
				continue;
			}
			give_back(g, res); /* it failed: parse it here, and see why */
		} else if (s == q) {
			take(g, i, 1);
		}
		if (s == q)
			i = next_wchunk(g, i);
		s = sync_of(g, i, probe, buf, &real);
		kpar_reposition(ps, q, stage, s);
		ps->total_bytes = q;
		r = kp_run(ps);
	}
	return r;
}

int kgzpar_run(struct kparser *ps, int nt, int64_t chunk)
{
	struct kgzpar g;
	struct ksrc *gz = ps->src, msrc, mprobe;
	struct model *fin = ps->m, cur;
	char *buf = NULL;
	int i, r;

	if (nt > KP_THREADS_MAX)
		nt = KP_THREADS_MAX;
	if (nt < 2 || chunk < 4096)
		return kp_run(ps);
	memset(&g, 0, sizeof(g));
	g.nt = nt;
	g.chunk = chunk;
	g.ps = ps;
	if (model_init(&cur))
		return kp_run(ps);
	buf = malloc(KPAR_PROBE * (size_t)nt);
	if (!buf || kring_open(&g.ring, gz, chunk * (KGZ_SLOTS * (nt - 1) + 2))) {
		free(buf);
		model_release(&cur);
		return kp_run(ps);
	}
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	kring_reader(g.ring, &msrc, 0, 0, ps->name);
	msrc.counts = 1;
	kring_reader(g.ring, &mprobe, 1, INT64_MAX, ps->name);
	for (i = 1; i < nt; i++) {
		struct kgzw *w = &g.w[i];
		w->run = &g;
		w->id = i;
		w->buf = buf + KPAR_PROBE * (size_t)i;
		kring_reader(g.ring, &w->src, 2 * i, INT64_MAX, ps->name);
		kring_reader(g.ring, &w->probe, 2 * i + 1, INT64_MAX, ps->name);
		if (pthread_create(&w->th, NULL, worker, w) == 0)
			w->started = 1;
		else
			w->exited = 1;
	}
	ps->src = &msrc;
	ps->m = &cur;
	ps->tc_n = ps->tc_next = 0;

	r = join(&g, ps, fin, &cur, &mprobe, buf);
	if (flush(ps, fin, &cur) && r != KR_ERR)
		r = fail_nomem(ps);
	ps->m = fin;
	ps->cost_more = ps->events_more = 0;

	pthread_mutex_lock(&g.mu);
	g.stop = 1;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	kring_stop(g.ring);
	for (i = 1; i < nt; i++) {
		int k;
		if (g.w[i].started)
			pthread_join(g.w[i].th, NULL);
		for (k = 0; k < KGZ_SLOTS; k++) {
			unpublish(&g, &g.w[i].res[k]);
			res_free(&g.w[i].res[k]);
		}
	}
	ps->src = gz;
	ps->src->consumed = msrc.consumed;
	kring_close(g.ring);
	pthread_mutex_destroy(&g.mu);
	pthread_cond_destroy(&g.cv);
	model_release(&cur);
	free(g.sync);
	free(g.real);
	free(buf);
	return r;
}
