/*
 * ms_json.c - the small bounded JSON reader of MindSpore's profiler files
 * (ms_json.h): recursive descent, depth-capped, line-numbered errors. Every
 * JSON file and cell of a MindSpore directory (flops, dynamic shape,
 * op_info, point info, MindData, the cluster job's hccl cells and
 * flops_summary) is read with it.
 *
 * The Kineto reader (kineto_json.c) stays a separate tokenizer on purpose:
 * it streams traces of gigabytes straight into the model, chunk-parallel,
 * without building a node per value or copying strings, which is what the
 * ingest targets need; this reader builds the whole tree and unescapes
 * every string, which suits files of kilobytes to a few megabytes whose
 * values are looked up by key.
 */
#include "importers/ms_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pst {
	struct msj *j;
	const char *p, *end;
	uint32_t line;
	const char *why; /* first error, NULL if none */
	int nomem;
};

static void ws(struct pst *s)
{
	while (s->p < s->end) {
		char c = *s->p;

		if (c == '\n')
			s->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return;
		s->p++;
	}
}

static int fail(struct pst *s, const char *why)
{
	if (!s->why)
		s->why = why;
	return -1;
}

static int64_t new_node(struct pst *s, int type)
{
	struct msj_node z;

	if (s->j->n.n >= MSJ_NODES_MAX)
		return fail(s, "too many values");
	memset(&z, 0, sizeof(z));
	z.type = type;
	z.line = s->line;
	if (vec_push(&s->j->n, z)) {
		s->nomem = 1;
		return fail(s, "out of memory");
	}
	return (int64_t)s->j->n.n - 1;
}

static int put_char(struct pst *s, char c)
{
	if (vec_push(&s->j->s, c)) {
		s->nomem = 1;
		return fail(s, "out of memory");
	}
	return 0;
}

static int put_utf8(struct pst *s, uint32_t cp)
{
	char b[4];
	int n, i;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	for (i = 0; i < n; i++)
		if (put_char(s, b[i]))
			return -1;
	return 0;
}

/* The four hex digits of a \u escape at s->p. */
static int hex4(struct pst *s, uint32_t *out)
{
	char h[5];

	if (s->end - s->p < 4)
		return fail(s, "truncated \\u escape");
	memcpy(h, s->p, 4);
	h[4] = '\0';
	if (strspn(h, "0123456789abcdefABCDEF") != 4)
		return fail(s, "bad \\u escape");
	*out = (uint32_t)strtoul(h, NULL, 16);
	s->p += 4;
	return 0;
}

/* Reads a string at s->p (on the quote) into j->s; *off, *len give it. */
static int string(struct pst *s, size_t *off, size_t *len)
{
	*off = s->j->s.n;
	if (s->p >= s->end || *s->p != '"')
		return fail(s, "expected a string");
	s->p++;
	for (;;) {
		char c;

		if (s->p >= s->end)
			return fail(s, "unterminated string");
		c = *s->p++;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20)
			return fail(s, "control character in a string");
		if (c != '\\') {
			if (put_char(s, c))
				return -1;
			continue;
		}
		if (s->p >= s->end)
			return fail(s, "unterminated string");
		c = *s->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(s, &cp))
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
			    s->p[1] == 'u') {
				s->p += 2;
				if (hex4(s, &lo))
					return -1;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					cp = 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			if (put_utf8(s, cp))
				return -1;
			continue;
		}
		default:
			return fail(s, "bad escape in a string");
		}
		if (put_char(s, c))
			return -1;
	}
	*len = s->j->s.n - *off;
	return put_char(s, 0);
}

static int number(struct pst *s, double *out)
{
	const char *q = s->p;
	char tmp[64];
	size_t n;

	if (q < s->end && *q == '-')
		q++;
	if (q >= s->end || *q < '0' || *q > '9')
		return fail(s, "unexpected character");
	while (q < s->end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' ||
			      *q == '+' || *q == '-'))
		q++;
	n = (size_t)(q - s->p);
	if (n >= sizeof(tmp))
		return fail(s, "number too long");
	memcpy(tmp, s->p, n);
	tmp[n] = 0;
	{
		char *e;

		errno = 0;
		*out = strtod(tmp, &e);
		if (*e || !isfinite(*out))
			return fail(s, "bad number");
	}
	s->p = q;
	return 0;
}

static int word(struct pst *s, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
		return fail(s, "unexpected character");
	s->p += n;
	return 0;
}

static int64_t value(struct pst *s, int depth);

static int64_t container(struct pst *s, int depth, int obj)
{
	int64_t me = new_node(s, obj ? MSJ_OBJ : MSJ_ARR), prev = -1;
	char close = obj ? '}' : ']';

	if (me < 0)
		return -1;
	if (depth >= MSJ_DEPTH)
		return fail(s, "nested too deep");
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return me;
	}
	for (;;) {
		size_t ko = 0, kl = 0;
		int64_t child;

		ws(s);
		if (obj) {
			if (s->p >= s->end || *s->p != '"')
				return fail(s, "expected a member name");
			if (string(s, &ko, &kl))
				return -1;
			ws(s);
			if (s->p >= s->end || *s->p != ':')
				return fail(s, "expected ':'");
			s->p++;
		}
		child = value(s, depth + 1);
		if (child < 0)
			return -1;
		s->j->n.v[child].key = ko;
		s->j->n.v[child].klen = kl;
		if (prev < 0)
			s->j->n.v[me].first = (uint32_t)child;
		else
			s->j->n.v[prev].next = (uint32_t)child;
		s->j->n.v[me].count++;
		prev = child;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return me;
		}
		return fail(s, s->p >= s->end
				   ? "truncated"
				   : (obj ? "expected ',' or '}'" : "expected ',' or ']'"));
	}
}

static int64_t value(struct pst *s, int depth)
{
	int64_t me;

	ws(s);
	if (s->p >= s->end)
		return fail(s, "truncated");
	switch (*s->p) {
	case '{':
		return container(s, depth, 1);
	case '[':
		return container(s, depth, 0);
	case '"': {
		size_t o, l;

		me = new_node(s, MSJ_STR);
		if (me < 0 || string(s, &o, &l))
			return -1;
		s->j->n.v[me].str = o;
		s->j->n.v[me].slen = l;
		return me;
	}
	case 't':
	case 'f': {
		int t = *s->p == 't';

		me = new_node(s, MSJ_BOOL);
		if (me < 0 || word(s, t ? "true" : "false"))
			return -1;
		s->j->n.v[me].num = t;
		return me;
	}
	case 'n':
		me = new_node(s, MSJ_NULL);
		if (me < 0 || word(s, "null"))
			return -1;
		return me;
	case 'N': /* Python's json.dump writes NaN and Infinity */
		me = new_node(s, MSJ_NUM);
		if (me < 0 || word(s, "NaN"))
			return -1;
		s->j->n.v[me].num = NAN;
		return me;
	case 'I':
		me = new_node(s, MSJ_NUM);
		if (me < 0 || word(s, "Infinity"))
			return -1;
		s->j->n.v[me].num = INFINITY;
		return me;
	default: {
		double v;

		me = new_node(s, MSJ_NUM);
		if (me >= 0 && s->end - s->p >= 9 && !memcmp(s->p, "-Infinity", 9)) {
			s->p += 9;
			s->j->n.v[me].num = -INFINITY;
			return me;
		}
		if (me < 0 || number(s, &v))
			return -1;
		s->j->n.v[me].num = v;
		return me;
	}
	}
}

int msj_parse(struct msj *j, const char *buf, size_t n, const char *name, struct nns_err *err)
{
	struct pst s;

	memset(j, 0, sizeof(*j));
	memset(&s, 0, sizeof(s));
	s.j = j;
	s.p = buf;
	s.end = buf + n;
	s.line = 1;
	if (!name)
		name = "json";
	if (n > MSJ_BYTES_MAX)
		return nns_err_set(err, NNS_EFORMAT, "%s: larger than %zu bytes", name,
				   MSJ_BYTES_MAX);
	if (n >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb &&
	    (unsigned char)buf[2] == 0xbf)
		s.p += 3; /* UTF-8 byte order mark */
	if (value(&s, 0) >= 0) {
		ws(&s);
		if (s.p < s.end)
			fail(&s, "text after the JSON value");
	}
	if (s.why) {
		int code = s.nomem ? NNS_ENOMEM : NNS_EFORMAT;

		msj_release(j);
		return nns_err_set(err, code, "%s:%u: %s", name, s.line, s.why);
	}
	return NNS_OK;
}

void msj_release(struct msj *j)
{
	vec_free(&j->n);
	vec_free(&j->s);
}

const struct msj_node *msj_first(const struct msj *j, const struct msj_node *x)
{
	return x && (x->type == MSJ_OBJ || x->type == MSJ_ARR) && x->first ? &j->n.v[x->first]
									   : NULL;
}

const struct msj_node *msj_next(const struct msj *j, const struct msj_node *x)
{
	return x && x->next ? &j->n.v[x->next] : NULL;
}

const struct msj_node *msj_get(const struct msj *j, const struct msj_node *o, const char *key)
{
	const struct msj_node *c;
	size_t kl = strlen(key);

	if (!o || o->type != MSJ_OBJ)
		return NULL;
	for (c = msj_first(j, o); c; c = msj_next(j, c))
		if (c->klen == kl && !memcmp(j->s.v + c->key, key, kl))
			return c;
	return NULL;
}

const char *msj_str(const struct msj *j, const struct msj_node *x)
{
	return x && x->type == MSJ_STR ? j->s.v + x->str : NULL;
}

const char *msj_key(const struct msj *j, const struct msj_node *x)
{
	return x && x->klen ? j->s.v + x->key : "";
}
