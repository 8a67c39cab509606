/*
 * table.h - column-aligned text tables and number formatting for the
 * terminal report (report.c).
 *
 * A table is filled cell by cell, row-major; tb_print() measures every
 * column (in display columns: UTF-8 code points), shrinks the one "flex"
 * column so the table fits the given width, truncating its cells with "…"
 * (at the end, or in the middle for names whose tail matters, such as
 * templated kernel names), and prints it. Optional ANSI colour for the
 * header row only.
 *
 * Ownership: the table owns copies of its cells; tb_release() frees them.
 * A failed allocation makes the table print "(out of memory)" rather than
 * crash.
 */
#ifndef NNS_OUTPUT_TABLE_H
#define NNS_OUTPUT_TABLE_H

#include "common/vec.h"

#include <stdint.h>
#include <stdio.h>

enum tb_align { TB_LEFT = 0, TB_RIGHT = 1 };
enum tb_trunc { TB_TRUNC_NONE = 0, TB_TRUNC_END = 1, TB_TRUNC_MIDDLE = 2 };

struct tb_col {
	const char *title;
	int align; /* enum tb_align */
	int trunc; /* enum tb_trunc; the first truncatable column shrinks */
};

struct table {
	const struct tb_col *cols;
	int ncols;
	VEC(char *) cells; /* row-major; a NULL row start marks a rule line */
	int oom;
};

void tb_init(struct table *t, const struct tb_col *cols, int ncols);
void tb_release(struct table *t);
/* Appends the next cell (printf format). */
void tb_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a horizontal rule between rows (call at a row boundary). */
void tb_rule(struct table *t);
/* Prints the table within `width` columns (0 = no limit), indented by
 * `indent` spaces; bold header when color is set. */
void tb_print(const struct table *t, FILE *f, int width, int indent, int color);

/* Display columns of a UTF-8 string (code points). */
size_t tb_display_width(const char *s);
/* Copies s into dst truncated to at most `cols` display columns with "…"
 * (mode TB_TRUNC_END or TB_TRUNC_MIDDLE), never splitting a UTF-8
 * sequence. dst must hold strlen(s) + 4 bytes. */
void tb_truncate(char *dst, const char *s, size_t cols, int mode);

/* Number formatting into caller buffers (>= 32 bytes). */
/* 1234567 -> "1,234,567" */
char *tb_fmt_int(char *buf, size_t size, int64_t v);
/* microseconds from ns: "12,345" (>= 10 µs), "3.25" (< 10 µs), "0" */
char *tb_fmt_us(char *buf, size_t size, double ns);
/* bytes: "512 B", "1.50 KiB", "3.25 GiB"; negative sizes keep their sign */
char *tb_fmt_bytes(char *buf, size_t size, double bytes);
/* ratio 0..1 -> "45.20%"; negative -> "-" (absent) */
char *tb_fmt_pct(char *buf, size_t size, double ratio);

#endif
