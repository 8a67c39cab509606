/*
 * optree.c - per-thread operator call trees (tb_plugin OpTreeBuilder,
 * EventParser.parse_nodes, OperatorNode.fill_stats).
 *
 * Nodes: operators, python ranges, ProfilerSteps, modules (python_function
 * with a module id) and nccl:/gloo: annotations, built per thread by
 * containment with a stack over events sorted by (start, -end). An
 * operator that starts inside another and ends after it is kept, under the
 * innermost node that holds it, as the model's index nests it; tb_plugin
 * dropped it, which lost calls of traces rounded to microseconds.
 *
 * Runtime and driver launches belong to the operator the model's index
 * attributed them to (model.op_of, model_index.c: the operator the
 * external id names, else the innermost enclosing operator of the
 * launch's thread); a launch no operator takes, with external id 0, goes
 * to the thread root as in tb_plugin. Device events (kernel, memcpy,
 * memset) belong to their launch's node. A launch's host time is taken
 * from the node that holds it in time, once, so no self time is negative.
 */
#include "an_optree.h"
#include "analysis.h"
#include "names.h"
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

/* Runtime/driver launches owned by a node, as a linked list: while the
 * tree is built only (remove_dup moves them; owner keeps the result). */
struct rt_link {
	uint32_t ev;   /* runtime/driver event index */
	uint32_t next; /* next link of the same node, MODEL_NOIDX at end */
};

/* What building needs beside the tree, per node (room for every
 * candidate node), freed when the tree is done. */
struct build {
	uint32_t *last_child; /* MODEL_NOIDX if none */
	uint32_t *first_rt;   /* index into links, MODEL_NOIDX if none */
	size_t cap;	      /* room in both, and in the tree's nodes */
	VEC(struct rt_link) links;
};

/* The kinds node_type_of may make a node of. */
static int host_range(int k)
{
	return k == MK_CPU_OP || k == MK_USER_ANNOTATION || k == MK_PYTHON ||
	       k == MK_PYTHON_FUNCTION;
}
#define HOST_RANGE_KB (AN_KB_CPU_RANGE | MODEL_KB(MK_PYTHON_FUNCTION))

static int node_type_of(struct an_profile *p, const struct model_event *e)
{
	const struct model *m = p->m;
	unsigned f;

	switch (e->kind) {
	case MK_CPU_OP:
		f = an_name_flags(p, e->name);
		if (f & AN_NAME_STEP)
			return AN_NODE_STEP;
		if (f & (AN_NAME_DATALOADER | AN_NAME_DL_PREFIX))
			return AN_NODE_DATALOADER;
		if (f & AN_NAME_OPTIMIZER)
			return AN_NODE_OPTIMIZER;
		if (f & (AN_NAME_DP | AN_NAME_DDP))
			return AN_NODE_OTHER;
		return AN_NODE_OP;
	case MK_USER_ANNOTATION:
		f = an_name_flags(p, e->name);
		if (f & AN_NAME_STEP)
			return AN_NODE_STEP;
		if (f & AN_NAME_COMM)
			return AN_NODE_COMM;
		return -1;
	case MK_PYTHON:
		return AN_NODE_PYTHON;
	case MK_PYTHON_FUNCTION:
		if (e->extra != MODEL_NOIDX &&
		    m->op_args.v[e->extra].py_module_id_enc != MODEL_ID_NONE)
			return AN_NODE_MODULE;
		return -1;
	default:
		return -1;
	}
}

/* The nodes were reserved for every candidate (an_optree_compute), so
 * the push cannot move them and b's arrays have room. */
static uint32_t new_node(struct an_optree *t, struct build *b, uint32_t ev, uint32_t name, int type)
{
	struct an_node n;
	uint32_t id = (uint32_t)t->nodes.n;

	memset(&n, 0, sizeof(n));
	n.ev = ev;
	n.parent = n.first_child = n.next_sibling = MODEL_NOIDX;
	n.name = name;
	n.type = (uint8_t)type;
	if (t->nodes.n >= b->cap || vec_push(&t->nodes, n))
		return MODEL_NOIDX;
	b->last_child[id] = b->first_rt[id] = MODEL_NOIDX;
	return id;
}

static void add_child(struct an_optree *t, struct build *b, uint32_t parent, uint32_t child)
{
	struct an_node *p = &t->nodes.v[parent];

	t->nodes.v[child].parent = parent;
	if (b->last_child[parent] == MODEL_NOIDX)
		p->first_child = child;
	else
		t->nodes.v[b->last_child[parent]].next_sibling = child;
	b->last_child[parent] = child;
}

static int attach_rt(struct build *b, uint32_t node, uint32_t ev)
{
	struct rt_link l = {ev, b->first_rt[node]};

	if (vec_push(&b->links, l))
		return NNS_ENOMEM;
	b->first_rt[node] = (uint32_t)(b->links.n - 1);
	return 0;
}

/* tb_plugin remove_dup_nodes: an operator whose only child is an operator
 * of the same name is merged with it (the child's launches win). Nodes are
 * made parent before child, so visiting them in index order reaches each
 * node after its parent's merges, as the walk from the roots does, but in
 * one sequential pass. */
static void remove_dup(struct an_optree *t, struct build *b)
{
	for (size_t i = 0; i < t->nodes.n; i++) {
		uint32_t id = (uint32_t)i, c, l;
		struct an_node *n = &t->nodes.v[id];
		for (;;) {
			uint32_t ch = n->first_child;
			struct an_node *x;
			if (n->type != AN_NODE_OP || ch == MODEL_NOIDX ||
			    t->nodes.v[ch].next_sibling != MODEL_NOIDX)
				break;
			x = &t->nodes.v[ch];
			if (x->type != AN_NODE_OP || n->name != x->name)
				break;
			/* the parent's own launches are replaced by the child's,
			 * as torch.autograd's _remove_dup_nodes does */
			for (l = b->first_rt[id]; l != MODEL_NOIDX; l = b->links.v[l].next)
				t->owner[b->links.v[l].ev] = 0; /* MODEL_NOIDX */
			b->first_rt[id] = b->first_rt[ch];
			for (l = b->first_rt[id]; l != MODEL_NOIDX; l = b->links.v[l].next)
				t->owner[b->links.v[l].ev] = ~id;
			n->first_child = x->first_child;
			b->last_child[id] = b->last_child[ch];
			if (x->ev != MODEL_NOIDX)
				t->owner[x->ev] = ~id;
			x->first_child = MODEL_NOIDX;
			b->first_rt[ch] = b->last_child[ch] = MODEL_NOIDX;
			x->parent = MODEL_NOIDX;
			x->type = AN_NODE_OTHER; /* detached */
			x->ev = MODEL_NOIDX;
			for (c = n->first_child; c != MODEL_NOIDX; c = t->nodes.v[c].next_sibling)
				t->nodes.v[c].parent = id;
		}
	}
}

static int build_thread(struct an_profile *p, struct build *b, uint32_t thread, const uint32_t *evs,
			size_t n)
{
	const struct model *m = p->m;
	struct an_optree *t = &p->tree;
	VEC(uint32_t) stack = {0};
	uint32_t root;
	size_t i;
	int rc = NNS_ENOMEM;

	root = new_node(t, b, MODEL_NOIDX, 0, AN_NODE_ROOT);
	if (root == MODEL_NOIDX || vec_push(&t->roots, root) ||
	    vec_push(&t->root_threads, thread) || vec_push(&stack, root))
		goto out;
	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events.v[evs[i]];
		int type = node_type_of(p, e);
		int64_t end = e->ts + e->dur;
		uint32_t id;
		if (type < 0)
			continue;
		for (;;) {
			int64_t top_end = an_node_end(m, &t->nodes.v[stack.v[stack.n - 1]]);
			if (e->ts < top_end) {
				if (end <= top_end) {
					id = new_node(t, b, evs[i], e->name, type);
					if (id == MODEL_NOIDX)
						goto out;
					add_child(t, b, stack.v[stack.n - 1], id);
					if (vec_push(&stack, id))
						goto out;
					p->tree.owner[evs[i]] = ~id;
				} else {
					/* starts inside top, ends after it (a rounded
					 * legacy trace, a clock step): hang it under the
					 * innermost node that holds it, off the stack,
					 * as the model's index does (MODEL_EF_PARTIAL) */
					size_t k = stack.n - 1;
					while (k > 0 &&
					       end > an_node_end(m, &t->nodes.v[stack.v[k]]))
						k--;
					id = new_node(t, b, evs[i], e->name, type);
					if (id == MODEL_NOIDX)
						goto out;
					add_child(t, b, stack.v[k], id);
					p->tree.owner[evs[i]] = ~id;
					t->partial_overlaps++;
				}
				break;
			}
			if (stack.n == 1) /* never pop the root (an event at INT64_MAX) */
				break;
			stack.n--;
		}
	}
	rc = NNS_OK;
out:
	vec_free(&stack);
	return rc;
}

/* The tree node of event ev or of the nearest event holding it on its
 * thread (the model's nesting index), MODEL_NOIDX when none has one. */
static uint32_t node_holding(const struct model *m, const struct an_optree *t, uint32_t ev)
{
	uint32_t p;

	for (p = model_parent(m, ev); p != MODEL_NOIDX; p = model_parent(m, p))
		if (an_owner(t, p) != MODEL_NOIDX &&
		    t->nodes.v[an_owner(t, p)].type != AN_NODE_ROOT)
			return an_owner(t, p);
	return MODEL_NOIDX;
}

/* Launches go to the node of the operator the model attributed them to
 * (model.op_of, model_index.c); tb_plugin's external id 0 -> thread root
 * holds for launches that no operator encloses. The counts are the model's. */
static int attach_runtimes(struct an_profile *p, struct build *b, const uint32_t *thread_root)
{
	const struct model *m = p->m;
	struct an_optree *t = &p->tree;
	size_t i;

	t->attr.launches = m->attr.launches;
	t->attr.by_enclosing = m->attr.by_enclosing;
	t->attr.by_external_id = m->attr.by_external_id;
	t->attr.unattributed = m->attr.unattributed;
	t->attr.device_events = m->attr.device_events;
	t->attr.device_no_launch = m->attr.device_no_launch;
	t->attr.device_ns = m->attr.device_ns;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_LAUNCH); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t node = MODEL_NOIDX, op = model_op_of(m, i);
		if (!model_kind_is_launch(e->kind))
			continue;
		if (op != MODEL_NOIDX && (node = an_owner(t, op)) == MODEL_NOIDX)
			node = node_holding(m, t, op); /* its range was dropped (overlap) */
		if (node == MODEL_NOIDX && e->ext_id_enc == 0 &&
		    thread_root[e->thread] != MODEL_NOIDX) {
			node = thread_root[e->thread];
			t->attr.by_thread_root++;
			t->attr.unattributed--;
		}
		if (node == MODEL_NOIDX) {
			t->unmatched_runtimes++;
			continue;
		}
		if (attach_rt(b, node, (uint32_t)i))
			return NNS_ENOMEM;
		t->owner[i] = ~node;
	}
	return 0;
}

/* Host statistics (OperatorNode.fill_stats): self = total - children -
 * launches. A launch is taken from the node that holds it in time (its
 * innermost enclosing node), once, whichever operator it is attributed to,
 * so a self time is never negative; one that still is (overlapping
 * children) is clamped at 0 and counted. Name-based tensor-core
 * eligibility. */
static void fill_host_stats(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_optree *t = &p->tree;
	size_t i;

	for (i = 0; i < t->nodes.n; i++) {
		struct an_node *n = &t->nodes.v[i];
		if (n->type != AN_NODE_ROOT)
			n->tc_eligible = (an_name_flags(p, n->name) & AN_NAME_TC_OP) != 0;
		/* a merged-away node (remove_dup) keeps its self time 0: no
		 * table counts it */
		n->host_self = an_node_host_total(m, n);
	}
	/* each child's range off its parent's self time (a parent comes
	 * before its children: one pass in index order) */
	for (i = 0; i < t->nodes.n; i++) {
		const struct an_node *n = &t->nodes.v[i];
		if (n->parent != MODEL_NOIDX)
			t->nodes.v[n->parent].host_self -= an_node_host_total(m, n);
	}
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_LAUNCH); i++) {
		uint32_t h;
		if (!model_kind_is_launch(m->events.v[i].kind))
			continue;
		if ((h = node_holding(m, t, (uint32_t)i)) != MODEL_NOIDX)
			t->nodes.v[h].host_self -= m->events.v[i].dur;
	}
	for (i = 0; i < t->nodes.n; i++)
		if (t->nodes.v[i].host_self < 0 && t->nodes.v[i].type != AN_NODE_ROOT) {
			t->nodes.v[i].host_self = 0;
			t->negative_self++;
		}
}

/* Device time of each launch, added to its node (second pass so that the
 * per-launch sums are computed once). */
static int add_device_time(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_optree *t = &p->tree;
	size_t i;

	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t l = model_launch_of(m, i), node;
		if (!model_kind_is_device(e->kind))
			continue;
		if (l == MODEL_NOIDX) { /* counted by the model (device_no_launch) */
			t->attr.device_unattributed_ns += e->dur;
			continue;
		}
		node = an_owner(t, l);
		if (node == MODEL_NOIDX || t->nodes.v[node].type == AN_NODE_ROOT) {
			t->attr.device_unattributed++;
			t->attr.device_unattributed_ns += e->dur;
			if (node == MODEL_NOIDX)
				continue;
		}
		t->owner[i] = ~node;
		t->nodes.v[node].dev_self += e->dur;
		if (e->kind == MK_KERNEL && an_tc_kernel_id(p, e->name)) {
			if (!t->tc && !(t->tc = calloc(t->nodes.n + 1, sizeof(*t->tc))))
				return NNS_ENOMEM;
			t->tc[node].self += e->dur;
			if (t->nodes.v[node].type == AN_NODE_OP)
				t->nodes.v[node].tc_eligible = 1;
		}
	}
	return 0;
}

/* Device totals bottom-up, after dev_self is known. */
static void roll_up(struct an_optree *t)
{
	size_t i;

	for (i = 0; i < t->nodes.n; i++) {
		t->nodes.v[i].dev_total = t->nodes.v[i].dev_self;
		if (t->tc)
			t->tc[i].total = t->tc[i].self;
	}
	for (i = t->nodes.n; i-- > 0;) {
		struct an_node *n = &t->nodes.v[i];
		if (n->parent == MODEL_NOIDX)
			continue;
		t->nodes.v[n->parent].dev_total += n->dev_total;
		if (t->tc)
			t->tc[n->parent].total += t->tc[i].total;
		if (n->tc_eligible && t->nodes.v[n->parent].type == AN_NODE_OP)
			t->nodes.v[n->parent].tc_eligible = 1;
	}
}

int an_optree_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct an_optree *t = &p->tree;
	size_t nthr = m->threads.n, n = m->events.n, i;
	uint32_t *count = NULL, *start = NULL, *order = NULL, *thread_root = NULL,
		 *first_seen = NULL;
	size_t nfirst = 0;
	struct build b = {0};
	size_t cand = 0;
	int rc = NNS_ENOMEM;

	t->owner = calloc(n + 1, sizeof(*t->owner)); /* all MODEL_NOIDX */
	count = calloc(nthr + 1, sizeof(*count));
	start = calloc(nthr + 1, sizeof(*start));
	thread_root = malloc((nthr + 1) * sizeof(*thread_root));
	first_seen = malloc((nthr + 1) * sizeof(*first_seen));
	if (!t->owner || !count || !start || !thread_root || !first_seen)
		goto out;
	/* every thread gets a root, in order of first appearance; only the
	 * host ranges (the kinds node_type_of takes) are grouped by thread */
	for (i = 0; i < nthr; i++)
		thread_root[i] = MODEL_NOIDX;
	for (i = 0; i < n; i++) {
		uint32_t th = m->events.v[i].thread;
		if (thread_root[th] == MODEL_NOIDX) {
			thread_root[th] = 0;
			first_seen[nfirst++] = th;
		}
		if (host_range(m->events.v[i].kind)) {
			count[th]++;
			cand++;
		} else if (nfirst == nthr && !(m->kinds & HOST_RANGE_KB)) {
			break; /* every thread seen, and no host range to count */
		}
	}
	for (i = 1; i < nthr; i++)
		start[i] = start[i - 1] + count[i - 1];
	memset(count, 0, (nthr + 1) * sizeof(*count));
	if (!(order = malloc((cand + 1) * sizeof(*order))))
		goto out;
	for (i = 0; i < n && cand; i++) {
		uint32_t th = m->events.v[i].thread;
		if (host_range(m->events.v[i].kind))
			order[start[th] + count[th]++] = (uint32_t)i;
	}
	for (i = 0; i < nthr; i++)
		thread_root[i] = MODEL_NOIDX;
	/* reserve once: every host range may become a node, and the roots */
	cand += nthr;
	b.cap = cand;
	if (vec_reserve(&t->nodes, cand) ||
	    !(b.last_child = malloc((cand + 1) * sizeof(*b.last_child))) ||
	    !(b.first_rt = malloc((cand + 1) * sizeof(*b.first_rt))))
		goto out;
	for (i = 0; i < nfirst; i++) {
		uint32_t th = first_seen[i];
		size_t before = t->roots.n;
		if (build_thread(p, &b, th, order + start[th], count[th]))
			goto out;
		thread_root[th] = t->roots.v[before];
	}
	free(order); /* the biggest of the temporaries: gone before the rest */
	order = NULL;
	if (attach_runtimes(p, &b, thread_root))
		goto out;
	remove_dup(t, &b);
	fill_host_stats(p);
	if (add_device_time(p))
		goto out;
	roll_up(t);
	rc = NNS_OK;
out:
	free(count);
	free(start);
	free(order);
	free(thread_root);
	free(first_seen);
	free(b.last_child);
	free(b.first_rt);
	vec_free(&b.links);
	if (rc)
		nns_err_set(err, rc, "out of memory while building operator trees");
	return rc;
}
