/*
 * modules.c - the module view (tb_plugin module_op.py: _aggregate_modules,
 * _process_module_statistics; ModuleNode.fill_stats; and op_tree.py
 * OpTreeBuilder._build_backward_module for the backward modules).
 *
 * Module nodes are the AN_NODE_MODULE nodes of the op tree (python_function
 * events with a "Python module id"). One row per (name, module id):
 *   occurrences   number of module nodes;
 *   operators     direct children that are operator nodes;
 *   host total    sum of end - start; host self as for operators (optree);
 *   device total  device time of everything launched inside;
 *   device self   the node's own launches plus the device total of its
 *                 direct child operators (tb_plugin's definition);
 *   avg_duration  device total / occurrences if > 0, else host total /
 *                 occurrences.
 * parent is the row of the nearest enclosing module node of the row's
 * first occurrence (MODEL_NOIDX at the top), which gives the flame-graph
 * hierarchy. Rows are in order of first occurrence, so a parent row always
 * comes before its children.
 *
 * Backward modules (when the trace has "fwdbwd" flows), after the forward
 * rows, as tb_plugin's OpTreeBuilder builds its BackwardNodes:
 *   - an id's last 's' and last 'f' endpoints pair a forward time with a
 *     backward time (trace.create_association_events);
 *   - backward roots are the "autograd::engine::evaluate_function:" nodes
 *     at the top of a thread or directly under ProfilerStep nodes; a root
 *     named "...: torch::autograd::AccumulateGrad" joins the group of the
 *     root before it;
 *   - a backward time names the group of the nearest backward root above
 *     the node that starts there (first in pre-order, not counting the
 *     roots themselves);
 *   - below each top-level forward module (top of a thread or under
 *     ProfilerSteps), every module node gets a backward node whose parent
 *     is the backward node of the nearest enclosing module; each operator
 *     node whose start is a paired forward time hands its backward group
 *     to the backward node of its nearest enclosing module;
 *   - a backward node spans min start .. max end of its children (group
 *     nodes and child backward nodes); host self = span - the children's
 *     spans; device total = the children's device totals.
 * Backward rows are named "<name>.backward" (the row keeps the forward
 * name id and sets `backward`; an_module_name() adds the suffix), have the
 * forward module id, count the group nodes that are operators as
 * operators, take device self = device total of those direct operators
 * (the module view's definition), and have as parent the backward row of
 * the nearest enclosing backward node of their first occurrence.
 *
 * Differences from tb_plugin: the hierarchy comes from tree nesting rather
 * than from "Python id"/"Python parent id" links (the same thing for
 * well-formed traces, and available without python ids). For backward
 * modules: tb_plugin lists BackwardNodes only in the operator tree, not in
 * the module table; a backward node with no backward operators below it is
 * dropped here (tb_plugin keeps it with its forward times, which then skew
 * its parent's span); a group goes to the first forward operator that
 * starts at its forward time (tb_plugin adds it once per such operator);
 * the span ends at the children's latest end (tb_plugin: the end of the
 * last child by start); a backward time that only matches a backward root's
 * own start still names that root's group; and inputs where tb_plugin
 * raises (a group claimed twice, a time pointing into an AccumulateGrad or
 * a nested root, a leading AccumulateGrad) are skipped or start a group.
 */
#include "an_modules.h"
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mod_key {
	uint32_t name;
	int64_t module_id;
	uint32_t node;
};

static int key_cmp(const void *x, const void *y)
{
	const struct mod_key *a = x, *b = y;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->module_id != b->module_id)
		return a->module_id < b->module_id ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* first-occurrence node of a provisional row, to order rows */
struct first_ref {
	uint32_t node;
	uint32_t prow;
};

static int first_cmp(const void *x, const void *y)
{
	const struct first_ref *a = x, *b = y;
	return (a->node > b->node) - (a->node < b->node);
}

const char *an_module_label(const struct model *m, const struct an_module_row *r)
{
	const char *s = model_str(m, r->name);
	return strncmp(s, "nn.Module: ", 11) == 0 ? s + 11 : s;
}

static int64_t module_id_of(const struct model *m, const struct an_node *n)
{
	const struct model_event *e = &m->events.v[n->ev];
	if (e->extra == MODEL_NOIDX || e->extra >= m->op_args.n)
		return MODEL_NONE;
	return model_id_dec(m, m->op_args.v[e->extra].py_module_id_enc);
}

/* Adds one module node's statistics to its row. */
static void add_node(const struct model *m, const struct an_optree *t, uint32_t id,
		     struct an_module_row *r)
{
	const struct an_node *n = &t->nodes.v[id];
	uint32_t c;

	r->occurrences++;
	r->host_total += an_node_host_total(m, n);
	r->host_self += n->host_self;
	r->dev_total += n->dev_total;
	r->dev_self += n->dev_self;
	for (c = n->first_child; c != MODEL_NOIDX; c = t->nodes.v[c].next_sibling) {
		if (t->nodes.v[c].type != AN_NODE_OP)
			continue;
		r->operators++;
		r->dev_self += t->nodes.v[c].dev_total;
	}
}

int an_module_name(const struct model *m, const struct an_module_row *r, int strip, char *buf,
		   size_t n)
{
	return snprintf(buf, n, "%s%s", strip ? an_module_label(m, r) : model_str(m, r->name),
			r->backward ? ".backward" : "");
}

/* ---- backward modules --------------------------------------------------- */

#define BWD_PREFIX "autograd::engine::evaluate_function:"
#define BWD_ACCUMULATE "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"

/* A fwdbwd endpoint; idx is its input position. */
struct flow_end {
	int64_t id, ts;
	uint32_t idx;
};

/* A forward time and the backward time it is paired with; group is the
 * backward group it names (MODEL_NOIDX if none). */
struct fb_pair {
	int64_t fwd, bwd;
	uint32_t rank; /* input position of the id's first 's' */
	uint32_t group;
};

/* A backward root in tb_plugin's flattening order: by the rank of its
 * parent (thread root or ProfilerStep, in order of first use), then in
 * traversal order. */
struct bw_root {
	uint32_t prank, seq, node;
};

/* A node below (or, for the fallback, at) a backward root: its start, its
 * pre-order rank and the backward root that its time resolves to. */
struct ts_ent {
	int64_t ts;
	uint32_t rank, root;
};

/* A synthetic backward module node. */
struct bnode {
	uint32_t fwd;	 /* forward module node */
	uint32_t parent; /* enclosing backward node, MODEL_NOIDX at top */
	uint32_t row;	 /* its row, once rows exist */
	int used;	 /* has children (group nodes or used child nodes) */
	int64_t start, end, child_span, ops, dev_total, dev_self;
};

struct walk {
	uint32_t node, bn; /* tree node; backward node (or parent key) it goes with */
};

typedef VEC(struct walk) walk_vec;
typedef VEC(struct bnode) bnode_vec;
typedef VEC(struct bw_root) root_vec;

struct bwd {
	const struct model *m;
	const struct an_optree *t;
	const uint32_t *row_of_node; /* forward row of module nodes */
	struct fb_pair *pairs;	     /* sorted by fwd, one per fwd */
	size_t npairs;
	root_vec roots;			   /* backward roots, flattened order */
	uint32_t *group_first, *group_len; /* into roots */
	size_t ngroups;
	uint32_t *scratch;  /* per node: parent-key rank, then the
			     * backward root a node resolves to */
	uint32_t *lead;	    /* per node: group index of a group's
			     * first root, else MODEL_NOIDX */
	VEC(uint32_t) tops; /* top-level forward module nodes */
	walk_vec stack;
	bnode_vec bn;
};

static int flow_end_cmp(const void *x, const void *y)
{
	const struct flow_end *a = x, *b = y;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int pair_cmp(const void *x, const void *y)
{
	const struct fb_pair *a = x, *b = y;
	if (a->fwd != b->fwd)
		return a->fwd < b->fwd ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

static int root_cmp(const void *x, const void *y)
{
	const struct bw_root *a = x, *b = y;
	if (a->prank != b->prank)
		return a->prank < b->prank ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int ts_cmp(const void *x, const void *y)
{
	const struct ts_ent *a = x, *b = y;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* qsort, skipped when the array is already in order (the usual case for
 * arrays built in time order). */
static void sort_if_needed(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	const char *v = base;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(v + (i - 1) * size, v + i * size) > 0) {
			qsort(base, n, size, cmp);
			return;
		}
}

/* First entry with time ts in a sorted array, or NULL. */
static const struct ts_ent *ts_find(const struct ts_ent *v, size_t n, int64_t ts)
{
	size_t k = iv_bound(v, n, sizeof(*v), offsetof(struct ts_ent, ts), ts, 0);

	return k < n && v[k].ts == ts ? &v[k] : NULL;
}

/* The pair whose forward time is ts, or NULL. */
static struct fb_pair *pair_find(struct fb_pair *v, size_t n, int64_t ts)
{
	size_t k = iv_bound(v, n, sizeof(*v), offsetof(struct fb_pair, fwd), ts, 0);

	return k < n && v[k].fwd == ts ? &v[k] : NULL;
}

/* tb_plugin create_association_events: per id the last 's' and the last
 * 'f'; per forward time the pair of the id whose first 's' comes last.
 * Result sorted by forward time. */
static int build_pairs(struct bwd *b)
{
	const struct model *m = b->m;
	struct flow_end *e;
	size_t n = 0, ns = 0, i, j, k;

	for (i = 0; i < m->flows.n; i++) {
		const struct model_flow *f = &m->flows.v[i];
		if (f->kind == MF_FWDBWD && (f->ph == 's' || f->ph == 'f')) {
			n++;
			ns += f->ph == 's';
		}
	}
	if (!ns || ns == n)
		return 0;
	e = malloc(n * sizeof(*e));
	b->pairs = malloc(ns * sizeof(*b->pairs));
	if (!e || !b->pairs) {
		free(e);
		return NNS_ENOMEM;
	}
	for (i = 0, j = 0, k = ns; i < m->flows.n; i++) {
		const struct model_flow *f = &m->flows.v[i];
		struct flow_end x;
		if (f->kind != MF_FWDBWD || (f->ph != 's' && f->ph != 'f'))
			continue;
		x.id = f->id;
		x.ts = f->ts;
		x.idx = (uint32_t)i;
		e[f->ph == 's' ? j++ : k++] = x;
	}
	sort_if_needed(e, ns, sizeof(*e), flow_end_cmp);
	sort_if_needed(e + ns, n - ns, sizeof(*e), flow_end_cmp);
	/* merge-join the two id-sorted runs */
	for (i = 0, k = ns; i < ns;) {
		size_t last_s = i, last_f;
		int64_t id = e[i].id;
		while (last_s + 1 < ns && e[last_s + 1].id == id)
			last_s++;
		while (k < n && e[k].id < id)
			k++;
		if (k < n && e[k].id == id) {
			last_f = k;
			while (last_f + 1 < n && e[last_f + 1].id == id)
				last_f++;
			b->pairs[b->npairs].fwd = e[last_s].ts;
			b->pairs[b->npairs].bwd = e[last_f].ts;
			b->pairs[b->npairs].rank = e[i].idx;
			b->pairs[b->npairs].group = MODEL_NOIDX;
			b->npairs++;
		}
		i = last_s + 1;
	}
	free(e);
	sort_if_needed(b->pairs, b->npairs, sizeof(*b->pairs), pair_cmp);
	for (i = 0, j = 0; i < b->npairs; i++) {
		if (i + 1 < b->npairs && b->pairs[i + 1].fwd == b->pairs[i].fwd)
			continue; /* a later id with the same forward time wins */
		b->pairs[j++] = b->pairs[i];
	}
	b->npairs = j;
	return 0;
}

/* Pushes node's children, each paired with bn, so that they pop in order. */
static int push_children(struct bwd *b, uint32_t node, uint32_t bn)
{
	const struct an_optree *t = b->t;
	size_t lo = b->stack.n, hi;
	uint32_t c;

	for (c = t->nodes.v[node].first_child; c != MODEL_NOIDX; c = t->nodes.v[c].next_sibling) {
		struct walk w = {c, bn};
		if (vec_push(&b->stack, w))
			return NNS_ENOMEM;
	}
	for (hi = b->stack.n; lo + 1 < hi; lo++, hi--) {
		struct walk w = b->stack.v[lo];
		b->stack.v[lo] = b->stack.v[hi - 1];
		b->stack.v[hi - 1] = w;
	}
	return 0;
}

static int is_bwd_root(const struct bwd *b, uint32_t node)
{
	return strncmp(model_str(b->m, b->t->nodes.v[node].name), BWD_PREFIX,
		       sizeof(BWD_PREFIX) - 1) == 0;
}

/* tb_plugin _get_modules: top-level forward modules and backward roots,
 * walking thread roots and ProfilerStep nodes; then the flattening order
 * and the AccumulateGrad groups (_group_backward_nodes). */
static int find_roots(struct bwd *b)
{
	const struct an_optree *t = b->t;
	uint32_t nranks = 0, seq = 0;
	size_t i, g;

	for (i = 0; i < t->nodes.n; i++)
		b->scratch[i] = MODEL_NOIDX;
	for (i = 0; i < t->roots.n; i++) {
		if (push_children(b, t->roots.v[i], t->roots.v[i]))
			return NNS_ENOMEM;
		while (b->stack.n) {
			struct walk w = b->stack.v[--b->stack.n];
			const struct an_node *n = &t->nodes.v[w.node];
			if (b->row_of_node[w.node] != MODEL_NOIDX) {
				if (vec_push(&b->tops, w.node))
					return NNS_ENOMEM;
			} else if (n->type == AN_NODE_STEP) {
				if (push_children(b, w.node, w.node))
					return NNS_ENOMEM;
			} else if (is_bwd_root(b, w.node)) {
				struct bw_root r;
				if (b->scratch[w.bn] == MODEL_NOIDX)
					b->scratch[w.bn] = nranks++;
				r.prank = b->scratch[w.bn];
				r.seq = seq++;
				r.node = w.node;
				if (vec_push(&b->roots, r))
					return NNS_ENOMEM;
			}
		}
	}
	if (!b->tops.n || !b->roots.n)
		return 0;
	sort_if_needed(b->roots.v, b->roots.n, sizeof(*b->roots.v), root_cmp);
	b->group_first = malloc(b->roots.n * sizeof(*b->group_first));
	b->group_len = malloc(b->roots.n * sizeof(*b->group_len));
	if (!b->group_first || !b->group_len)
		return NNS_ENOMEM;
	for (i = 0; i < b->roots.n; i++) {
		const char *name = model_str(b->m, t->nodes.v[b->roots.v[i].node].name);
		if (b->ngroups && strcmp(name, BWD_ACCUMULATE) == 0) {
			b->group_len[b->ngroups - 1]++;
			continue;
		}
		g = b->ngroups++;
		b->group_first[g] = (uint32_t)i;
		b->group_len[g] = 1;
		b->lead[b->roots.v[i].node] = (uint32_t)g;
	}
	return 0;
}

/* tb_plugin _get_node_parents/_get_backward_roots: resolves each pair's
 * backward time to a group. scratch[x] becomes the nearest backward root at
 * or above x, for the nodes below the roots. */
static int resolve_pairs(struct bwd *b)
{
	const struct an_optree *t = b->t;
	struct ts_ent *below = NULL, *at = NULL;
	size_t nb = 0, i;
	uint32_t rank = 0;
	uint8_t *taken = NULL;
	int rc = NNS_ENOMEM;

	below = malloc(t->nodes.n * sizeof(*below));
	at = malloc(b->roots.n * sizeof(*at));
	taken = calloc(b->ngroups, 1);
	if (!below || !at || !taken)
		goto out;
	for (i = 0; i < t->nodes.n; i++)
		b->scratch[i] = MODEL_NOIDX;
	for (i = 0; i < b->roots.n; i++) {
		uint32_t r = b->roots.v[i].node;
		at[i].ts = an_node_start(b->m, &t->nodes.v[r]);
		at[i].rank = (uint32_t)i;
		at[i].root = r;
		b->scratch[r] = r;
		if (push_children(b, r, r))
			goto out;
		while (b->stack.n) {
			struct walk w = b->stack.v[--b->stack.n];
			uint32_t up = b->scratch[t->nodes.v[w.node].parent];
			b->scratch[w.node] = is_bwd_root(b, w.node) ? w.node : up;
			below[nb].ts = an_node_start(b->m, &t->nodes.v[w.node]);
			below[nb].rank = rank++;
			below[nb].root = up;
			nb++;
			if (push_children(b, w.node, r))
				goto out;
		}
	}
	sort_if_needed(below, nb, sizeof(*below), ts_cmp);
	sort_if_needed(at, b->roots.n, sizeof(*at), ts_cmp);
	for (i = 0; i < b->npairs; i++) {
		struct fb_pair *pr = &b->pairs[i];
		const struct ts_ent *hit = ts_find(below, nb, pr->bwd);
		uint32_t g;
		if (!hit)
			hit = ts_find(at, b->roots.n, pr->bwd);
		if (!hit || hit->root == MODEL_NOIDX)
			continue;
		g = b->lead[hit->root];
		if (g == MODEL_NOIDX || taken[g])
			continue;
		taken[g] = 1;
		pr->group = g;
	}
	rc = 0;
out:
	free(below);
	free(at);
	free(taken);
	return rc;
}

/* Adds backward group g to backward node bn. */
static void add_group(struct bwd *b, uint32_t bn, uint32_t g)
{
	struct bnode *x = &b->bn.v[bn];
	uint32_t i;

	for (i = 0; i < b->group_len[g]; i++) {
		const struct an_node *n = &b->t->nodes.v[b->roots.v[b->group_first[g] + i].node];
		int64_t start = an_node_start(b->m, n), end = an_node_end(b->m, n);
		if (!x->used || start < x->start)
			x->start = start;
		if (!x->used || end > x->end)
			x->end = end;
		x->used = 1;
		x->child_span += end - start;
		x->dev_total += n->dev_total;
		if (n->type == AN_NODE_OP) {
			x->ops++;
			x->dev_self += n->dev_total;
		}
	}
}

/* tb_plugin _build_backward_module over every top-level module, then the
 * spans bottom-up (children are created after their parents). */
static int build_bnodes(struct bwd *b)
{
	const struct an_optree *t = b->t;
	size_t i;

	for (i = 0; i < b->tops.n; i++) {
		struct walk w0 = {b->tops.v[i], MODEL_NOIDX};
		if (vec_push(&b->stack, w0))
			return NNS_ENOMEM;
		while (b->stack.n) {
			struct walk w = b->stack.v[--b->stack.n];
			const struct an_node *n = &t->nodes.v[w.node];
			uint32_t cur = w.bn;
			if (b->row_of_node[w.node] != MODEL_NOIDX) {
				struct bnode x;
				memset(&x, 0, sizeof(x));
				x.fwd = w.node;
				x.parent = w.bn;
				x.row = MODEL_NOIDX;
				if (vec_push(&b->bn, x))
					return NNS_ENOMEM;
				cur = (uint32_t)(b->bn.n - 1);
			} else if (n->type == AN_NODE_OP && cur != MODEL_NOIDX) {
				struct fb_pair *pr =
				    pair_find(b->pairs, b->npairs, an_node_start(b->m, n));
				if (pr && pr->group != MODEL_NOIDX) {
					add_group(b, cur, pr->group);
					pr->group = MODEL_NOIDX; /* once */
				}
			}
			if (push_children(b, w.node, cur))
				return NNS_ENOMEM;
		}
	}
	for (i = b->bn.n; i-- > 0;) {
		const struct bnode *x = &b->bn.v[i];
		struct bnode *up;
		if (!x->used || x->parent == MODEL_NOIDX)
			continue;
		up = &b->bn.v[x->parent];
		if (!up->used || x->start < up->start)
			up->start = x->start;
		if (!up->used || x->end > up->end)
			up->end = x->end;
		up->used = 1;
		up->child_span += x->end - x->start;
		up->dev_total += x->dev_total;
	}
	return 0;
}

/* One row per forward row that has used backward nodes, in order of first
 * backward node. */
static int add_rows(struct an_profile *p, struct bwd *b, size_t nfwd)
{
	uint32_t *brow = malloc((nfwd + 1) * sizeof(*brow));
	size_t i, first = p->modules.rows.n;

	if (!brow)
		return NNS_ENOMEM;
	for (i = 0; i < nfwd; i++)
		brow[i] = MODEL_NOIDX;
	for (i = 0; i < b->bn.n; i++) {
		struct bnode *x = &b->bn.v[i];
		uint32_t f = b->row_of_node[x->fwd];
		struct an_module_row *r;
		if (!x->used)
			continue;
		if (brow[f] == MODEL_NOIDX) {
			struct an_module_row nr;
			uint32_t up = x->parent;
			memset(&nr, 0, sizeof(nr));
			nr.name = p->modules.rows.v[f].name;
			nr.module_id = p->modules.rows.v[f].module_id;
			nr.backward = 1;
			brow[f] = (uint32_t)p->modules.rows.n;
			while (up != MODEL_NOIDX && b->bn.v[up].row == brow[f])
				up = b->bn.v[up].parent;
			nr.parent = up == MODEL_NOIDX ? MODEL_NOIDX : b->bn.v[up].row;
			if (vec_push(&p->modules.rows, nr)) {
				free(brow);
				return NNS_ENOMEM;
			}
		}
		x->row = brow[f];
		r = &p->modules.rows.v[x->row];
		r->occurrences++;
		r->operators += x->ops;
		r->host_total += x->end - x->start;
		r->host_self += x->end - x->start - x->child_span;
		r->dev_total += x->dev_total;
		r->dev_self += x->dev_self;
	}
	for (i = first; i < p->modules.rows.n; i++) {
		struct an_module_row *r = &p->modules.rows.v[i];
		r->avg_duration = r->dev_total > 0 ? (double)r->dev_total / (double)r->occurrences
						   : (double)r->host_total / (double)r->occurrences;
	}
	free(brow);
	return 0;
}

/* Appends the backward rows; row_of_node maps module nodes to the nfwd
 * forward rows. */
static int backward_rows(struct an_profile *p, const uint32_t *row_of_node, size_t nfwd)
{
	struct bwd b;
	size_t i;
	int rc = NNS_ENOMEM;

	memset(&b, 0, sizeof(b));
	b.m = p->m;
	b.t = &p->tree;
	b.row_of_node = row_of_node;
	if (build_pairs(&b))
		goto out;
	if (!b.npairs) {
		rc = 0;
		goto out;
	}
	b.scratch = malloc(b.t->nodes.n * sizeof(*b.scratch));
	b.lead = malloc(b.t->nodes.n * sizeof(*b.lead));
	if (!b.scratch || !b.lead)
		goto out;
	for (i = 0; i < b.t->nodes.n; i++)
		b.lead[i] = MODEL_NOIDX;
	if (find_roots(&b))
		goto out;
	if (b.ngroups && (resolve_pairs(&b) || build_bnodes(&b) || add_rows(p, &b, nfwd)))
		goto out;
	rc = 0;
out:
	free(b.pairs);
	vec_free(&b.roots);
	free(b.group_first);
	free(b.group_len);
	free(b.scratch);
	free(b.lead);
	vec_free(&b.tops);
	vec_free(&b.stack);
	vec_free(&b.bn);
	return rc;
}

/* keys: the module nodes that have an event, as (name, module id, node);
 * row_of_node: MODEL_NOIDX for every node. Returns how many keys. */
static size_t module_keys(const struct an_profile *p, struct mod_key *keys, uint32_t *row_of_node)
{
	const struct an_optree *t = &p->tree;
	size_t nk = 0, i;

	for (i = 0; i < t->nodes.n; i++) {
		const struct an_node *n = &t->nodes.v[i];
		row_of_node[i] = MODEL_NOIDX;
		if (n->type != AN_NODE_MODULE || n->ev == MODEL_NOIDX)
			continue;
		keys[nk].name = n->name;
		keys[nk].module_id = module_id_of(p->m, n);
		keys[nk].node = (uint32_t)i;
		nk++;
	}
	return nk;
}

/* Groups the keys by (name, module id): provisional rows in key order,
 * each remembering its first (smallest) node in firsts, and each module
 * node's provisional row in row_of_node. Returns how many rows. */
static size_t group_keys(struct mod_key *keys, size_t nk, struct first_ref *firsts,
			 uint32_t *row_of_node)
{
	size_t nrows = 0, i;

	qsort(keys, nk, sizeof(*keys), key_cmp);
	for (i = 0; i < nk; i++) {
		if (i == 0 || keys[i].name != keys[i - 1].name ||
		    keys[i].module_id != keys[i - 1].module_id) {
			firsts[nrows].node = keys[i].node;
			firsts[nrows].prow = (uint32_t)nrows;
			nrows++;
		}
		row_of_node[keys[i].node] = (uint32_t)(nrows - 1);
	}
	return nrows;
}

/* The rows of p->modules in order of first occurrence (firsts sorted so),
 * and row_of_node renumbered to them; final_of: room for nrows. */
static int order_rows(struct an_profile *p, struct first_ref *firsts, size_t nrows,
		      uint32_t *final_of, uint32_t *row_of_node)
{
	const struct an_optree *t = &p->tree;
	size_t i;

	qsort(firsts, nrows, sizeof(*firsts), first_cmp);
	for (i = 0; i < nrows; i++)
		final_of[firsts[i].prow] = (uint32_t)i;
	if (vec_reserve(&p->modules.rows, nrows))
		return NNS_ENOMEM;
	for (i = 0; i < nrows; i++) {
		struct an_module_row r;
		memset(&r, 0, sizeof(r));
		r.name = t->nodes.v[firsts[i].node].name;
		r.module_id = module_id_of(p->m, &t->nodes.v[firsts[i].node]);
		r.parent = MODEL_NOIDX;
		p->modules.rows.v[i] = r;
	}
	p->modules.rows.n = nrows;
	for (i = 0; i < t->nodes.n; i++)
		if (row_of_node[i] != MODEL_NOIDX)
			row_of_node[i] = final_of[row_of_node[i]];
	return 0;
}

/* Each row's parent row, its nodes' totals and its average duration. */
static void fill_rows(struct an_profile *p, const struct first_ref *firsts,
		      const uint32_t *row_of_node)
{
	const struct an_optree *t = &p->tree;
	size_t nrows = p->modules.rows.n, i;

	for (i = 0; i < nrows; i++) {
		/* parent: nearest enclosing module node of another row */
		uint32_t a = t->nodes.v[firsts[i].node].parent;
		while (a != MODEL_NOIDX && (row_of_node[a] == MODEL_NOIDX || row_of_node[a] == i))
			a = t->nodes.v[a].parent;
		p->modules.rows.v[i].parent = a == MODEL_NOIDX ? MODEL_NOIDX : row_of_node[a];
	}
	for (i = 0; i < t->nodes.n; i++)
		if (row_of_node[i] != MODEL_NOIDX)
			add_node(p->m, t, (uint32_t)i, &p->modules.rows.v[row_of_node[i]]);
	for (i = 0; i < nrows; i++) {
		struct an_module_row *r = &p->modules.rows.v[i];
		r->avg_duration = r->dev_total > 0 ? (double)r->dev_total / (double)r->occurrences
						   : (double)r->host_total / (double)r->occurrences;
	}
}

int an_modules_compute(struct an_profile *p, struct nns_err *err)
{
	const struct an_optree *t = &p->tree;
	struct mod_key *keys = NULL;
	struct first_ref *firsts = NULL;
	uint32_t *row_of_node = NULL, *final_of = NULL;
	size_t nk = 0, nrows, i;
	int rc = NNS_ENOMEM;

	for (i = 0; i < t->nodes.n; i++)
		if (t->nodes.v[i].type == AN_NODE_MODULE && t->nodes.v[i].ev != MODEL_NOIDX)
			nk++;
	if (!nk)
		return NNS_OK;
	keys = malloc(nk * sizeof(*keys));
	firsts = malloc(nk * sizeof(*firsts));
	row_of_node = malloc(t->nodes.n * sizeof(*row_of_node));
	final_of = malloc(nk * sizeof(*final_of));
	if (!keys || !firsts || !row_of_node || !final_of)
		goto out;
	nk = module_keys(p, keys, row_of_node);
	nrows = group_keys(keys, nk, firsts, row_of_node);
	if (order_rows(p, firsts, nrows, final_of, row_of_node))
		goto out;
	fill_rows(p, firsts, row_of_node);
	if (backward_rows(p, row_of_node, nrows))
		goto out;
	rc = NNS_OK;
out:
	free(keys);
	free(firsts);
	free(row_of_node);
	free(final_of);
	if (rc)
		nns_err_set(err, rc, "out of memory in the module view");
	return rc;
}
