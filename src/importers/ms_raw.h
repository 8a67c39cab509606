/*
 * ms_raw.h - a raw Ascend profiling job (what MindInsight's parsers read
 * before MindSpore wrote its own intermediate files): the job directory
 * holds, itself or in its data/ subdirectory (container/<dev>/data/ for
 * the framework files of "container" layouts),
 *   Framework.host.<vm.|>{task_desc_info,graph_desc_info,point}.<dev>[.<job>].slice_<n>
 *   training_trace.46.dev.profiler_default_tag.<dev>.slice_<n>   (20-byte records)
 *   hwts.log.data.45.dev.profiler_default_tag.<dev>.slice_<n>    (64-byte records)
 *   DATA_PREPROCESS.dev.AICPU.<dev>.slice_<n>                     (text records)
 * ms_raw_load() parses them as MindInsight does (framework_parser.py,
 * step_trace_parser.py, hwts_log_parser.py + optime_parser.py, the
 * integrator, aicpu_data_parser.py; docs/MINDSPORE.md "Raw job
 * directories") into the intermediate files MindSpore would have written,
 * held in memory by name:
 *   step_trace_raw_<dev>_detail_time.csv, framework_raw_<dev>.csv,
 *   aicore_intermediate_<dev>_{detail,type}.csv,
 *   output_data_preprocess_aicpu_<dev>.txt
 * and fp / bp from the point file. A struct ms_src whose raw points here
 * serves those names from memory (ms_src_read), so every existing reader
 * and view works on a raw job unchanged.
 *
 * Damage: a record cut short, an unknown record type, a job id that
 * changes, a line that is not "name:value" ... is a warning
 * "<path>: offset N: why" in warnings (the first MS_RAW_WARN_MAX kept,
 * nwarn counts all); what can be read is kept. No framework file in any
 * place searched is one warning "<job dir>: no framework files ..." naming
 * those places and the file names; the other inputs are still converted.
 *
 * Ops and steps: the hwts executions also become output_timeline_data_<dev>
 * .txt and min_cycle_counter_<dev>.txt (as MindSpore's OPComputeTimeParser
 * writes them); ms_raw_add_ops turns them into the model's kernels and
 * ms_steps.c places the step trace's steps on the same clock.
 *
 * Ownership: struct ms_raw owns its texts and warnings; ms_raw_release
 * frees them. Bounds: each input file at most MS_RAW_FILE_MAX bytes (a
 * larger one is a warning and is not read).
 */
#ifndef NNS_IMPORTERS_MS_RAW_H
#define NNS_IMPORTERS_MS_RAW_H

#include <stddef.h>

#include "common/err.h"
#include "common/vec.h"

struct ms_src;
struct model;

#define MS_RAW_NAME_MAX 96
#define MS_RAW_WARN_MAX 32
#define MS_RAW_FILE_MAX ((size_t)1 << 30)

struct ms_raw_file {
	char name[MS_RAW_NAME_MAX]; /* "framework_raw_0.csv" ... */
	char *text;		    /* NUL-terminated */
	size_t len;
};

struct ms_raw {
	VEC(struct ms_raw_file) files;
	VEC(char *) warnings;		 /* "<path>: offset N: why" */
	size_t nwarn;			 /* all warnings, also those not kept */
	char fp_start[512], bp_end[512]; /* from the point file; "" when none */
	int inputs;			 /* raw input files found */
};

/* 1 when base is a raw job file (above) and not a ".done"/".zip" marker,
 * with *dev its device id; else 0. */
int ms_raw_match(const char *base, int *dev);

/* The job directory of a raw file's directory dir: dir itself, or its
 * parent when dir is ".../data". Writes it into out; -1 when too long. */
int ms_raw_job_dir(const char *dir, char *out, size_t n);

/* Parses the raw files of device s->dev of the job s->dir (files beneath
 * s->root) into *r (caller storage, initialised here). NNS_OK when at least
 * one raw input was found, NNS_ENOTFOUND when none (r empty), NNS_ENOMEM. */
int ms_raw_load(struct ms_raw *r, const struct ms_src *s, struct nns_err *err);

/* The intermediate file of that name, or NULL. */
const struct ms_raw_file *ms_raw_get(const struct ms_raw *r, const char *name);

void ms_raw_release(struct ms_raw *r);

/* Adds the AI Core executions of r (its output_timeline_data_<dev>.txt) to m
 * as device kernels on their streams (ms_raw_model.c says how); *added is
 * their number (0: r has no timeline rows). NNS_OK or NNS_ENOMEM. */
int ms_raw_add_ops(struct model *m, const struct ms_raw *r, int dev, size_t *added,
		   struct nns_err *err);

/* Puts r's warnings on m: the first as its note (with how many more), each
 * other kept one as a metadata "input_warning" (the CLI and the report list
 * them), and one saying how many were not kept. NNS_OK or NNS_ENOMEM. */
int ms_raw_warn_model(struct model *m, const struct ms_raw *r);

#endif
