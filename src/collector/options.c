/*
 * options.c - collector options (nnscope.h): defaults, a small parser for
 * flat JSON objects (NNSCOPE_OPTIONS, MindSpore's MS_PROFILER_OPTIONS),
 * validation and the JSON form written to the trace's META chunk.
 *
 * Keys: the MindSpore names (start, output_path, op_time, profile_memory,
 * profile_communication, data_process, timeline_limit, profile_framework,
 * sync_enable), the schedule (wait, warmup, active, repeat, skip_first, or
 * the field names sched_*), start_step, stop_step, cpu_sampling_interval_ms,
 * timeline_limit_mb, buffer_kb_per_thread, max_buffer_mb. MindSpore keys
 * that only mean something on Ascend (aicore_metrics, l2_cache, ...) are
 * accepted and ignored; any other key is an error naming it. Later keys
 * override earlier ones.
 *
 * What the MindSpore keys do here (docs/API.md):
 *   - timeline_limit (MB): stored in META "options"; `nnscope export` and
 *     `nnscope analyse --timeline` cap the Chrome-trace timeline of the
 *     trace at it unless their --limit-mb / --timeline-limit-mb says
 *     otherwise (output/chrome.c writes where it was cut);
 *   - profile_communication: the NCCL profiler plugin records collectives
 *     only when it is true (nccl_prof.c: activation mask 0 at init, and the
 *     NNS_CAT_COMM state bit per event); `nnscope run` makes it true unless
 *     the options say false, and then does not load the plugin;
 *   - sync_enable: only false is accepted. MindSpore's true synchronises
 *     the device after each GPU operator so the operator's time includes
 *     its execution; nnscope does not synchronise (CUPTI gives each kernel's
 *     device time exactly, asynchronously), so true is refused with that
 *     reason rather than accepted and ignored.
 */
#include "collector/collector.h"
#include "common/jsonesc.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

NNS_API void nns_options_init(struct nns_options *o)
{
	memset(o, 0, sizeof(*o));
	o->struct_size = sizeof(*o);
	o->start = 1;
	snprintf(o->output_path, sizeof(o->output_path), "./data");
	o->op_time = 1;
	o->data_process = 1;
	o->timeline_limit_mb = 500;
	o->profile_framework = NNS_FRAMEWORK_NONE;
	o->cpu_sampling_interval_ms = 1000;
	o->start_step = -1;
	o->stop_step = -1;
	o->buffer_kb_per_thread = 1024;
	o->max_buffer_mb = 512;
}

/* ---- a tokenizer for one flat object ------------------------------------------ */

enum jtype { J_STR, J_NUM, J_BOOL, J_NULL, J_OBJ, J_ARR };

struct jval {
	enum jtype type;
	char str[1024];
	size_t len;
	int str_too_long;
	double num;
	int b;
};

struct jp {
	const char *s;
	size_t i;
	char *err;
	size_t errlen;
};

static int jerr(struct jp *p, const char *what)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "options JSON: %s at byte %zu", what, p->i);
	return NNS_EINVAL;
}

static void ws(struct jp *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')
		p->i++;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		char c = s[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void put_byte(struct jval *v, unsigned char c)
{
	if (v->len + 1 < sizeof(v->str))
		v->str[v->len++] = (char)c;
	else
		v->str_too_long = 1;
}

static void put_utf8(struct jval *v, unsigned cp)
{
	if (cp < 0x80) {
		put_byte(v, (unsigned char)cp);
	} else if (cp < 0x800) {
		put_byte(v, (unsigned char)(0xc0 | cp >> 6));
		put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put_byte(v, (unsigned char)(0xe0 | cp >> 12));
		put_byte(v, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
	} else {
		put_byte(v, (unsigned char)(0xf0 | cp >> 18));
		put_byte(v, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
		put_byte(v, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
		put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
	}
}

/* A string at p->i (which is '"'), decoded into v->str. */
static int jstring(struct jp *p, struct jval *v)
{
	v->type = J_STR;
	v->len = 0;
	v->str_too_long = 0;
	p->i++;
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c == '"') {
			p->i++;
			v->str[v->len] = '\0';
			return 0;
		}
		if (c == '\0')
			return jerr(p, "unterminated string");
		if (c < 0x20)
			return jerr(p, "control character in a string");
		if (c != '\\') {
			put_byte(v, c);
			p->i++;
			continue;
		}
		p->i++;
		c = (unsigned char)p->s[p->i];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			put_byte(v, c);
			break;
		case 'b':
			put_byte(v, '\b');
			break;
		case 'f':
			put_byte(v, '\f');
			break;
		case 'n':
			put_byte(v, '\n');
			break;
		case 'r':
			put_byte(v, '\r');
			break;
		case 't':
			put_byte(v, '\t');
			break;
		case 'u': {
			unsigned cp, lo;

			if (hex4(p->s + p->i + 1, &cp))
				return jerr(p, "bad \\u escape");
			p->i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->s[p->i + 1] == '\\' &&
			    p->s[p->i + 2] == 'u' && hex4(p->s + p->i + 3, &lo) == 0 &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p->i += 6;
			}
			if (cp == 0)
				return jerr(p, "NUL in a string");
			put_utf8(v, cp);
			break;
		}
		default:
			return jerr(p, "bad escape in a string");
		}
		p->i++;
	}
}

static int jvalue(struct jp *p, struct jval *v, int depth);

/* Skips a nested object or array (only ignored keys may hold one). */
static int jskip_nested(struct jp *p, int depth)
{
	char close = p->s[p->i] == '{' ? '}' : ']';
	int obj = close == '}';
	struct jval tmp;

	if (depth > 32)
		return jerr(p, "nesting too deep");
	p->i++;
	ws(p);
	if (p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	for (;;) {
		ws(p);
		if (obj) {
			if (p->s[p->i] != '"' || jstring(p, &tmp))
				return jerr(p, "expected a key");
			ws(p);
			if (p->s[p->i++] != ':')
				return jerr(p, "expected ':'");
			ws(p);
		}
		if (jvalue(p, &tmp, depth + 1))
			return NNS_EINVAL;
		ws(p);
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		return jerr(p, "expected ',' or the end of a list");
	}
}

static int jvalue(struct jp *p, struct jval *v, int depth)
{
	const char *s = p->s + p->i;
	char *end;

	if (*s == '"')
		return jstring(p, v);
	if (*s == '{' || *s == '[') {
		v->type = *s == '{' ? J_OBJ : J_ARR;
		return jskip_nested(p, depth);
	}
	if (strncmp(s, "true", 4) == 0 || strncmp(s, "false", 5) == 0) {
		v->type = J_BOOL;
		v->b = *s == 't';
		p->i += v->b ? 4 : 5;
		return 0;
	}
	if (strncmp(s, "null", 4) == 0) {
		v->type = J_NULL;
		p->i += 4;
		return 0;
	}
	if (*s == '-' || (*s >= '0' && *s <= '9')) {
		v->type = J_NUM;
		v->num = strtod(s, &end);
		if (end == s || !isfinite(v->num))
			return jerr(p, "bad number");
		p->i += (size_t)(end - s);
		return 0;
	}
	return jerr(p, "expected a value");
}

/* ---- keys --------------------------------------------------------------------------- */

enum kind { K_BOOL, K_INT, K_LONG, K_SIZE, K_PATH, K_FRAMEWORK, K_SYNC, K_IGNORE };

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	long min, max;
};

#define F(f) offsetof(struct nns_options, f)
static const struct key keys[] = {
    {"start", K_BOOL, F(start), 0, 1},
    {"output_path", K_PATH, F(output_path), 0, 0},
    {"op_time", K_BOOL, F(op_time), 0, 1},
    {"profile_memory", K_BOOL, F(profile_memory), 0, 1},
    {"profile_communication", K_BOOL, F(profile_communication), 0, 1},
    {"data_process", K_BOOL, F(data_process), 0, 1},
    {"timeline_limit", K_INT, F(timeline_limit_mb), 1, 1 << 20},
    {"timeline_limit_mb", K_INT, F(timeline_limit_mb), 1, 1 << 20},
    {"profile_framework", K_FRAMEWORK, F(profile_framework), 0, 0},
    {"sync_enable", K_SYNC, F(sync_enable), 0, 1},
    {"cpu_sampling_interval_ms", K_INT, F(cpu_sampling_interval_ms), 0, 3600000},
    {"skip_first", K_INT, F(sched_skip_first), 0, INT_MAX},
    {"wait", K_INT, F(sched_wait), 0, INT_MAX},
    {"warmup", K_INT, F(sched_warmup), 0, INT_MAX},
    {"active", K_INT, F(sched_active), 0, INT_MAX},
    {"repeat", K_INT, F(sched_repeat), 0, INT_MAX},
    {"sched_skip_first", K_INT, F(sched_skip_first), 0, INT_MAX},
    {"sched_wait", K_INT, F(sched_wait), 0, INT_MAX},
    {"sched_warmup", K_INT, F(sched_warmup), 0, INT_MAX},
    {"sched_active", K_INT, F(sched_active), 0, INT_MAX},
    {"sched_repeat", K_INT, F(sched_repeat), 0, INT_MAX},
    {"start_step", K_LONG, F(start_step), -1, LONG_MAX},
    {"stop_step", K_LONG, F(stop_step), -1, LONG_MAX},
    {"buffer_kb_per_thread", K_SIZE, F(buffer_kb_per_thread), 2, 65536},
    {"max_buffer_mb", K_SIZE, F(max_buffer_mb), 1, 1 << 20},
    /* MindSpore options for Ascend devices: accepted, no effect here. */
    {"aicore_metrics", K_IGNORE, 0, 0, 0},
    {"l2_cache", K_IGNORE, 0, 0, 0},
    {"hbm_ddr", K_IGNORE, 0, 0, 0},
    {"pcie", K_IGNORE, 0, 0, 0},
    {"parallel_strategy", K_IGNORE, 0, 0, 0},
    {"with_stack", K_IGNORE, 0, 0, 0},
    {"data_simplification", K_IGNORE, 0, 0, 0},
    {"profiler_level", K_IGNORE, 0, 0, 0},
    {"mstx", K_IGNORE, 0, 0, 0},
};
#undef F

/* Why sync_enable true is refused (parse and check give the same words). */
#define NNS_SYNC_ENABLE_REFUSED                                                                    \
	"option 'sync_enable' true is refused: nnscope does not synchronise after each GPU "       \
	"operator; CUPTI times every kernel on the device exactly, asynchronously (MindSpore's "   \
	"sync_enable false). Leave it out or set it to false"

static const char *type_name(enum jtype t)
{
	static const char *names[] = {"a string", "a number",  "a boolean",
				      "null",	  "an object", "an array"};

	return names[t];
}

static int bad_type(struct jp *p, const char *key, const char *want, const struct jval *v)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "option '%s' wants %s, got %s", key, want,
			 type_name(v->type));
	return NNS_EINVAL;
}

static int out_of_range(struct jp *p, const char *key, double v, long min, long max)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "option '%s' is %.17g, outside %ld..%ld", key, v, min,
			 max);
	return NNS_EINVAL;
}

static int set_key(struct nns_options *o, struct jp *p, const struct key *k, const struct jval *v)
{
	char *base = (char *)o;
	size_t fsize = k->kind == K_PATH   ? sizeof(o->output_path)
		       : k->kind == K_LONG ? sizeof(long)
		       : k->kind == K_SIZE ? sizeof(size_t)
					   : sizeof(int);

	if (k->kind == K_IGNORE)
		return 0;
	if (k->off + fsize > o->struct_size) /* an older caller: field unknown to it */
		return 0;
	if (k->kind == K_SYNC &&
	    ((v->type == J_BOOL && v->b) || (v->type == J_NUM && v->num == 1))) {
		if (p->err && p->errlen)
			snprintf(p->err, p->errlen, "%s", NNS_SYNC_ENABLE_REFUSED);
		return NNS_EINVAL;
	}
	switch (k->kind) {
	case K_SYNC: /* false (or 0): how nnscope always times */
	case K_BOOL:
		if (v->type == J_BOOL)
			*(int *)(base + k->off) = v->b;
		else if (v->type == J_NUM && (v->num == 0 || v->num == 1))
			*(int *)(base + k->off) = (int)v->num;
		else
			return bad_type(p, k->name, "true or false", v);
		return 0;
	case K_INT:
	case K_LONG:
	case K_SIZE:
		if (v->type != J_NUM || v->num != floor(v->num))
			return bad_type(p, k->name, "an integer", v);
		if (v->num < (double)k->min || v->num > (double)k->max)
			return out_of_range(p, k->name, v->num, k->min, k->max);
		if (k->kind == K_INT)
			*(int *)(base + k->off) = (int)v->num;
		else if (k->kind == K_LONG)
			*(long *)(base + k->off) = (long)v->num;
		else
			*(size_t *)(base + k->off) = (size_t)v->num;
		return 0;
	case K_PATH:
		if (v->type != J_STR)
			return bad_type(p, k->name, "a string", v);
		if (v->str_too_long || v->len >= sizeof(o->output_path) || v->len == 0) {
			if (p->err && p->errlen)
				snprintf(p->err, p->errlen,
					 "option 'output_path' must be 1..%zu bytes",
					 sizeof(o->output_path) - 1);
			return NNS_EINVAL;
		}
		memcpy(o->output_path, v->str, v->len + 1);
		return 0;
	case K_FRAMEWORK:
		if (v->type == J_NULL || (v->type == J_STR && (strcmp(v->str, "none") == 0 ||
							       strcmp(v->str, "None") == 0))) {
			o->profile_framework = NNS_FRAMEWORK_NONE;
			return 0;
		}
		if (v->type == J_STR && strcmp(v->str, "all") == 0)
			o->profile_framework = NNS_FRAMEWORK_ALL;
		else if (v->type == J_STR && strcmp(v->str, "time") == 0)
			o->profile_framework = NNS_FRAMEWORK_TIME;
		else if (v->type == J_STR && strcmp(v->str, "memory") == 0)
			o->profile_framework = NNS_FRAMEWORK_MEMORY;
		else if (v->type == J_STR) {
			if (p->err && p->errlen)
				snprintf(p->err, p->errlen,
					 "option 'profile_framework' is \"%.64s\"; use \"all\", "
					 "\"time\", \"memory\" or null",
					 v->str);
			return NNS_EINVAL;
		} else
			return bad_type(p, k->name, "\"all\", \"time\", \"memory\" or null", v);
		return 0;
	case K_IGNORE:
		break;
	}
	return 0;
}

NNS_API int nns_options_from_json(struct nns_options *o, const char *json, char *err, size_t errlen)
{
	struct nns_options tmp;
	struct jp p = {json, 0, err, errlen};
	struct jval key, v;

	if (err && errlen)
		err[0] = '\0';
	if (!o || !json)
		return jerr(&p, "no options or no JSON given");
	if (o->struct_size < offsetof(struct nns_options, output_path) ||
	    o->struct_size > sizeof(tmp))
		return jerr(&p, "options not initialised with nns_options_init()");
	nns_options_init(&tmp); /* an older caller's struct is shorter: copy what it has */
	memcpy(&tmp, o, o->struct_size);
	ws(&p);
	if (json[p.i] != '{')
		return jerr(&p, "expected a JSON object");
	p.i++;
	ws(&p);
	if (json[p.i] == '}') {
		p.i++;
		goto done;
	}
	for (;;) {
		const struct key *k = NULL;

		ws(&p);
		if (json[p.i] != '"')
			return jerr(&p, "expected a key");
		if (jstring(&p, &key))
			return NNS_EINVAL;
		ws(&p);
		if (json[p.i] != ':')
			return jerr(&p, "expected ':'");
		p.i++;
		ws(&p);
		if (jvalue(&p, &v, 0))
			return NNS_EINVAL;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!key.str_too_long && strcmp(keys[i].name, key.str) == 0)
				k = &keys[i];
		if (!k) {
			if (err && errlen)
				snprintf(err, errlen, "unknown option '%.100s'", key.str);
			return NNS_EINVAL;
		}
		if (set_key(&tmp, &p, k, &v))
			return NNS_EINVAL;
		ws(&p);
		if (json[p.i] == ',') {
			p.i++;
			continue;
		}
		if (json[p.i] == '}') {
			p.i++;
			break;
		}
		return jerr(&p, "expected ',' or '}'");
	}
done:
	ws(&p);
	if (json[p.i] != '\0')
		return jerr(&p, "trailing characters after the object");
	memcpy(o, &tmp, o->struct_size);
	return NNS_OK;
}

NNS_API int nns_options_from_env(struct nns_options *o, char *err, size_t errlen)
{
	const char *names[] = {"NNSCOPE_OPTIONS", "MS_PROFILER_OPTIONS"};
	char msg[512];

	if (err && errlen)
		err[0] = '\0';
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(names[i]);
		int rc;

		if (!v || !*v)
			continue;
		rc = nns_options_from_json(o, v, msg, sizeof(msg));
		if (rc && err && errlen)
			snprintf(err, errlen, "%s: %s", names[i], msg);
		return rc;
	}
	return NNS_OK;
}

int nns_options_check(const struct nns_options *o, struct nns_err *err)
{
	if (!o->output_path[0] || !memchr(o->output_path, '\0', sizeof(o->output_path)))
		return nns_err_set(err, NNS_EINVAL, "output_path is empty or not terminated");
	if (o->timeline_limit_mb < 1)
		return nns_err_set(err, NNS_EINVAL, "timeline_limit must be >= 1 MB");
	if (o->sync_enable)
		return nns_err_set(err, NNS_EINVAL, "%s", NNS_SYNC_ENABLE_REFUSED);
	if (o->profile_framework < NNS_FRAMEWORK_NONE ||
	    o->profile_framework > NNS_FRAMEWORK_MEMORY)
		return nns_err_set(err, NNS_EINVAL, "profile_framework %d is not an nns_framework",
				   o->profile_framework);
	if (o->cpu_sampling_interval_ms < 0)
		return nns_err_set(err, NNS_EINVAL, "cpu_sampling_interval_ms must be >= 0");
	if (o->sched_skip_first < 0 || o->sched_wait < 0 || o->sched_warmup < 0 ||
	    o->sched_active < 0 || o->sched_repeat < 0)
		return nns_err_set(err, NNS_EINVAL, "schedule values must be >= 0");
	if (nns_sched_has_schedule(o) && o->sched_active < 1)
		return nns_err_set(err, NNS_EINVAL,
				   "a schedule needs active >= 1 (wait %d, warmup %d, active %d)",
				   o->sched_wait, o->sched_warmup, o->sched_active);
	if (o->start_step == 0 || o->start_step < -1 || o->stop_step == 0 || o->stop_step < -1)
		return nns_err_set(err, NNS_EINVAL,
				   "start_step and stop_step count steps from 1 (-1 = unset)");
	if (o->start_step > 0 && o->stop_step > 0 && o->stop_step < o->start_step)
		return nns_err_set(err, NNS_EINVAL, "stop_step %ld is before start_step %ld",
				   o->stop_step, o->start_step);
	if (o->buffer_kb_per_thread < 2 || o->buffer_kb_per_thread > 65536)
		return nns_err_set(err, NNS_EINVAL, "buffer_kb_per_thread must be 2..65536");
	if (o->max_buffer_mb < 1 || o->max_buffer_mb > ((size_t)1 << 20))
		return nns_err_set(err, NNS_EINVAL, "max_buffer_mb must be 1..1048576");
	return NNS_OK;
}

void nns_options_to_json(const struct nns_options *o, char *dst, size_t size)
{
	static const char *fw[] = {"null", "\"all\"", "\"time\"", "\"memory\""};
	char path[2200];

	json_escape_str(path, sizeof(path), o->output_path, JSON_ESC_KEEP_BYTES);
	snprintf(
	    dst, size,
	    "{\"start\":%s,\"output_path\":\"%s\",\"op_time\":%s,\"profile_memory\":%s,"
	    "\"profile_communication\":%s,\"data_process\":%s,\"timeline_limit\":%d,"
	    "\"profile_framework\":%s,\"sync_enable\":%s,\"cpu_sampling_interval_ms\":%d,"
	    "\"skip_first\":%d,\"wait\":%d,\"warmup\":%d,\"active\":%d,\"repeat\":%d,"
	    "\"start_step\":%ld,\"stop_step\":%ld,\"buffer_kb_per_thread\":%zu,"
	    "\"max_buffer_mb\":%zu}",
	    o->start ? "true" : "false", path, o->op_time ? "true" : "false",
	    o->profile_memory ? "true" : "false", o->profile_communication ? "true" : "false",
	    o->data_process ? "true" : "false", o->timeline_limit_mb,
	    fw[o->profile_framework >= 0 && o->profile_framework <= 3 ? o->profile_framework : 0],
	    o->sync_enable ? "true" : "false", o->cpu_sampling_interval_ms, o->sched_skip_first,
	    o->sched_wait, o->sched_warmup, o->sched_active, o->sched_repeat, o->start_step,
	    o->stop_step, o->buffer_kb_per_thread, o->max_buffer_mb);
}
