/* intervals.c - union, intersection, subtraction of [start,end) ranges (intervals.h). */
#include "intervals.h"
#include "nnscope.h"

#include <stdlib.h>

void iv_set_release(struct iv_set *s)
{
	vec_free(&s->r);
}

int iv_add(struct iv_set *s, int64_t start, int64_t end)
{
	struct iv x = {start, end};

	if (end <= start)
		return 0;
	return vec_push(&s->r, x) ? NNS_ENOMEM : 0;
}

int iv_add_union(struct iv_set *s, int64_t start, int64_t end)
{
	struct iv *l = s->r.n ? &s->r.v[s->r.n - 1] : NULL;

	if (end <= start)
		return 0;
	if (l && l->start <= start && start <= l->end) {
		if (end > l->end)
			l->end = end;
		return 0;
	}
	return iv_add(s, start, end);
}

static int iv_cmp(const void *x, const void *y)
{
	const struct iv *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

int iv_merge(struct iv_set *s)
{
	size_t i, o = 0;
	int sorted = 1;

	for (i = 1; i < s->r.n && sorted; i++)
		sorted = s->r.v[i - 1].start <= s->r.v[i].start;
	if (!sorted)
		qsort(s->r.v, s->r.n, sizeof(*s->r.v), iv_cmp);
	for (i = 0; i < s->r.n; i++) {
		struct iv x = s->r.v[i];
		if (x.end <= x.start)
			continue;
		if (o && x.start <= s->r.v[o - 1].end) {
			if (x.end > s->r.v[o - 1].end)
				s->r.v[o - 1].end = x.end;
		} else {
			s->r.v[o++] = x;
		}
	}
	s->r.n = o;
	return 0;
}

int iv_intersect(const struct iv_set *a, const struct iv_set *b, struct iv_set *out)
{
	size_t i = 0, j = 0;

	out->r.n = 0;
	while (i < a->r.n && j < b->r.n) {
		int64_t s = a->r.v[i].start > b->r.v[j].start ? a->r.v[i].start : b->r.v[j].start;
		int64_t e = a->r.v[i].end < b->r.v[j].end ? a->r.v[i].end : b->r.v[j].end;
		if (s < e && iv_add(out, s, e))
			return NNS_ENOMEM;
		if (a->r.v[i].end < b->r.v[j].end)
			i++;
		else
			j++;
	}
	return 0;
}

int iv_subtract(const struct iv_set *a, const struct iv_set *b, struct iv_set *out)
{
	size_t i, j = 0;

	out->r.n = 0;
	for (i = 0; i < a->r.n; i++) {
		int64_t s = a->r.v[i].start, e = a->r.v[i].end;
		while (j < b->r.n && b->r.v[j].end <= s)
			j++;
		size_t k = j;
		while (k < b->r.n && b->r.v[k].start < e) {
			if (b->r.v[k].start > s && iv_add(out, s, b->r.v[k].start))
				return NNS_ENOMEM;
			if (b->r.v[k].end > s)
				s = b->r.v[k].end;
			if (s >= e)
				break;
			k++;
		}
		if (s < e && iv_add(out, s, e))
			return NNS_ENOMEM;
	}
	return 0;
}

int iv_clip(const struct iv_set *a, int64_t start, int64_t end, struct iv_set *out)
{
	size_t i;

	out->r.n = 0;
	for (i = 0; i < a->r.n; i++) {
		int64_t s = a->r.v[i].start > start ? a->r.v[i].start : start;
		int64_t e = a->r.v[i].end < end ? a->r.v[i].end : end;
		if (s < e && iv_add(out, s, e))
			return NNS_ENOMEM;
	}
	return 0;
}

int64_t iv_total(const struct iv_set *s)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < s->r.n; i++)
		t += s->r.v[i].end - s->r.v[i].start;
	return t;
}

int64_t iv_total_in(const struct iv_set *s, int64_t start, int64_t end)
{
	size_t lo = 0, hi = s->r.n;
	int64_t t = 0;

	/* first interval whose end > start */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->r.v[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->r.n && s->r.v[lo].start < end; lo++) {
		int64_t a = s->r.v[lo].start > start ? s->r.v[lo].start : start;
		int64_t b = s->r.v[lo].end < end ? s->r.v[lo].end : end;
		if (a < b)
			t += b - a;
	}
	return t;
}
