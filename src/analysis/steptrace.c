/*
 * steptrace.c - MindInsight's step trace (iteration interval / FP+BP /
 * tail) for every overview step, from the operator tree (docs/SERVER.md
 * "steptrace view").
 *
 * For a step [start, end) (after device adjustment) whose host range is
 * [host_start, host_end):
 *   - the step's operators are the nodes of its ProfilerStep node's subtree
 *     (the step without a ProfilerStep node, such as the default step "0",
 *     uses the subtree of the main thread - the one that loads data or runs
 *     the optimizer, else the busiest - limited to nodes starting in the
 *     host range); python ranges are walked through, not counted;
 *   - fp_start: the start of the first of them that is not data loading
 *     (AN_NODE_DATALOADER or enumerate(DataLoader)/DataPipe names, and what
 *     runs inside them) and starts after the step's data: the last
 *     data-loading range that starts before the step's first backward node
 *     and its optimizer step. Small operators ahead of the DataLoader
 *     (aten::zeros for metrics, as in PyTorch's ResNet examples) so count in
 *     the iteration interval, the wait for data. Without such a range (or
 *     no operator after it), the first operator that is not data loading;
 *   - fp_end: the end of the last backward node of any thread starting in
 *     the host range (a name with "backward"/"Backward", or
 *     autograd::engine::evaluate_function:*, and anything inside one), or of
 *     the last device event launched inside it when that is later; without
 *     backward, the start of the first optimizer node after fp_start other
 *     than zero_grad (Optimizer.step...), else the end of the last operator;
 *   - overrides (MindSpore's PROFILING_FP_START / PROFILING_BP_END): the
 *     model metadata "fp_start" / "bp_end" name an operator (the exact name
 *     or a part of it); fp_start is then the start of the step's first such
 *     operator and fp_end the end of its last (with its device work), when
 *     the step has one. The CLI and the server set them from NNSCOPE_FP_START
 *     / NNSCOPE_BP_END (or PROFILING_*) at analysis time; the collector
 *     records them in the trace when they are set in the profiled process;
 *   - iteration_interval = fp_start - start, fp_bp = fp_end - fp_start,
 *     tail = end - fp_end, each clamped to >= 0 and so that the three sum to
 *     end - start exactly. A step without any operator other than data
 *     loading is all iteration interval.
 * O(n log n) in the number of tree nodes and events.
 */
#include "an_steptrace.h"
#include "analysis.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>

enum { F_DL = 1, F_BWD = 2 };

struct bwd_entry {
	int64_t start, end; /* end: max(host end, end of the device work it launched) */
};

static int bwd_cmp(const void *x, const void *y)
{
	const struct bwd_entry *a = x, *b = y;
	return (a->start > b->start) - (a->start < b->start);
}

static int is_backward_name(const char *s)
{
	return strstr(s, "backward") || strstr(s, "Backward") ||
	       strncmp(s, "autograd::engine::evaluate_function:", 36) == 0;
}

static int is_dataloader_name(const char *s)
{
	return an_is_dataloader_name(s) || strncmp(s, "enumerate(DataLoader)#", 22) == 0 ||
	       strncmp(s, "enumerate(DataPipe)#", 20) == 0;
}

/* Node types that count as operators of a step. */
static int is_op_type(int t)
{
	return t == AN_NODE_OP || t == AN_NODE_OPTIMIZER || t == AN_NODE_MODULE ||
	       t == AN_NODE_COMM || t == AN_NODE_OTHER || t == AN_NODE_BACKWARD ||
	       t == AN_NODE_DATALOADER;
}

/* A ProfilerStep node of the tree. */
struct step_node {
	int64_t start, end;
	uint32_t id;
};

/* An operator or data-loading range of one step. */
struct span {
	int64_t start, end;
	int opt_step;  /* an optimizer node other than zero_grad */
	uint32_t node; /* the tree node */
};

struct st_ctx {
	struct an_profile *p;
	uint8_t *flags;		   /* per node: F_DL | F_BWD */
	uint8_t *namecls;	   /* per string id: 0 unknown, else 1 | flags << 1 */
	int64_t *devend;	   /* per node: end of the device work it launched */
	VEC(struct span) ops, dls; /* scan_ops' answer for the current step */
	VEC(uint32_t) stack;
	const char *fp_name, *bp_name; /* overrides (model metadata), NULL if none */
	struct bwd_entry *bw;	       /* backward nodes of every thread, by start */
	size_t nbw;
	struct step_node *sn; /* ProfilerStep nodes, by (start, end, id) */
	size_t nsn;
	uint32_t mroot; /* main_root: the tree of steps without a ProfilerStep node */
};

static unsigned name_class(struct st_ctx *c, uint32_t name)
{
	const struct model *m = c->p->m;
	unsigned f = 0;
	const char *s;

	if (name >= m->strings.count)
		return 0;
	if (c->namecls[name])
		return (unsigned)(c->namecls[name] >> 1);
	s = model_str(m, name);
	if (is_dataloader_name(s))
		f |= F_DL;
	if (is_backward_name(s))
		f |= F_BWD;
	c->namecls[name] = (uint8_t)(1 | f << 1);
	return f;
}

/* Flags of every node, parents before children (depth-first from roots). */
static int fill_flags(struct st_ctx *c)
{
	const struct an_optree *t = &c->p->tree;
	VEC(uint32_t) stack = {0};
	size_t r;

	for (r = 0; r < t->roots.n; r++) {
		if (vec_push(&stack, t->roots.v[r]))
			goto oom;
		c->flags[t->roots.v[r]] = 0;
		while (stack.n) {
			uint32_t id = stack.v[--stack.n], ch;
			for (ch = t->nodes.v[id].first_child; ch != MODEL_NOIDX;
			     ch = t->nodes.v[ch].next_sibling) {
				const struct an_node *x = &t->nodes.v[ch];
				unsigned f = c->flags[id];
				if (x->type == AN_NODE_DATALOADER)
					f |= F_DL;
				if (x->type != AN_NODE_ROOT && x->type != AN_NODE_STEP)
					f |= name_class(c, x->name);
				c->flags[ch] = (uint8_t)f;
				if (vec_push(&stack, ch))
					goto oom;
			}
		}
	}
	vec_free(&stack);
	return 0;
oom:
	vec_free(&stack);
	return NNS_ENOMEM;
}

/* Collects into c->ops the operator nodes (not data loading) and into
 * c->dls the outermost data-loading nodes of the subtree of `top` that
 * start in [lo, hi). Python ranges and other wrappers are walked through. */
static int scan_ops(struct st_ctx *c, uint32_t top, int64_t lo, int64_t hi)
{
	const struct an_optree *t = &c->p->tree;
	const struct model *m = c->p->m;

	c->ops.n = c->dls.n = c->stack.n = 0;
	if (vec_push(&c->stack, top))
		return NNS_ENOMEM;
	while (c->stack.n) {
		uint32_t id = c->stack.v[--c->stack.n], ch;
		const struct an_node *n = &t->nodes.v[id];
		int in = n->type != AN_NODE_ROOT && an_node_start(m, n) >= lo &&
			 an_node_start(m, n) < hi;
		if (c->flags[id] & F_DL) {
			struct span x = {an_node_start(m, n), an_node_end(m, n), 0, id};
			if (in && vec_push(&c->dls, x))
				return NNS_ENOMEM;
			continue; /* nothing inside data loading is an operator */
		}
		if (in && is_op_type(n->type)) {
			struct span x = {an_node_start(m, n), an_node_end(m, n), 0, id};
			x.opt_step = n->type == AN_NODE_OPTIMIZER &&
				     !strstr(model_str(m, n->name), "zero_grad");
			if (vec_push(&c->ops, x))
				return NNS_ENOMEM;
		}
		for (ch = n->first_child; ch != MODEL_NOIDX; ch = t->nodes.v[ch].next_sibling) {
			const struct an_node *x = &t->nodes.v[ch];
			if (an_node_end(m, x) < lo ||
			    (an_node_end(m, x) == lo && an_node_start(m, x) < lo))
				continue;
			if (an_node_start(m, x) >= hi)
				break;
			if (vec_push(&c->stack, ch))
				return NNS_ENOMEM;
		}
	}
	return 0;
}

/* An operator named as the fp_start / bp_end override asks: the same name,
 * or (for PyTorch's shorter names) one that contains it. */
static int name_is(const struct st_ctx *c, uint32_t node, const char *want)
{
	const char *s = model_str(c->p->m, c->p->tree.nodes.v[node].name);

	return s && (strcmp(s, want) == 0 || strstr(s, want) != NULL);
}

/* The overrides on the current step's operators: the first start of an
 * fp_name operator and the last end (with its device work) of a bp_name
 * one; each left as is when there is no override or no such operator. */
static void apply_overrides(const struct st_ctx *c, int64_t *first, int64_t *bwd_end)
{
	int64_t f = INT64_MAX, b = INT64_MIN;

	for (size_t k = 0; k < c->ops.n; k++) {
		const struct span *x = &c->ops.v[k];
		int64_t end = c->devend[x->node] > x->end ? c->devend[x->node] : x->end;

		if (c->fp_name && x->start < f && name_is(c, x->node, c->fp_name))
			f = x->start;
		if (c->bp_name && end > b && name_is(c, x->node, c->bp_name))
			b = end;
	}
	if (f != INT64_MAX)
		*first = f;
	if (b != INT64_MIN)
		*bwd_end = b;
}

/* Start of the first operator starting at or after `from`, INT64_MAX if
 * none; only optimizer steps when opt is set. */
static int64_t first_op_from(const struct st_ctx *c, int64_t from, int opt)
{
	int64_t best = INT64_MAX;
	size_t i;

	for (i = 0; i < c->ops.n; i++)
		if (c->ops.v[i].start >= from && c->ops.v[i].start < best &&
		    (!opt || c->ops.v[i].opt_step))
			best = c->ops.v[i].start;
	return best;
}

/* The thread root used for steps without a ProfilerStep node: the one with
 * data-loading or optimizer nodes, else the one whose top-level nodes take
 * the most time. MODEL_NOIDX without roots. */
static uint32_t main_root(struct st_ctx *c)
{
	const struct an_optree *t = &c->p->tree;
	const struct model *m = c->p->m;
	uint32_t best = MODEL_NOIDX;
	int64_t best_score = -1;
	int best_marked = -1;
	size_t r;

	for (r = 0; r < t->roots.n; r++) {
		uint32_t root = t->roots.v[r], ch;
		int64_t busy = 0;
		int marked = 0;
		for (ch = t->nodes.v[root].first_child; ch != MODEL_NOIDX;
		     ch = t->nodes.v[ch].next_sibling) {
			const struct an_node *x = &t->nodes.v[ch];
			busy += an_node_end(m, x) - an_node_start(m, x);
			if (x->type == AN_NODE_DATALOADER || x->type == AN_NODE_OPTIMIZER ||
			    x->type == AN_NODE_STEP)
				marked = 1;
		}
		if (marked > best_marked || (marked == best_marked && busy > best_score)) {
			best = root;
			best_score = busy;
			best_marked = marked;
		}
	}
	return best;
}

static int stepnode_cmp(const void *x, const void *y)
{
	const struct step_node *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* The ProfilerStep node of step s (the first with its host range), or
 * MODEL_NOIDX. */
static uint32_t find_step_node(const struct st_ctx *c, const struct an_step *s)
{
	size_t k = iv_bound(c->sn, c->nsn, sizeof(*c->sn), offsetof(struct step_node, start),
			    s->host_start, 0);

	for (; k < c->nsn && c->sn[k].start == s->host_start; k++)
		if (c->sn[k].end == s->host_end)
			return c->sn[k].id;
	return MODEL_NOIDX;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* End of the device work launched by each node (INT64_MIN for none). */
static void fill_devend(struct st_ctx *c)
{
	const struct model *m = c->p->m;
	const struct an_optree *t = &c->p->tree;
	size_t nn = t->nodes.n, i;

	for (i = 0; i < nn; i++)
		c->devend[i] = INT64_MIN;
	if (!t->owner)
		return;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t o = an_owner(t, i);
		if (o == MODEL_NOIDX || o >= nn || !model_kind_is_device(e->kind))
			continue;
		if (e->ts + e->dur > c->devend[o])
			c->devend[o] = e->ts + e->dur;
	}
}

/* c->bw: the backward nodes of every thread, by start, each ending at the
 * later of its own end and its device work's. */
static int collect_backward(struct st_ctx *c)
{
	const struct an_optree *t = &c->p->tree;
	const struct model *m = c->p->m;
	size_t nn = t->nodes.n, n = 0, i;

	for (i = 0; i < nn; i++)
		n += (c->flags[i] & F_BWD) != 0;
	c->bw = malloc((n + 1) * sizeof(*c->bw));
	if (!c->bw)
		return NNS_ENOMEM;
	for (i = 0; i < nn; i++) {
		const struct an_node *x = &t->nodes.v[i];
		if (!(c->flags[i] & F_BWD) || x->type == AN_NODE_ROOT)
			continue;
		c->bw[c->nbw].start = an_node_start(m, x);
		c->bw[c->nbw].end =
		    c->devend[i] > an_node_end(m, x) ? c->devend[i] : an_node_end(m, x);
		c->nbw++;
	}
	if (c->nbw > 1)
		qsort(c->bw, c->nbw, sizeof(*c->bw), bwd_cmp);
	return 0;
}

/* c->sn: the ProfilerStep nodes, by (start, end, id). */
static int collect_step_nodes(struct st_ctx *c)
{
	const struct an_optree *t = &c->p->tree;
	const struct model *m = c->p->m;
	size_t nn = t->nodes.n, n = 0, i;

	for (i = 0; i < nn; i++)
		n += t->nodes.v[i].type == AN_NODE_STEP;
	c->sn = malloc((n + 1) * sizeof(*c->sn));
	if (!c->sn)
		return NNS_ENOMEM;
	for (i = 0; i < nn; i++) {
		const struct an_node *x = &t->nodes.v[i];
		if (x->type != AN_NODE_STEP)
			continue;
		c->sn[c->nsn].start = an_node_start(m, x);
		c->sn[c->nsn].end = an_node_end(m, x);
		c->sn[c->nsn++].id = (uint32_t)i;
	}
	if (c->nsn > 1)
		qsort(c->sn, c->nsn, sizeof(*c->sn), stepnode_cmp);
	return 0;
}

/* Sets up c for p: the overrides, per-node flags and device ends, the
 * backward and ProfilerStep nodes and the main root. */
static int st_ctx_init(struct st_ctx *c, struct an_profile *p)
{
	const struct model *m = p->m;
	size_t nn = p->tree.nodes.n;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->fp_name = model_meta_get(m, "fp_start");
	c->bp_name = model_meta_get(m, "bp_end");
	if (c->fp_name && !*c->fp_name)
		c->fp_name = NULL;
	if (c->bp_name && !*c->bp_name)
		c->bp_name = NULL;
	c->flags = calloc(nn + 1, 1);
	c->namecls = calloc(m->strings.count + 1, 1);
	c->devend = malloc((nn + 1) * sizeof(*c->devend));
	if (!c->flags || !c->namecls || !c->devend || fill_flags(c))
		return NNS_ENOMEM;
	fill_devend(c);
	if (collect_backward(c) || collect_step_nodes(c))
		return NNS_ENOMEM;
	c->mroot = main_root(c);
	return 0;
}

static void st_ctx_release(struct st_ctx *c)
{
	free(c->flags);
	free(c->namecls);
	free(c->devend);
	vec_free(&c->ops);
	vec_free(&c->dls);
	vec_free(&c->stack);
	free(c->bw);
	free(c->sn);
}

/* What a step's operators give (see the top of the file): the start of
 * its first operator after its data, the end of its last operator and
 * of its last backward work (INT64_MAX / INT64_MIN when none). */
struct step_marks {
	int64_t first, last_end, bwd_end;
};

/* Scans step s's operators into c->ops / c->dls and finds its marks. */
static int step_marks(struct st_ctx *c, const struct an_step *s, struct step_marks *mk)
{
	uint32_t top = find_step_node(c, s);
	int64_t limit = INT64_MAX, dl_end = INT64_MIN, opt;
	size_t k, k0;

	mk->first = INT64_MAX;
	mk->last_end = mk->bwd_end = INT64_MIN;
	if (top == MODEL_NOIDX)
		top = c->mroot;
	c->ops.n = c->dls.n = 0;
	if (top != MODEL_NOIDX && scan_ops(c, top, s->host_start, s->host_end))
		return NNS_ENOMEM;
	for (k = 0; k < c->ops.n; k++) {
		if (c->ops.v[k].start < mk->first)
			mk->first = c->ops.v[k].start;
		if (c->ops.v[k].end > mk->last_end)
			mk->last_end = c->ops.v[k].end;
	}
	k0 = iv_bound(c->bw, c->nbw, sizeof(*c->bw), offsetof(struct bwd_entry, start),
		      s->host_start, 0);
	for (k = k0; k < c->nbw && c->bw[k].start < s->host_end; k++)
		if (c->bw[k].end > mk->bwd_end)
			mk->bwd_end = c->bw[k].end;
	/* the data for this step: loading that starts before the backward
	 * and the optimizer step; FP starts after the last of it */
	if (k0 < c->nbw && c->bw[k0].start < s->host_end)
		limit = c->bw[k0].start;
	opt = first_op_from(c, INT64_MIN, 1);
	if (opt < limit)
		limit = opt;
	for (k = 0; k < c->dls.n; k++)
		if (c->dls.v[k].start < limit && c->dls.v[k].end > dl_end)
			dl_end = c->dls.v[k].end;
	if (dl_end != INT64_MIN && first_op_from(c, dl_end, 0) != INT64_MAX)
		mk->first = first_op_from(c, dl_end, 0);
	apply_overrides(c, &mk->first, &mk->bwd_end);
	return 0;
}

/* Step s's row from its marks (c->ops still holding its operators). */
static void step_row(const struct st_ctx *c, const struct an_step *s, const struct step_marks *mk,
		     struct an_steptrace_row *row)
{
	int64_t total = s->end > s->start ? s->end - s->start : 0;
	int64_t fp_start, fp_end, opt;

	memset(row, 0, sizeof(*row));
	memcpy(row->name, s->name, sizeof(row->name));
	row->name[sizeof(row->name) - 1] = '\0';
	row->start = s->start;
	row->end = s->start + total;
	if (mk->first == INT64_MAX) {
		/* nothing but data loading (or nothing at all) */
		row->iteration_interval = total;
		return;
	}
	fp_start = clamp64(mk->first, s->start, row->end);
	if (mk->bwd_end != INT64_MIN)
		fp_end = mk->bwd_end;
	else if ((opt = first_op_from(c, mk->first, 1)) != INT64_MAX)
		fp_end = opt;
	else
		fp_end = mk->last_end;
	fp_end = clamp64(fp_end, fp_start, row->end);
	row->iteration_interval = fp_start - s->start;
	row->fp_bp = fp_end - fp_start;
	row->tail = row->end - fp_end;
}

int an_steptrace_compute(struct an_profile *p, struct nns_err *err)
{
	struct an_steptrace *st = &p->steptrace;
	struct st_ctx c;
	double sum[4] = {0, 0, 0, 0};
	size_t i;
	int rc = NNS_ENOMEM;

	if (st_ctx_init(&c, p))
		goto out;
	if (vec_reserve(&st->steps, p->overview.steps.n + 1))
		goto out;
	for (i = 0; i < p->overview.steps.n; i++) {
		const struct an_step *s = &p->overview.steps.v[i];
		struct an_steptrace_row row;
		struct step_marks mk;

		if (step_marks(&c, s, &mk))
			goto out;
		step_row(&c, s, &mk, &row);
		st->steps.v[st->steps.n++] = row;
		sum[0] += (double)row.iteration_interval;
		sum[1] += (double)row.fp_bp;
		sum[2] += (double)row.tail;
		sum[3] += (double)(row.end - row.start);
	}
	if (st->steps.n) {
		double n = (double)st->steps.n;
		st->avg_interval = sum[0] / n;
		st->avg_fp_bp = sum[1] / n;
		st->avg_tail = sum[2] / n;
		st->avg_total = sum[3] / n;
	}
	rc = NNS_OK;
out:
	st_ctx_release(&c);
	if (rc)
		nns_err_set(err, rc, "out of memory while computing the step trace");
	return rc;
}

void an_steptrace_release(struct an_steptrace *s)
{
	vec_free(&s->steps);
	memset(s, 0, sizeof(*s));
}
