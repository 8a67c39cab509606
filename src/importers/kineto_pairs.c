/*
 * kineto_pairs.c - "B"/"E" (begin/end) events -> complete events.
 *
 * Parsers queue B and E records (struct kbe) in input order, with their
 * pid, tid and name interned in a small pool of the parser's own; chunks
 * parsed in parallel hand their queue to the joining parser (kbe_adopt).
 * Once the whole input is read, kbe_pair() matches them per thread with a
 * stack (an E closes the most recent open B of its thread) and adds one
 * model_event per pair. Unmatched records are counted as skipped.
 */
#include "kineto_internal.h"

#include <stdlib.h>
#include <string.h>

static int be_pool(struct kparser *ps)
{
	if (ps->be_str.table)
		return 0;
	return strpool_init(&ps->be_str) ? NNS_ENOMEM : 0;
}

int kbe_push(struct kparser *ps, const struct kbe *b, struct kstr pid, struct kstr tid,
	     struct kstr name)
{
	struct kbe r = *b;

	if (be_pool(ps))
		return NNS_ENOMEM;
	r.pid = strpool_intern(&ps->be_str, pid.p, pid.n);
	r.tid = strpool_intern(&ps->be_str, tid.p, tid.n);
	r.name = strpool_intern(&ps->be_str, name.p, name.n);
	if (r.pid == STRPOOL_NONE || r.tid == STRPOOL_NONE || r.name == STRPOOL_NONE)
		return NNS_ENOMEM;
	return vec_push(&ps->be, r) ? NNS_ENOMEM : 0;
}

static uint32_t move_str(struct strpool *dst, const struct strpool *src, uint32_t id)
{
	return strpool_intern(dst, strpool_get(src, id), strpool_len(src, id));
}

int kbe_adopt(struct kparser *dst, struct kparser *src)
{
	size_t i;

	if (src->be.n == 0)
		return NNS_OK;
	if (be_pool(dst) || vec_reserve(&dst->be, dst->be.n + src->be.n))
		return NNS_ENOMEM;
	for (i = 0; i < src->be.n; i++) {
		struct kbe b = src->be.v[i];
		b.pid = move_str(&dst->be_str, &src->be_str, b.pid);
		b.tid = move_str(&dst->be_str, &src->be_str, b.tid);
		b.name = move_str(&dst->be_str, &src->be_str, b.name);
		if (b.pid == STRPOOL_NONE || b.tid == STRPOOL_NONE || b.name == STRPOOL_NONE)
			return NNS_ENOMEM;
		dst->be.v[dst->be.n++] = b;
	}
	src->be.n = 0;
	return NNS_OK;
}

void kbe_release(struct kparser *ps)
{
	vec_free(&ps->be);
	if (ps->be_str.table)
		strpool_release(&ps->be_str);
}

/* Model thread of record i. */
static uint32_t be_thread(struct kparser *ps, const struct kbe *b)
{
	struct kstr pid = {strpool_get(&ps->be_str, b->pid), strpool_len(&ps->be_str, b->pid)};
	struct kstr tid = {strpool_get(&ps->be_str, b->tid), strpool_len(&ps->be_str, b->tid)};

	return kev_thread(ps, pid, tid);
}

int kbe_pair(struct kparser *ps)
{
	struct model *m = ps->m;
	size_t n = ps->be.n, nt, i, *start = NULL;
	uint32_t *order = NULL, *stack = NULL, *thr = NULL;
	int rc = NNS_ENOMEM;

	if (n == 0)
		return NNS_OK;
	thr = malloc(n * sizeof(*thr));
	order = malloc(n * sizeof(*order));
	stack = malloc(n * sizeof(*stack));
	if (!thr || !order || !stack)
		goto out;
	for (i = 0; i < n; i++)
		if ((thr[i] = be_thread(ps, &ps->be.v[i])) == MODEL_NOIDX)
			goto out;
	/* counting sort of record indices by thread, stable (input order) */
	nt = m->threads.n;
	start = calloc(nt + 1, sizeof(*start));
	if (!start)
		goto out;
	for (i = 0; i < n; i++)
		start[thr[i] + 1]++;
	for (i = 0; i < nt; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++)
		order[start[thr[i]]++] = (uint32_t)i;
	for (i = 0; i < n;) {
		uint32_t t = thr[order[i]];
		size_t sp = 0;
		for (; i < n && thr[order[i]] == t; i++) {
			const struct kbe *b = &ps->be.v[order[i]];
			const struct kbe *o;
			struct model_event ev;
			if (b->ph == 'B') {
				stack[sp++] = order[i];
				continue;
			}
			if (!sp) {
				m->diag.events_skipped++;
				continue;
			}
			o = &ps->be.v[stack[--sp]];
			model_event_init(&ev);
			ev.ts = o->ts;
			ev.dur = b->ts > o->ts ? b->ts - o->ts : 0;
			ev.kind = o->kind;
			ev.thread = t;
			ev.name = move_str(&m->strings, &ps->be_str, o->name ? o->name : b->name);
			if (ev.name == STRPOOL_NONE ||
			    model_event_ids(m, &ev, o->ext_id != MODEL_NONE ? o->ext_id : b->ext_id,
					    MODEL_NONE) ||
			    model_add_event(m, &ev) < 0)
				goto out;
		}
		m->diag.events_skipped += (int64_t)sp;
	}
	ps->be.n = 0;
	rc = NNS_OK;
out:
	free(thr);
	free(start);
	free(order);
	free(stack);
	return rc;
}
