"""Probabilistic JAX: a GP marginal likelihood (cholesky, solve_triangular) optimised by grad,
HMC chains under vmap with leapfrog in fori_loop, categorical sampling, logsumexp, stats."""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy import stats
from jax.scipy.linalg import cho_solve, solve_triangular
from jax.scipy.special import logsumexp

jax.config.update("jax_num_cpu_devices", 8)


def kernel(x1, x2, log_ls, log_amp):
    d2 = jnp.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=-1)
    return jnp.exp(2 * log_amp) * jnp.exp(-0.5 * d2 / jnp.exp(2 * log_ls))


def neg_mll(theta, x, y):
    k = kernel(x, x, theta["log_ls"], theta["log_amp"]) + (jnp.exp(2 * theta["log_noise"]) + 1e-5) * jnp.eye(x.shape[0])
    chol = jnp.linalg.cholesky(k)
    alpha = cho_solve((chol, True), y)
    logdet = 2 * jnp.sum(jnp.log(jnp.diag(chol)))
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * x.shape[0] * jnp.log(2 * jnp.pi)


@jax.jit
def gp_step(theta, x, y):
    l, g = jax.value_and_grad(neg_mll)(theta, x, y)
    return jax.tree.map(lambda t, g: t - 0.01 * g, theta, g), l


def predict(theta, x, y, xs):
    k = kernel(x, x, theta["log_ls"], theta["log_amp"]) + (jnp.exp(2 * theta["log_noise"]) + 1e-5) * jnp.eye(x.shape[0])
    chol = jnp.linalg.cholesky(k)
    ks = kernel(xs, x, theta["log_ls"], theta["log_amp"])
    v = solve_triangular(chol, ks.T, lower=True)
    return ks @ cho_solve((chol, True), y), jnp.exp(2 * theta["log_amp"]) - jnp.sum(v * v, axis=0)


def log_prob(z):   # a banana-shaped density
    return stats.norm.logpdf(z[0], 0.0, 2.0) + stats.norm.logpdf(z[1], 0.25 * z[0] ** 2, 1.0)


def hmc_step(state, key, step_size=0.2, n_leap=8):
    z, lp = state
    k1, k2 = jax.random.split(key)
    p0 = jax.random.normal(k1, z.shape)
    grad_lp = jax.grad(log_prob)

    def leap(i, zp):
        z, p = zp
        p = p + 0.5 * step_size * grad_lp(z)
        z = z + step_size * p
        p = p + 0.5 * step_size * grad_lp(z)
        return z, p
    z1, p1 = lax.fori_loop(0, n_leap, leap, (z, p0))
    lp1 = log_prob(z1)
    log_accept = lp1 - lp - 0.5 * jnp.sum(p1 ** 2) + 0.5 * jnp.sum(p0 ** 2)
    accept = jnp.log(jax.random.uniform(k2)) < log_accept
    new = (jnp.where(accept, z1, z), jnp.where(accept, lp1, lp))
    return new, (new[0], accept)


@functools.partial(jax.jit, static_argnums=2)
def run_chains(keys, z0, n):
    def chain(key, z):
        _, (zs, acc) = lax.scan(hmc_step, (z, log_prob(z)), jax.random.split(key, n))
        return zs, jnp.mean(acc)
    return jax.vmap(chain)(keys, z0)


key = jax.random.key(11)
kx, kn, kc, ks = jax.random.split(key, 4)
x = jnp.sort(jax.random.uniform(kx, (24, 1), minval=-3, maxval=3), axis=0)
y = jnp.sin(2 * x[:, 0]) + 0.1 * jax.random.normal(kn, (24,))
theta = {"log_ls": jnp.array(0.0), "log_amp": jnp.array(0.0), "log_noise": jnp.array(-1.0)}
for i in range(5):
    theta, l = gp_step(theta, x, y)
    print(f"gp step {i} nmll {float(l):.5f}")
mu, var = predict(theta, x, y, jnp.linspace(-3, 3, 5)[:, None])
print("predict", np.round(np.asarray(mu), 4), np.round(np.asarray(var), 4))
zs, acc = run_chains(jax.random.split(kc, 4), jnp.zeros((4, 2)), 50)
print("hmc", zs.shape, np.round(np.asarray(acc), 4), np.round(np.asarray(jnp.mean(zs[:, 10:], axis=(0, 1))), 4))
logits = jnp.log(jnp.array([0.1, 0.2, 0.3, 0.4]))
draws = jax.random.categorical(ks, logits, shape=(2000,))
print("categorical", np.bincount(np.asarray(draws), minlength=4), float(logsumexp(logits)))
print("hessian", np.round(np.asarray(jax.hessian(log_prob)(jnp.array([1.0, 0.5]))), 4))
