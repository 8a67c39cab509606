/*
 * an_cpu.h - CPU utilization of a worker (AN_PASS_CPU, cpuutil.c): machine
 * and process averages and series, per step, per thread and per pipeline
 * stage.
 */
#ifndef NNS_ANALYSIS_AN_CPU_H
#define NNS_ANALYSIS_AN_CPU_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* Mean of utilization samples, percent. */
struct an_cpu_avg {
	int64_t samples;
	double user, sys, idle, iowait;
};

struct an_cpu_point {
	int64_t ts; /* ns */
	float user, sys, idle, iowait;
};
#define AN_CPU_SERIES_MAX 2000

struct an_cpu_step {
	char name[32];
	struct an_cpu_avg machine, process;
};

struct an_cpu_thread {
	uint32_t thread; /* index into model.threads */
	int64_t tid;
	uint32_t name; /* thread name, string id, 0 if none */
	struct an_cpu_avg avg;
};

/* Threads grouped by name: a pipeline stage (e.g. the DataLoader workers). */
struct an_cpu_stage {
	uint32_t name; /* string id ("" for unnamed threads) */
	int threads;
	double user, sys;  /* sum of its threads' averages */
	double per_thread; /* (user + sys) / threads */
	char *advice;	   /* owned, NULL if none */
};

struct an_cpu {
	struct an_cpu_avg machine, process; /* over all samples */
	double running_avg;		    /* machine: runnable processes */
	uint64_t ctx_switches;		    /* machine: total */
	uint64_t rss_peak_kb;		    /* process */
	uint64_t machine_mem_peak_kb;	    /* machine: memory in use (MemTotal -
					     * MemAvailable) */
	VEC(struct an_cpu_point) machine_series;
	VEC(struct an_cpu_point) process_series;
	VEC(struct an_cpu_step) steps;	   /* one per overview step */
	struct an_cpu_step before;	   /* samples before the first step (MindInsight's
					    * step 0); samples == 0 when none */
	VEC(struct an_cpu_thread) threads; /* by busy time, descending */
	VEC(struct an_cpu_stage) stages;
	char *recommendation; /* owned; overview advice text, NULL if none */
};

/* AN_PASS_CPU: fills p->cpu. */
int an_cpu_compute(struct an_profile *p, struct nns_err *err);
void an_cpu_release(struct an_cpu *c);

#endif
