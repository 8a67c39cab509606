/*
 * mlp.c - the MLP example's model (mlp.h): forward, backward and SGD with
 * cblas_sgemm (OpenBLAS).
 *
 *   z1 = x W1 + b1        a1 = relu(z1)        logits = a1 W2 + b2
 *   loss = mean(-log softmax(logits)[y])
 *   dlogits = (softmax - onehot(y)) / n
 *   dW2 = a1^T dlogits    db2 = colsum(dlogits)
 *   da1 = dlogits W2^T    dz1 = da1 * (z1 > 0)
 *   dW1 = x^T dz1         db1 = colsum(dz1)
 */
#include "mlp.h"
#include "loader.h"
#include "nnscope.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static float *alloc_floats(size_t n)
{
	return calloc(n, sizeof(float));
}

int mlp_init(struct mlp *m, int in, int hidden, int out, int batch, uint64_t seed)
{
	uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	size_t w1 = (size_t)in * (size_t)hidden, w2 = (size_t)hidden * (size_t)out;
	float s1 = sqrtf(2.0f / (float)in), s2 = sqrtf(2.0f / (float)hidden);

	memset(m, 0, sizeof(*m));
	m->in = in;
	m->hidden = hidden;
	m->out = out;
	m->batch = batch;
	m->w1 = alloc_floats(w1);
	m->gw1 = alloc_floats(w1);
	m->b1 = alloc_floats((size_t)hidden);
	m->gb1 = alloc_floats((size_t)hidden);
	m->w2 = alloc_floats(w2);
	m->gw2 = alloc_floats(w2);
	m->b2 = alloc_floats((size_t)out);
	m->gb2 = alloc_floats((size_t)out);
	m->z1 = alloc_floats((size_t)batch * (size_t)hidden);
	m->a1 = alloc_floats((size_t)batch * (size_t)hidden);
	m->da1 = alloc_floats((size_t)batch * (size_t)hidden);
	m->logits = alloc_floats((size_t)batch * (size_t)out);
	m->dlogits = alloc_floats((size_t)batch * (size_t)out);
	if (!m->w1 || !m->gw1 || !m->b1 || !m->gb1 || !m->w2 || !m->gw2 || !m->b2 || !m->gb2 ||
	    !m->z1 || !m->a1 || !m->da1 || !m->logits || !m->dlogits) {
		mlp_free(m);
		return -1;
	}
	for (size_t i = 0; i < w1; i++)
		m->w1[i] = s1 * rng_normal(&rng);
	for (size_t i = 0; i < w2; i++)
		m->w2[i] = s2 * rng_normal(&rng);
	m->n_fc1 = nns_name("mlp::linear1");
	m->n_relu = nns_name("mlp::relu");
	m->n_fc2 = nns_name("mlp::linear2");
	m->n_xent = nns_name("mlp::cross_entropy");
	m->n_fc2_bw = nns_name("mlp::linear2_backward");
	m->n_relu_bw = nns_name("mlp::relu_backward");
	m->n_fc1_bw = nns_name("mlp::linear1_backward");
	return 0;
}

void mlp_free(struct mlp *m)
{
	float *all[] = {m->w1,	m->b1, m->w2, m->b2,	 m->gw1,     m->gb1, m->gw2,
			m->gb2, m->z1, m->a1, m->logits, m->dlogits, m->da1};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	memset(m, 0, sizeof(*m));
}

/* out[n x cols] = x[n x k] w[k x cols] + bias */
static void linear(const float *x, const float *w, const float *bias, float *out, int n, int k,
		   int cols)
{
	for (int i = 0; i < n; i++)
		memcpy(out + (size_t)i * (size_t)cols, bias, (size_t)cols * sizeof(float));
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, cols, k, 1.0f, x, k, w, cols,
		    1.0f, out, cols);
}

static void colsum(const float *g, float *out, int n, int cols)
{
	memset(out, 0, (size_t)cols * sizeof(float));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < cols; j++)
			out[j] += g[(size_t)i * (size_t)cols + (size_t)j];
}

float mlp_forward(struct mlp *m, const float *x, const int *y, int n, int *correct)
{
	size_t nh = (size_t)n * (size_t)m->hidden;
	double loss = 0;
	int ok = 0;

	NNS_RANGE(m->n_fc1)
	{
		linear(x, m->w1, m->b1, m->z1, n, m->in, m->hidden);
	}
	NNS_RANGE(m->n_relu)
	{
		for (size_t i = 0; i < nh; i++)
			m->a1[i] = m->z1[i] > 0 ? m->z1[i] : 0;
	}
	NNS_RANGE(m->n_fc2)
	{
		linear(m->a1, m->w2, m->b2, m->logits, n, m->hidden, m->out);
	}
	/* softmax cross-entropy; dlogits = (p - onehot) / n for backward */
	NNS_RANGE(m->n_xent)
	{
		for (int i = 0; i < n; i++) {
			const float *l = m->logits + (size_t)i * (size_t)m->out;
			float *d = m->dlogits + (size_t)i * (size_t)m->out;
			float mx = l[0], sum = 0;
			int arg = 0;

			for (int j = 1; j < m->out; j++)
				if (l[j] > mx) {
					mx = l[j];
					arg = j;
				}
			for (int j = 0; j < m->out; j++) {
				d[j] = expf(l[j] - mx);
				sum += d[j];
			}
			for (int j = 0; j < m->out; j++)
				d[j] = d[j] / sum / (float)n;
			d[y[i]] -= 1.0f / (float)n;
			/* sum >= 1: the largest logit adds expf(0) */
			/* cppcheck-suppress invalidFunctionArg */
			loss += -(double)(l[y[i]] - mx - logf(sum));
			ok += arg == y[i];
		}
	}
	if (correct)
		*correct = ok;
	return (float)(loss / n);
}

void mlp_backward(struct mlp *m, const float *x, const int *y, int n)
{
	size_t nh = (size_t)n * (size_t)m->hidden;

	(void)y; /* folded into dlogits by the forward pass */
	NNS_RANGE(m->n_fc2_bw)
	{
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m->hidden, m->out, n, 1.0f,
			    m->a1, m->hidden, m->dlogits, m->out, 0.0f, m->gw2, m->out);
		colsum(m->dlogits, m->gb2, n, m->out);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m->hidden, m->out, 1.0f,
			    m->dlogits, m->out, m->w2, m->out, 0.0f, m->da1, m->hidden);
	}
	NNS_RANGE(m->n_relu_bw)
	{
		for (size_t i = 0; i < nh; i++)
			if (m->z1[i] <= 0)
				m->da1[i] = 0;
	}
	NNS_RANGE(m->n_fc1_bw)
	{
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m->in, m->hidden, n, 1.0f, x,
			    m->in, m->da1, m->hidden, 0.0f, m->gw1, m->hidden);
		colsum(m->da1, m->gb1, n, m->hidden);
	}
}

static void axpy_update(float *p, const float *g, size_t n, float lr)
{
	cblas_saxpy((int)n, -lr, g, 1, p, 1);
}

void mlp_sgd(struct mlp *m, float lr)
{
	axpy_update(m->w1, m->gw1, (size_t)m->in * (size_t)m->hidden, lr);
	axpy_update(m->b1, m->gb1, (size_t)m->hidden, lr);
	axpy_update(m->w2, m->gw2, (size_t)m->hidden * (size_t)m->out, lr);
	axpy_update(m->b2, m->gb2, (size_t)m->out, lr);
}
