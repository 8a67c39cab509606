/*
 * ms_load.h - a MindSpore device of a profiler directory as a worker
 * (reference mindinsight.md, "Timeline" and "Files").
 *
 * Run discovery (run.c) turns every device id <dev> whose files sit in a
 * directory into one worker named "device_<dev>"; its span path is the
 * device's "anchor" file, the most telling of its files:
 *   0  ascend_timeline_display_<dev>.json, gpu_timeline_display_<dev>.json,
 *      timeline_display_<dev>.json (the timeline: events for the model)
 *   1  step_trace_raw_<dev>_detail_time.csv
 *   2  any other per-device file MindInsight reads (op statistics, FLOPs,
 *      MindData, dynamic shape, AICPU ...).
 * ms_load_device() then builds the model: the timeline's events when there
 * is one (events without "cat" classified by MindSpore's pid convention:
 * pid < 9000 is the device's AI Core / GPU streams and 9000 AI CPU, both
 * device kernels on stream = tid; 10000 communication, also on the device;
 * 11000 host CPU ops; a GPU timeline's "Ops" thread holds operators), else
 * an empty model; and the metadata "mindspore_dir" / "mindspore_device"
 * that the MindSpore documents (steptrace, ms_ops, ms_minddata ...) read
 * the other files with; "device_kind" NPU (Ascend) or GPU (a GPU timeline
 * or GPU op tables), which the overview names the devices by. The step
 * trace's steps become the model's steps (ms_add_steps). Without a
 * timeline, a raw job's files (ms_raw.h) give the AI Core ops as kernels
 * (ms_raw_add_ops), the steps on their clock and every raw warning
 * (ms_raw_warn_model).
 */
#ifndef NNS_IMPORTERS_MS_LOAD_H
#define NNS_IMPORTERS_MS_LOAD_H

#include "common/err.h"
#include "importers/kineto.h"
#include "importers/ms_src.h"
#include "model/model.h"

/* If base (a file name without directory) is a per-device MindSpore file,
 * returns 1 with *dev its device id and *prio its anchor priority (lower is
 * better); else 0. */
int ms_match_file(const char *base, int *dev, int *prio);

/* Loads the device whose anchor file is path into m (caller storage,
 * initialised here). NNS_OK; NNS_ETRUNC when the timeline was cut short
 * (m holds what was read); other NNS_E* with m released. */
int ms_load_device(struct model *m, const char *path, const struct kineto_opts *ko,
		   struct nns_err *err);

/* The MindSpore source of a model loaded by ms_load_device: 1 and *s
 * (pointing into the model's strings; its files read beneath m->root) or
 * 0 for other models. */
int ms_model_src(const struct model *m, struct ms_src *s);

/* Adds the steps of the step trace of s as "ProfilerStep#<k>" ranges to m
 * (not finalized; ms_steps.c says how their times are placed on the
 * timeline, have_timeline: m holds the device's timeline). No step trace,
 * or steps that cannot be placed, add nothing. NNS_OK or NNS_ENOMEM. */
int ms_add_steps(struct model *m, const struct ms_src *s, int have_timeline, struct nns_err *err);

#endif
