/*
 * ms_raw_aicpu.c - a raw DATA_PREPROCESS.dev.AICPU file into MindSpore's
 * output_data_preprocess_aicpu_<dev>.txt (MindInsight
 * DataPreProcessParser).
 *
 * The file is text records separated by NUL bytes ("\n\0" or "\0"). A
 * record containing "Node" followed by one containing "Thread" is one
 * kernel: split on ',', a node record of 3 fields (MindSpore kernels: the
 * type after the last ':' of field 0, run end in field 2) or 6 fields
 * (other kernels: the name after the last ':' and '/', up to '-'; run end
 * in field 5), a thread record of 7 fields; run start = field 1 after its
 * last ':' up to a space; total_time / dispatch_time (ms) = the number
 * after the last '=' of the thread's last / second-to-last field, / 1000.
 * Another shape is a warning with the record's offset (upstream skips it
 * with a log line); so is a node record not followed by its thread.
 * Output: a header, a rule, "<n> <type> <total> <dispatch> <start> <end>"
 * rows and "AI CPU Total Time(ms): <sum, 6 decimals>" (none without rows).
 */
#include "importers/ms_raw_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF 8

struct rec {
	const char *p;
	size_t n, off;
};

/* Splits r on ',' into at most MAXF fields; returns the count (MAXF + 1 when more). */
static int split(const struct rec *r, struct rec *f)
{
	int k = 0;
	size_t s = 0;

	for (size_t i = 0; i <= r->n; i++) {
		if (i < r->n && r->p[i] != ',')
			continue;
		if (k == MAXF)
			return MAXF + 1;
		f[k].p = r->p + s;
		f[k].n = i - s;
		f[k].off = r->off + s;
		k++;
		s = i + 1;
	}
	return k;
}

static int has(const struct rec *r, const char *w)
{
	size_t m = strlen(w);

	for (size_t i = 0; i + m <= r->n; i++)
		if (memcmp(r->p + i, w, m) == 0)
			return 1;
	return 0;
}

/* The text after the last c of f, up to the first space (sp) or all. */
static struct rec after(struct rec f, char c, int sp)
{
	for (size_t i = f.n; i-- > 0;)
		if (f.p[i] == c) {
			f.p += i + 1;
			f.n -= i + 1;
			break;
		}
	if (sp) {
		while (f.n && f.p[0] == ' ')
			f.p++, f.n--; /* split() drops empty leading parts */
		for (size_t i = 0; i < f.n; i++)
			if (f.p[i] == ' ' || f.p[i] == '\t') {
				f.n = i;
				break;
			}
	}
	return f;
}

static int number(struct rec f, double *v)
{
	char tmp[64], *end;

	f = after(f, '=', 1);
	if (!f.n || f.n >= sizeof(tmp))
		return -1;
	memcpy(tmp, f.p, f.n);
	tmp[f.n] = 0;
	*v = strtod(tmp, &end);
	return *end ? -1 : 0;
}

int ms_raw_aicpu(const char *b, size_t n, const char *path, struct buf *out, struct ms_raw *r)
{
	VEC(struct rec) recs = {0};
	struct buf rows;
	double sum = 0;
	long serial = 1;
	int rc = NNS_OK, bad = 0;
	size_t s = 0;

	for (size_t i = 0; i <= n; i++) { /* records end at NUL ("\n\0" too) */
		if (i < n && b[i] != '\0')
			continue;
		struct rec x = {b + s, i - s, s};

		if (x.n && x.p[x.n - 1] == '\n')
			x.n--;
		if (vec_push(&recs, x)) {
			vec_free(&recs);
			return NNS_ENOMEM;
		}
		s = i + 1;
	}
	buf_init(&rows, 0);
	for (size_t i = 0; !rc && i + 1 < recs.n; i++) {
		struct rec nf[MAXF], tf[MAXF], name, st, en;
		int nn, tn;
		double total, disp;

		if (!has(&recs.v[i], "Node"))
			continue;
		if (!has(&recs.v[i + 1], "Thread")) {
			rc = ms_raw_warn(r, path, (long long)recs.v[i].off,
					 "a Node record without its Thread record: left out");
			continue;
		}
		nn = split(&recs.v[i], nf);
		tn = split(&recs.v[i + 1], tf);
		if ((nn != 3 && nn != 6) || tn != 7 || number(tf[6], &total) ||
		    number(tf[5], &disp)) {
			rc = ms_raw_warn(
			    r, path, (long long)recs.v[i].off,
			    "a Node/Thread record pair of an unknown shape (%d and %d fields): "
			    "left out",
			    nn, tn);
			continue;
		}
		name = after(nf[0], ':', 0);
		if (nn == 6) {
			name = after(name, '/', 0);
			for (size_t k = 0; k < name.n; k++)
				if (name.p[k] == '-') {
					name.n = k;
					break;
				}
		}
		st = after(after(nf[1], ':', 0), 0, 1);
		en = after(after(nf[nn == 3 ? 2 : 5], ':', 0), 0, 1);
		total /= 1000;
		disp /= 1000;
		sum += total;
		bad |=
		    buf_printf(&rows, "%-10ld %-24.*s %12.15g %12.15g %-12.*s %.*s\n", serial++,
			       (int)name.n, name.p, total, disp, (int)st.n, st.p, (int)en.n, en.p);
	}
	if (!rc && rows.len) {
		bad |=
		    buf_puts(out, "serial_number node_type_name total_time(ms) dispatch_time(ms) "
				  "run_start run_end\n");
		bad |=
		    buf_puts(out, "---------- ------------------------ ------------ ------------ "
				  "------------ ----------\n");
		bad |= buf_append(out, rows.p, rows.len);
		bad |= buf_printf(out, "AI CPU Total Time(ms):  %.6f\n", sum);
	}
	buf_free(&rows);
	vec_free(&recs);
	return rc ? rc : bad ? NNS_ENOMEM : NNS_OK;
}
