/*
 * hta_sequences.c - frequent CUDA kernel sequences under an operator (HTA
 * CudaKernelAnalysis.get_frequent_cuda_kernel_sequences).
 *
 * For an operator name: the candidate nodes of the operator tree are those
 * whose name contains it (HTA; exact: equals it); only those at the
 * shallowest depth among the candidates are roots (so nested instances are
 * not counted twice). A root's sequence is the device events (kernels,
 * copies, sets) launched anywhere in its subtree, in start order; a root
 * with fewer than min_pattern_len of them is dropped. The pattern is (root
 * name, kernel names...); equal patterns are counted, with the summed
 * device dur (GPU time) and summed root dur (CPU time). Patterns are
 * ordered by count desc, then by names (HTA: by the "|"-joined string), and
 * the first top_k kept.
 *
 * The default operators (the server cannot pass an operator name): the
 * HTA_SEQ_OPS names with the most launches under their top-level instances
 * (operator nodes with no operator above them), each matched exactly;
 * names that yield no pattern are skipped (at most 4 * HTA_SEQ_OPS names
 * are tried).
 */
#include "analysis/hta_launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint32_t op;
	uint32_t first, len;	 /* into the names vec */
	const uint32_t *seq;	 /* set once names stops growing */
	int64_t gpu, cpu, count; /* count 1 per root until merged */
	const struct model *m;
};

static int seq_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	size_t i;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	for (i = 0; i < x->len; i++)
		if (x->seq[i] != y->seq[i])
			return x->seq[i] < y->seq[i] ? -1 : 1;
	return 0;
}

/* count desc, then names lexicographically */
static int rank_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	size_t i;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(model_str(x->m, x->op), model_str(y->m, y->op))) != 0)
		return c;
	for (i = 0; i < x->len && i < y->len; i++)
		if ((c = strcmp(model_str(x->m, x->seq[i]), model_str(y->m, y->seq[i]))) != 0)
			return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* depth of every node (roots 0), iteratively through parents */
static int *node_depths(const struct an_optree *t)
{
	size_t n = t->nodes.n, i;
	int *d = malloc((n + 1) * sizeof(*d));

	if (!d)
		return NULL;
	for (i = 0; i < n; i++)
		d[i] = -1;
	for (i = 0; i < n; i++) {
		uint32_t k = (uint32_t)i;
		int steps = 0;

		/* climb to a node of known depth, then fill back down */
		while (d[k] < 0 && t->nodes.v[k].parent != MODEL_NOIDX &&
		       t->nodes.v[k].parent < n && steps < (int)n) {
			k = t->nodes.v[k].parent;
			steps++;
		}
		if (d[k] < 0)
			d[k] = 0;
		for (k = (uint32_t)i; d[k] < 0; k = t->nodes.v[k].parent) {
			int s = 0;
			uint32_t j = k;
			while (d[j] < 0) {
				j = t->nodes.v[j].parent;
				s++;
			}
			d[k] = d[j] + s;
		}
	}
	return d;
}

static int matches(const char *name, const char *op, int exact)
{
	return exact ? strcmp(name, op) == 0 : strstr(name, op) != NULL;
}

int hta_sequences_for(const struct an_profile *p, const char *op, int exact, size_t min_len,
		      size_t top_k, struct hta_sequences *out, struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	size_t nn = t->nodes.n, i, nrec = 0;
	int *depth = NULL, min_depth = -1;
	uint32_t *slot = NULL;		     /* per node: its rec index, NOIDX if not a root */
	uint32_t *head = NULL, *tail = NULL; /* per rec: device-event list */
	uint32_t *next = NULL;		     /* per event */
	struct rec *recs = NULL;
	struct hta_seq_op so;
	int rc = NNS_ENOMEM;

	if (!min_len)
		min_len = HTA_SEQ_MIN_LEN;
	if (!top_k)
		top_k = HTA_SEQ_TOP_K;
	out->min_len = min_len;
	out->top_k = top_k;
	memset(&so, 0, sizeof(so));
	snprintf(so.query, sizeof(so.query), "%s", op ? op : "");
	so.exact = exact;
	so.first = (uint32_t)out->patterns.n;
	if (!m || !op || !*op || !nn || !t->owner)
		goto done;
	if (!(depth = node_depths(t)) || !(slot = malloc(nn * sizeof(*slot))))
		goto out;
	for (i = 0; i < nn; i++) {
		const struct an_node *x = &t->nodes.v[i];
		slot[i] = MODEL_NOIDX;
		if (x->ev == MODEL_NOIDX || !matches(model_str(m, x->name), op, exact))
			continue;
		if (min_depth < 0 || depth[i] < min_depth)
			min_depth = depth[i];
	}
	if (min_depth < 0)
		goto done;
	for (i = 0; i < nn; i++) {
		const struct an_node *x = &t->nodes.v[i];
		if (x->ev != MODEL_NOIDX && depth[i] == min_depth &&
		    matches(model_str(m, x->name), op, exact))
			slot[i] = (uint32_t)nrec++;
	}
	so.roots = (int64_t)nrec;
	recs = calloc(nrec + 1, sizeof(*recs));
	head = malloc((nrec + 1) * sizeof(*head));
	tail = malloc((nrec + 1) * sizeof(*tail));
	next = malloc((m->events.n + 1) * sizeof(*next));
	if (!recs || !head || !tail || !next)
		goto out;
	for (i = 0; i < nrec; i++)
		head[i] = tail[i] = MODEL_NOIDX;
	/* device events in start order, each to the root above its launcher */
	for (i = 0; i < m->events.n; i++) {
		uint32_t k, r = MODEL_NOIDX;
		int steps = 0;

		if (!model_kind_is_device(m->events.v[i].kind))
			continue;
		for (k = t->owner[i]; k != MODEL_NOIDX && k < nn && steps <= (int)nn; steps++) {
			if (slot[k] != MODEL_NOIDX) {
				r = slot[k];
				break;
			}
			k = t->nodes.v[k].parent;
		}
		if (r == MODEL_NOIDX)
			continue;
		next[i] = MODEL_NOIDX;
		if (tail[r] == MODEL_NOIDX)
			head[r] = (uint32_t)i;
		else
			next[tail[r]] = (uint32_t)i;
		tail[r] = (uint32_t)i;
		recs[r].len++;
		recs[r].gpu += m->events.v[i].dur;
	}
	/* the sequences of the roots long enough */
	{
		size_t base = out->names.n, o = 0;

		for (i = 0; i < nn; i++) {
			uint32_t r = slot[i], e;
			struct rec *x;
			if (r == MODEL_NOIDX || recs[r].len < min_len)
				continue;
			x = &recs[r];
			x->op = t->nodes.v[i].name;
			x->cpu = m->events.v[t->nodes.v[i].ev].dur;
			x->count = 1;
			x->m = m;
			x->first = (uint32_t)out->names.n;
			for (e = head[r]; e != MODEL_NOIDX; e = next[e])
				if (vec_push(&out->names, m->events.v[e].name))
					goto out;
			recs[o++] = *x;
		}
		for (i = 0; i < o; i++)
			recs[i].seq = out->names.v + recs[i].first;
		if (o > 1)
			qsort(recs, o, sizeof(*recs), seq_cmp);
		/* merge equal patterns */
		nrec = 0;
		for (i = 0; i < o; i++) {
			if (nrec && seq_cmp(&recs[nrec - 1], &recs[i]) == 0) {
				recs[nrec - 1].count++;
				recs[nrec - 1].gpu += recs[i].gpu;
				recs[nrec - 1].cpu += recs[i].cpu;
			} else {
				recs[nrec++] = recs[i];
			}
		}
		if (nrec > 1)
			qsort(recs, nrec, sizeof(*recs), rank_cmp);
		so.patterns_total = (int64_t)nrec;
		/* keep the top_k: copy their names aside, then put them back at
		 * base in rank order (the others' names are dropped) */
		{
			size_t keep = nrec < top_k ? nrec : top_k, total = 0, w = 0;
			uint32_t *kept;

			for (i = 0; i < keep; i++)
				total += recs[i].len;
			kept = malloc((total + 1) * sizeof(*kept));
			if (!kept)
				goto out;
			for (i = 0; i < keep; i++) {
				memcpy(kept + w, recs[i].seq, recs[i].len * sizeof(*kept));
				w += recs[i].len;
			}
			out->names.n = base;
			for (i = 0, w = 0; i < keep; i++) {
				struct hta_seq_pattern pt;

				pt.op = recs[i].op;
				pt.first = (uint32_t)(base + w);
				pt.len = recs[i].len;
				pt.count = recs[i].count;
				pt.gpu_time = recs[i].gpu;
				pt.cpu_time = recs[i].cpu;
				w += recs[i].len;
				if (vec_push(&out->patterns, pt)) {
					free(kept);
					goto out;
				}
			}
			/* capacity already holds base + total names */
			if (total)
				memcpy(out->names.v + base, kept, total * sizeof(*kept));
			out->names.n = base + total;
			free(kept);
		}
	}
done:
	so.n = (uint32_t)(out->patterns.n - so.first);
	if (vec_push(&out->ops, so))
		goto out;
	rc = NNS_OK;
out:
	free(depth);
	free(slot);
	free(head);
	free(tail);
	free(next);
	free(recs);
	if (rc)
		nns_err_set(err, rc, "out of memory in the kernel sequences");
	return rc;
}

struct pick {
	uint32_t name;
	int64_t launches;
	const struct model *m;
};

static int pick_cmp(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;

	if (x->launches != y->launches)
		return x->launches > y->launches ? -1 : 1;
	return strcmp(model_str(x->m, x->name), model_str(y->m, y->name));
}

int hta_sequences_default(const struct an_profile *p, size_t max_ops, struct hta_sequences *out,
			  struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	size_t ns, i, np = 0;
	int64_t *count = NULL;
	struct pick *picks = NULL;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	out->min_len = HTA_SEQ_MIN_LEN;
	out->top_k = HTA_SEQ_TOP_K;
	if (!max_ops)
		max_ops = HTA_SEQ_OPS;
	if (!m || !t->owner || !t->nodes.n)
		return NNS_OK;
	ns = m->strings.count;
	if (!(count = calloc(ns + 1, sizeof(*count))))
		goto out;
	for (i = 0; i < m->events.n; i++) {
		uint32_t k, top = MODEL_NOIDX;
		size_t steps = 0;

		if (!model_kind_is_launch(m->events.v[i].kind))
			continue;
		for (k = t->owner[i]; k != MODEL_NOIDX && k < t->nodes.n && steps <= t->nodes.n;
		     steps++, k = t->nodes.v[k].parent)
			if (t->nodes.v[k].type == AN_NODE_OP)
				top = k;
		if (top != MODEL_NOIDX && t->nodes.v[top].name < ns)
			count[t->nodes.v[top].name]++;
	}
	for (i = 0; i < ns; i++)
		np += count[i] > 0;
	if (!(picks = malloc((np + 1) * sizeof(*picks))))
		goto out;
	for (i = 0, np = 0; i < ns; i++)
		if (count[i] > 0) {
			picks[np].name = (uint32_t)i;
			picks[np].launches = count[i];
			picks[np].m = m;
			np++;
		}
	if (np > 1)
		qsort(picks, np, sizeof(*picks), pick_cmp);
	/* operators whose instances are all too short give no pattern: skip
	 * them, looking at no more than 4 * max_ops names */
	for (i = 0; i < np && i < 4 * max_ops && out->ops.n < max_ops; i++) {
		struct hta_seq_op *o;

		if (hta_sequences_for(p, model_str(m, picks[i].name), 1, 0, 0, out, err))
			goto fail;
		o = &out->ops.v[out->ops.n - 1];
		o->launches = picks[i].launches;
		if (!o->patterns_total)
			out->ops.n--; /* it added no pattern and no names */
	}
	rc = NNS_OK;
	goto done;
out:
	nns_err_set(err, rc, "out of memory in the kernel sequences");
fail:
	hta_sequences_release(out);
done:
	free(count);
	free(picks);
	return rc;
}

void hta_sequences_release(struct hta_sequences *s)
{
	vec_free(&s->ops);
	vec_free(&s->patterns);
	vec_free(&s->names);
	memset(s, 0, sizeof(*s));
}
