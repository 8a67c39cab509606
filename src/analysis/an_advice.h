/*
 * an_advice.h - the performance recommendations of a worker
 * (AN_PASS_ADVICE, advice.c), read from the other passes' results.
 */
#ifndef NNS_ANALYSIS_AN_ADVICE_H
#define NNS_ANALYSIS_AN_ADVICE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_advice_item {
	char id[32]; /* "dataloader", "ddp", "nccl", "comm", "gpu_util", "amp", "memory" */
	char *text;  /* owned */
};

struct an_advice {
	VEC(struct an_advice_item) items;
};

/* AN_PASS_ADVICE: fills p->advice and the usage flags (use_dp ...). */
int an_advice_compute(struct an_profile *p, struct nns_err *err);

/* The communication advice for pct percent of the step time in communication,
 * worded for device_kind (an_device_kind: "NPU" speaks of HCCL and
 * MindSpore's settings, any other kind gives tb_plugin's text):
 * comm_advice.c. Malloc'ed, the caller frees; NULL when out of memory. */
char *comm_advice_text(const char *device_kind, double pct);
char *comm_advice_gpu(double pct);
char *comm_advice_npu(double pct);

/* Appends MindInsight's proposals of a MindSpore device (its step-trace
 * and MindData proposers, ids as MindInsight's) to p->advice; an_ms_attach
 * calls it once the device's files are read. mp NULL adds nothing.
 * NNS_OK or NNS_ENOMEM. */
struct ms_profile;
int an_advice_add_ms(struct an_profile *p, const struct ms_profile *mp, struct nns_err *err);

#endif
