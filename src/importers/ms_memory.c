/*
 * ms_memory.c - decodes memory_usage_<dev>.pb (ms_memory.h): a small
 * protobuf wire-format reader (varints, length-delimited fields, skipping
 * of unknown fields) over the four messages of MindSpore's
 * memory_profiling.proto. Every read is checked against the end of the
 * message it is in; errors give the byte offset in the file.
 */
#include "importers/ms_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

/* A message being read: bytes [pos, end) of the file buffer b. */
struct cur {
	const unsigned char *b;
	size_t pos, end;
};

static int varint(struct cur *c, uint64_t *v, struct nns_err *err)
{
	size_t at = c->pos;
	uint64_t r = 0;

	for (unsigned i = 0; i < 10; i++) {
		unsigned char x;

		if (c->pos >= c->end)
			return nns_err_set(err, NNS_EFORMAT, "byte %zu: truncated varint", at);
		x = c->b[c->pos++];
		if (i == 9 && x > 1)
			return nns_err_set(err, NNS_EFORMAT, "byte %zu: varint over 64 bits", at);
		r |= (uint64_t)(x & 0x7f) << (7 * i);
		if (!(x & 0x80)) {
			*v = r;
			return NNS_OK;
		}
	}
	return nns_err_set(err, NNS_EFORMAT, "byte %zu: varint longer than 10 bytes", at);
}

/* The next field's key; *at = its offset. */
static int key(struct cur *c, uint32_t *field, unsigned *wt, size_t *at, struct nns_err *err)
{
	uint64_t k;
	int rc;

	*at = c->pos;
	if ((rc = varint(c, &k, err)))
		return rc;
	if ((k >> 3) == 0 || (k >> 3) > 0x1fffffff)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: field number %llu out of range",
				   *at, (unsigned long long)(k >> 3));
	*field = (uint32_t)(k >> 3);
	*wt = (unsigned)(k & 7);
	return NNS_OK;
}

/* A length-delimited value: its bytes are [*start, *start + *len). */
static int span(struct cur *c, size_t *start, size_t *len, struct nns_err *err)
{
	size_t at = c->pos;
	uint64_t n;
	int rc;

	if ((rc = varint(c, &n, err)))
		return rc;
	if (n > c->end - c->pos)
		return nns_err_set(
		    err, NNS_EFORMAT,
		    "byte %zu: length %llu runs past the end of its message (%zu bytes left)", at,
		    (unsigned long long)n, c->end - c->pos);
	*start = c->pos;
	*len = (size_t)n;
	c->pos += (size_t)n;
	return NNS_OK;
}

static int skip(struct cur *c, unsigned wt, size_t at, struct nns_err *err)
{
	size_t s, n, w;
	uint64_t v;

	switch (wt) {
	case WT_VARINT:
		return varint(c, &v, err);
	case WT_LEN:
		return span(c, &s, &n, err);
	case WT_I64:
	case WT_I32:
		w = wt == WT_I64 ? 8 : 4;
		if (w > c->end - c->pos)
			return nns_err_set(err, NNS_EFORMAT, "byte %zu: truncated %zu-byte field",
					   at, w);
		c->pos += w;
		return NNS_OK;
	default:
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: wire type %u (group or invalid)",
				   at, wt);
	}
}

static int add_str(struct ms_mem_file *f, const unsigned char *p, size_t n, size_t *off,
		   struct nns_err *err)
{
	if (n == 0) {
		*off = 0;
		return NNS_OK;
	}
	if (vec_reserve(&f->s, f->s.n + n + 1))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	*off = f->s.n;
	memcpy(f->s.v + f->s.n, p, n);
	f->s.n += n;
	f->s.v[f->s.n++] = '\0';
	return NNS_OK;
}

static int push_id(struct ms_mem_file *f, uint64_t v, size_t at, struct nns_err *err)
{
	if (f->ids.n >= MS_MEM_MAX_IDS)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: more than %zu tensor ids", at,
				   MS_MEM_MAX_IDS);
	if (vec_push(&f->ids, v))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

/* The ids of repeated field `want` of the node message [a, b), packed or
 * not, appended to f->ids. */
static int node_ids(struct ms_mem_file *f, const unsigned char *buf, size_t a, size_t b,
		    uint32_t want, uint32_t *first, uint32_t *count, struct nns_err *err)
{
	struct cur c = {buf, a, b};
	size_t n0 = f->ids.n;
	int rc;

	while (c.pos < c.end) {
		uint32_t fn;
		unsigned wt;
		size_t at, s, n;
		uint64_t v;

		if ((rc = key(&c, &fn, &wt, &at, err)))
			return rc;
		if (fn == want && wt == WT_VARINT) {
			if ((rc = varint(&c, &v, err)) || (rc = push_id(f, v, at, err)))
				return rc;
		} else if (fn == want && wt == WT_LEN) {
			struct cur p;

			if ((rc = span(&c, &s, &n, err)))
				return rc;
			p = (struct cur){buf, s, s + n};
			while (p.pos < p.end) {
				size_t vat = p.pos;

				if ((rc = varint(&p, &v, err)) || (rc = push_id(f, v, vat, err)))
					return rc;
			}
		} else if ((rc = skip(&c, wt, at, err))) {
			return rc;
		}
	}
	*first = (uint32_t)n0;
	*count = (uint32_t)(f->ids.n - n0);
	return NNS_OK;
}

static int node(struct ms_mem_file *f, const unsigned char *buf, size_t a, size_t b,
		struct nns_err *err)
{
	struct ms_mem_node nd;
	struct cur c = {buf, a, b};
	int rc;

	memset(&nd, 0, sizeof(nd));
	if (f->nodes.n >= MS_MEM_MAX_NODES)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: more than %zu nodes", a,
				   MS_MEM_MAX_NODES);
	while (c.pos < c.end) {
		uint32_t fn;
		unsigned wt;
		size_t at, s, n;

		if ((rc = key(&c, &fn, &wt, &at, err)))
			return rc;
		if (fn == 1 && wt == WT_LEN) {
			if ((rc = span(&c, &s, &n, err)) ||
			    (rc = add_str(f, buf + s, n, &nd.name, err)))
				return rc;
		} else if (fn == 2 && wt == WT_VARINT) {
			if ((rc = varint(&c, &nd.node_id, err)))
				return rc;
		} else if ((rc = skip(&c, wt, at, err))) {
			return rc;
		}
	}
	if ((rc = node_ids(f, buf, a, b, 3, &nd.in0, &nd.nin, err)) ||
	    (rc = node_ids(f, buf, a, b, 4, &nd.out0, &nd.nout, err)) ||
	    (rc = node_ids(f, buf, a, b, 5, &nd.ws0, &nd.nws, err)))
		return rc;
	if (vec_push(&f->nodes, nd))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

static int nonneg(uint64_t v, size_t at, const char *what, struct nns_err *err)
{
	if (v > (uint64_t)INT64_MAX)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: %s %llu is negative as int64", at,
				   what, (unsigned long long)v);
	return NNS_OK;
}

static int tensor(struct ms_mem_file *f, const unsigned char *buf, size_t a, size_t b,
		  struct nns_err *err)
{
	struct ms_mem_tensor t;
	struct cur c = {buf, a, b};
	int rc;

	memset(&t, 0, sizeof(t));
	if (f->tensors.n >= MS_MEM_MAX_TENSORS)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: more than %zu tensors", a,
				   MS_MEM_MAX_TENSORS);
	while (c.pos < c.end) {
		uint32_t fn;
		unsigned wt;
		size_t at, s, n;
		uint64_t *dst = NULL;

		if ((rc = key(&c, &fn, &wt, &at, err)))
			return rc;
		if (wt == WT_VARINT && fn >= 1 && fn <= 5 && fn != 3)
			dst = fn == 1	? &t.tensor_id
			      : fn == 2 ? &t.size
			      : fn == 4 ? &t.life_start
					: &t.life_end;
		if (dst) {
			if ((rc = varint(&c, dst, err)))
				return rc;
			if (fn == 2 && (rc = nonneg(t.size, at, "tensor size", err)))
				return rc;
		} else if ((fn == 3 || fn == 6) && wt == WT_LEN) {
			if ((rc = span(&c, &s, &n, err)) ||
			    (rc = add_str(f, buf + s, n, fn == 3 ? &t.type : &t.life_long, err)))
				return rc;
		} else if ((rc = skip(&c, wt, at, err))) {
			return rc;
		}
	}
	if (vec_push(&f->tensors, t))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

static int graph(struct ms_mem_file *f, const unsigned char *buf, size_t a, size_t b,
		 struct nns_err *err)
{
	struct ms_mem_graph g;
	struct cur c = {buf, a, b};
	int rc;

	memset(&g, 0, sizeof(g));
	if (f->graphs.n >= MS_MEM_MAX_GRAPHS)
		return nns_err_set(err, NNS_EFORMAT, "byte %zu: more than %d graphs", a,
				   MS_MEM_MAX_GRAPHS);
	g.node0 = (uint32_t)f->nodes.n;
	g.tensor0 = (uint32_t)f->tensors.n;
	while (c.pos < c.end) {
		uint32_t fn;
		unsigned wt;
		size_t at, s, n;
		uint64_t v;

		if ((rc = key(&c, &fn, &wt, &at, err)))
			return rc;
		if ((fn == 1 || fn == 2) && wt == WT_VARINT) {
			if ((rc = varint(&c, &v, err)))
				return rc;
			if (fn == 1)
				g.graph_id = (int64_t)v; /* two's complement, as protobuf */
			else if ((rc = nonneg(v, at, "static_mem", err)))
				return rc;
			else
				g.static_mem = v;
		} else if (fn >= 3 && fn <= 6 && wt == WT_LEN) {
			if ((rc = span(&c, &s, &n, err)))
				return rc;
			if (fn == 3)
				rc = node(f, buf, s, s + n, err);
			else if (fn == 4)
				rc = tensor(f, buf, s, s + n, err);
			else
				rc = add_str(f, buf + s, n, fn == 5 ? &g.fp_start : &g.bp_end, err);
			if (rc)
				return rc;
		} else if ((rc = skip(&c, wt, at, err))) {
			return rc;
		}
	}
	g.nnode = (uint32_t)(f->nodes.n - g.node0);
	g.ntensor = (uint32_t)(f->tensors.n - g.tensor0);
	if (vec_push(&f->graphs, g))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

int ms_mem_parse(struct ms_mem_file *f, const unsigned char *buf, size_t n, struct nns_err *err)
{
	struct cur c = {buf, 0, n};
	int rc = NNS_OK;

	memset(f, 0, sizeof(f[0]));
	if (vec_push(&f->s, '\0')) /* offset 0: "" */
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	while (c.pos < c.end) {
		uint32_t fn;
		unsigned wt;
		size_t at, s, len;

		if ((rc = key(&c, &fn, &wt, &at, err)))
			break;
		if (fn == 1 && wt == WT_LEN) {
			if ((rc = span(&c, &s, &len, err)) || (rc = graph(f, buf, s, s + len, err)))
				break;
		} else if (fn == 2 && wt == WT_VARINT) {
			if ((rc = varint(&c, &f->total_mem, err)))
				break;
		} else if ((rc = skip(&c, wt, at, err))) {
			break;
		}
	}
	if (rc)
		ms_mem_file_release(f);
	return rc;
}

int ms_mem_load(struct ms_mem_file *f, const struct ms_src *s, struct nns_err *err)
{
	char *buf, path[1024];
	size_t n;
	int rc;

	memset(f, 0, sizeof(f[0]));
	if ((rc = ms_src_read(s, "memory_usage_", ".pb", MS_MEM_MAX_FILE, &buf, &n, err)))
		return rc;
	rc = ms_mem_parse(f, (const unsigned char *)buf, n, err);
	free(buf);
	if (rc && rc != NNS_ENOMEM) {
		struct nns_err why = *err;

		if (ms_src_path(s, "memory_usage_", ".pb", path, sizeof(path)))
			snprintf(path, sizeof(path), "memory_usage_%d.pb", s->dev);
		nns_err_set(err, rc, "%s: %s", path, why.msg);
	}
	return rc;
}

void ms_mem_file_release(struct ms_mem_file *f)
{
	vec_free(&f->graphs);
	vec_free(&f->nodes);
	vec_free(&f->tensors);
	vec_free(&f->ids);
	vec_free(&f->s);
}
