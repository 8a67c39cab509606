/*
 * kineto_pairs.c - "B"/"E" (begin/end) events -> complete events.
 *
 * Parsers queue B and E records (struct kbe) in input order; chunks parsed
 * in parallel hand theirs to the joining parser (kbe_adopt) after their
 * model was merged, remapping thread and name ids. Once the whole input
 * is read, kbe_pair() matches them per thread with a stack (an E closes
 * the most recent open B of its thread) and adds one model_event per
 * pair. Unmatched records are dropped and counted as skipped.
 */
#include "kineto_internal.h"

#include <stdlib.h>
#include <string.h>

int kbe_adopt(struct kparser *dst, struct kparser *src)
{
	struct model *dm = dst->m, *sm = src->m;
	size_t i;

	if (vec_reserve(&dst->be, dst->be.n + src->be.n))
		return NNS_ENOMEM;
	for (i = 0; i < src->be.n; i++) {
		struct kbe b = src->be.v[i];
		const struct model_thread *t = &sm->threads.v[b.thread];
		uint32_t pid = model_intern(dm, model_str(sm, t->pid), strpool_len(&sm->strings, t->pid));
		uint32_t tid = model_intern(dm, model_str(sm, t->tid), strpool_len(&sm->strings, t->tid));
		b.name = model_intern(dm, model_str(sm, b.name), strpool_len(&sm->strings, b.name));
		if (pid == STRPOOL_NONE || tid == STRPOOL_NONE || b.name == STRPOOL_NONE)
			return NNS_ENOMEM;
		b.thread = model_thread(dm, pid, tid);
		if (b.thread == MODEL_NOIDX)
			return NNS_ENOMEM;
		dst->be.v[dst->be.n++] = b;
	}
	src->be.n = 0;
	return NNS_OK;
}

int kbe_pair(struct kparser *ps)
{
	struct model *m = ps->m;
	size_t n = ps->be.n, nt = m->threads.n, i, *start = NULL;
	uint32_t *order = NULL, *stack = NULL;
	int rc = NNS_ENOMEM;

	if (n == 0)
		return NNS_OK;
	/* counting sort of record indices by thread, stable (input order) */
	start = calloc(nt + 1, sizeof(*start));
	order = malloc(n * sizeof(*order));
	stack = malloc(n * sizeof(*stack));
	if (!start || !order || !stack)
		goto out;
	for (i = 0; i < n; i++)
		start[ps->be.v[i].thread + 1]++;
	for (i = 0; i < nt; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++)
		order[start[ps->be.v[i].thread]++] = (uint32_t)i;
	/* start[t] is now the end of thread t's run */
	for (i = 0; i < n;) {
		uint32_t t = ps->be.v[order[i]].thread;
		size_t sp = 0;
		for (; i < n && ps->be.v[order[i]].thread == t; i++) {
			const struct kbe *b = &ps->be.v[order[i]];
			if (b->ph == 'B') {
				stack[sp++] = order[i];
			} else if (sp) {
				const struct kbe *o = &ps->be.v[stack[--sp]];
				struct model_event ev;
				model_event_init(&ev);
				ev.ts = o->ts;
				ev.dur = b->ts > o->ts ? b->ts - o->ts : 0;
				ev.name = o->name ? o->name : b->name;
				ev.kind = o->kind;
				ev.thread = t;
				ev.ext_id = o->ext_id != MODEL_NONE ? o->ext_id : b->ext_id;
				if (model_add_event(m, &ev) < 0)
					goto out;
			} else {
				m->diag.events_skipped++;
			}
		}
		m->diag.events_skipped += (int64_t)sp;
	}
	ps->be.n = 0;
	rc = NNS_OK;
out:
	free(start);
	free(order);
	free(stack);
	return rc;
}
