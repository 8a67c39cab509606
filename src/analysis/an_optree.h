/*
 * an_optree.h - the operator tree of a worker (AN_PASS_OPTREE, optree.c):
 * operators, steps, modules and launches per thread, with host, device and
 * tensor-core times, and how launches and device events found their
 * operator.
 */
#ifndef NNS_ANALYSIS_AN_OPTREE_H
#define NNS_ANALYSIS_AN_OPTREE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

enum an_node_type {
	AN_NODE_ROOT = 0,
	AN_NODE_OP,   /* operator: counted in the operator view */
	AN_NODE_STEP, /* ProfilerStep#N */
	AN_NODE_DATALOADER,
	AN_NODE_OPTIMIZER,
	AN_NODE_MODULE,	  /* python_function with Python module id */
	AN_NODE_PYTHON,	  /* python / python_function without module id */
	AN_NODE_COMM,	  /* nccl:* / gloo:* user annotation */
	AN_NODE_BACKWARD, /* synthetic "<module>.backward" */
	AN_NODE_OTHER	  /* DataParallel.forward etc.: in the tree, not in tables */
};

/* One node: 48 bytes, as a big trace holds about one per host operator.
 * What the model holds is not copied: a node's thread, start and end are
 * its event's (an_node_start, an_node_end, an_node_host_total; roots span
 * all time on the thread of their optree.root_threads row). Tensor-core
 * times, 0 in most traces, are beside the nodes (an_node_tc_self/_total). */
struct an_node {
	uint32_t ev;	 /* event index, MODEL_NOIDX for roots and merged-away nodes */
	uint32_t parent; /* node index, MODEL_NOIDX for roots */
	uint32_t first_child, next_sibling;
	uint32_t name; /* string id of the event's name, 0 for roots */
	uint8_t type;  /* enum an_node_type */
	uint8_t tc_eligible;
	int64_t host_self;
	int64_t dev_self, dev_total;
};

/* Device time of a node's tensor-core kernels: its own, and with its
 * descendants'. */
struct an_node_tc {
	int64_t self, total;
};

static inline int64_t an_node_start(const struct model *m, const struct an_node *n)
{
	return n->ev == MODEL_NOIDX ? INT64_MIN : m->events.v[n->ev].ts;
}

static inline int64_t an_node_end(const struct model *m, const struct an_node *n)
{
	return n->ev == MODEL_NOIDX ? INT64_MAX : m->events.v[n->ev].ts + m->events.v[n->ev].dur;
}

/* end - start; 0 for roots (and merged-away nodes, which no table counts) */
static inline int64_t an_node_host_total(const struct model *m, const struct an_node *n)
{
	return n->ev == MODEL_NOIDX ? 0 : m->events.v[n->ev].dur;
}

/* How launches and device events found their operator (the model's rules,
 * model_attr; optree.c adds tb_plugin's thread root for external id 0). */
struct an_attribution {
	int64_t launches;		/* runtime/driver events */
	int64_t by_external_id;		/* rule 1: the external id names an operator */
	int64_t by_enclosing;		/* rule 2: innermost enclosing operator */
	int64_t by_thread_root;		/* external id 0, no operator: the thread root */
	int64_t unattributed;		/* none of them */
	int64_t device_events;		/* kernels, copies, sets */
	int64_t device_no_launch;	/* no launch by correlation id nor ac2g flow */
	int64_t device_unattributed;	/* launch found, but it belongs to no operator */
	int64_t device_ns;		/* summed duration of the device events */
	int64_t device_unattributed_ns; /* of those in no operator (no launch or none) */
};

struct an_optree {
	VEC(struct an_node) nodes;
	VEC(uint32_t) roots;	    /* one root node per thread that has nodes */
	VEC(uint32_t) root_threads; /* the thread of roots.v[i] */
	/* per node, NULL when no kernel is a tensor-core one (all 0) */
	struct an_node_tc *tc;
	uint32_t *owner;	  /* per event: the node that owns the event (ops:
				   * their node; runtimes: the node they were
				   * attached to; device events: their launcher's
				   * node); MODEL_NOIDX if none. Stored as ~node in
				   * a zeroed array, as the model's links are
				   * (events without a node touch no page): read it
				   * with an_owner */
	int64_t partial_overlaps; /* nodes that end after the node they start in */
	int64_t negative_self;	  /* host self times clamped at 0 (overlaps) */
	int64_t unmatched_runtimes;
	struct an_attribution attr;
};

/* The node that owns event ev, MODEL_NOIDX if none (t->owner set). */
static inline uint32_t an_owner(const struct an_optree *t, size_t ev)
{
	return ~t->owner[ev];
}

static inline int64_t an_node_tc_self(const struct an_optree *t, uint32_t id)
{
	return t->tc ? t->tc[id].self : 0;
}

static inline int64_t an_node_tc_total(const struct an_optree *t, uint32_t id)
{
	return t->tc ? t->tc[id].total : 0;
}

/* AN_PASS_OPTREE: fills p->tree. */
int an_optree_compute(struct an_profile *p, struct nns_err *err);

#endif
