/* table.c - aligned text tables and number formatting (see table.h). */
#include "output/table.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TB_MIN_FLEX 16	 /* a truncatable column never shrinks below this */
#define TB_GAP 2	 /* spaces between columns */
#define TB_MAX_CELL 4096 /* longest stored cell, bytes */

void tb_init(struct table *t, const struct tb_col *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
}

void tb_release(struct table *t)
{
	for (size_t i = 0; i < t->cells.n; i++)
		free(t->cells.v[i]);
	vec_free(&t->cells);
}

static void push(struct table *t, char *s)
{
	if (t->oom || vec_push(&t->cells, s) != 0) {
		free(s);
		t->oom = 1;
	}
}

void tb_cell(struct table *t, const char *fmt, ...)
{
	char tmp[TB_MAX_CELL];
	va_list ap;
	char *s;

	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	/* a cut cell must not end inside a UTF-8 sequence */
	if (n >= (int)sizeof(tmp)) {
		size_t len = sizeof(tmp) - 1;

		while (len > 0 && ((unsigned char)tmp[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0 && (unsigned char)tmp[len - 1] >= 0xc0)
			len--;
		tmp[len] = '\0';
	}
	/* control characters (C0, DEL, and C1 as U+0080..U+009F, which some
	 * terminals obey) from trace names would break the layout or inject
	 * escape sequences */
	for (unsigned char *p = (unsigned char *)tmp; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = ' ';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			p[0] = p[1] = ' ';
			p++;
		}
	}
	s = strdup(tmp);
	if (!s) {
		t->oom = 1;
		return;
	}
	push(t, s);
}

void tb_rule(struct table *t)
{
	/* a rule is a full row whose first cell is NULL */
	for (int i = 0; i < t->ncols && !t->oom; i++)
		if (vec_push(&t->cells, NULL) != 0)
			t->oom = 1;
}

size_t tb_display_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Byte offset after the first `cols` code points of s. */
static size_t prefix_bytes(const char *s, size_t cols)
{
	size_t i = 0, c = 0;

	while (s[i]) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (c == cols)
				break;
			c++;
		}
		i++;
	}
	return i;
}

void tb_truncate(char *dst, const char *s, size_t cols, int mode)
{
	size_t w = tb_display_width(s), head, len = strlen(s);

	if (w <= cols || mode == TB_TRUNC_NONE || cols == 0) {
		memcpy(dst, s, len + 1);
		if (cols == 0 && mode != TB_TRUNC_NONE)
			dst[0] = '\0';
		return;
	}
	if (cols == 1) {
		strcpy(dst, "…");
		return;
	}
	if (mode == TB_TRUNC_MIDDLE && cols >= 8) {
		size_t keep_head = (cols - 1) / 2, keep_tail = cols - 1 - keep_head;
		size_t hb = prefix_bytes(s, keep_head), tb = prefix_bytes(s, w - keep_tail);

		memcpy(dst, s, hb);
		memcpy(dst + hb, "…", 3);
		memcpy(dst + hb + 3, s + tb, len - tb + 1);
		return;
	}
	head = prefix_bytes(s, cols - 1);
	memcpy(dst, s, head);
	memcpy(dst + head, "…", 4); /* with the NUL */
}

static void spaces(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

void tb_print(const struct table *t, FILE *f, int width, int indent, int color)
{
	size_t nc = (size_t)t->ncols, nrows, colw[32] = {0}, total = 0;
	int flex = -1;
	char *buf;

	if (t->oom) {
		fprintf(f, "%*s(out of memory)\n", indent, "");
		return;
	}
	if (nc == 0 || nc > 32)
		return;
	nrows = t->cells.n / nc;
	for (size_t c = 0; c < nc; c++) {
		colw[c] = tb_display_width(t->cols[c].title);
		if (flex < 0 && t->cols[c].trunc != TB_TRUNC_NONE)
			flex = (int)c;
	}
	for (size_t r = 0; r < nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			const char *s = t->cells.v[r * nc + c];
			size_t w = s ? tb_display_width(s) : 0;

			if (w > colw[c])
				colw[c] = w;
		}
	for (size_t c = 0; c < nc; c++)
		total += colw[c] + (c ? TB_GAP : 0);
	total += (size_t)indent;
	if (width > 0 && flex >= 0 && total > (size_t)width) {
		size_t over = total - (size_t)width, fw = colw[flex];

		colw[flex] =
		    fw > over + TB_MIN_FLEX ? fw - over : (fw < TB_MIN_FLEX ? fw : TB_MIN_FLEX);
	}
	total = 0;
	for (size_t c = 0; c < nc; c++)
		total += colw[c] + (c ? TB_GAP : 0);
	buf = malloc(TB_MAX_CELL + 8);
	if (!buf) {
		fprintf(f, "%*s(out of memory)\n", indent, "");
		return;
	}
	for (size_t r = 0; r <= nrows; r++) {
		int is_header = r == 0;

		if (!is_header && t->cells.v[(r - 1) * nc] == NULL) {
			spaces(f, (size_t)indent);
			for (size_t i = 0; i < total; i++)
				fputs("─", f);
			fputc('\n', f);
			continue;
		}
		spaces(f, (size_t)indent);
		if (is_header && color)
			fputs("\033[1m", f);
		for (size_t c = 0; c < nc; c++) {
			const char *s = is_header ? t->cols[c].title : t->cells.v[(r - 1) * nc + c];
			size_t w;
			int last = c + 1 == nc;

			tb_truncate(buf, s ? s : "", colw[c],
				    t->cols[c].trunc ? t->cols[c].trunc : TB_TRUNC_END);
			w = tb_display_width(buf);
			if (c)
				spaces(f, TB_GAP);
			if (t->cols[c].align == TB_RIGHT)
				spaces(f, colw[c] - w);
			fputs(buf, f);
			if (t->cols[c].align != TB_RIGHT && !last)
				spaces(f, colw[c] - w);
		}
		if (is_header && color)
			fputs("\033[0m", f);
		fputc('\n', f);
	}
	free(buf);
}

char *tb_fmt_int(char *buf, size_t size, int64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v), neg = v < 0, digits = n - neg;
	size_t o = 0;

	if (neg && o + 1 < size)
		buf[o++] = '-';
	for (int i = 0; i < digits && o + 1 < size; i++) {
		if (i && (digits - i) % 3 == 0 && o + 1 < size)
			buf[o++] = ',';
		if (o + 1 < size)
			buf[o++] = tmp[neg + i];
	}
	buf[o] = '\0';
	return buf;
}

char *tb_fmt_us(char *buf, size_t size, double ns)
{
	double us = ns / 1000.0;

	if (!isfinite(us))
		snprintf(buf, size, "-");
	else if (us == 0)
		snprintf(buf, size, "0");
	else if (fabs(us) < 10)
		snprintf(buf, size, "%.2f", us);
	else if (fabs(us) > 9e18)
		snprintf(buf, size, "%.3g", us);
	else
		tb_fmt_int(buf, size, (int64_t)llround(us));
	return buf;
}

char *tb_fmt_bytes(char *buf, size_t size, double bytes)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = fabs(bytes);
	int u = 0;

	if (!isfinite(bytes)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%s%.0f B", bytes < 0 ? "-" : "", v);
	else
		snprintf(buf, size, "%s%.2f %s", bytes < 0 ? "-" : "", v, unit[u]);
	return buf;
}

char *tb_fmt_pct(char *buf, size_t size, double ratio)
{
	if (ratio < 0 || !isfinite(ratio))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f%%", ratio * 100.0);
	return buf;
}
