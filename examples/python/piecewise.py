#!/usr/bin/env python3
"""Wang et al.'s piecewise mechanism (PM) as an ldpbench external mechanism.

It speaks protocol version 1 of docs/external.md over stdin and stdout: a
hello line of JSON, then binary requests and replies (little-endian float64).
Its law is that of ldpbench's built-in `pm` (mechanisms/piecewise.go), with
t = e^(eps/2) and e = e^eps:

    density c = e*t*(e-1) / (2*(t+e)^2)  on [L(x), R(x)],
            d = c / e                    elsewhere on [-A, A],

    r = (e+t) / (t*(e-1)),  A = r*(t+1),  L(x) = r*(x*t-1),  R(x) = r*(x*t+1),

the inner window having probability e/(t+e). Reports are unbiased, with
Var[Y|x] = (t+1)x^2/(e-1) + (t+e)((t+1)^3 + e - 1)/(3 t^2 (e-1)^2).

Each perturb request is drawn from numpy's PCG64 seeded with the request's
seed, so the same seed gives the same reports (ldpbench's rows are then the
same at any -j and shard count).

    python3 examples/python/piecewise.py               # serve the protocol
    python3 examples/python/piecewise.py --time N EPS  # time N draws in-process

Diagnostics go to stderr: stdout carries the protocol alone.
"""

import json
import struct
import sys
import time

import numpy as np

PROTOCOL = 1
OP_DESCRIBE, OP_PERTURB, OP_VARIANCE, OP_PROBABILITIES, OP_DENSITY, OP_CDF, OP_BUCKET = range(1, 8)
REQUEST = struct.Struct("<IIdQ")  # op, count, eps, seed
REPLY = struct.Struct("<4sIII")   # b"LDPR", op, status, count


class PM:
    """The piecewise mechanism at one eps; every method is vectorised."""

    def __init__(self, eps):
        if not (np.isfinite(eps) and eps > 0):
            raise ValueError(f"eps = {eps}: want finite and > 0")
        self.eps = eps
        self.t = t = np.exp(eps / 2)
        te = t * np.exp(-eps)              # t/e, no overflow of e^eps
        self.r = r = (1 + te) / (t * -np.expm1(-eps))
        self.rt = r * t
        self.a = r * (t + 1)
        self.p_in = 1 / (1 + te)
        self.c = self.p_in / (2 * r)
        self.d = np.exp(-eps) / (2 * r * (1 + te))
        self.inv_expm1 = 1 / np.expm1(eps)

    def perturb(self, x, seed):
        rng = np.random.Generator(np.random.PCG64(seed))
        u = rng.random(x.size)
        w = rng.random(x.size)
        w *= 2
        y = x * self.t
        y -= 1
        y *= self.r                               # L(x)
        inner = u < self.p_in
        # Inner window: L + r*w. Outer part (length 2rt): left side
        # [-A, L) when w < 1+x, else the right side (R, A].
        left = w < 1 + x
        out = np.where(left, -self.a + self.rt * w, y + 2 * self.r + self.rt * (w - (1 + x)))
        y += self.r * w
        return np.where(inner, y, out)

    def variance(self, x):
        t1 = self.t + 1
        k = t1 * self.inv_expm1
        return k * x * x + self.r * (k * t1 * t1 + 1) / (3 * self.t)

    def worst_case_variance(self):
        return float(self.variance(np.array(1.0)))

    def _window(self, x):
        m = self.r * self.t * x
        return m - self.r, m + self.r

    def density(self, y, x):
        lo, hi = self._window(x)
        inside = (y >= lo) & (y <= hi)
        return np.where((y < -self.a) | (y > self.a), 0.0, np.where(inside, self.c, self.d))

    def _prob(self, ylo, yhi, x):
        """Pr[ylo < Y <= yhi | x]."""
        lo, hi = self._window(x)
        whole = np.clip(np.minimum(yhi, self.a) - np.maximum(ylo, -self.a), 0, None)
        win = np.clip(np.minimum(yhi, hi) - np.maximum(ylo, lo), 0, None)
        return self.d * whole + (self.c - self.d) * win

    def cdf(self, y, x):
        return np.clip(self._prob(np.full_like(y, -np.inf), y, x), 0, 1)

    def bucket(self, ylo, yhi, xlo, xhi):
        """Pr[ylo < Y <= yhi] for x uniform on [xlo, xhi], exactly: the
        probability is piecewise linear in x, with kinks where L(x) or R(x)
        crosses ylo or yhi, so the trapezoid rule over the kinks is exact."""
        out = np.empty(ylo.size)
        rt = self.r * self.t
        for i in range(ylo.size):
            a, b, lo, hi = ylo[i], yhi[i], xlo[i], xhi[i]
            if not a < b:
                out[i] = 0.0
                continue
            if lo == hi:
                out[i] = self._prob(a, b, lo)
                continue
            kinks = np.array([a - self.r, a + self.r, b - self.r, b + self.r]) / rt
            xs = np.unique(np.concatenate(([lo, hi], kinks[(kinks > lo) & (kinks < hi)])))
            p = self._prob(a, b, xs)
            out[i] = np.sum((p[1:] + p[:-1]) / 2 * np.diff(xs)) / (hi - lo)
        return np.clip(out, 0, 1)


def read_exact(f, n):
    b = f.read(n)
    if b is None or len(b) < n:
        return None
    return b


def reply(out, op, values):
    values = np.ascontiguousarray(values, dtype="<f8")
    out.write(REPLY.pack(b"LDPR", op, 0, values.size))
    out.write(values.data)
    out.flush()


def refuse(out, op, message):
    msg = message.encode()
    out.write(REPLY.pack(b"LDPR", op, 1, len(msg)))
    out.write(msg)
    out.flush()


def serve():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    hello = {
        "protocol": PROTOCOL,
        "name": "piecewise-numpy",
        "summary": "Wang et al.'s piecewise mechanism in numpy (examples/python/piecewise.py)",
        "domain": [-1, 1],
        "capabilities": ["variance", "continuous"],
    }
    out.write(json.dumps(hello).encode() + b"\n")
    out.flush()
    mechs = {}
    while True:
        head = read_exact(inp, REQUEST.size)
        if head is None:
            return  # stdin closed: ldpbench is done
        op, count, eps, seed = REQUEST.unpack(head)
        raw = read_exact(inp, 8 * count)
        if raw is None:
            print("piecewise.py: the request's payload was cut short", file=sys.stderr)
            sys.exit(1)
        args = np.frombuffer(raw, dtype="<f8")
        try:
            m = mechs.get(eps)
            if m is None:
                m = mechs[eps] = PM(eps)
            if op == OP_DESCRIBE:
                reply(out, op, [-m.a, m.a, m.worst_case_variance()])
            elif op == OP_PERTURB:
                reply(out, op, m.perturb(args, seed))
            elif op == OP_VARIANCE:
                reply(out, op, m.variance(args))
            elif op == OP_DENSITY:
                reply(out, op, m.density(args[0::2], args[1::2]))
            elif op == OP_CDF:
                reply(out, op, m.cdf(args[0::2], args[1::2]))
            elif op == OP_BUCKET:
                reply(out, op, m.bucket(args[0::4], args[1::4], args[2::4], args[3::4]))
            else:
                refuse(out, op, f"operation {op} is not offered")
        except ValueError as e:
            refuse(out, op, str(e))


def time_draws(n, eps, chunk=4096):
    """Time n draws in this process, in ldpbench's batches of 4096 and in
    one call: what the pipe's cost is measured against."""
    m = PM(eps)
    x = np.random.default_rng(1).uniform(-1, 1, n)
    best_chunked = best_whole = float("inf")
    for rep in range(20):
        t0 = time.perf_counter()
        for i in range(0, n, chunk):
            m.perturb(x[i:i + chunk], rep * n + i)
        best_chunked = min(best_chunked, time.perf_counter() - t0)
        t0 = time.perf_counter()
        m.perturb(x, rep)
        best_whole = min(best_whole, time.perf_counter() - t0)
    print(json.dumps({"n": n, "eps": eps, "chunk": chunk, "chunked_seconds": best_chunked, "whole_seconds": best_whole}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--time":
        time_draws(int(sys.argv[2]), float(sys.argv[3]))
    else:
        serve()
