/*
 * an_hta.h - the results of HTA's per-worker passes (AN_PASS_TEMPORAL ..
 * AN_PASS_CRITPATH), hung off the profile as p->hta and released by
 * an_profile_release. Each member is valid once its pass is done:
 * an_profile_hta() runs the pass when needed and returns them.
 */
#ifndef NNS_ANALYSIS_AN_HTA_H
#define NNS_ANALYSIS_AN_HTA_H

#include "analysis/analysis.h"
#include "analysis/hta_critpath.h"
#include "analysis/hta_launch.h"
#include "analysis/hta_time.h"

struct an_hta {
	struct hta_temporal temporal;	    /* AN_PASS_TEMPORAL */
	struct hta_idle idle;		    /* AN_PASS_IDLE: HTA's default delay */
	struct hta_queue queue;		    /* AN_PASS_QUEUE: HTA's default queue */
	struct hta_membw membw;		    /* AN_PASS_MEMBW */
	struct hta_launches launches;	    /* AN_PASS_LAUNCHES: HTA's cutoffs */
	struct hta_annotations annotations; /* AN_PASS_ANNOTATIONS */
	struct hta_sequences sequences;	    /* AN_PASS_SEQUENCES: the default pick */
	struct hcp_result critpath;	    /* AN_PASS_CRITPATH: the first step */
	struct hcp_result critpath_step;    /* AN_PASS_CRITPATH_STEP: opts.critpath_step */
};

/* p->hta after an_profile_need(p, pass): NULL (err set) when the pass
 * failed. The result belongs to the profile. */
const struct an_hta *an_profile_hta(const struct an_profile *p, enum an_pass pass,
				    struct nns_err *err);

#endif
