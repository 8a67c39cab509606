/*
 * modules.c - the module view (tb_plugin module_op.py: _aggregate_modules,
 * _process_module_statistics; ModuleNode.fill_stats).
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
 * Differences from tb_plugin: the hierarchy comes from tree nesting rather
 * than from "Python id"/"Python parent id" links (the same thing for
 * well-formed traces, and available without python ids); backward modules
 * ("<module>.backward" from fwdbwd flows) are not built.
 */
#include "analysis.h"

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
	return m->op_args.v[e->extra].py_module_id;
}

/* Adds one module node's statistics to its row. */
static void add_node(const struct an_optree *t, uint32_t id, struct an_module_row *r)
{
	const struct an_node *n = &t->nodes.v[id];
	uint32_t c;

	r->occurrences++;
	r->host_total += n->end - n->start;
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

int an_modules_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	struct mod_key *keys = NULL;
	struct first_ref *firsts = NULL;
	uint32_t *row_of_node = NULL, *final_of = NULL;
	size_t nk = 0, nrows = 0, i;
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
	nk = 0;
	for (i = 0; i < t->nodes.n; i++) {
		const struct an_node *n = &t->nodes.v[i];
		row_of_node[i] = MODEL_NOIDX;
		if (n->type != AN_NODE_MODULE || n->ev == MODEL_NOIDX)
			continue;
		keys[nk].name = n->name;
		keys[nk].module_id = module_id_of(m, n);
		keys[nk].node = (uint32_t)i;
		nk++;
	}
	/* group by (name, module id): provisional rows in key order, each
	 * remembering its first (smallest) node */
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
	/* final rows in order of first occurrence */
	qsort(firsts, nrows, sizeof(*firsts), first_cmp);
	for (i = 0; i < nrows; i++)
		final_of[firsts[i].prow] = (uint32_t)i;
	if (vec_reserve(&p->modules.rows, nrows))
		goto out;
	for (i = 0; i < nrows; i++) {
		struct an_module_row r;
		memset(&r, 0, sizeof(r));
		r.name = t->nodes.v[firsts[i].node].name;
		r.module_id = module_id_of(m, &t->nodes.v[firsts[i].node]);
		r.parent = MODEL_NOIDX;
		p->modules.rows.v[i] = r;
	}
	p->modules.rows.n = nrows;
	for (i = 0; i < t->nodes.n; i++)
		if (row_of_node[i] != MODEL_NOIDX)
			row_of_node[i] = final_of[row_of_node[i]];

	for (i = 0; i < nrows; i++) {
		/* parent: nearest enclosing module node of another row */
		uint32_t a = t->nodes.v[firsts[i].node].parent;
		while (a != MODEL_NOIDX && (row_of_node[a] == MODEL_NOIDX || row_of_node[a] == i))
			a = t->nodes.v[a].parent;
		p->modules.rows.v[i].parent = a == MODEL_NOIDX ? MODEL_NOIDX : row_of_node[a];
	}
	for (i = 0; i < t->nodes.n; i++)
		if (row_of_node[i] != MODEL_NOIDX)
			add_node(t, (uint32_t)i, &p->modules.rows.v[row_of_node[i]]);
	for (i = 0; i < nrows; i++) {
		struct an_module_row *r = &p->modules.rows.v[i];
		r->avg_duration = r->dev_total > 0 ? (double)r->dev_total / (double)r->occurrences
						   : (double)r->host_total / (double)r->occurrences;
	}
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
