/*
 * kineto_parallel.c - parsing one large plain JSON input with several
 * threads.
 *
 * The input is cut at n-1 byte offsets. From each offset a plausible
 * element start is searched: '}' ',' '{' '"' separated only by whitespace,
 * i.e. what lies between two traceEvents elements. Worker i parses,
 * speculatively, the elements starting in [sync[i], sync[i+1]) into its own
 * partial model; worker 0 (the calling thread) parses from the document
 * start with the real context and into the caller's model.
 *
 * Joining walks the chunks in input order. A chunk is accepted only if the
 * parser before it stopped exactly at its sync offset in the state
 * "between two traceEvents elements"; then its model is merged
 * (model_merge) and its stop state becomes the current one. Otherwise the
 * chunk is discarded (its start was inside a string or a nested value) and
 * the calling thread parses on serially from where the previous chunk
 * stopped, up to the next sync offset, where a later chunk may be accepted
 * again. The result is the same as a serial parse, event for event.
 *
 * Each thread sorts its chunk's events once it has parsed them
 * (model_sort_events), so that model_finalize only merges the sorted
 * chunks, in input order, which gives the order a whole sort would.
 */
#include "kineto_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE KPAR_PROBE
#define PROBE_MAX ((int64_t)8 << 20) /* search this far for a sync point */

struct kwork {
	struct kparser ps;
	struct model m;
	struct ksrc src;
	int rc, inited, started;
	pthread_t th;
};

/* Raw bytes at [off, off+cap) of the plain input. */
static size_t probe_read(const struct ksrc *proto, int64_t off, char *buf, size_t cap)
{
	struct ksrc s = *proto;
	struct nns_err e;
	size_t got = 0, n = 0;

	s.pos = off;
	while (n < cap) {
		if (ksrc_read(&s, buf + n, cap - n, &got, &e) || got == 0)
			break;
		n += got;
	}
	return n;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && kj_ws_tab[(unsigned char)*p])
		p++;
	return p;
}

/* The offset of the first '{' at or after `from` that follows "}," and is
 * followed by '"' (whitespace allowed between); -1 if none is found. */
int64_t kpar_find_sync(const struct ksrc *proto, int64_t from, int64_t size, int64_t max, char *buf)
{
	int64_t off = from;

	while (off < size && off - from < max) {
		size_t n = probe_read(proto, off, buf, PROBE);
		const char *p = buf, *e = buf + n;

		if (n == 0)
			break;
		while ((p = memchr(p, '}', (size_t)(e - p))) != NULL) {
			const char *q = skip_ws(p + 1, e), *brace;
			p++;
			if (q >= e || *q != ',')
				continue;
			q = skip_ws(q + 1, e);
			if (q >= e || *q != '{')
				continue;
			brace = q;
			q = skip_ws(q + 1, e);
			if (q < e && *q == '"')
				return off + (brace - buf);
		}
		if (n < PROBE)
			break;
		off += (int64_t)n - 256; /* overlap: a pattern may straddle */
	}
	return -1;
}

static void *work_main(void *arg)
{
	struct kwork *w = arg;

	w->rc = kp_run(&w->ps);
	(void)model_sort_events(&w->m); /* while the others parse; else finalize sorts */
	return NULL;
}

void kpar_reposition(struct kparser *ps, int64_t off, int stage, int64_t limit)
{
	ps->src->pos = off;
	kp_reset_at(ps, off, stage);
	ps->limit = limit;
	ps->speculative = 0;
}

/* model_merge() applied to whole-file metadata and diagnostics: the
 * earlier chunk's value wins, counters add up. Reapplied after the merge
 * so the result does not depend on how model_merge moved things (it may
 * adopt src wholesale when dst looks empty). */
static int merge_meta(struct model *dst, const struct model *before, const char *backend,
		      size_t backend_n, const struct model *src)
{
	struct model_diag d = before->diag;

	d.events_skipped += src->diag.events_skipped;
	d.bytes_read += src->diag.bytes_read;
	d.truncated |= src->diag.truncated;
	model_diag_add_cats(&d, &src->diag);
	if (!d.first_problem[0])
		memcpy(d.first_problem, src->diag.first_problem, sizeof(d.first_problem));
	d.notes += src->diag.notes;
	if (!d.first_note[0])
		memcpy(d.first_note, src->diag.first_note, sizeof(d.first_note));
	dst->diag = d;
	dst->schema_version =
	    before->schema_version >= 0 ? before->schema_version : src->schema_version;
	dst->base_time_ns = before->base_time_ns ? before->base_time_ns : src->base_time_ns;
	dst->is_lightning = before->is_lightning | src->is_lightning;
	dst->dist_rank = before->dist_rank >= 0 ? before->dist_rank : src->dist_rank;
	dst->dist_world_size =
	    before->dist_world_size >= 0 ? before->dist_world_size : src->dist_world_size;
	if (backend_n) {
		dst->dist_backend = model_intern(dst, backend, backend_n);
		if (dst->dist_backend == STRPOOL_NONE)
			return NNS_ENOMEM;
	}
	return NNS_OK;
}

int kpar_merge(struct model *dst, struct model *src)
{
	struct model before, s;
	const char *backend = model_str(dst, dst->dist_backend); /* pool bytes never move */
	size_t backend_n = strpool_len(&dst->strings, dst->dist_backend);
	struct nns_err e;
	int rc;

	memcpy(&before, dst, sizeof(before));
	memcpy(&s, src, sizeof(s));
	rc = model_merge(dst, src, &e);
	if (!rc)
		rc = merge_meta(dst, &before, backend, backend_n, &s);
	return rc;
}

/* Accepts chunk w after the parser stopped right at its start. */
int kpar_adopt(struct kparser *ps, struct kparser *wps, int wrc)
{
	int rc = kpar_merge(ps->m, wps->m);

	if (!rc)
		rc = kbe_adopt(ps, wps);
	if (rc) {
		ps->err_code = rc;
		ps->err_off = wps->base;
		snprintf(ps->err_msg, sizeof(ps->err_msg), "out of memory while joining chunks");
		return KR_ERR;
	}
	ps->elements += wps->elements;
	ps->non_objects += wps->non_objects;
	ps->seen_events = 1;
	if (wrc == KR_ERR) {
		ps->err_code = wps->err_code;
		ps->err_eof = wps->err_eof;
		ps->err_off = wps->err_off;
		memcpy(ps->err_msg, wps->err_msg, sizeof(ps->err_msg));
		return KR_ERR;
	}
	ps->stop = wrc;
	ps->stop_off = wps->stop_off;
	ps->stop_stage = wps->stop_stage;
	return wrc;
}

int kpar_run(struct kparser *ps, const struct ksrc *proto, int64_t size, int nt)
{
	int64_t sync[KP_THREADS_MAX + 1];
	struct kwork *w = NULL;
	char *probe = NULL;
	int n = 1, i, r;

	if (nt > KP_THREADS_MAX)
		nt = KP_THREADS_MAX;
	probe = malloc(PROBE);
	if (!probe)
		return kp_run(ps);
	sync[0] = 0;
	for (i = 1; i < nt; i++) {
		int64_t s = kpar_find_sync(proto, size / nt * i, size, PROBE_MAX, probe);
		if (s > sync[n - 1])
			sync[n++] = s;
	}
	free(probe);
	sync[n] = INT64_MAX;
	if (n == 1 || !(w = calloc((size_t)n, sizeof(*w))))
		return kp_run(ps);

	for (i = 1; i < n; i++) {
		w[i].src = *proto;
		w[i].src.pos = sync[i];
		w[i].src.consumed = 0;
		if (model_init(&w[i].m))
			continue;
		if (kp_init(&w[i].ps, &w[i].m, &w[i].src, ps->name, ps->cap, ps->prog)) {
			model_release(&w[i].m);
			continue;
		}
		w[i].inited = 1;
		w[i].ps.lim = ps->lim; /* one memory budget for all the parsers */
		kp_reset_at(&w[i].ps, sync[i], KS_EV_ELEM);
		w[i].ps.limit = sync[i + 1];
		w[i].ps.speculative = 1;
		w[i].ps.src = &w[i].src;
		if (pthread_create(&w[i].th, NULL, work_main, &w[i]) == 0)
			w[i].started = 1;
	}
	ps->limit = sync[1];
	r = kp_run(ps);
	(void)model_sort_events(ps->m);
	for (i = 1; i < n; i++)
		if (w[i].started)
			pthread_join(w[i].th, NULL);
	/* the chunks' rows now move into ps->m (or are dropped): from here on
	 * the budget counts them in ps's model, at its next refill */
	for (i = 1; ps->lim && i < n; i++) {
		atomic_fetch_sub(&ps->lim->cost, w[i].ps.cost_pub);
		atomic_fetch_sub(&ps->lim->events, w[i].ps.events_pub);
	}

	/* join in input order; i is the next chunk that may be accepted */
	i = 1;
	while (r == KR_LIMIT || r == KR_ARRAY_END) {
		int64_t q = ps->stop_off;
		int stage = ps->stop_stage;

		if (r == KR_ARRAY_END) {
			kpar_reposition(ps, q, stage, INT64_MAX);
			r = kp_run(ps);
			break;
		}
		while (i < n && sync[i] < q)
			i++; /* started inside something the chain already covers */
		if (i < n && sync[i] == q && stage == KS_EV_ELEM && w[i].started) {
			r = kpar_adopt(ps, &w[i].ps, w[i].rc);
			i++;
			continue;
		}
		/* misaligned (or the chunk could not run): parse on serially */
		if (i < n && sync[i] == q)
			i++;
		kpar_reposition(ps, q, stage, i < n ? sync[i] : INT64_MAX);
		r = kp_run(ps);
	}
	for (i = 1; i < n; i++) {
		if (w[i].inited) {
			kp_release(&w[i].ps);
			model_release(&w[i].m);
		}
	}
	free(w);
	return r;
}
