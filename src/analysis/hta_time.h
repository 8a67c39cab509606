/*
 * hta_time.h - four of Holistic Trace Analysis's (HTA) time analyses on one
 * worker's model: temporal breakdown per device (hta_temporal.c), idle time
 * per stream (hta_idle.c), CUDA launch queue length per stream
 * (hta_queue.c) and memcpy/memset bandwidth per copy kind (hta_membw.c).
 * Shared helpers (statistics, series down-sampling, device-event grouping)
 * are in hta_time_util.c. docs/HTA.md gives each definition and where it
 * differs from HTA.
 *
 * Each analysis reads a finalized model only (pure, no I/O) and fills a
 * result struct that owns its arrays: call the matching *_release() on it,
 * also after a failed compute (release of a zeroed struct is a no-op).
 * Times are int64 ns; bandwidths GB/s (1e9 bytes/s).
 */
#ifndef NNS_ANALYSIS_HTA_TIME_H
#define NNS_ANALYSIS_HTA_TIME_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

#include <stdint.h>

/* HTA's defaults: get_idle_time_breakdown(consecutive_kernel_delay=30) and
 * hta.common.constants.CUDA_MAX_LAUNCH_QUEUE_PER_STREAM. HTA's docstring
 * calls the 30 "nanoseconds", but it compares it with gaps in the trace's
 * unit, and HTA's parser keeps Kineto's microseconds (float ts rounded to
 * whole us): the threshold in effect is 30 us. */
#define HTA_CONSECUTIVE_KERNEL_DELAY_NS 30000
#define HTA_MAX_LAUNCH_QUEUE 1024
/* Distinct memcpy kinds kept; further ones are summed as "Memcpy Other". */
#define HTA_MEMBW_MAX_KINDS 32
/* Series are down-sampled to at most this many points (peaks kept). */
#define HTA_SERIES_MAX_POINTS 1000

struct hta_point {
	int64_t ts; /* ns, model clock */
	double value;
};
typedef VEC(struct hta_point) hta_series;

/* ---- temporal breakdown (hta_temporal.c) ---------------------------------- */

struct hta_temporal_dev {
	int device;	     /* args.device of the device events */
	int64_t total;	     /* last device event end - first start */
	int64_t compute;     /* union of compute kernels */
	int64_t non_compute; /* busy - compute: communication and memory kernels
			      * not overlapped by compute */
	int64_t idle;	     /* total - union of all device events */
};

struct hta_temporal {
	VEC(struct hta_temporal_dev) devs; /* sorted by device */
};

int hta_temporal_compute(const struct model *m, struct hta_temporal *out, struct nns_err *err);
void hta_temporal_release(struct hta_temporal *t);

/* ---- idle time per stream (hta_idle.c) ------------------------------------ */

enum { HTA_IDLE_HOST = 0, HTA_IDLE_KERNEL, HTA_IDLE_OTHER, HTA_IDLE_N };
extern const char *const hta_idle_names[HTA_IDLE_N]; /* "host_wait", "kernel_wait", "other" */

/* pandas' describe() of a set of values: count, mean, sample std (ddof 1,
 * 0 for one value), min, 25/50/75th percentiles, max; all 0 when empty. */
struct hta_describe {
	int64_t count;
	double mean, std, min, p25, p50, p75, max;
};

/* Statistics of a set of values (ns or plain numbers). */
struct hta_stats {
	int64_t count;
	double mean, min, p50, p95, max; /* 0 when count == 0 */
};

struct hta_idle_stream {
	int device;
	int64_t stream;
	int64_t events;			 /* device events on the stream */
	int64_t idle[HTA_IDLE_N];	 /* ns */
	struct hta_stats st[HTA_IDLE_N]; /* of the idle intervals, ns */
};

struct hta_idle {
	VEC(struct hta_idle_stream) streams; /* sorted by (device, stream) */
	int64_t consecutive_kernel_delay;    /* ns, the threshold used */
};

/* delay_ns < 0 selects HTA_CONSECUTIVE_KERNEL_DELAY_NS. */
int hta_idle_compute(const struct model *m, int64_t delay_ns, struct hta_idle *out,
		     struct nns_err *err);
void hta_idle_release(struct hta_idle *t);

/* ---- queue length per stream (hta_queue.c) -------------------------------- */

struct hta_queue_stream {
	int device;
	int64_t stream;
	int64_t launches; /* device events with a launch on the host */
	int64_t count;	  /* series rows (2 per launch), HTA's describe() count */
	double mean, std, min, p25, p50, p75, max; /* over the rows, unweighted */
	int64_t time_at_max;			   /* ns with length >= max_queue_length */
	hta_series series;			   /* down-sampled step function */
};

struct hta_queue {
	VEC(struct hta_queue_stream) streams; /* sorted by (device, stream) */
	int64_t max_queue_length;
	int64_t trace_dur; /* model max_end - min_ts, ns (HTA's relative duration base) */
};

/* max_queue_length <= 0 selects HTA_MAX_LAUNCH_QUEUE. */
int hta_queue_compute(const struct model *m, int64_t max_queue_length, struct hta_queue *out,
		      struct nns_err *err);
void hta_queue_release(struct hta_queue *t);

/* ---- memory bandwidth (hta_membw.c) --------------------------------------- */

struct hta_membw_kind {
	char name[16];	    /* "Memcpy HtoD", "Memset", "Memcpy Unknown" ... */
	int64_t count;	    /* operations */
	int64_t with_bytes; /* operations that report bytes */
	int64_t with_bw;    /* operations whose bandwidth is known */
	int64_t kineto_bw;  /* of those, taken from Kineto's "memory bandwidth (GB/s)" */
	int64_t bytes;	    /* sum over with_bytes */
	int64_t time;	    /* sum of durations, ns */
	double bw_mean, bw_min, bw_max; /* per-operation GB/s over with_bw */
	double bw_avg;			/* bytes / time of with_bytes, GB/s */
	double peak;			/* max of the series: concurrent GB/s */
	struct hta_describe summary;	/* HTA's get_memory_bw_summary: describe()
					 * of the series points > 0, GB/s */
	hta_series series;		/* summed GB/s over time, down-sampled */
};

struct hta_membw {
	VEC(struct hta_membw_kind) kinds; /* sorted by name */
};

int hta_membw_compute(const struct model *m, struct hta_membw *out, struct nns_err *err);
void hta_membw_release(struct hta_membw *t);

/* ---- helpers shared by the four (hta_time_util.c) -------------------------- */

/* Indices of device events (kernel, memcpy, memset) that name a stream
 * (dev_args.stream >= 0, HTA's `stream != -1`), ordered by (device, stream,
 * event index), i.e. by start time within a stream. *idx is malloc'ed, the
 * caller frees it. 0 or NNS_ENOMEM. */
int hta_stream_order(const struct model *m, uint32_t **idx, size_t *n);
/* The stream of device event e, -1 if none. */
int64_t hta_event_stream(const struct model *m, const struct model_event *e);
/* The device of a device event (the model's index: args.device, else the
 * pid Kineto files it under, so MTIA's events are not device -1). */
static inline int hta_event_device(const struct model *m, const struct model_event *e)
{
	return model_event_device(m, (uint32_t)(e - m->events.v));
}

/* p-th quantile (0..1) of v[0..n), linear interpolation between closest
 * ranks (numpy's and pandas' default), found by selection in O(n)
 * expected: v is reordered, not sorted. 0 when n is 0. */
double hta_quantile(double *v, size_t n, double p);
/* Reorders v[0..n) and fills s (count, mean, min, p50, p95, max). */
void hta_stats_of(double *v, size_t n, struct hta_stats *s);

/* Reorders v[0..n) and fills d (pandas' describe()). */
void hta_describe_of(double *v, size_t n, struct hta_describe *d);

/* Streaming down-sampler of a time-ordered step series into at most
 * max_points points: [t0, t1] is cut into max_points/4 buckets and each
 * keeps its first, lowest, highest and last point (in arrival order), so
 * peaks survive and the level where each bucket starts and ends is right. Points must be
 * added in time order.
 * With n <= max_points every point is kept. */
struct hta_ds {
	hta_series *out;
	int64_t t0;
	uint64_t width;
	size_t nbuckets, bucket;
	int keep_all, have;
	struct hta_point first, lo, hi, last;
	size_t first_seq, lo_seq, hi_seq, last_seq, seq; /* arrival numbers */
	int rc;
};
void hta_ds_init(struct hta_ds *d, hta_series *out, int64_t t0, int64_t t1, size_t npoints,
		 size_t max_points);
void hta_ds_add(struct hta_ds *d, int64_t ts, double value);
int hta_ds_finish(struct hta_ds *d); /* 0 or NNS_ENOMEM */

#endif
