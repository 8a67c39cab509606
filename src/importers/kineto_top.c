/*
 * kineto_top.c - top-level keys of a Kineto trace other than traceEvents:
 * deviceProperties, schemaVersion, baseTimeNanoseconds, Framework and
 * distributedInfo. Everything else (displayTimeUnit, traceName,
 * cuda_*_version, ...) is skipped without being built.
 *
 * A top-level key and its value form one parse unit that may be restarted
 * after a window refill, so what is stored here must be idempotent:
 * devices are added once per id, metadata fields are simply overwritten.
 */
#include "kineto_internal.h"

#include <string.h>

/* Container depth of the top-level object's values. */
#define TOP_DEPTH 1

static int get_i64(struct kparser *ps, const char **pp, int depth, int64_t *out)
{
	struct kval v;
	int r = kj_scalar(ps, pp, &v, depth);

	if (r)
		return r;
	kj_val_i64(&v, out);
	return KP_OK;
}

static int32_t clamp32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int device_member(struct kparser *ps, const char **pp, struct model_device *d, struct kstr k,
			 int *has_id)
{
	const int depth = TOP_DEPTH + 2;
	int64_t x = 0;
	struct kval v;
	int r;

	if (KJ_EQ(k, "name")) {
		if ((r = kj_scalar(ps, pp, &v, depth)))
			return r;
		if (v.type == KV_STR) {
			d->name = model_intern(ps->m, v.s.p, v.s.n);
			if (d->name == STRPOOL_NONE)
				return kp_nomem(ps, *pp);
		}
		return KP_OK;
	}
	if (**pp == '{' || **pp == '[' || **pp == '"')
		return kj_skip(ps, pp, depth);
	if ((r = get_i64(ps, pp, depth, &x)))
		return r;
	if (KJ_EQ(k, "id")) {
		d->id = clamp32(x);
		*has_id = 1;
	} else if (KJ_EQ(k, "totalGlobalMem")) {
		d->total_mem = x;
	} else if (KJ_EQ(k, "computeMajor")) {
		d->major = clamp32(x);
	} else if (KJ_EQ(k, "computeMinor")) {
		d->minor = clamp32(x);
	} else if (KJ_EQ(k, "numSms")) {
		d->num_sms = clamp32(x);
	} else if (KJ_EQ(k, "maxThreadsPerMultiprocessor")) {
		d->max_threads_per_sm = clamp32(x);
	} else if (KJ_EQ(k, "maxThreadsPerBlock")) {
		d->max_threads_per_block = clamp32(x);
	} else if (KJ_EQ(k, "regsPerMultiprocessor")) {
		d->regs_per_sm = clamp32(x);
	} else if (KJ_EQ(k, "sharedMemPerMultiprocessor")) {
		d->shared_mem_per_sm = x;
	} else if (KJ_EQ(k, "warpSize")) {
		d->warp_size = clamp32(x);
	}
	return KP_OK;
}

static int device_props(struct kparser *ps, const char **pp)
{
	const char *p = *pp;
	int r, more = 1;
	int64_t index = 0;

	if (*p != '[')
		return kj_skip(ps, pp, TOP_DEPTH);
	p = kj_ws(p + 1);
	if (*p == ']') {
		*pp = p + 1;
		return KP_OK;
	}
	while (more) {
		struct model_device d;
		struct kstr key;
		int has_id = 0, dmore = 1;

		memset(&d, 0, sizeof(d));
		if (*p != '{') {
			if ((r = kj_skip(ps, &p, TOP_DEPTH + 1)))
				return r;
		} else {
			p = kj_ws(p + 1);
			if (*p == '}') {
				p++;
				dmore = 0;
			}
			while (dmore) {
				if (*p != '"')
					return kp_unexpected(ps, p,
							     "expected a key string in a device");
				if ((r = kj_string(ps, &p, &key)) || (r = kj_colon(ps, &p)) ||
				    (r = device_member(ps, &p, &d, key, &has_id)) ||
				    (r = kj_next(ps, &p, '}', "in a deviceProperties entry",
						 &dmore)))
					return r;
			}
			if (!has_id)
				d.id = clamp32(index);
			if (ps->m->devices.n < KP_DEVICES_MAX && !model_device_by_id(ps->m, d.id) &&
			    model_add_device(ps->m, &d))
				return kp_nomem(ps, p);
		}
		index++;
		if ((r = kj_next(ps, &p, ']', "in deviceProperties", &more)))
			return r;
	}
	*pp = p;
	return KP_OK;
}

static int dist_info(struct kparser *ps, const char **pp)
{
	const int depth = TOP_DEPTH + 1;
	const char *p = *pp;
	struct kstr key;
	struct kval v;
	int r, more = 1;

	if (*p != '{')
		return kj_skip(ps, pp, TOP_DEPTH);
	p = kj_ws(p + 1);
	if (*p == '}') {
		*pp = p + 1;
		return KP_OK;
	}
	while (more) {
		if (*p != '"')
			return kp_unexpected(ps, p, "expected a key string in distributedInfo");
		if ((r = kj_string(ps, &p, &key)) || (r = kj_colon(ps, &p)))
			return r;
		if (KJ_EQ(key, "backend") || KJ_EQ(key, "rank") || KJ_EQ(key, "world_size")) {
			if ((r = kj_scalar(ps, &p, &v, depth)))
				return r;
			if (KJ_EQ(key, "backend") && v.type == KV_STR) {
				uint32_t id = model_intern(ps->m, v.s.p, v.s.n);
				if (id == STRPOOL_NONE)
					return kp_nomem(ps, p);
				ps->m->dist_backend = id;
			} else if (KJ_EQ(key, "rank")) {
				kj_val_i64(&v, &ps->m->dist_rank);
			} else if (KJ_EQ(key, "world_size")) {
				kj_val_i64(&v, &ps->m->dist_world_size);
			}
		} else if ((r = kj_skip(ps, &p, depth))) {
			return r;
		}
		if ((r = kj_next(ps, &p, '}', "in distributedInfo", &more)))
			return r;
	}
	*pp = p;
	return KP_OK;
}

int ktop_value(struct kparser *ps, const char **pp, struct kstr key)
{
	struct kval v;
	int r;

	if (KJ_EQ(key, "deviceProperties"))
		return device_props(ps, pp);
	if (KJ_EQ(key, "distributedInfo"))
		return dist_info(ps, pp);
	if (KJ_EQ(key, "schemaVersion"))
		return get_i64(ps, pp, TOP_DEPTH, &ps->m->schema_version);
	if (KJ_EQ(key, "baseTimeNanoseconds"))
		return get_i64(ps, pp, TOP_DEPTH, &ps->m->base_time_ns);
	if (KJ_EQ(key, "Framework")) {
		if ((r = kj_scalar(ps, pp, &v, TOP_DEPTH)))
			return r;
		if (v.type == KV_STR && KJ_EQ(v.s, "pytorch-lightning"))
			ps->m->is_lightning = 1;
		return KP_OK;
	}
	return kj_skip(ps, pp, TOP_DEPTH);
}
