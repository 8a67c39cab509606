/*
 * ms_csv.c - the CSV reader of MindSpore's profiler files (ms_csv.h).
 */
#include "importers/ms_csv.h"
#include "common/vec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ms_csv_init(struct ms_csv *c, const char *buf, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->p = buf;
	c->end = buf + n;
}

void ms_csv_release(struct ms_csv *c)
{
	free(c->field);
	c->field = NULL;
	c->flen = c->fcap = 0;
}

int ms_csv_field(struct ms_csv *c, int *eol)
{
	int quoted = 0;

	c->flen = 0;
	*eol = 0;
	if (c->p >= c->end)
		return -1;
	if (*c->p == '"') {
		quoted = 1;
		c->p++;
	}
	for (;;) {
		char ch;

		if (c->p >= c->end) {
			if (quoted)
				return -2;
			*eol = 1;
			break;
		}
		ch = *c->p++;
		if (quoted) {
			if (ch == '"') {
				if (c->p < c->end && *c->p == '"') {
					c->p++;
				} else {
					quoted = 0;
					continue;
				}
			}
		} else if (ch == ',') {
			break;
		} else if (ch == '\n' || ch == '\r') {
			if (ch == '\r' && c->p < c->end && *c->p == '\n')
				c->p++;
			*eol = 1;
			break;
		}
		if (c->flen + 2 > c->fcap &&
		    (c->flen + 2 > MS_CSV_FIELD_MAX ||
		     vec_reserve_raw((void **)&c->field, &c->fcap, c->flen + 2, 1)))
			return -2;
		c->field[c->flen++] = ch;
	}
	if (c->field)
		c->field[c->flen] = '\0';
	return 0;
}

void ms_csv_skip_line(struct ms_csv *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
	if (c->p < c->end)
		c->p++;
}

const char *ms_csv_str(const struct ms_csv *c)
{
	return c->field ? c->field : "";
}

int ms_csv_row(struct ms_csv *c, char *f, int nf, size_t cap)
{
	int k = 0, eol = 0;

	while (!eol) {
		int rc = ms_csv_field(c, &eol);

		if (rc == -1)
			return k;
		if (rc == -2 || c->flen + 1 > cap) {
			if (!eol)
				ms_csv_skip_line(c);
			return -1;
		}
		if (k < nf)
			memcpy(f + (size_t)k * cap, ms_csv_str(c), c->flen + 1);
		k++;
	}
	return k > nf ? nf + 1 : k;
}

int ms_csv_num(const char *s, double *out)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	return (*end || errno || !isfinite(*out)) ? -1 : 0;
}
