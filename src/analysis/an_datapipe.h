/*
 * an_datapipe.h - the data pipeline of a worker (AN_PASS_DATAPIPE,
 * datapipe.c): queue series, per-step data waits and MindInsight-style
 * findings.
 */
#ifndef NNS_ANALYSIS_AN_DATAPIPE_H
#define NNS_ANALYSIS_AN_DATAPIPE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* MindInsight's DEVICE_QUEUE_EMPTY_WARNING_THRESHOLD. */
#define AN_DP_EMPTY_WARNING_THRESHOLD 0.3

/* A point of a queue's down-sampled series: a bucket of samples. */
struct an_queue_point {
	int64_t ts; /* first sample of the bucket, ns */
	double avg; /* mean size over the bucket */
	int64_t min, max;
};

struct an_queue {
	uint32_t name; /* string id */
	int64_t samples;
	double avg_size;
	int64_t max_size;
	int64_t capacity;		   /* largest capacity reported, 0 if never */
	double utilization;		   /* avg_size / capacity, -1 when capacity unknown */
	int64_t empty_count, full_count;   /* size == 0; size >= capacity > 0 */
	double empty_ratio, full_ratio;	   /* over samples */
	int consumer;			   /* the queue the training loop takes from */
	VEC(struct an_queue_point) series; /* at most AN_DP_SERIES_MAX points */
};
#define AN_DP_SERIES_MAX 1000

/* How much of a step waited for data. */
struct an_dp_step {
	char name[32];
	int64_t start, end;		/* the step's host range */
	int64_t dataloader;		/* DataLoader ranges inside it (merged) */
	int64_t queue_empty;		/* time the consumer queue stayed empty inside it
					 * (each sample's size held until the next one) */
	int64_t samples, empty_samples; /* consumer queue samples inside it */
	int64_t wait;			/* dataloader when the trace has DataLoader ranges, else
					 * queue_empty */
};

/* A per-queue (or pipeline) finding, MindSpore BottleneckAnalyzer style. */
struct an_dp_finding {
	uint32_t queue; /* string id, 0 for the whole pipeline */
	char kind[24];	/* "empty", "low_utilization", "in_out_gap", "full" */
	char *text;	/* owned */
};

struct an_datapipe {
	VEC(struct an_queue) queues;  /* by name */
	int consumer;		      /* index into queues, -1 if none */
	VEC(struct an_dp_step) steps; /* one per overview step */
	int has_dataloader;	      /* the trace has DataLoader ranges */
	/* MindInsight analyse_queue_summary on the consumer queue */
	char verdict[24]; /* "data_process" (warning), "normal", "no_data" */
	int warning;	  /* verdict is a warning */
	int64_t empty_count, full_count, total_count;
	double empty_ratio;
	double wait_ratio; /* sum of step waits / sum of step times, 0..1 */
	VEC(struct an_dp_finding) findings;
	char *recommendation; /* owned; the overview advice text, NULL if none */
};

/* AN_PASS_DATAPIPE: fills p->datapipe. */
int an_datapipe_compute(struct an_profile *p, struct nns_err *err);
void an_datapipe_release(struct an_datapipe *d);

#endif
