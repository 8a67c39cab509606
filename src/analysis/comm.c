/*
 * comm.c - the communication nodes of one worker (tb_plugin
 * CommunicationNode, NodeParserMixin._update_communication_node,
 * communication.generate_communication_nodes), input of distributed.c.
 *
 * A node is a host range (cpu_op or user_annotation) named nccl:* or
 * gloo:*. Its ranges start with the op's own range; an NCCL node also gets
 * the kernels whose external id equals the op's, and - because PyTorch 2.x
 * writes external id == correlation on NCCL kernels (kineto#782) - the
 * collective kernels (ncclKernel*, ncclDevKernel*) launched by a runtime
 * owned by the op or one of its descendants in the op tree. Ranges are
 * sorted by (start, -end), nodes by (start, -end), like tb_plugin, so that
 * node i and range j can be matched across workers.
 *
 * A node belongs to the step that contains its start (tb_plugin required
 * the whole node inside a step and gave up on the first one that was not).
 * A comm range nested in a comm range of the same name on the same thread
 * (a cpu_op and its user_annotation twin) is folded into the outer node.
 *
 * bytes = sum over inputs of prod(shape) x dtype size, from the canonical
 * "Input Dims" / "Input type" texts ("[[2, 8, 5], []]", "['float', 'Int']")
 * (tb_plugin). Modern Kineto writes no shapes on the nccl:* range but
 * record_param_comms' "In msg nelems" and "dtype" (on the op, and since
 * PyTorch 2.1 on the collective kernels): without shapes, bytes = In msg
 * nelems x dtype size, of the op itself, else summed over its collective
 * kernels.
 */
#include "an_comm.h"
#include "analysis.h"
#include "common/satmath.h"
#include "comm_bytes.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>

/* ---- bytes from input dims and types --------------------------------------- */

#define COMM_PARSE_DEPTH 16

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* Skips one value that is not a list or a number (a quoted string, None,
 * ...): up to the next ',' or ']' at this level. */
static const char *skip_other(const char *s)
{
	if (*s == '\'' || *s == '"') {
		char q = *s++;
		while (*s && *s != q) {
			if (*s == '\\' && s[1])
				s++;
			s++;
		}
		return *s ? s + 1 : s;
	}
	while (*s && *s != ',' && *s != ']')
		s++;
	return s;
}

/* Parses the list at *sp ('[' ... ']'): a shape gives the product of its
 * numbers (1 for []), a list of shapes (a tensor list) the sum of theirs.
 * Advances *sp past the list; returns -1 on malformed text. */
static int64_t parse_shape(const char **sp, int depth)
{
	const char *s = *sp;
	int64_t prod = 1, sum = 0;
	int lists = 0;

	if (*s != '[' || depth > COMM_PARSE_DEPTH)
		return -1;
	s = skip_ws(s + 1);
	while (*s && *s != ']') {
		if (*s == '[') {
			int64_t v = parse_shape(&s, depth + 1);
			if (v < 0)
				return -1;
			sum = sat_add64(sum, v);
			lists = 1;
		} else if (*s == '-' || (*s >= '0' && *s <= '9')) {
			char *end;
			long long v = strtoll(s, &end, 10);
			if (end == s)
				return -1;
			prod = sat_mul64(prod, v < 0 ? 0 : (int64_t)v);
			s = end;
		} else {
			s = skip_other(s);
		}
		s = skip_ws(s);
		if (*s == ',')
			s = skip_ws(s + 1);
		else if (*s != ']')
			return -1;
	}
	if (*s != ']')
		return -1;
	*sp = s + 1;
	return lists ? sum : prod;
}

static int type_size(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {{"long int", 8},
		     {"float", 4},
		     {"int", 4},
		     {"c10::Half", 2},
		     {"c10::BFloat16", 2},
		     {"unsigned char", 1},
		     {"double", 8},
		     /* beyond tb_plugin: torch's other element types (an NCCL
		      * plugin's ncclInt8 is 'signed char') */
		     {"signed char", 1},
		     {"short int", 2},
		     {"bool", 1},
		     {"c10::Float8_e4m3fn", 1},
		     {"c10::Float8_e5m2", 1}};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (strlen(sizes[i].name) == n && memcmp(sizes[i].name, s, n) == 0)
			return sizes[i].size;
	return 0;
}

/* Reads the next type name of the list at *sp; returns its size in bytes
 * (0 for unknown or missing) and advances *sp. */
static int next_type(const char **sp)
{
	const char *s = skip_ws(*sp), *a, *b;
	int size;

	if (*s == ',')
		s = skip_ws(s + 1);
	if (!*s || *s == ']') {
		*sp = s;
		return 0;
	}
	if (*s == '\'' || *s == '"') {
		char q = *s;
		a = s + 1;
		for (b = a; *b && *b != q; b++)
			if (*b == '\\' && b[1])
				b++;
		size = type_size(a, (size_t)(b - a));
		s = *b ? b + 1 : b;
	} else {
		a = s;
		s = skip_other(s);
		for (b = s; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		size = type_size(a, (size_t)(b - a));
	}
	*sp = s;
	return size;
}

int64_t an_comm_bytes(const char *dims, const char *types)
{
	const char *d = skip_ws(dims), *t = skip_ws(types);
	int64_t total = 0;

	if (*d != '[')
		return 0;
	d = skip_ws(d + 1);
	if (*t == '[')
		t++;
	while (*d && *d != ']') {
		int64_t count = 0;
		int size = next_type(&t);
		if (*d == '[') {
			count = parse_shape(&d, 1);
			if (count < 0)
				return total;
		} else {
			d = skip_other(d);
		}
		total = sat_add64(total, sat_mul64(count, size));
		d = skip_ws(d);
		if (*d == ',')
			d = skip_ws(d + 1);
		else if (*d != ']')
			break;
	}
	return total;
}

/* ---- nodes and ranges --------------------------------------------------------- */

struct ext_ref {
	int64_t ext;
	uint32_t comm;
};

struct range_ref {
	uint32_t comm;
	int64_t start, end;
};

struct range_vec {
	struct range_ref *v;
	size_t n, cap;
};

static int ext_cmp(const void *x, const void *y)
{
	const struct ext_ref *a = x, *b = y;
	if (a->ext != b->ext)
		return a->ext < b->ext ? -1 : 1;
	return (a->comm > b->comm) - (a->comm < b->comm);
}

static int range_cmp(const void *x, const void *y)
{
	const struct range_ref *a = x, *b = y;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end < b->end) - (a->end > b->end);
}

/* comm_of_ev holds ~c for an event of communication op c, 0 for the rest:
 * zeroed, its pages are touched only where such ops lie. */
static uint32_t comm_of(const uint32_t *comm_of_ev, uint32_t ev)
{
	return ~comm_of_ev[ev];
}

/* The comm node of the nearest enclosing tree node (starting at `node`)
 * that is a comm op, or MODEL_NOIDX. */
static uint32_t enclosing_comm(const struct an_optree *t, const uint32_t *comm_of_ev, uint32_t node)
{
	while (node != MODEL_NOIDX) {
		uint32_t ev = t->nodes.v[node].ev;
		if (ev != MODEL_NOIDX && comm_of(comm_of_ev, ev) != MODEL_NOIDX)
			return comm_of(comm_of_ev, ev);
		node = t->nodes.v[node].parent;
	}
	return MODEL_NOIDX;
}

static int step_of(const struct an_overview *o, int64_t ts)
{
	/* first step whose start > ts, then look at the one before */
	size_t lo = iv_bound(o->steps.v, o->steps.n, sizeof(*o->steps.v),
			     offsetof(struct an_step, start), ts, 1);

	while (lo > 0) {
		const struct an_step *s = &o->steps.v[lo - 1];
		if (ts < s->end)
			return (int)(lo - 1);
		if (s->end > s->start)
			break;
		lo--; /* an empty step: the one before may still contain ts */
	}
	return -1;
}

static int64_t node_bytes(const struct model *m, const struct model_event *e)
{
	const struct model_op_args *a;

	if (e->extra == MODEL_NOIDX || e->extra >= m->op_args.n)
		return 0;
	a = &m->op_args.v[e->extra];
	if (a->input_dims) {
		int64_t b = an_comm_bytes(model_str(m, a->input_dims),
					  a->input_type ? model_str(m, a->input_type) : "");
		if (b > 0)
			return b;
	}
	return sat_mul64(a->comm_nelems, a->comm_elem_size);
}

/* In msg nelems x dtype size of a collective kernel, 0 if unknown. */
static int64_t kernel_bytes(const struct model *m, const struct model_event *e)
{
	const struct model_dev_args *a;

	if (e->extra == MODEL_NOIDX || e->extra >= m->dev_args.n)
		return 0;
	a = &m->dev_args.v[e->extra];
	return sat_mul64(a->comm_nelems, a->comm_elem_size);
}

/* Creates the nodes in event order ((ts, -dur), so nodes come out sorted)
 * and their own ranges. */
static int make_nodes(struct an_profile *p, uint32_t *comm_of_ev, struct range_vec *ranges)
{
	const struct model *m = p->m;
	const struct an_optree *t = &p->tree;
	size_t i;

	for (i = 0; i < m->events.n && (m->kinds & AN_KB_CPU_NAMED); i++) {
		const struct model_event *e = &m->events.v[i];
		struct an_comm_node c;
		struct range_ref r;
		int gloo = 0;

		if (e->kind != MK_CPU_OP && e->kind != MK_USER_ANNOTATION)
			continue;
		if (!an_is_comm_name(model_str(m, e->name), &gloo))
			continue;
		if (t->owner && an_owner(t, i) != MODEL_NOIDX) {
			/* start above the event's own node (or at it, when the
			 * tree merged the event into an equal-named parent) */
			uint32_t own = an_owner(t, i);
			uint32_t from = t->nodes.v[own].ev == i ? t->nodes.v[own].parent : own;
			uint32_t outer = enclosing_comm(t, comm_of_ev, from);
			if (outer != MODEL_NOIDX && p->comm_nodes.v[outer].name == e->name) {
				comm_of_ev[i] = ~outer;
				continue;
			}
		}
		memset(&c, 0, sizeof(c));
		c.ev = (uint32_t)i;
		c.name = e->name;
		c.step = step_of(&p->overview, e->ts);
		c.bytes = node_bytes(m, e);
		if (vec_push(&p->comm_nodes, c))
			return NNS_ENOMEM;
		r.comm = (uint32_t)(p->comm_nodes.n - 1);
		comm_of_ev[i] = ~r.comm;
		r.start = e->ts;
		r.end = e->ts + e->dur;
		if (vec_push(ranges, r))
			return NNS_ENOMEM;
		if (gloo)
			p->use_gloo = 1;
		else
			p->use_nccl = 1;
	}
	return 0;
}

/* Adds the kernels of NCCL nodes. */
static int add_kernels(struct an_profile *p, const uint32_t *comm_of_ev, struct range_vec *ranges)
{
	const struct model *m = p->m;
	struct ext_ref *ext = NULL;
	int64_t *kbytes = NULL; /* per node: its kernels' bytes */
	size_t next = 0, i;

	ext = malloc((p->comm_nodes.n + 1) * sizeof(*ext));
	kbytes = calloc(p->comm_nodes.n + 1, sizeof(*kbytes));
	if (!ext || !kbytes) {
		free(ext);
		free(kbytes);
		return NNS_ENOMEM;
	}
	for (i = 0; i < p->comm_nodes.n; i++) {
		const struct model_event *e = &m->events.v[p->comm_nodes.v[i].ev];
		if (e->ext_id_enc == MODEL_ID_NONE ||
		    strncmp(model_str(m, e->name), "nccl:", 5) != 0)
			continue;
		ext[next].ext = model_ext_id(m, e);
		ext[next].comm = (uint32_t)i;
		next++;
	}
	qsort(ext, next, sizeof(*ext), ext_cmp);
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB(MK_KERNEL)); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t c = MODEL_NOIDX, l;
		if (e->kind != MK_KERNEL)
			continue;
		l = model_launch_of(m, i);
		if (l != MODEL_NOIDX && model_event_class(m, (uint32_t)i) == MC_COMM) {
			/* the comm range holding the launch on its thread (the
			 * model's nesting: the launch's operator may be the
			 * c10d:: op around the nccl: range) */
			uint32_t a;
			for (a = model_parent(m, l); a != MODEL_NOIDX && c == MODEL_NOIDX;
			     a = model_parent(m, a))
				c = comm_of(comm_of_ev, a);
		}
		if (c == MODEL_NOIDX && e->ext_id_enc != MODEL_ID_NONE && next) {
			size_t lo = 0, hi = next;
			int64_t x = model_ext_id(m, e);
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (ext[mid].ext < x)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < next && ext[lo].ext == x)
				c = ext[lo].comm;
		}
		if (c != MODEL_NOIDX) {
			struct range_ref r = {c, e->ts, e->ts + e->dur};
			if (vec_push(ranges, r)) {
				free(ext);
				free(kbytes);
				return NNS_ENOMEM;
			}
			kbytes[c] = sat_add64(kbytes[c], kernel_bytes(m, e));
		}
	}
	/* nodes whose op tells no size take their kernels' */
	for (i = 0; i < p->comm_nodes.n; i++)
		if (p->comm_nodes.v[i].bytes <= 0)
			p->comm_nodes.v[i].bytes = kbytes[i];
	free(ext);
	free(kbytes);
	return 0;
}

int an_comm_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	uint32_t *comm_of_ev = NULL;
	struct range_vec ranges = {0};
	size_t i;
	int rc = NNS_ENOMEM;

	comm_of_ev = calloc(m->events.n + 1, sizeof(*comm_of_ev));
	if (!comm_of_ev)
		goto out;
	if (make_nodes(p, comm_of_ev, &ranges))
		goto out;
	if (!p->comm_nodes.n) {
		rc = NNS_OK;
		goto out;
	}
	if (add_kernels(p, comm_of_ev, &ranges))
		goto out;
	qsort(ranges.v, ranges.n, sizeof(*ranges.v), range_cmp);
	if (vec_reserve(&p->comm_ranges, p->comm_ranges.n + ranges.n))
		goto out;
	for (i = 0; i < ranges.n; i++) {
		struct an_comm_node *c = &p->comm_nodes.v[ranges.v[i].comm];
		struct iv x = {ranges.v[i].start, ranges.v[i].end};
		if (!c->nranges)
			c->first_range = (uint32_t)p->comm_ranges.n;
		c->nranges++;
		p->comm_ranges.v[p->comm_ranges.n++] = x;
	}
	rc = NNS_OK;
out:
	free(comm_of_ev);
	vec_free(&ranges);
	if (rc)
		nns_err_set(err, rc, "out of memory while collecting communication ops");
	return rc;
}
