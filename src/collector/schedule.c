/*
 * schedule.c - which steps a started profiler collects.
 *
 * torch.profiler.schedule (skip_first, wait, warmup, active, repeat): after
 * skip_first steps, cycles of `wait` steps off, `warmup` steps collected but
 * marked (NNST_EVF_WARMUP: a reader drops them), then `active` steps kept;
 * `repeat` cycles, 0 = forever. Steps are numbered from 0, as torch's
 * step_num and ProfilerStep#N.
 *
 * MindSpore's StopAtStep (start_step, stop_step) counts steps from 1, like
 * cb_params.cur_step_num: step N (0-based) is collected when start_step <=
 * N + 1 <= stop_step (-1 = no bound). With both, a step must pass both.
 */
#include "collector/collector.h"

int nns_sched_has_schedule(const struct nns_options *o)
{
	return o->sched_skip_first || o->sched_wait || o->sched_warmup || o->sched_active ||
	       o->sched_repeat;
}

int nns_sched_phase(const struct nns_options *o, long step, long *window)
{
	long n1 = step + 1;

	*window = 0;
	if (step < 0)
		return NNS_PHASE_OFF;
	if (o->start_step > 0 && n1 < o->start_step)
		return NNS_PHASE_OFF;
	if (o->stop_step > 0 && n1 > o->stop_step)
		return NNS_PHASE_OFF;
	if (nns_sched_has_schedule(o) && o->sched_active > 0) {
		long cycle_len = (long)o->sched_wait + o->sched_warmup + o->sched_active;
		long s = step - o->sched_skip_first, mod;

		if (s < 0)
			return NNS_PHASE_OFF;
		*window = s / cycle_len;
		if (o->sched_repeat > 0 && *window >= o->sched_repeat)
			return NNS_PHASE_OFF;
		mod = s % cycle_len;
		if (mod < o->sched_wait)
			return NNS_PHASE_OFF;
		if (mod < (long)o->sched_wait + o->sched_warmup)
			return NNS_PHASE_WARMUP;
		return NNS_PHASE_ACTIVE;
	}
	return NNS_PHASE_ACTIVE;
}
