/*
 * ms_host.h - a MindSpore host_info CSV (Profiler(profile_framework=...):
 * <profiler dir>/host_info/host_info_<rank>.csv) read as MindSpore's own
 * analyse reads it: open(path, 'r') (UTF-8, universal newlines: "\r\n" and
 * "\r" become "\n") and csv.DictReader (Python's excel dialect, not strict:
 * quotes only open a field at its start, a quote after a closing quote is
 * kept, a quoted field may hold line breaks, a file ending inside quotes
 * keeps what it read; blank lines are skipped). The rows keep their text
 * exactly, per column of the header:
 *   tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,
 *   memory_usage(kB),time_stamp(us)
 * a column the header lacks is MSH_ABSENT (Python: KeyError), a short
 * row's missing value MSH_NONE (DictReader's restval None); a row longer
 * than the header has `extra` set (its restkey None). The computation is
 * analysis/ms_host.h.
 *
 * Which file a device reads: host_info/host_info_<dev>.csv (rank = device
 * id), else, when host_info/ holds exactly one host_info_<N>.csv, that one
 * whatever N. Files MindSpore could not read either (not UTF-8) and what
 * nnscope does not hold (a NUL byte, a field over Python's csv field limit
 * of 131072 characters) are refused: NNS_EFORMAT, no row kept.
 *
 * Ownership: ms_host_csv owns its rows and text; ms_host_release frees them.
 */
#ifndef NNS_IMPORTERS_MS_HOST_H
#define NNS_IMPORTERS_MS_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

enum {
	MSH_TID,
	MSH_PID,
	MSH_PPID,
	MSH_MODULE,
	MSH_EVENT,
	MSH_STAGE,
	MSH_LEVEL,
	MSH_START_END,
	MSH_CUSTOM,
	MSH_MEMORY,
	MSH_TIME,
	MSH_NCOL
};

#define MSH_ABSENT UINT32_MAX	  /* the header has no such column */
#define MSH_NONE (UINT32_MAX - 1) /* a short row: None */
#define MSH_MAX_BYTES ((size_t)1 << 30)
#define MSH_FIELD_LIMIT 131072 /* Python's csv.field_size_limit() */

/* The header names of the columns, MindSpore's memory_header order. */
extern const char *const ms_host_cols[MSH_NCOL];

struct ms_host_row {
	uint32_t v[MSH_NCOL]; /* offset of the value in text, or MSH_ABSENT / MSH_NONE */
	uint8_t extra;	      /* more fields than the header */
};

struct ms_host_csv {
	int64_t rank; /* N of host_info_<N>.csv */
	char *text;   /* the values, each NUL-terminated */
	size_t text_n, text_cap;
	VEC(struct ms_host_row) rows;
	int header_foreign; /* the header names a column outside the 11 */
};

/* The value of column c of row r: its text, or NULL for MSH_ABSENT /
 * MSH_NONE (r->v[c] tells which). */
static inline const char *ms_host_val(const struct ms_host_csv *h, const struct ms_host_row *r,
				      int c)
{
	return r->v[c] >= MSH_NONE ? NULL : h->text + r->v[c];
}

/* Parses buf[0..n) into *h (caller storage, initialised here). NNS_OK,
 * NNS_EFORMAT (refused, above; err says why) or NNS_ENOMEM; *h holds no
 * rows unless NNS_OK. */
int ms_host_parse(struct ms_host_csv *h, const char *buf, size_t n, struct nns_err *err);

/* The host_info file of the device s (above) into *h: NNS_OK, NNS_ENOTFOUND
 * (no host_info file for it), or as ms_host_parse / ms_src_read. */
int ms_host_load(struct ms_host_csv *h, const struct ms_src *s, struct nns_err *err);

void ms_host_release(struct ms_host_csv *h);

#endif
