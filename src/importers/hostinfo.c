/*
 * hostinfo.c - MindSpore host_info CSV reader (hostinfo.h): an RFC 4180
 * record parser fed in blocks (bounded memory whatever the file size),
 * the header mapped to column indices, each row checked and appended to
 * model.host.
 */
#include "importers/hostinfo.h"
#include "common/fs.h"
#include "common/vec.h"
#include "common/num.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HI_FIELD_MAX (64u << 10)
#define HI_FIELDS 32

enum {
	C_TID,
	C_PID,
	C_PPID,
	C_MODULE,
	C_EVENT,
	C_STAGE,
	C_LEVEL,
	C_START_END,
	C_CUSTOM,
	C_MEMORY,
	C_TIME,
	C_N
};

static const char *const col_names[C_N] = {
    "tid",   "pid",	  "parent_pid",	 "module_name",	     "event",	       "stage",
    "level", "start_end", "custom_info", "memory_usage(kB)", "time_stamp(us)",
};

struct hi {
	struct model *m;
	const char *name;
	int64_t pid_filter;
	/* the record being read */
	char *buf; /* field bytes, NUL-separated */
	size_t len, cap;
	size_t start[HI_FIELDS]; /* offset of each field in buf */
	int nfields;
	int quoted;	 /* inside a quoted field */
	int quote_seen;	 /* a quote inside a quoted field: end or doubled */
	int field_fresh; /* nothing read yet in this field */
	int too_long;	 /* a field went over HI_FIELD_MAX */
	size_t field_len;
	int64_t line; /* record number, 1 = header */
	/* header */
	int col[C_N]; /* field index per column, -1 absent */
	int have_header;
	int rc;
	struct nns_err *err;
};

static void problem(struct hi *h, const char *what)
{
	h->m->diag.events_skipped++;
	if (!h->m->diag.first_problem[0])
		snprintf(h->m->diag.first_problem, sizeof(h->m->diag.first_problem),
			 "%s: record %lld: %s", h->name, (long long)h->line, what);
}

static int put(struct hi *h, char c)
{
	if (h->field_len >= HI_FIELD_MAX) {
		h->too_long = 1;
		return 0;
	}
	if (h->len + 2 > h->cap && vec_reserve_raw((void **)&h->buf, &h->cap, h->len + 2, 1))
		return NNS_ENOMEM;
	h->buf[h->len++] = c;
	h->field_len++;
	return 0;
}

static int end_field(struct hi *h)
{
	if (put(h, '\0'))
		return NNS_ENOMEM;
	h->nfields++;
	if (h->nfields < HI_FIELDS)
		h->start[h->nfields] = h->len;
	else
		h->too_long = 1; /* too many fields: the row is skipped */
	h->field_len = 0;
	h->field_fresh = 1;
	h->quoted = h->quote_seen = 0;
	return 0;
}

static const char *field(const struct hi *h, int c)
{
	int i = h->col[c];

	return i >= 0 && i < h->nfields && i < HI_FIELDS ? h->buf + h->start[i] : NULL;
}

/* A decimal integer with spaces around it allowed. */
static int parse_int(const char *s, int64_t *out)
{
	size_t n;

	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return num_i64(s, n, out, NULL) ? -1 : 0;
}

static int header(struct hi *h)
{
	for (int c = 0; c < C_N; c++) {
		h->col[c] = -1;
		for (int i = 0; i < h->nfields && i < HI_FIELDS; i++) {
			const char *s = h->buf + h->start[i];

			while (*s == ' ')
				s++;
			if (strcmp(s, col_names[c]) == 0)
				h->col[c] = i;
		}
	}
	if (h->col[C_MODULE] < 0 || h->col[C_EVENT] < 0 || h->col[C_STAGE] < 0 ||
	    h->col[C_START_END] < 0 || h->col[C_TIME] < 0)
		return nns_err_set(h->err, NNS_EFORMAT,
				   "%s: not a host_info CSV (the header lacks module_name, event, "
				   "stage, start_end or time_stamp(us))",
				   h->name);
	h->have_header = 1;
	return 0;
}

static uint32_t intern(struct hi *h, int c)
{
	const char *s = field(h, c);

	return s ? model_intern(h->m, s, strlen(s)) : 0;
}

static int row(struct hi *h)
{
	struct model_host r;
	int64_t se, level = 0;

	memset(&r, 0, sizeof(r));
	if (h->too_long)
		return problem(h, "a field is over 64 KiB or there are too many fields"), 0;
	if (parse_int(field(h, C_TIME), &r.ts_us) || parse_int(field(h, C_START_END), &se) ||
	    se < 0 || se > 2 || !field(h, C_MODULE) || !field(h, C_EVENT) || !field(h, C_STAGE))
		return problem(h, "bad or missing time_stamp(us), start_end, module, event or "
				  "stage"),
		       0;
	if (parse_int(field(h, C_MEMORY), &r.memory_kb) || r.memory_kb < 0)
		r.memory_kb = 0;
	if (parse_int(field(h, C_TID), &r.tid))
		r.tid = -1;
	if (parse_int(field(h, C_PID), &r.pid))
		r.pid = -1;
	if (parse_int(field(h, C_PPID), &r.parent_pid))
		r.parent_pid = -1;
	if (h->pid_filter >= 0 && r.pid != h->pid_filter && r.parent_pid != h->pid_filter)
		return 0;
	if (!parse_int(field(h, C_LEVEL), &level) && level >= 0 && level <= 127)
		r.level = (int8_t)level;
	r.start_end = (int8_t)se;
	r.module = intern(h, C_MODULE);
	r.event = intern(h, C_EVENT);
	r.stage = intern(h, C_STAGE);
	r.custom = intern(h, C_CUSTOM);
	if (r.module == STRPOOL_NONE || r.event == STRPOOL_NONE || r.stage == STRPOOL_NONE ||
	    r.custom == STRPOOL_NONE)
		return NNS_ENOMEM;
	if (h->m->host.n >= HOSTINFO_MAX_ROWS)
		return nns_err_set(h->err, NNS_ENOMEM, "%s: more than %d rows", h->name,
				   HOSTINFO_MAX_ROWS);
	return model_add_host(h->m, &r);
}

static int end_record(struct hi *h)
{
	int rc = 0;

	if (end_field(h))
		return NNS_ENOMEM;
	h->line++;
	/* a blank line is one empty field */
	if (!(h->nfields == 1 && h->buf[h->start[0]] == '\0')) {
		if (!h->have_header)
			rc = header(h);
		else
			rc = row(h);
	}
	h->len = 0;
	h->nfields = 0;
	h->start[0] = 0;
	h->too_long = 0;
	return rc;
}

static int feed(struct hi *h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		int rc = 0;

		if (h->quoted) {
			if (h->quote_seen) {
				h->quote_seen = 0;
				if (c == '"') {
					rc = put(h, '"');
				} else {
					h->quoted = 0; /* the closing quote */
					i--;	       /* read c again outside quotes */
				}
			} else if (c == '"') {
				h->quote_seen = 1;
			} else {
				rc = put(h, c);
			}
		} else if (c == '"' && h->field_fresh) {
			h->quoted = 1;
			h->field_fresh = 0;
		} else if (c == ',') {
			rc = end_field(h);
		} else if (c == '\n') {
			if (h->field_len && h->buf[h->len - 1] == '\r') {
				h->len--;
				h->field_len--;
			}
			rc = end_record(h);
		} else {
			h->field_fresh = 0;
			rc = put(h, c);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int finish(struct hi *h)
{
	int rc = 0;

	if (h->quote_seen) {
		h->quote_seen = 0;
		h->quoted = 0;
	}
	if (h->len || h->nfields)
		rc = end_record(h);
	if (!rc && !h->have_header)
		rc = nns_err_set(h->err, NNS_EFORMAT, "%s: empty file (no host_info header)",
				 h->name);
	return rc;
}

static void hi_init(struct hi *h, struct model *m, const char *name, int64_t pid_filter,
		    struct nns_err *err)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	h->name = name;
	h->pid_filter = pid_filter;
	h->field_fresh = 1;
	h->err = err;
}

static int fail_nomem(struct hi *h, int rc)
{
	if (rc == NNS_ENOMEM && !(h->err && h->err->code))
		nns_err_set(h->err, NNS_ENOMEM, "%s: out of memory", h->name);
	return rc;
}

int hostinfo_load_buffer(const char *buf, size_t len, const char *name, struct model *m,
			 int64_t pid_filter, struct nns_err *err)
{
	struct hi h;
	int rc;

	hi_init(&h, m, name, pid_filter, err);
	rc = feed(&h, buf, len);
	if (!rc)
		rc = finish(&h);
	free(h.buf);
	return fail_nomem(&h, rc);
}

int hostinfo_load_file(const char *path, struct model *m, int64_t pid_filter, struct nns_err *err)
{
	char block[64 << 10];
	struct hi h;
	FILE *f = fs_fopen_beneath(m->root, path); /* confined like its trace */
	size_t n;
	int rc = 0;

	if (!f)
		return fs_open_error(err, NNS_EIO, m->root, path, errno);
	hi_init(&h, m, path, pid_filter, err);
	while (!rc && (n = fread(block, 1, sizeof(block), f)) > 0)
		rc = feed(&h, block, n);
	if (!rc && ferror(f))
		rc = nns_err_set(err, NNS_EIO, "%s: read error", path);
	if (!rc)
		rc = finish(&h);
	fclose(f);
	free(h.buf);
	return fail_nomem(&h, rc);
}

int64_t hostinfo_file_rank(const char *base)
{
	const char *p = "host_info_";
	size_t n = strlen(p), k = strlen(base);
	int64_t v = 0;

	if (strncmp(base, p, n) != 0 || k < n + 5 || strcmp(base + k - 4, ".csv") != 0)
		return -1;
	for (size_t i = n; i < k - 4; i++) {
		if (base[i] < '0' || base[i] > '9' || v > 1000000000)
			return -1;
		v = v * 10 + (base[i] - '0');
	}
	return v;
}
