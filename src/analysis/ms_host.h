/*
 * ms_host.h - MindSpore's own analysis of a host_info CSV (importers/
 * ms_host.h), ported from mindspore/profiler/profiling.py (MindSpore 2.3,
 * ../shared/seeds/004_*): _parse_host_info (the host timeline and the host
 * memory rows) and _calculate_dataset_execution_time (the dataset table),
 * statement for statement, with their exceptions:
 *   - a KeyError (a column the header lacks) skips the row, as MindSpore's
 *     `except KeyError` does, after whatever the row did before it;
 *   - a ValueError (int() of a non-number) or TypeError (a short row's None
 *     in int() or in a string concatenation) ends the function: for
 *     _parse_host_info nothing at all is written (the dataset function is
 *     not called either), for the dataset function no dataset file;
 *   - a memory row with keys outside memory_header (a foreign header column,
 *     a row longer than the header) makes csv.DictWriter raise: the memory
 *     file keeps the rows before it and nothing else is written.
 * Keys are Python's: event + '_' + stage + '_' + tid + '_' + pid, with
 * Python's dict order (a start that repeats keeps its place, its time
 * replaced; a key closed and opened again goes to the end).
 *
 * Timeline items (MindSpore's dicts, in list order):
 *   X  {name: event::stage, cat: module_name, ts: start, dur, ph, pid, tid,
 *       args: {parent_pid}} from the end row `row`;
 *   i  {name, cat, ts, ph, pid, tid, args} from `row`;
 *   B  {name, pid, tid, ph, ts} for a start never closed (name / pid / tid
 *       split out of its key at its last two '_' as MindSpore does).
 * Dataset items: per title event::stage::custom_info of the Dataset module
 * rows, first-seen order, the occurrences and the running average
 * avg += (dur - avg) / count in doubles (Python's floats).
 *
 * ms_host_compute returns NNS_OK, NNS_ENOMEM, or NNS_EFORMAT when a number
 * is one Python reads but nnscope holds no exact copy of (beyond 2^62, or
 * non-ASCII digits): nothing is written then and err says which row.
 * Ownership: the result owns its arrays and strings; ms_host_result_release.
 */
#ifndef NNS_ANALYSIS_MS_HOST_H
#define NNS_ANALYSIS_MS_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strpool.h"
#include "common/vec.h"
#include "importers/ms_host.h"

enum { MSH_X, MSH_I, MSH_B };

struct ms_host_tl_item {
	int kind;		 /* MSH_X, MSH_I, MSH_B */
	size_t row;		 /* X, i: the row (an X's end row) */
	int64_t ts, dur;	 /* µs; dur for X only */
	uint32_t name, pid, tid; /* B: ids in the result's strings */
};

struct ms_host_ds_item {
	size_t row; /* the title's first end row: event, stage, custom_info */
	int64_t count;
	double avg; /* Avg. time (us) */
};

struct ms_host_result {
	int parse_raised;	  /* _parse_host_info raised: no file at all */
	int64_t parse_raised_row; /* which data row (0 = the first after the header) */
	VEC(size_t) mem;	  /* the memory rows (memory_usage(kB) > 0), file order */
	int64_t mem_raise_at;	  /* index into mem where DictWriter raises, -1 none */
	int64_t mem_peak_kb;	  /* the largest memory_usage(kB) of mem */
	VEC(struct ms_host_tl_item) tl;
	int ds_raised; /* the dataset function raised: no dataset file */
	int64_t ds_raised_row;
	VEC(struct ms_host_ds_item) ds;
	int64_t ds_unmatched_starts; /* starts left open in the dataset pass */
	struct strpool strings;	     /* B items' name / pid / tid */
};

int ms_host_compute(const struct ms_host_csv *h, struct ms_host_result *r, struct nns_err *err);
void ms_host_result_release(struct ms_host_result *r);

/* Which files MindSpore writes for r: the memory file when r->mem has rows
 * (and _parse_host_info did not raise), the timeline when r->tl has items and
 * nothing raised before it, the dataset file when neither function raised. */
int ms_host_writes_memory(const struct ms_host_result *r);
int ms_host_writes_timeline(const struct ms_host_result *r);
int ms_host_writes_dataset(const struct ms_host_result *r);

#endif
