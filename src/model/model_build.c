/*
 * model_build.c - joining partial models (parallel parsing) and finalizing
 * a model: sorting events and building the launch (correlation) index.
 */
#include "model.h"
#include "common/hmap.h"
#include "common/idmap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint32_t remap_str(const uint32_t *map, uint32_t id)
{
	return id == STRPOOL_NONE ? 0 : map[id];
}

/* dst holds nothing yet: take src's arrays instead of copying them. */
static int model_is_empty(const struct model *m)
{
	return m->strings.count <= 1 && m->threads.n == 0 && m->events.n == 0 &&
	       m->dev_args.n == 0 && m->op_args.n == 0 && m->mems.n == 0 && m->flows.n == 0 &&
	       m->counters.n == 0 && m->devices.n == 0 && m->queues.n == 0 && m->samples.n == 0 &&
	       m->instants.n == 0 && m->meta.n == 0 && m->host.n == 0 && !m->finalized;
}

/* dst is empty: it takes src's arrays (swapping the two models), and its
 * own metadata, since it came first, wins. src is left empty and valid. */
static void merge_take(struct model *dst, struct model *src)
{
	struct model old = *dst;

	*dst = *src;
	*src = old;
	if (old.schema_version >= 0)
		dst->schema_version = old.schema_version;
	if (old.base_time_ns)
		dst->base_time_ns = old.base_time_ns;
	dst->is_lightning |= old.is_lightning;
	if (old.dist_rank >= 0)
		dst->dist_rank = old.dist_rank;
	if (old.dist_world_size >= 0)
		dst->dist_world_size = old.dist_world_size;
	if (old.worker)
		dst->worker = old.worker;
	if (old.span)
		dst->span = old.span;
	/* string ids of an empty pool: only id 0 (""), so nothing else
	 * of old refers to a string */
	dst->diag.events_skipped += old.diag.events_skipped;
	dst->diag.bytes_read += old.diag.bytes_read;
	dst->diag.truncated |= old.diag.truncated;
	dst->diag.events_lost += old.diag.events_lost;
	dst->diag.ranges_closed += old.diag.ranges_closed;
	dst->diag.ranges_unmatched += old.diag.ranges_unmatched;
	model_diag_add_cats(&dst->diag, &old.diag);
	if (old.pid >= 0)
		dst->pid = old.pid;
	if (old.mono_offset_ns != MODEL_NONE)
		dst->mono_offset_ns = old.mono_offset_ns;
	if (old.diag.first_problem[0])
		memcpy(dst->diag.first_problem, old.diag.first_problem,
		       sizeof(dst->diag.first_problem));
	dst->diag.notes += old.diag.notes;
	if (old.diag.first_note[0])
		memcpy(dst->diag.first_note, old.diag.first_note, sizeof(dst->diag.first_note));
	src->diag.notes = 0;
	src->diag.first_note[0] = '\0';
	src->diag.events_skipped = src->diag.bytes_read = 0;
	src->diag.truncated = 0;
	src->diag.events_lost = src->diag.ranges_closed = src->diag.ranges_unmatched = 0;
	src->diag.first_problem[0] = '\0';
	memset(src->diag.unknown_cats, 0, sizeof(src->diag.unknown_cats));
	src->diag.unknown_cats_more = 0;
}

/* smap: src string id -> dst string id; tmap: src thread -> dst thread
 * (threads added to dst, with their names). */
static int merge_maps(struct model *dst, const struct model *src, uint32_t *smap, uint32_t *tmap)
{
	size_t i;

	for (i = 0; i < src->strings.count; i++) {
		smap[i] = model_intern(dst, strpool_get(&src->strings, (uint32_t)i),
				       strpool_len(&src->strings, (uint32_t)i));
		if (smap[i] == STRPOOL_NONE)
			return NNS_ENOMEM;
	}
	for (i = 0; i < src->threads.n; i++) {
		const struct model_thread *t = &src->threads.v[i];
		tmap[i] = model_thread(dst, smap[t->pid], smap[t->tid]);
		if (tmap[i] == MODEL_NOIDX)
			return NNS_ENOMEM;
		if (t->name)
			dst->threads.v[tmap[i]].name = smap[t->name];
	}
	return NNS_OK;
}

/* Room in dst for every row of src, so that the copies below cannot fail. */
static int merge_reserve(struct model *dst, const struct model *src)
{
	if (vec_reserve(&dst->events, dst->events.n + src->events.n) ||
	    vec_reserve(&dst->dev_args, dst->dev_args.n + src->dev_args.n) ||
	    vec_reserve(&dst->op_args, dst->op_args.n + src->op_args.n) ||
	    vec_reserve(&dst->mems, dst->mems.n + src->mems.n) ||
	    vec_reserve(&dst->flows, dst->flows.n + src->flows.n) ||
	    vec_reserve(&dst->counters, dst->counters.n + src->counters.n) ||
	    vec_reserve(&dst->devices, dst->devices.n + src->devices.n) ||
	    vec_reserve(&dst->queues, dst->queues.n + src->queues.n) ||
	    vec_reserve(&dst->samples, dst->samples.n + src->samples.n) ||
	    vec_reserve(&dst->instants, dst->instants.n + src->instants.n) ||
	    vec_reserve(&dst->meta, dst->meta.n + src->meta.n) ||
	    vec_reserve(&dst->host, dst->host.n + src->host.n) ||
	    dst->wide_ids.n + src->wide_ids.n >= MODEL_ID_WIDE - 1 ||
	    vec_reserve(&dst->wide_ids, dst->wide_ids.n + src->wide_ids.n))
		return NNS_ENOMEM;
	return NNS_OK;
}

static int ev_before(const struct model_event *a, const struct model_event *b);

/* Events copied from src to dst between two drops of src's copied pages
 * (vec_drop_pages): the join holds dst and what is left of src, not both
 * whole (4 MB of rows at a time). */
#define DROP_EVERY ((size_t)1 << 17)

/* An event id of src's after its wide ids were appended to dst's at wide0. */
static uint32_t remap_id(uint32_t enc, size_t wide0)
{
	return enc >= MODEL_ID_WIDE && enc != MODEL_ID_NONE ? enc + (uint32_t)wide0 : enc;
}

/* src's event e with its string, thread, argument row and id references
 * moved to dst's numbering. */
static void remap_event(struct model_event *e, const uint32_t *smap, const uint32_t *tmap,
			size_t dev0, size_t op0, size_t wide0)
{
	e->name = remap_str(smap, e->name);
	e->thread = tmap[e->thread];
	if (e->extra != MODEL_NOIDX)
		e->extra += (uint32_t)(model_kind_has_dev_args(e->kind) ? dev0 : op0);
	e->ext_id_enc = remap_id(e->ext_id_enc, wide0);
	e->corr_enc = remap_id(e->corr_enc, wide0);
}

/* A stretch of src's rows copied to dst's place for them, renumbered, the
 * pages of those already copied given back as it goes. */
struct copy_job {
	struct model_event *to, *from;
	size_t n;
	const uint32_t *smap, *tmap;
	size_t dev0, op0, wide0;
};

static void copy_rows(struct copy_job *c)
{
	size_t j, done = 0;

	for (j = 0; j < c->n; j++) {
		struct model_event e = c->from[j];
		remap_event(&e, c->smap, c->tmap, c->dev0, c->op0, c->wide0);
		c->to[j] = e;
		if (j + 1 - done >= DROP_EVERY) {
			vec_drop_pages(c->from + done, (j + 1 - done) * sizeof(*c->from));
			done = j + 1;
		}
	}
}

static void *copy_main(void *arg)
{
	copy_rows(arg);
	return NULL;
}

/* Rows of src at least, when it lies wholly after dst, for its copy to be
 * split in two halves on two threads (a join of parse chunks, each copied
 * row a fresh page of dst's to fault in). */
#define COPY_SPLIT_MIN ((size_t)1 << 20)

/* src's events appended to dst's (room reserved), src's ids remapped,
 * both sorted: the events of dst after src's first one are set aside and
 * merged back with src's (dst's first on ties: the input order), so only
 * where the two chunks overlap in time is anything moved twice. 0, or
 * NNS_ENOMEM with dst unchanged. */
static int merge_sorted(struct model *dst, struct model *src, const uint32_t *smap,
			const uint32_t *tmap, size_t dev0, size_t op0, size_t wide0)
{
	struct model_event *a = dst->events.v, *tail = NULL, e;
	struct model_event *b = src->events.v;
	size_t na = dst->events.n, nb = src->events.n, lo = 0, hi = na, i = 0, j, o, nt, done = 0;

	while (lo < hi) { /* the first of dst strictly after src's first */
		size_t mid = lo + (hi - lo) / 2;
		if (ev_before(&b[0], &a[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	nt = na - lo;
	if (!nt && nb >= COPY_SPLIT_MIN) {
		struct copy_job c[2] = {
		    {a + na, b, nb / 2, smap, tmap, dev0, op0, wide0},
		    {a + na + nb / 2, b + nb / 2, nb - nb / 2, smap, tmap, dev0, op0, wide0}};
		pthread_t th;
		int threaded = pthread_create(&th, NULL, copy_main, &c[1]) == 0;

		copy_rows(&c[0]);
		if (threaded)
			pthread_join(th, NULL);
		else
			copy_rows(&c[1]);
		dst->events.n = na + nb;
		dst->sorted_n = na + nb;
		return NNS_OK;
	}
	if (nt && !(tail = malloc(nt * sizeof(*tail))))
		return NNS_ENOMEM;
	if (nt)
		memcpy(tail, a + lo, nt * sizeof(*tail));
	for (j = 0, o = lo; j < nb; j++) {
		e = b[j];
		remap_event(&e, smap, tmap, dev0, op0, wide0);
		while (i < nt && !ev_before(&e, &tail[i]))
			a[o++] = tail[i++];
		a[o++] = e;
		if (j + 1 - done >= DROP_EVERY) { /* src's rows copied so far: freed */
			vec_drop_pages(b + done, (j + 1 - done) * sizeof(*b));
			done = j + 1;
		}
	}
	while (i < nt)
		a[o++] = tail[i++];
	free(tail);
	dst->events.n = na + nb;
	dst->sorted_n = na + nb;
	return NNS_OK;
}

/* Appends src's events and their argument rows, memory, flow and counter
 * rows to dst (room reserved), with string and thread ids remapped; the
 * events merged in order when both are sorted. */
/* Each of src's arrays is freed as soon as it is copied: the join's peak
 * is then dst plus one of src's arrays, not dst plus all of src. */
static void merge_events(struct model *dst, struct model *src, const uint32_t *smap,
			 const uint32_t *tmap)
{
	size_t i, dev0 = dst->dev_args.n, op0 = dst->op_args.n, wide0 = dst->wide_ids.n;
	/* two sorted chunks stay sorted (else finalize sorts them) */
	int sorted = dst->events.n && src->events.n && dst->sorted_n == dst->events.n &&
		     src->sorted_n == src->events.n &&
		     merge_sorted(dst, src, smap, tmap, dev0, op0, wide0) == NNS_OK;

	if (sorted)
		vec_free(&src->events);

	for (i = 0; i < src->dev_args.n; i++) {
		struct model_dev_args a = src->dev_args.v[i];
		a.grid = remap_str(smap, a.grid);
		a.block = remap_str(smap, a.block);
		dst->dev_args.v[dst->dev_args.n++] = a;
	}
	vec_free(&src->dev_args);
	for (i = 0; i < src->op_args.n; i++) {
		struct model_op_args a = src->op_args.v[i];
		a.input_dims = remap_str(smap, a.input_dims);
		a.input_type = remap_str(smap, a.input_type);
		a.call_stack = remap_str(smap, a.call_stack);
		dst->op_args.v[dst->op_args.n++] = a;
	}
	vec_free(&src->op_args);
	if (!sorted && src->events.n) {
		struct copy_job c = {dst->events.v + dst->events.n,
				     src->events.v,
				     src->events.n,
				     smap,
				     tmap,
				     dev0,
				     op0,
				     wide0};
		copy_rows(&c);
		dst->events.n += src->events.n;
	}
	vec_free(&src->events);
	if (src->wide_ids.n)
		memcpy(dst->wide_ids.v + wide0, src->wide_ids.v,
		       src->wide_ids.n * sizeof(*src->wide_ids.v));
	dst->wide_ids.n += src->wide_ids.n;
	vec_free(&src->wide_ids);
	src->sorted_n = 0;
	for (i = 0; i < src->mems.n; i++) {
		struct model_mem r = src->mems.v[i];
		r.thread = tmap[r.thread];
		dst->mems.v[dst->mems.n++] = r;
	}
	vec_free(&src->mems);
	for (i = 0; i < src->flows.n; i++) {
		struct model_flow f = src->flows.v[i];
		f.thread = tmap[f.thread];
		dst->flows.v[dst->flows.n++] = f;
	}
	vec_free(&src->flows);
	for (i = 0; i < src->counters.n; i++) {
		struct model_counter c = src->counters.v[i];
		c.thread = tmap[c.thread];
		c.name = remap_str(smap, c.name);
		dst->counters.v[dst->counters.n++] = c;
	}
}

/* Appends src's devices (those dst lacks), queues, samples, instants,
 * metadata and host rows to dst (room reserved), ids remapped. */
static void merge_others(struct model *dst, const struct model *src, const uint32_t *smap,
			 const uint32_t *tmap)
{
	size_t i;

	for (i = 0; i < src->devices.n; i++) {
		struct model_device d = src->devices.v[i];
		d.name = remap_str(smap, d.name);
		if (!model_device_by_id(dst, d.id))
			dst->devices.v[dst->devices.n++] = d;
	}
	for (i = 0; i < src->queues.n; i++) {
		struct model_queue q = src->queues.v[i];
		q.name = remap_str(smap, q.name);
		q.thread = tmap[q.thread];
		dst->queues.v[dst->queues.n++] = q;
	}
	for (i = 0; i < src->samples.n; i++) {
		struct model_sample x = src->samples.v[i];
		if (x.thread != MODEL_NOIDX)
			x.thread = tmap[x.thread];
		dst->samples.v[dst->samples.n++] = x;
	}
	for (i = 0; i < src->instants.n; i++) {
		struct model_instant x = src->instants.v[i];
		x.name = remap_str(smap, x.name);
		x.thread = tmap[x.thread];
		dst->instants.v[dst->instants.n++] = x;
	}
	for (i = 0; i < src->meta.n; i++) {
		struct model_meta kv = {remap_str(smap, src->meta.v[i].key),
					remap_str(smap, src->meta.v[i].value)};
		dst->meta.v[dst->meta.n++] = kv;
	}
	for (i = 0; i < src->host.n; i++) {
		struct model_host h = src->host.v[i];
		h.module = remap_str(smap, h.module);
		h.event = remap_str(smap, h.event);
		h.stage = remap_str(smap, h.stage);
		h.custom = remap_str(smap, h.custom);
		dst->host.v[dst->host.n++] = h;
	}
}

/* dst's metadata where it has none, and the diagnostics added up. */
static void merge_header(struct model *dst, const struct model *src, const uint32_t *smap)
{
	if (dst->pid < 0)
		dst->pid = src->pid;
	if (dst->mono_offset_ns == MODEL_NONE)
		dst->mono_offset_ns = src->mono_offset_ns;
	dst->diag.events_lost += src->diag.events_lost;
	dst->diag.ranges_closed += src->diag.ranges_closed;
	dst->diag.ranges_unmatched += src->diag.ranges_unmatched;
	if (dst->schema_version < 0)
		dst->schema_version = src->schema_version;
	if (!dst->base_time_ns)
		dst->base_time_ns = src->base_time_ns;
	dst->is_lightning |= src->is_lightning;
	if (dst->dist_rank < 0)
		dst->dist_rank = src->dist_rank;
	if (dst->dist_world_size < 0)
		dst->dist_world_size = src->dist_world_size;
	if (!dst->dist_backend)
		dst->dist_backend = remap_str(smap, src->dist_backend);
	dst->diag.events_skipped += src->diag.events_skipped;
	dst->diag.bytes_read += src->diag.bytes_read;
	dst->diag.truncated |= src->diag.truncated;
	model_diag_add_cats(&dst->diag, &src->diag);
	if (!dst->diag.first_problem[0] && src->diag.first_problem[0])
		memcpy(dst->diag.first_problem, src->diag.first_problem,
		       sizeof(dst->diag.first_problem));
	dst->diag.notes += src->diag.notes;
	if (!dst->diag.first_note[0] && src->diag.first_note[0])
		memcpy(dst->diag.first_note, src->diag.first_note, sizeof(dst->diag.first_note));
}

int model_merge(struct model *dst, struct model *src, struct nns_err *err)
{
	uint32_t *smap = NULL, *tmap = NULL;
	int rc = NNS_ENOMEM;

	if (model_is_empty(dst) && !src->finalized) {
		merge_take(dst, src);
		return NNS_OK;
	}
	smap = malloc((src->strings.count + 1) * sizeof(*smap));
	tmap = malloc((src->threads.n + 1) * sizeof(*tmap));
	if (!smap || !tmap || merge_maps(dst, src, smap, tmap) || merge_reserve(dst, src))
		goto out;
	merge_events(dst, src, smap, tmap);
	merge_others(dst, src, smap, tmap);
	merge_header(dst, src, smap);
	/* empty src but keep it valid */
	src->events.n = src->dev_args.n = src->op_args.n = 0;
	src->mems.n = src->flows.n = src->counters.n = src->devices.n = 0;
	src->queues.n = src->samples.n = src->instants.n = src->meta.n = src->host.n = 0;
	rc = NNS_OK;
out:
	free(smap);
	free(tmap);
	if (rc)
		nns_err_set(err, rc, "out of memory while joining parsed chunks");
	return rc;
}

/* ---- sorting ---------------------------------------------------------- */

struct sort_key {
	int64_t ts;
	int64_t negdur;
	uint32_t idx;
};

static int key_less(const struct sort_key *a, const struct sort_key *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->negdur != b->negdur)
		return a->negdur < b->negdur;
	return a->idx < b->idx;
}

/* Bottom-up merge sort; input that is already sorted costs one pass. */
static void merge_sort(struct sort_key *a, struct sort_key *tmp, size_t n)
{
	size_t width, i;
	struct sort_key *src = a, *dst = tmp;

	/* insertion-sort runs of 16 first */
	for (i = 0; i < n; i += 16) {
		size_t end = i + 16 < n ? i + 16 : n, j;
		for (j = i + 1; j < end; j++) {
			struct sort_key k = a[j];
			size_t p = j;
			while (p > i && key_less(&k, &a[p - 1])) {
				a[p] = a[p - 1];
				p--;
			}
			a[p] = k;
		}
	}
	for (width = 16; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t mid = i + width < n ? i + width : n;
			size_t hi = i + 2 * width < n ? i + 2 * width : n;
			size_t l = i, r = mid, o = i;
			if (mid >= hi || !key_less(&src[mid], &src[mid - 1])) {
				memcpy(dst + i, src + i, (hi - i) * sizeof(*src));
				continue;
			}
			while (l < mid && r < hi)
				dst[o++] = key_less(&src[r], &src[l]) ? src[r++] : src[l++];
			while (l < mid)
				dst[o++] = src[l++];
			while (r < hi)
				dst[o++] = src[r++];
		}
		struct sort_key *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* Applies the sorted order in place: position i receives the event that
 * was at keys[i].idx. Follows each cycle once; keys[].idx is consumed. */
static void permute(struct model_event *ev, struct sort_key *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t j = i;
		struct model_event t;
		if (keys[i].idx == UINT32_MAX || keys[i].idx == i)
			continue;
		t = ev[i];
		for (;;) {
			size_t from = keys[j].idx;
			keys[j].idx = UINT32_MAX;
			if (from == i) {
				ev[j] = t;
				break;
			}
			ev[j] = ev[from];
			j = from;
		}
	}
}

struct mem_key {
	int64_t ts;
	uint32_t idx;
};

static int mem_key_cmp(const void *x, const void *y)
{
	const struct mem_key *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Stable sort of memory records by time (input order on equal times). */
static int sort_mems(struct model *m)
{
	size_t n = m->mems.n, i;
	struct mem_key *k = malloc(n * sizeof(*k));
	struct model_mem *out = malloc(n * sizeof(*out));

	if (!k || !out) {
		free(k);
		free(out);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		k[i].ts = m->mems.v[i].ts;
		k[i].idx = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), mem_key_cmp);
	for (i = 0; i < n; i++)
		out[i] = m->mems.v[k[i].idx];
	free(k);
	free(m->mems.v);
	m->mems.v = out;
	m->mems.cap = n;
	return 0;
}

/* Stable sort by time of rows whose first member is an int64_t ts (queues,
 * samples, instants); a no-op when already sorted. */
static int sort_rows_by_ts(void **rows, size_t *cap, size_t n, size_t size)
{
	char *v = *rows, *out;
	struct mem_key *k;
	size_t i;
	int sorted = 1;

	for (i = 1; i < n && sorted; i++) {
		int64_t a, b;
		memcpy(&a, v + (i - 1) * size, sizeof(a));
		memcpy(&b, v + i * size, sizeof(b));
		sorted = a <= b;
	}
	if (sorted)
		return 0;
	k = malloc(n * sizeof(*k));
	out = malloc(n * size);
	if (!k || !out) {
		free(k);
		free(out);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		memcpy(&k[i].ts, v + i * size, sizeof(k[i].ts));
		k[i].idx = (uint32_t)i;
	}
	qsort(k, n, sizeof(*k), mem_key_cmp);
	for (i = 0; i < n; i++)
		memcpy(out + i * size, v + (size_t)k[i].idx * size, size);
	free(k);
	free(*rows);
	*rows = out;
	*cap = n;
	return 0;
}

#define SORT_ROWS(vec) sort_rows_by_ts((void **)&(vec)->v, &(vec)->cap, (vec)->n, sizeof(*(vec)->v))

static void widen(struct model *m, int64_t ts)
{
	if (ts < m->min_ts)
		m->min_ts = ts;
	if (ts > m->max_end)
		m->max_end = ts;
}

/* The first event (in sorted order) starting at or after ts. */
static size_t first_at(const struct model *m, int64_t ts)
{
	size_t lo = 0, hi = m->events.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->events.v[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Device events that found no launch by correlation id (the id is absent
 * or names no runtime/driver event) but carry an ac2g flow: Kineto writes
 * the flow start ("s") on the launching thread at the launch's start and
 * its end ("f") on the device track at the kernel's start, both with the
 * same id. Flows are sorted by ts; events by (ts, -dur). O((n + f) log n). */
static int link_ac2g(struct model *m)
{
	struct hmap start; /* flow id -> index into flows of its "s" */
	size_t i, n = m->events.n;
	int any = 0;

	for (i = 0; i < m->flows.n && !any; i++)
		any = m->flows.v[i].kind == MF_AC2G;
	if (!any)
		return NNS_OK;
	hmap_init(&start);
	for (i = 0; i < m->flows.n; i++) {
		const struct model_flow *f = &m->flows.v[i];
		if (f->kind == MF_AC2G && f->ph == 's' &&
		    !hmap_put(&start, (uint64_t)f->id, (uint32_t)i, NULL)) {
			hmap_release(&start);
			return NNS_ENOMEM;
		}
	}
	for (i = 0; i < m->flows.n; i++) {
		const struct model_flow *f = &m->flows.v[i], *s;
		size_t j, dev = n, launch = n;
		uint32_t *hit;
		if (f->kind != MF_AC2G || f->ph != 'f' ||
		    !(hit = hmap_get(&start, (uint64_t)f->id)))
			continue;
		s = &m->flows.v[*hit];
		/* the device event starting at f->ts on f's thread */
		for (j = first_at(m, f->ts); j < n && m->events.v[j].ts == f->ts; j++)
			if (m->events.v[j].thread == f->thread &&
			    model_kind_is_device(m->events.v[j].kind) &&
			    model_launch_of(m, j) == MODEL_NOIDX) {
				dev = j;
				break;
			}
		if (dev == n)
			continue;
		/* the launch starting at s->ts on s's thread */
		for (j = first_at(m, s->ts); j < n && m->events.v[j].ts == s->ts; j++)
			if (m->events.v[j].thread == s->thread &&
			    model_kind_is_launch(m->events.v[j].kind)) {
				launch = j;
				break;
			}
		if (launch < n)
			m->launch_of[dev] = ~(uint32_t)launch;
	}
	hmap_release(&start);
	return NNS_OK;
}

/* Events sorted by start, the longer first on ties (the order every
 * analysis walks); a stable merge sort of keys, skipped when in order. */
/* (ts, -dur) of a before that of b. */
static int ev_before(const struct model_event *a, const struct model_event *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

/* Sorted runs: at most this many are merged run by run (a few passes over
 * the events, each sequential), more are sorted from scratch. */
#define RUNS_MAX 8

/* Merges the sorted runs [run[k], run[k+1]) of ev (nruns of them, run[nruns]
 * = n) pairwise until one is left, a stable merge (the earlier run first on
 * ties, so the order is the input order's): ping-pong between ev and a
 * second array. 0 or NNS_ENOMEM. */
static int merge_runs(struct model *m, size_t *run, size_t nruns)
{
	size_t n = m->events.n;
	struct model_event *a = m->events.v, *b = malloc((n + 1) * sizeof(*b));

	if (!b)
		return NNS_ENOMEM;
	while (nruns > 1) {
		size_t k, out = 0;
		for (k = 0; k < nruns; k += 2) {
			size_t l = run[k], lend = run[k + 1], r = lend,
			       rend = k + 2 <= nruns ? run[k + 2] : lend, o = l;
			while (l < lend && r < rend)
				b[o++] = ev_before(&a[r], &a[l]) ? a[r++] : a[l++];
			while (l < lend)
				b[o++] = a[l++];
			while (r < rend)
				b[o++] = a[r++];
			run[out++] = run[k];
		}
		run[out] = n;
		nruns = out;
		struct model_event *t = a;
		a = b;
		b = t;
	}
	free(b);
	m->events.v = a;
	m->events.cap = n + 1;
	return NNS_OK;
}

int model_sort_events(struct model *m)
{
	size_t n = m->events.n, i, run[RUNS_MAX + 1], nruns = 1;
	struct sort_key *keys, *tmp;
	struct model_event *ev;

	if (m->sorted_n == n) /* sorted, or joined in order, already */
		return NNS_OK;
	run[0] = 0;
	for (i = 1; i < n && nruns <= RUNS_MAX; i++)
		if (ev_before(&m->events.v[i], &m->events.v[i - 1]) && nruns++ < RUNS_MAX)
			run[nruns - 1] = i;
	if (nruns == 1) {
		m->sorted_n = n;
		return NNS_OK;
	}
	if (nruns <= RUNS_MAX) {
		run[nruns] = n;
		if (merge_runs(m, run, nruns))
			return NNS_ENOMEM;
		m->sorted_n = n;
		return NNS_OK;
	}
	keys = malloc((n + 1) * sizeof(*keys));
	tmp = malloc((n + 1) * sizeof(*tmp));
	if (!keys || !tmp) {
		free(keys);
		free(tmp);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		keys[i].ts = m->events.v[i].ts;
		keys[i].negdur = -m->events.v[i].dur;
		keys[i].idx = (uint32_t)i;
	}
	merge_sort(keys, tmp, n);
	free(tmp);
	/* a gather into a fresh array: its loads are independent, where the
	 * in-place cycles chase one cache miss after the other (3x slower
	 * on bench/ingest's 1.4 M events); in place when memory is short */
	ev = malloc((n + 1) * sizeof(*ev));
	if (ev) {
		for (i = 0; i < n; i++)
			ev[i] = m->events.v[keys[i].idx];
		free(m->events.v);
		m->events.v = ev;
		m->events.cap = n + 1;
	} else {
		permute(m->events.v, keys, n);
	}
	free(keys);
	m->sorted_n = n;
	return NNS_OK;
}

/* min_ts / max_end over every timed row (0 / 0 when there is none). */
static void time_bounds(struct model *m)
{
	size_t i;

	m->min_ts = INT64_MAX;
	m->max_end = INT64_MIN;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (e->ts < m->min_ts)
			m->min_ts = e->ts;
		if (e->ts + e->dur > m->max_end)
			m->max_end = e->ts + e->dur;
	}
	for (i = 0; i < m->mems.n; i++) {
		if (m->mems.v[i].ts < m->min_ts)
			m->min_ts = m->mems.v[i].ts;
		if (m->mems.v[i].ts > m->max_end)
			m->max_end = m->mems.v[i].ts;
	}
	/* nnscope's own rows: the START/STOP marks and samples bound the
	 * profiling window even when nothing else was recorded (a program
	 * run uninstrumented under `nnscope run`) */
	for (i = 0; i < m->instants.n; i++)
		widen(m, m->instants.v[i].ts);
	for (i = 0; i < m->samples.n; i++)
		widen(m, m->samples.v[i].ts);
	for (i = 0; i < m->queues.n; i++)
		widen(m, m->queues.v[i].ts);
	if (m->min_ts > m->max_end)
		m->min_ts = m->max_end = 0;
}

/* launch_of: each device event's launch, by correlation id (the first,
 * earliest launch with it), then by ac2g flows for the rest. */
static int link_launches(struct model *m)
{
	size_t n = m->events.n, i, count = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, c;
	struct idmap corr; /* correlation id -> first (earliest) launch with it */

	m->launch_of = calloc(n + 1, sizeof(*m->launch_of)); /* all MODEL_NOIDX */
	if (!m->launch_of)
		return NNS_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_launch(e->kind) && (c = model_corr(m, e)) != MODEL_NONE) {
			lo = c < lo ? c : lo;
			hi = c > hi ? c : hi;
			count++;
		}
	}
	if (idmap_init(&corr, lo, hi, count))
		return NNS_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_launch(e->kind) && (c = model_corr(m, e)) != MODEL_NONE &&
		    idmap_put_first(&corr, c, (uint32_t)i)) {
			idmap_release(&corr);
			return NNS_ENOMEM;
		}
	}
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (model_kind_is_device(e->kind) && (c = model_corr(m, e)) != MODEL_NONE)
			m->launch_of[i] = ~idmap_get(&corr, c); /* MODEL_NOIDX if none */
	}
	idmap_release(&corr);
	return NNS_OK;
}

struct link_job {
	struct model *m;
	int rc;
};

/* launch_of: by correlation id, then by ac2g flows. */
static void *link_main(void *arg)
{
	struct link_job *j = arg;

	j->rc = link_launches(j->m);
	if (!j->rc)
		j->rc = link_ac2g(j->m);
	return NULL;
}

void model_reopen(struct model *m)
{
	if (!m->finalized)
		return;
	free(m->launch_of);
	m->launch_of = NULL;
	model_index_release(m);
	m->finalized = 0;
	m->sorted_n = 0; /* its caller may move events: sorted again, or checked */
}

int model_finalize(struct model *m, struct nns_err *err)
{
	size_t i;
	int rc = NNS_ENOMEM;

	if (m->finalized)
		return NNS_OK;
	if (model_sort_events(m))
		goto out;
	/* stable sort of memory records by time (input order on ties) */
	if (m->mems.n > 1) {
		int ok = 1;
		for (i = 1; i < m->mems.n && ok; i++)
			ok = m->mems.v[i - 1].ts <= m->mems.v[i].ts;
		if (!ok && sort_mems(m))
			goto out;
	}
	if (SORT_ROWS(&m->queues) || SORT_ROWS(&m->samples) || SORT_ROWS(&m->instants))
		goto out;
	time_bounds(m);
	/* the launch links on a thread of their own while this one nests the
	 * events: neither reads what the other writes (launch_of; flags,
	 * parent, depth) */
	{
		struct link_job job = {m, NNS_OK};
		pthread_t th;
		int threaded = pthread_create(&th, NULL, link_main, &job) == 0, nrc;

		if (!threaded)
			link_main(&job);
		nrc = model_index_nest(m);
		if (threaded)
			pthread_join(th, NULL);
		if (job.rc || nrc || model_index_attribute(m))
			goto out;
	}
	m->finalized = 1;
	rc = NNS_OK;
out:
	if (rc)
		nns_err_set(err, rc, "out of memory while indexing %zu events", m->events.n);
	return rc;
}
