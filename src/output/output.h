/*
 * output.h - analysis results written to disk: the JSON contract of SPEC §4
 * (json_out.c) and the CSV tables beside it (csv_out.c).
 *
 * Layout under an output directory <dir> (docs/CLI.md has every key):
 *   <dir>/<worker>[.<span>]/overview.json operators.json kernels.json
 *                           memory.json modules.json datapipe.json
 *                           cpu.json hostinfo.json steptrace.json
 *                           step_trace.csv op_statistics.csv
 *                           kernel_statistics.csv memory_ops.csv
 *                           data_pipeline.csv
 *                           timeline.json (only when asked for)
 *   <dir>/distributed.json              (runs with several workers)
 *   <dir>/distributed.<span>.json       (the same for each span, when
 *                                        workers have spans)
 *   <dir>/skipped.json                  (files discovery left out, if any)
 * Worker and span names are sanitized (outfile.h) so that they cannot
 * leave <dir>. Every file is written atomically (temporary + rename).
 * Times are microseconds as doubles (model ns / 1000.0).
 *
 * None of these functions keeps a pointer to its arguments.
 */
#ifndef NNS_OUTPUT_OUTPUT_H
#define NNS_OUTPUT_OUTPUT_H

#include "analysis/analysis.h"
#include "output/jsonw.h"

struct out_opts {
	int csv;	  /* also write the CSV tables */
	int pretty_depth; /* jsonw pretty depth; 0 = the default layout */
};

/* Identification written into overview.json ("source"); all optional. */
struct out_source {
	const char *worker;
	const char *span; /* NULL or "" when the worker has no spans */
	const char *file; /* trace path */
	const char *run;
};

/* The directory name of a worker/span: sanitized "<worker>[.<span>]". */
void out_profile_dirname(char *dst, size_t size, const char *worker, const char *span);

/* Writes the per-worker/span files of p into dir/<worker>[.<span>]/,
 * creating directories as needed. Returns NNS_OK or the first error. */
int out_write_profile(const char *dir, const struct out_source *src, const struct an_profile *p,
		      const struct out_opts *o, struct nns_err *err);
/* The same files straight into dir (which must exist), no subdirectory:
 * the server's cache gives it the directory it opened (cache.c). */
int out_write_views(const char *dir, const struct out_source *src, const struct an_profile *p,
		    const struct out_opts *o, struct nns_err *err);

/* Writes dir/<file_name> (e.g. "distributed.json") from d; span may be NULL. */
int out_write_dist(const char *dir, const char *file_name, const char *span,
		   const struct an_dist *d, struct nns_err *err);

/* A file run discovery left out and why (strings borrowed). */
struct out_skip {
	const char *path, *reason;
};
/* Writes dir/skipped.json: {"skipped": [{"path", "reason"}], "more": N}
 * from the n files of v and more left unlisted (skipped_json.c); writes
 * nothing and returns NNS_OK when nothing was skipped. pretty_depth 0: the
 * default layout. */
int out_write_skipped(const char *dir, const struct out_skip *v, size_t n, size_t more,
		      int pretty_depth, struct nns_err *err);

/* Writes the diff of two profiles to path (a file name). */
int out_write_diff(const char *path, const struct an_diff *d, const char *base_label,
		   const char *exp_label, struct nns_err *err);

/* The JSON documents themselves, to any writer (used by the files above
 * and by tests). Each writes one complete object. */
void out_json_overview(struct jsonw *w, const struct an_profile *p, const struct out_source *src);
void out_json_operators(struct jsonw *w, const struct an_profile *p);
void out_json_kernels(struct jsonw *w, const struct an_profile *p);
void out_json_memory(struct jsonw *w, const struct an_profile *p);
void out_json_modules(struct jsonw *w, const struct an_profile *p);
void out_json_dist(struct jsonw *w, const struct an_dist *d, const char *span);
void out_json_diff(struct jsonw *w, const struct an_diff *d, const char *base_label,
		   const char *exp_label);

/* Data pipeline, CPU, host info and step trace (json_extra.c): datapipe.json,
 * cpu.json, hostinfo.json, steptrace.json and, with o->csv,
 * data_pipeline.csv into dir (which must exist). out_write_profile() calls
 * it. */
int out_write_extra(const char *dir, const struct an_profile *p, const struct out_opts *o,
		    struct nns_err *err);
void out_json_datapipe(struct jsonw *w, const struct an_profile *p);
void out_json_cpu(struct jsonw *w, const struct an_profile *p);
void out_json_hostinfo(struct jsonw *w, const struct an_profile *p);
/* {"steps":[{name, start_us, end_us, iteration_interval_us, fp_bp_us,
 * tail_us, total_us}], "average":{...}} (docs/SERVER.md "steptrace view"). */
void out_json_steptrace(struct jsonw *w, const struct an_profile *p);

/* HTA time analyses (hta_time_json.c, docs/HTA.md): temporal.json
 * {"devices":[...]}, idle.json {"streams":[...]}, queue.json
 * {"streams":[... "series"]}, membw.json {"kinds":[... "series"]}; each
 * runs its analysis on p->m and writes {"error": "..."} if it fails. */
void out_json_temporal(struct jsonw *w, const struct an_profile *p);
void out_json_idle(struct jsonw *w, const struct an_profile *p);
void out_json_queue(struct jsonw *w, const struct an_profile *p);
void out_json_membw(struct jsonw *w, const struct an_profile *p);

/* HTA launch-side documents (hta_launch_json.c): launches.json,
 * annotations.json, sequences.json; and distributed.json's "stragglers". */
void out_json_hta_launches(struct jsonw *w, const struct an_profile *p);
void out_json_hta_annotations(struct jsonw *w, const struct an_profile *p);
void out_json_hta_sequences(struct jsonw *w, const struct an_profile *p);
void hta_dist_stragglers_json(struct jsonw *w, const struct an_dist *d);

/* The per-worker documents beyond overview/operators/kernels/memory/modules
 * (views.c): file <name>.json, /api/view?view=<name>. out_write_extra()
 * writes every row; pretty is the jsonw pretty depth. */
struct out_view {
	const char *name;
	void (*fn)(struct jsonw *w, const struct an_profile *p);
	int pretty;
	int mindspore; /* written only for MindSpore devices (ms_views.c) */
	/* NULL, or: `nnscope analyse` writes the file only where it says 1 (a
	 * document of the whole job, written once); the server answers any */
	int (*written_for)(const struct an_profile *p);
};
extern const struct out_view out_views[];
extern const size_t out_nviews;
/* The row named name, or NULL. */
const struct out_view *out_view_find(const char *name);
/* 1 when row v applies to the worker of p (its mindspore flag). */
int out_view_applies(const struct out_view *v, const struct an_profile *p);

/* MindSpore documents (ms_views.c): ms_ops = step summary, op statistics
 * by type and by op (ms_ops_json.h). */
void out_json_ms_ops_view(struct jsonw *w, const struct an_profile *p);
/* ms_minddata (ms_minddata_json.h), ms_flops, ms_op_detail (the by-op table
 * with FLOPs and op_info), ms_aicpu, ms_dynshape (ms_extra_json.h). */
void out_json_ms_minddata_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_flops_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_op_detail_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_aicpu_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_dynshape_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_gpu_ops_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_cpu_ops_view(struct jsonw *w, const struct an_profile *p);
/* ms_parallel, ms_marey: the job's parallel strategy and stage timeline
 * (ms_parallel_json.h). */
void out_json_ms_parallel_view(struct jsonw *w, const struct an_profile *p);
void out_json_ms_marey_view(struct jsonw *w, const struct an_profile *p);
/* ms_marey.json is written once per job: for the device that carries the
 * stage timeline (ms_marey_owner). */
int out_ms_marey_applies(const struct an_profile *p);
/* MindSpore CSV tables of a MindSpore device (nothing for other workers):
 * ms_step_trace.csv (per step and the average, us), ms_op_type.csv,
 * ms_op_detail.csv, each when its source file is there. */
int out_write_ms_csv(const char *dir, const struct an_profile *p, struct nns_err *err);

/* HTA critical path (hta_critpath_json.c, docs/HTA.md): critical_path.json
 * of the step p->opts.critpath_step names ("5" or "ProfilerStep#5") when
 * the trace has it, else of the first step. */
void out_json_critical_path(struct jsonw *w, const struct an_profile *p);
/* Writes dir/critical_path.json for p->opts.critpath_step (NULL or "": the
 * first step) and the overlaid Chrome trace of that step to
 * trace_dir/trace_name: the step's events, those on the path with args
 * "critical": 1, and the path's launch, dependency and sync edges as flow
 * arrows (HTA's overlay_critical_path_analysis). NNS_EINVAL when the step
 * asked for is not in the trace. */
int out_write_critical_path(const char *dir, const char *trace_dir, const char *trace_name,
			    const struct an_profile *p, struct nns_err *err);

/* The members "trace_diff" (HTA's compare_traces / ops_diff of d->hta:
 * operators and kernels of the first step of each trace) of the diff
 * document; nothing when d->hta is NULL. hta_critpath_json.c */
void out_json_trace_diff(struct jsonw *w, const struct an_diff *d);

/* Chrome-trace export (chrome.c): the model's events as Chrome trace JSON
 * {"traceEvents":[...]} for Perfetto UI / chrome://tracing.
 *   - thread_name / process_name metadata first, then every event in time
 *     order: complete ("X") events per thread, counters ("C": model
 *     counters, memory totals per device, queue sizes, CPU samples),
 *     instants ("i": marks, "[memory]" events), flows ("s"/"t"/"f"),
 *     and host_info rows as "B"/"E"/"i" of "event::stage" (when the
 *     trace's monotonic clock is known);
 *   - ts in microseconds since the trace start (baseTimeNanoseconds holds
 *     the start on the model clock);
 *   - limit_bytes > 0 caps the output like MindSpore's timeline_limit:
 *     once the next event would pass the cap, no more events are written;
 *     an instant "nnscope: timeline cut" and a top-level "nnscopeCut"
 *     object {"omitted_events", "from_ts_us", "limit_bytes"} say what was
 *     left out, and the JSON stays valid. */
struct out_chrome_stats {
	int64_t events_written;
	int64_t events_omitted;
	int64_t bytes;
	int64_t cut_ts; /* model ns of the first omitted event; MODEL_NONE if none */
	int64_t t0;	/* model ns of the first row (baseTimeNanoseconds) */
};
int out_chrome_write(FILE *f, const struct model *m, int64_t limit_bytes,
		     struct out_chrome_stats *st, struct nns_err *err);
/* The timeline_limit (MB, 1..1048576) the trace's collector options asked
 * for (the META "options" object of a .nnst: nns_options_to_json), else 0
 * (none said: Kineto or MindSpore input, or a value out of range). The
 * exporters use it when their command line gives no limit. */
long out_chrome_trace_limit_mb(const struct model *m);
/* Writes dir/name atomically (outfile.h) with out_chrome_write. */
int out_chrome_file(const char *dir, const char *name, const struct model *m, int64_t limit_bytes,
		    struct out_chrome_stats *st, struct nns_err *err);

/* CSV (csv_out.c): the four tables of p into dir (which must exist). */
int out_write_csv(const char *dir, const struct an_profile *p, struct nns_err *err);

/* Writes one CSV field to f with RFC 4180 quoting (quotes when the field
 * holds a comma, quote, CR or LF, or starts/ends with a space). */
void out_csv_field(FILE *f, const char *s);
/* Python's csv.writer (QUOTE_MINIMAL): quoted only for a comma, a quote or
 * a line end; empty and space-edged fields as they are; NULL is empty. */
void out_csv_field_py(FILE *f, const char *s);

/* Writes the members (not the braces) of an event's args object under
 * Kineto's names: External id, correlation, then device launch parameters
 * (device, stream, grid, block, registers per thread, shared memory,
 * blocks per SM, est. achieved occupancy %, bytes) or operator arguments
 * (Input Dims, Input type, Call stack, Python ids, Sequence number, Fwd
 * thread id); absent values are left out. event_args.c */
void out_json_event_args(struct jsonw *w, const struct model *m, const struct model_event *e);

/* Helpers shared by the writers: ns -> us, and a string id's text ("" for
 * none, so writers never print NULL). */
static inline double out_us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static inline const char *out_str(const struct model *m, uint32_t id)
{
	return m && id != STRPOOL_NONE ? model_str(m, id) : "";
}

#endif
