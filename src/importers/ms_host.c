/*
 * ms_host.c - a MindSpore host_info CSV read as Python's open() + csv.DictReader
 * read it (ms_host.h): UTF-8 check, universal newlines, then the excel
 * dialect's state machine of CPython's _csv.c (non-strict), line by line,
 * and DictReader's mapping of each record onto the header.
 */
#include "importers/ms_host.h"
#include "importers/hostinfo.h"
#include "common/jsonesc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

const char *const ms_host_cols[MSH_NCOL] = {
    "tid",   "pid",	  "parent_pid",	 "module_name",	     "event",	       "stage",
    "level", "start_end", "custom_info", "memory_usage(kB)", "time_stamp(us)",
};

enum { S_START_RECORD, S_START_FIELD, S_IN_FIELD, S_IN_QUOTED, S_QUOTE_IN_QUOTED, S_EAT_CRNL };
#define EOL (-1)

struct rd {
	struct ms_host_csv *h;
	char *rec; /* the record's fields, NUL-terminated */
	size_t rec_n, rec_cap;
	VEC(size_t) fo; /* offset of each saved field in rec */
	size_t field_start, field_chars;
	int state, have_header, too_long;
	VEC(int) colix; /* header field -> column, -1 outside the 11 */
};

static int add_c(struct rd *r, char c)
{
	if (c && (c & 0xc0) != 0x80 && ++r->field_chars > MSH_FIELD_LIMIT) /* NUL: a field's end */
		r->too_long = 1;
	if (r->rec_n + 2 > r->rec_cap &&
	    vec_reserve_raw((void **)&r->rec, &r->rec_cap, r->rec_n + 2, 1))
		return NNS_ENOMEM;
	r->rec[r->rec_n++] = c;
	return 0;
}

static int save_field(struct rd *r)
{
	if (add_c(r, '\0'))
		return NNS_ENOMEM;
	if (vec_push(&r->fo, r->field_start))
		return NNS_ENOMEM;
	r->field_start = r->rec_n;
	r->field_chars = 0;
	return 0;
}

static uint32_t store(struct ms_host_csv *h, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off;

	if (h->text_n + n >= MSH_NONE)
		return MSH_ABSENT; /* caller: out of room */
	if (h->text_n + n > h->text_cap &&
	    vec_reserve_raw((void **)&h->text, &h->text_cap, h->text_n + n, 1))
		return MSH_ABSENT;
	off = (uint32_t)h->text_n;
	memcpy(h->text + h->text_n, s, n);
	h->text_n += n;
	return off;
}

/* One complete record: the header, or a row as DictReader makes it. */
static int record(struct rd *r)
{
	struct ms_host_row row;
	size_t lf = r->colix.n, lr = r->fo.n;

	if (!r->have_header) {
		r->have_header = 1;
		for (size_t i = 0; i < lr; i++) {
			const char *name = r->rec + r->fo.v[i];
			int c = -1;

			for (int k = 0; k < MSH_NCOL; k++)
				if (strcmp(name, ms_host_cols[k]) == 0)
					c = k;
			if (c < 0)
				r->h->header_foreign = 1;
			if (vec_push(&r->colix, c))
				return NNS_ENOMEM;
		}
		return 0;
	}
	if (lr == 0)
		return 0; /* a blank line: DictReader skips [] */
	memset(&row, 0, sizeof(row));
	for (int k = 0; k < MSH_NCOL; k++)
		row.v[k] = MSH_ABSENT;
	for (size_t i = 0; i < lf; i++) {
		int c = r->colix.v[i];

		if (c < 0)
			continue;
		if (i < lr) {
			row.v[c] = store(r->h, r->rec + r->fo.v[i]);
			if (row.v[c] == MSH_ABSENT)
				return NNS_ENOMEM;
		} else {
			row.v[c] = MSH_NONE;
		}
	}
	row.extra = lr > lf;
	return vec_push(&r->h->rows, row) ? NNS_ENOMEM : 0;
}

static int end_record(struct rd *r)
{
	int rc = record(r);

	r->rec_n = r->field_start = r->field_chars = 0;
	r->fo.n = 0;
	return rc;
}

/* CPython's parse_process_char for the excel dialect, strict off; c is a
 * byte or EOL. A saved field that ends the record ends it. */
static int step(struct rd *r, int c)
{
	int rc = 0;

	switch (r->state) {
	case S_START_RECORD:
		if (c == EOL)
			return 0;
		if (c == '\n' || c == '\r') {
			r->state = S_EAT_CRNL;
			return 0;
		}
		r->state = S_START_FIELD;
		/* fall through */
	case S_START_FIELD:
		if (c == '\n' || c == '\r' || c == EOL) {
			rc = save_field(r);
			r->state = c == EOL ? S_START_RECORD : S_EAT_CRNL;
		} else if (c == '"') {
			r->state = S_IN_QUOTED;
		} else if (c == ',') {
			rc = save_field(r);
		} else {
			rc = add_c(r, (char)c);
			r->state = S_IN_FIELD;
		}
		break;
	case S_IN_FIELD:
		if (c == '\n' || c == '\r' || c == EOL) {
			rc = save_field(r);
			r->state = c == EOL ? S_START_RECORD : S_EAT_CRNL;
		} else if (c == ',') {
			rc = save_field(r);
			r->state = S_START_FIELD;
		} else {
			rc = add_c(r, (char)c);
		}
		break;
	case S_IN_QUOTED:
		if (c == EOL)
			break;
		if (c == '"')
			r->state = S_QUOTE_IN_QUOTED;
		else
			rc = add_c(r, (char)c);
		break;
	case S_QUOTE_IN_QUOTED:
		if (c == '"') {
			rc = add_c(r, '"');
			r->state = S_IN_QUOTED;
		} else if (c == ',') {
			rc = save_field(r);
			r->state = S_START_FIELD;
		} else if (c == '\n' || c == '\r' || c == EOL) {
			rc = save_field(r);
			r->state = c == EOL ? S_START_RECORD : S_EAT_CRNL;
		} else {
			rc = add_c(r, (char)c);
			r->state = S_IN_FIELD;
		}
		break;
	default: /* S_EAT_CRNL: only EOL can follow "\n", the line's last byte */
		if (c == EOL)
			r->state = S_START_RECORD;
		break;
	}
	return rc;
}

/* The text after universal newlines, split into lines as file iteration does. */
static int parse_text(struct rd *r, const char *t, size_t n)
{
	size_t i = 0;
	int rc = 0;

	while (!rc && i < n) {
		while (!rc && i < n) {
			char c = t[i++];

			rc = step(r, (unsigned char)c);
			if (c == '\n')
				break;
		}
		if (!rc)
			rc = step(r, EOL);
		if (!rc && r->state == S_START_RECORD)
			rc = end_record(r);
	}
	/* end of file inside quotes: what was read is a record (not strict) */
	if (!rc && r->state == S_IN_QUOTED) {
		rc = save_field(r);
		if (!rc)
			rc = end_record(r);
	}
	return rc;
}

static void release_rd(struct rd *r)
{
	free(r->rec);
	vec_free(&r->fo);
	vec_free(&r->colix);
}

int ms_host_parse(struct ms_host_csv *h, const char *buf, size_t n, struct nns_err *err)
{
	struct rd r;
	char *t = NULL;
	size_t tn = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	h->rank = -1;
	for (size_t i = 0; i < n;) {
		size_t len = (unsigned char)buf[i] < 0x80
				 ? 1
				 : utf8_seq((const unsigned char *)buf + i, n - i);

		if (len == 0)
			return nns_err_set(
			    err, NNS_EFORMAT,
			    "byte %zu: not UTF-8 (MindSpore's reader fails on it too)", i);
		if (buf[i] == '\0')
			return nns_err_set(
			    err, NNS_EFORMAT,
			    "byte %zu: a NUL byte (nnscope does not read host_info with one)", i);
		i += len;
	}
	if (n && !(t = malloc(n)))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) { /* universal newlines */
		if (buf[i] == '\r') {
			t[tn++] = '\n';
			if (i + 1 < n && buf[i + 1] == '\n')
				i++;
		} else {
			t[tn++] = buf[i];
		}
	}
	memset(&r, 0, sizeof(r));
	r.h = h;
	rc = parse_text(&r, t, tn);
	free(t);
	if (!rc && r.too_long)
		rc =
		    nns_err_set(err, NNS_EFORMAT,
				"a field over %d characters (Python's csv field limit: MindSpore's "
				"reader fails on it)",
				MSH_FIELD_LIMIT);
	else if (rc)
		nns_err_set(err, rc, "out of memory");
	release_rd(&r);
	if (rc)
		ms_host_release(h);
	return rc;
}

/* The only host_info_<N>.csv of <dir>/host_info: N, else -1. */
static int64_t only_rank(const struct ms_src *s)
{
	char path[4096];
	struct dirent *de;
	int64_t rank = -1;
	int n = 0;
	DIR *dp;

	if (snprintf(path, sizeof(path), "%s/host_info", s->dir) >= (int)sizeof(path))
		return -1;
	if (!(dp = fs_opendir_beneath(s->root, path)))
		return -1;
	while ((de = readdir(dp)) != NULL && n < 2) {
		int64_t k = hostinfo_file_rank(de->d_name);

		if (k >= 0) {
			rank = k;
			n++;
		}
	}
	closedir(dp);
	return n == 1 ? rank : -1;
}

int ms_host_load(struct ms_host_csv *h, const struct ms_src *s, struct nns_err *err)
{
	struct ms_src one = *s;
	char *buf = NULL;
	size_t n = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	h->rank = -1;
	if (!ms_src_has(&one, "host_info/host_info_", ".csv")) {
		int64_t k = only_rank(s);

		if (k < 0 || k > 100000000)
			return NNS_ENOTFOUND;
		one.dev = (int)k;
	}
	one.raw = NULL;
	if ((rc = ms_src_read(&one, "host_info/host_info_", ".csv", MSH_MAX_BYTES, &buf, &n, err)))
		return rc;
	rc = ms_host_parse(h, buf, n, err);
	free(buf);
	if (!rc)
		h->rank = one.dev;
	return rc;
}

void ms_host_release(struct ms_host_csv *h)
{
	free(h->text);
	vec_free(&h->rows);
	memset(h, 0, sizeof(*h));
	h->rank = -1;
}
