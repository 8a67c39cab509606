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

/* depth of every node (roots 0) from the parent array: one step per node
 * when parents come first (the optree builds them so), else a climb */
static int *node_depths(const uint32_t *parent, size_t n)
{
	int *d = malloc((n + 1) * sizeof(*d));
	size_t i;

	if (!d)
		return NULL;
	for (i = 0; i < n; i++)
		d[i] = -1;
	for (i = 0; i < n; i++) {
		uint32_t k = (uint32_t)i;
		int steps = 0;

		if (parent[i] < i && d[parent[i]] >= 0) {
			d[i] = d[parent[i]] + 1;
			continue;
		}
		/* climb to a node of known depth, then fill back down */
		while (d[k] < 0 && parent[k] != MODEL_NOIDX && parent[k] < n && steps < (int)n) {
			k = parent[k];
			steps++;
		}
		if (d[k] < 0)
			d[k] = 0;
		for (k = (uint32_t)i; d[k] < 0; k = parent[k]) {
			int s = 0;
			uint32_t j = k;
			while (d[j] < 0) {
				j = parent[j];
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

/* Compact per-node and per-device-event arrays, built once for all the
 * operators hta_sequences_default looks at: the passes below then read 4
 * bytes per node instead of whole an_node / model_event structs. */
struct seq_index {
	int *depth;
	uint32_t *name;	  /* per node: name id, UINT32_MAX for nodes without an event */
	uint32_t *parent; /* per node */
	/* device events launched under an operator, in start order: their
	 * owner node, name id and duration */
	uint32_t *dev_owner, *dev_name;
	int64_t *dev_dur;
	size_t ndev;
};

static void seq_index_release(struct seq_index *x)
{
	free(x->depth);
	free(x->name);
	free(x->parent);
	free(x->dev_owner);
	free(x->dev_name);
	free(x->dev_dur);
	memset(x, 0, sizeof(*x));
}

static int seq_index_build(const struct an_profile *p, struct seq_index *x)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	size_t nn = t->nodes.n, i;

	memset(x, 0, sizeof(*x));
	x->name = malloc((nn + 1) * sizeof(*x->name));
	x->parent = malloc((nn + 1) * sizeof(*x->parent));
	x->dev_owner = malloc((m->events.n + 1) * sizeof(*x->dev_owner));
	x->dev_name = malloc((m->events.n + 1) * sizeof(*x->dev_name));
	x->dev_dur = malloc((m->events.n + 1) * sizeof(*x->dev_dur));
	if (!x->name || !x->parent || !x->dev_owner || !x->dev_name || !x->dev_dur) {
		seq_index_release(x);
		return NNS_ENOMEM;
	}
	for (i = 0; i < nn; i++) {
		const struct an_node *n = &t->nodes.v[i];
		x->name[i] =
		    n->ev == MODEL_NOIDX || n->name >= m->strings.count ? UINT32_MAX : n->name;
		x->parent[i] = n->parent;
	}
	if (!(x->depth = node_depths(x->parent, nn))) {
		seq_index_release(x);
		return NNS_ENOMEM;
	}
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t k = an_owner(t, i);

		if (!model_kind_is_device(e->kind) || k == MODEL_NOIDX || k >= nn)
			continue;
		x->dev_owner[x->ndev] = k;
		x->dev_name[x->ndev] = e->name;
		x->dev_dur[x->ndev] = e->dur;
		x->ndev++;
	}
	return NNS_OK;
}

static int seq_for(const struct an_profile *p, const char *op, int exact, size_t min_len,
		   size_t top_k, const struct seq_index *ix, struct hta_sequences *out,
		   struct nns_err *err);

int hta_sequences_for(const struct an_profile *p, const char *op, int exact, size_t min_len,
		      size_t top_k, struct hta_sequences *out, struct nns_err *err)
{
	struct seq_index ix;
	int rc;

	if (!p->m || !p->tree.nodes.n || !p->tree.owner)
		return seq_for(p, op, exact, min_len, top_k, NULL, out, err);
	if (seq_index_build(p, &ix))
		return nns_err_set(err, NNS_ENOMEM, "out of memory in the kernel sequences");
	rc = seq_for(p, op, exact, min_len, top_k, &ix, out, err);
	seq_index_release(&ix);
	return rc;
}

/* ix is NULL only when there is nothing to look at (no model, nodes or
 * owners): the operator then gets an empty entry. */
static int seq_for(const struct an_profile *p, const char *op, int exact, size_t min_len,
		   size_t top_k, const struct seq_index *ix, struct hta_sequences *out,
		   struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	size_t nn = t->nodes.n, i, d, nrec = 0;
	int min_depth = -1;
	const int *depth = ix ? ix->depth : NULL;
	uint32_t *slot = NULL;		     /* per node: its rec index, NOIDX if not a root */
	uint8_t *hit = NULL;		     /* per name id: 0 unknown, 1 no match, 2 match */
	uint32_t *up = NULL;		     /* per node: the rec index of the root above it */
	uint32_t *head = NULL, *tail = NULL; /* per rec: device-event list */
	uint32_t *next = NULL;		     /* per indexed device event */
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
	if (!ix || !m || !op || !*op || !nn || !t->owner)
		goto done;
	if (!(slot = malloc(nn * sizeof(*slot))))
		goto out;
	/* whether each name matches, decided once per distinct name (nodes
	 * number millions on a large trace, names thousands) */
	if (!(hit = calloc(m->strings.count + 1, 1)))
		goto out;
	for (i = 0; i < nn; i++) {
		uint32_t nm = ix->name[i];
		slot[i] = MODEL_NOIDX;
		if (nm == UINT32_MAX)
			continue;
		if (!hit[nm])
			hit[nm] = matches(model_str(m, nm), op, exact) ? 2 : 1;
		if (hit[nm] != 2)
			continue;
		if (min_depth < 0 || depth[i] < min_depth)
			min_depth = depth[i];
	}
	if (min_depth < 0)
		goto done;
	for (i = 0; i < nn; i++) {
		uint32_t nm = ix->name[i];
		if (nm != UINT32_MAX && depth[i] == min_depth && hit[nm] == 2)
			slot[i] = (uint32_t)nrec++;
	}
	so.roots = (int64_t)nrec;
	recs = calloc(nrec + 1, sizeof(*recs));
	head = malloc((nrec + 1) * sizeof(*head));
	tail = malloc((nrec + 1) * sizeof(*tail));
	next = malloc((ix->ndev + 1) * sizeof(*next));
	if (!recs || !head || !tail || !next)
		goto out;
	for (i = 0; i < nrec; i++)
		head[i] = tail[i] = MODEL_NOIDX;
	/* per node, the root above it (or itself): roots are all at min_depth,
	 * so a node deeper than that takes its parent's answer. One pass in
	 * index order when parents come before children (the optree builds
	 * them so); a climb otherwise. */
	if (!(up = malloc((nn + 1) * sizeof(*up))))
		goto out;
	for (i = 0; i < nn; i++) {
		uint32_t k = (uint32_t)i, par;
		int steps = 0;

		up[i] = MODEL_NOIDX;
		if (depth[i] < min_depth)
			continue;
		if (depth[i] == min_depth) {
			up[i] = slot[i];
			continue;
		}
		par = ix->parent[i];
		if (par < i) {
			up[i] = up[par];
			continue;
		}
		while (k != MODEL_NOIDX && k < nn && depth[k] > min_depth && steps++ <= (int)nn)
			k = ix->parent[k];
		if (k != MODEL_NOIDX && k < nn && depth[k] == min_depth)
			up[i] = slot[k];
	}
	/* device events in start order, each to the root above its launcher */
	for (d = 0; d < ix->ndev; d++) {
		uint32_t r = up[ix->dev_owner[d]];

		if (r == MODEL_NOIDX)
			continue;
		next[d] = MODEL_NOIDX;
		if (tail[r] == MODEL_NOIDX)
			head[r] = (uint32_t)d;
		else
			next[tail[r]] = (uint32_t)d;
		tail[r] = (uint32_t)d;
		recs[r].len++;
		recs[r].gpu += ix->dev_dur[d];
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
				if (vec_push(&out->names, ix->dev_name[e]))
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
	free(slot);
	free(hit);
	free(up);
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
	struct seq_index ix;
	struct pick *picks = NULL;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(&ix, 0, sizeof(ix));
	out->min_len = HTA_SEQ_MIN_LEN;
	out->top_k = HTA_SEQ_TOP_K;
	if (!max_ops)
		max_ops = HTA_SEQ_OPS;
	if (!m || !t->owner || !t->nodes.n)
		return NNS_OK;
	ns = m->strings.count;
	if (!(count = calloc(ns + 1, sizeof(*count))))
		goto out;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_LAUNCH); i++) {
		uint32_t k, top = MODEL_NOIDX;
		size_t steps = 0;

		if (!model_kind_is_launch(m->events.v[i].kind))
			continue;
		for (k = an_owner(t, i); k != MODEL_NOIDX && k < t->nodes.n && steps <= t->nodes.n;
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
	if (np && seq_index_build(p, &ix))
		goto out;
	/* operators whose instances are all too short give no pattern: skip
	 * them, looking at no more than 4 * max_ops names */
	for (i = 0; i < np && i < 4 * max_ops && out->ops.n < max_ops; i++) {
		struct hta_seq_op *o;

		if (seq_for(p, model_str(m, picks[i].name), 1, 0, 0, &ix, out, err))
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
	seq_index_release(&ix);
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
